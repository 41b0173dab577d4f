#!/usr/bin/env bash
# Runs every libFuzzer target of walletops-fuzz for FUZZ_SECONDS each (default 20), seeded from
# fuzz/corpus/<target> (kept in the repository) plus a working corpus under .build/fuzz-corpus; a crash,
# a timeout or an out-of-memory input is left in .build/fuzz-artifacts and fails the run. Prints one line
# per target: its executions and what it found. `make fuzz` builds the binary first.
set -uo pipefail
cd "$(dirname "$0")/.."
binary=${FUZZ_BINARY:-.build/fuzz/debug/walletops-fuzz}
seconds=${FUZZ_SECONDS:-20}
targets=${FUZZ_TARGETS:-$(ls fuzz/corpus)}
mkdir -p .build/fuzz-artifacts
status=0
printf '%-12s %12s %10s  %s\n' target executions exec/s found
for target in $targets; do
  work=.build/fuzz-corpus/$target
  mkdir -p "$work"
  log=.build/fuzz-artifacts/$target.log
  WALLETOPS_FUZZ_TARGET=$target "$binary" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix=".build/fuzz-artifacts/$target-" \
    "$work" "fuzz/corpus/$target" >"$log" 2>&1
  code=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  if [ "$code" -eq 0 ]; then
    found="nothing"
  else
    status=1
    found="FAILED (exit $code): $(grep -m1 -E 'ERROR|SUMMARY|deadly|Fatal' "$log" | cut -c1-100); see $log"
  fi
  printf '%-12s %12s %10s  %s\n' "$target" "${runs:-?}" "${rate:-?}" "$found"
done
exit $status
