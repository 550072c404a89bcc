#!/usr/bin/env bash
# The layers include only from below (docs/architecture.md, "Layers"): every
# `#include "kspeed/<folder>/..."` in src/<layer>/ and include/kspeed/<layer>/ must name a folder
# that layer may use. Prints each crossing as file:line and exits 1 when there is one.
#   engine   the model, below everything: includes only itself
#   profile  trace analysis: engine
#   io       readers: engine, profile
#   report   views and documents: engine, profile (never a reader's type)
#   cli      flags to options, wiring: everything
# Inside the engine, the rooms (docs/architecture.md, "Rooms") follow their own rules: a file in
# src/engine/<room>/ or include/kspeed/engine/<room>/ must never include a room its rule names,
# and the vocabulary (the files directly in src/engine/ and include/kspeed/engine/) includes no
# room at all: it is below every one of them.
#   deployment  never chain, serving   (the deployment is below the chain; it knows no simulator)
#   serving     never chain            (the simulator prices steps, not the Amdahl chain)
#   verify      never serving, deployment (statistics stand apart)
# Usage: check_layers.sh [SOURCE_DIR]   (a missing layer folder is an error: the check must see
# the tree it guards). With --self-test it also proves it catches a planted crossing.
set -euo pipefail

root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}

declare -A allowed=(
  [engine]="engine"
  [profile]="engine profile"
  [io]="engine profile io"
  [report]="engine profile report"
  [cli]="engine profile io report cli"
)

declare -A room_never=(
  [vocabulary]="chain deployment roofline serving verify"
  [deployment]="chain serving"
  [serving]="chain"
  [verify]="serving deployment"
)

