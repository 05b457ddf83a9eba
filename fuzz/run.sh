#!/usr/bin/env bash
# Run one libFuzzer target for a given time (fuzz/README.md).
#   fuzz/run.sh TARGET SECONDS [libFuzzer options...]
# TARGET: parse | check | translate | size.  Builds the targets first
# (fuzz/build.sh).  The corpus lives in build-fuzz/corpus/TARGET, seeded
# from every .dpia file under samples/ and tests/ (size: from fuzz/seeds/size);
# crashes, leaks and timeouts are saved as build-fuzz/artifacts/TARGET-*;
# the log is build-fuzz/logs/TARGET.log.  Prints libFuzzer's final figures
# (executions, exec/s, cov, ft) and exits non-zero if anything was found.
# FUZZ_SEED=n fixes libFuzzer's random seed; FUZZ_BUILD=dir another build.
set -euo pipefail

main() {
  cd "$(dirname "$0")/.."
  if [ $# -lt 2 ]; then
    echo "usage: fuzz/run.sh parse|check|translate|size SECONDS [libFuzzer options...]" >&2
    exit 2
  fi
  target=$1 seconds=$2
  shift 2
  case $target in parse|check|translate|size) ;; *) echo "fuzz/run.sh: unknown target '$target'" >&2; exit 2;; esac
  dir=${FUZZ_BUILD:-build-fuzz}
  ./fuzz/build.sh "$dir" >/dev/null
  corpus=$dir/corpus/$target
  mkdir -p "$corpus" "$dir/artifacts" "$dir/logs"
  if [ "$target" = size ]; then
    cp -n fuzz/seeds/size/* "$corpus"/ 2>/dev/null || true
  else
    # seeds named after their path, so a seed that changes is added anew
    find samples tests -name '*.dpia' -print0 | while IFS= read -r -d '' f; do
      cp -n "$f" "$corpus/seed-$(echo "$f" | tr / _)"
    done
  fi
  opts=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1
        -artifact_prefix="$dir/artifacts/$target-")
  if [ "$target" = size ]; then opts+=(-max_len=256); else opts+=(-max_len=8192 -dict=fuzz/dpia.dict); fi
  [ -n "${FUZZ_SEED:-}" ] && opts+=(-seed="$FUZZ_SEED")
  log=$dir/logs/$target.log
  echo "fuzz: $target for ${seconds}s (corpus $corpus, log $log)"
  status=0
  # libFuzzer's timeout handler can deadlock when the alarm interrupts malloc:
  # a run that outlives its time by a minute is killed, and the unit it was
  # working on (printed in hex before the handler writes it) is saved here
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    timeout --signal=KILL $((seconds + 60)) \
    "$dir/fuzz/fuzz_$target" "${opts[@]}" "$@" "$corpus" >"$log" 2>&1 || status=$?
  if [ $status -eq 137 ] && grep -q '^0x' "$log"; then
    hung=$dir/artifacts/$target-hang-$(date +%s)
    grep '^0x' "$log" | tail -n 1 | python3 -c 'import sys; text = sys.stdin.read().strip().strip(","); \
      sys.stdout.buffer.write(bytes(int(x, 16) for x in text.split(",")) if text else b"")' >"$hung"
    echo "fuzz: $target hung; the unit is saved as $hung" >>"$log"
  fi
  # the last status line (#N DONE or the last pulse) and the final stats
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
  echo "fuzz: $target: ${runs:-?} runs, ${rate:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
  if [ $status -ne 0 ]; then
    echo "fuzz: $target FOUND A PROBLEM (exit $status); from $log:" >&2
    grep -E 'ERROR|SUMMARY|runtime error|property failed|internal error|Test unit written|artifact|hung' "$log" | head -n 20 >&2 || true
    exit 1
  fi
}

# all of it parsed before it runs: editing this file cannot break a run
main "$@"
exit
