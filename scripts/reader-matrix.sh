#!/usr/bin/env bash
# Which of kspeed's benchmark commands read each file of a data folder: `kspeed audit FILE`,
# `kspeed diff FILE COPY` (the file against a copy of itself, so the same-file refusal does not
# apply) and `kspeed plan FILE --effect 1%`. Each cell is `read` (exit 0) or `refused (n)` (exit
# 2), n numbering the distinct reasons listed under the table (the error with the file's path
# written FILE); any other exit is a failure, marked FAIL, and the script exits 1. A file of
# several runs that diff compares one at a time is tried again with `--run 1`: `read (--run N)`
# when that is read.
#
# Usage: scripts/reader-matrix.sh KSPEED DATA [FOLDER...]   (FOLDERs under DATA; default bench
# serving workloads). docs/audit.md shows its output over the shared data.
set -uo pipefail
kspeed=$1
data=$2
shift 2
folders=("$@")
[ ${#folders[@]} -eq 0 ] && folders=(bench serving workloads)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
declare -A reason_number
reasons=()
failed=0

cell() {  # $1: exit code, $2: stderr file, $3: the data file's path; sets `result`
  local code=$1 text
  if [ "$code" = 0 ]; then
    result="read"
    return
  fi
  if [ "$code" != 2 ]; then
    failed=1
    result="FAIL (exit $code)"
    return
  fi
  text=$(head -n 1 "$2" | sed -e 's/^kspeed: error: //' -e "s|$3|FILE|g" -e "s|$scratch/copy[^ :]*|COPY|g")
  if [ -z "${reason_number[$text]+x}" ]; then
    reasons+=("$text")
    reason_number[$text]=${#reasons[@]}
  fi
  result="refused (${reason_number[$text]})"
}

echo "| file | audit | diff | plan |"
echo "| --- | --- | --- | --- |"
for folder in "${folders[@]}"; do
  while IFS= read -r path; do
    name=${path#"$data"/}
    copy="$scratch/copy-$(basename "$path")"
    cp "$path" "$copy"
    "$kspeed" audit "$path" >/dev/null 2>"$scratch/err"
    cell $? "$scratch/err" "$path"
    audit=$result
    "$kspeed" diff "$path" "$copy" >/dev/null 2>"$scratch/err"
    code=$?
    if [ "$code" = 2 ] && grep -q -- "--run N" "$scratch/err" &&
      "$kspeed" diff "$path" "$copy" --run 1 >/dev/null 2>&1; then
      diff="read (\`--run N\`)"
    else
      cell $code "$scratch/err" "$path"
      diff=$result
    fi
    "$kspeed" plan "$path" --effect 1% >/dev/null 2>"$scratch/err"
    cell $? "$scratch/err" "$path"
    plan=$result
    rm -f "$copy"
    echo "| \`$name\` | $audit | $diff | $plan |"
  done < <(find "$data/$folder" -type f ! -name 'LICENSE*' ! -name 'NOTICE*' ! -name 'README*' | LC_ALL=C sort)
done
echo
for i in "${!reasons[@]}"; do
  echo "($((i + 1))) ${reasons[$i]}"
done
exit "$failed"
