#!/usr/bin/env bash
# Runs every fuzz target of the main module for a while each (default 60 s),
# one after another, and prints one line per target. Exits 1 if any failed;
# a failing input is written under the package's testdata/fuzz as usual.
# New inputs are not minimized (-fuzzminimizetime 0s): minimizing the large
# seeds of the index's file targets (real segments and logs) stalls the
# fuzzer for minutes, at 5 executions a minute instead of 1,600 a second.
#   scripts/fuzz-all.sh [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
status=0
while IFS=: read -r file name; do
  pkg=./$(dirname "$file")
  start=$(date +%s)
  if out=$(go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s" -fuzzminimizetime 0s 2>&1); then
    execs=$(printf '%s\n' "$out" | grep -o 'execs: [0-9]*' | tail -1)
    echo "ok   $pkg $name $(( $(date +%s) - start )) s, ${execs:-execs: ?}"
  else
    echo "FAIL $pkg $name"
    printf '%s\n' "$out" | tail -20
    status=1
  fi
done < <(grep -ro --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' --exclude-dir=beam --exclude-dir=bench . |
  sed 's|^\./||; s|:func |:|' | sort)
exit $status