# Prints each include that breaks a room's rule; returns the number found (at most 255).
check_rooms() {
  local tree=$1 crossings=0 hit file line room target rest
  local dirs=()
  for dir in "$tree/src/engine" "$tree/include/kspeed/engine"; do
    [[ -d $dir ]] && dirs+=("$dir")
  done
  ((${#dirs[@]} > 0)) || return 0
  while IFS= read -r hit; do
    file=${hit%%:*}
    line=${hit#*:}
    line=${line%%:*}
    rest=${file#"$tree"/src/engine/}
    [[ $rest == "$file" ]] && rest=${file#"$tree"/include/kspeed/engine/}
    if [[ $rest == */* ]]; then room=${rest%%/*}; else room=vocabulary; fi
    target=$(sed -E 's/.*#include "kspeed\/engine\/([a-z_]+)\/.*/\1/' <<<"$hit")
    [[ $target == "$room" ]] && continue
    if [[ " ${room_never[$room]:-} " == *" $target "* ]]; then
      echo "${file#"$tree"/}:$line: engine room $room includes engine/$target/ ($room never includes: ${room_never[$room]})"
      crossings=$((crossings + 1))
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"kspeed/engine/[a-z_]+/' "${dirs[@]}" || true)
  return $((crossings > 255 ? 255 : crossings))
}

check_tree() {
  local tree=$1 crossings=0 layer dir file line target
  for layer in engine profile io report cli; do
    for dir in "$tree/src/$layer" "$tree/include/kspeed/$layer"; do
      [[ $layer == cli && $dir == */include/kspeed/cli ]] && [[ ! -d $dir ]] && continue
      if [[ ! -d $dir ]]; then
        echo "check_layers: $dir is missing: run me from the repository (or pass its path)" >&2
        return 2
      fi
      while IFS= read -r hit; do
        file=${hit%%:*}
        line=${hit#*:}
        line=${line%%:*}
        target=$(sed -E 's/.*#include "kspeed\/([a-z_]+)\/.*/\1/' <<<"$hit")
        if [[ " ${allowed[$layer]} " != *" $target "* ]]; then
          echo "${file#"$tree"/}:$line: $layer includes kspeed/$target/ ($layer may include only: ${allowed[$layer]})"
          crossings=$((crossings + 1))
        fi
      done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"kspeed/[a-z_]+/' "$dir" || true)
    done
  done
  local rooms=0
  check_rooms "$tree" || rooms=$?
  crossings=$((crossings + rooms))
  if ((crossings > 0)); then
    echo "check_layers: $crossings include(s) cross the layers or the engine's rooms; move the shared type below both" >&2
    return 1
  fi
  return 0
}

if [[ ${2:-} == --self-test ]]; then
  # A copy of the layer folders with one planted crossing must fail, naming the file.
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  for layer in engine profile io report cli; do
    mkdir -p "$scratch/src/$layer" "$scratch/include/kspeed/$layer"
  done
  printf '#include "kspeed/engine/a.hpp"\n' >"$scratch/src/report/fine.cpp"
  check_tree "$scratch" >/dev/null || { echo "self-test: a clean tree failed" >&2; exit 1; }
  printf '#include "kspeed/io/requests/request_log.hpp"\n' >"$scratch/include/kspeed/report/bad.hpp"
  if out=$(check_tree "$scratch" 2>/dev/null); then
    echo "self-test: a report -> io include passed" >&2
    exit 1
  fi
  [[ $out == *"include/kspeed/report/bad.hpp:1: report includes kspeed/io/"* ]] ||
    { echo "self-test: unexpected message: $out" >&2; exit 1; }
  printf '#include "kspeed/profile/classify.hpp"\n' >"$scratch/src/engine/bad.cpp"
  rm "$scratch/include/kspeed/report/bad.hpp"
  out=$(check_tree "$scratch" 2>/dev/null) && { echo "self-test: engine -> profile passed" >&2; exit 1; }
  [[ $out == *"src/engine/bad.cpp:1: engine includes kspeed/profile/"* ]] ||
    { echo "self-test: unexpected message: $out" >&2; exit 1; }
  rm "$scratch/src/engine/bad.cpp"
  # The rooms: chain may include serving; serving must not include chain; the vocabulary no room.
  mkdir -p "$scratch/src/engine/chain" "$scratch/src/engine/serving" "$scratch/include/kspeed/engine/verify"
  printf '#include "kspeed/engine/serving/replay.hpp"\n#include "kspeed/engine/phase.hpp"\n' \
    >"$scratch/src/engine/chain/fine.cpp"
  check_tree "$scratch" >/dev/null || { echo "self-test: chain -> serving failed" >&2; exit 1; }
  printf '#include "kspeed/engine/chain/amdahl.hpp"\n' >"$scratch/src/engine/serving/bad.cpp"
  out=$(check_tree "$scratch" 2>/dev/null) && { echo "self-test: serving -> chain passed" >&2; exit 1; }
  [[ $out == *"src/engine/serving/bad.cpp:1: engine room serving includes engine/chain/"* ]] ||
    { echo "self-test: unexpected message: $out" >&2; exit 1; }
  rm "$scratch/src/engine/serving/bad.cpp"
  printf '\n#include "kspeed/engine/deployment/step_calibration.hpp"\n' \
    >"$scratch/include/kspeed/engine/verify/bad.hpp"
  out=$(check_tree "$scratch" 2>/dev/null) && { echo "self-test: verify -> deployment passed" >&2; exit 1; }
  [[ $out == *"include/kspeed/engine/verify/bad.hpp:2: engine room verify includes engine/deployment/"* ]] ||
    { echo "self-test: unexpected message: $out" >&2; exit 1; }
  rm "$scratch/include/kspeed/engine/verify/bad.hpp"
  printf '#include "kspeed/engine/chain/workload.hpp"\n' >"$scratch/include/kspeed/engine/word.hpp"
  out=$(check_tree "$scratch" 2>/dev/null) && { echo "self-test: vocabulary -> chain passed" >&2; exit 1; }
  [[ $out == *"include/kspeed/engine/word.hpp:1: engine room vocabulary includes engine/chain/"* ]] ||
    { echo "self-test: unexpected message: $out" >&2; exit 1; }
  rm "$scratch/include/kspeed/engine/word.hpp"
fi

check_tree "$root"
echo "check_layers: no include crosses the layers"
