#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) over kspeed's sources. Uses its own build folder configured without
# precompiled headers (GCC's .gch files are unreadable to clang).
# Usage: scripts/tidy.sh [FILE...]   (default: every .cpp under src/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$root" -B "$root/build-tidy" -G Ninja -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
cmake --build "$root/build-tidy" --target kspeed_embedded_data >/dev/null 2>&1 || true
if [ $# -eq 0 ]; then
  mapfile -t files < <(find "$root/src" -name '*.cpp' | sort)
else
  files=("$@")
fi
clang-tidy -p "$root/build-tidy" --quiet --extra-arg=-Wno-unknown-warning-option "${files[@]}"
