#!/usr/bin/env bash
# Set up (tools/setup.sh) and run every test: the normal build, then the
# same suite under AddressSanitizer and UndefinedBehaviorSanitizer (less the
# random differential runs, already run once, which compile one OpenCL
# program each and would take many minutes under the sanitizers), then
# valgrind memcheck of the command line, then a short run of each fuzz
# target (fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh --sanitize
meson test -C build --print-errorlogs --no-suite valgrind
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions="$PWD/tools/lsan.supp":print_suppressions=0 DPIA_SAMPLES_ONE_POINT=1 \
  meson test -C build-san --print-errorlogs --no-suite diff --no-suite valgrind
echo "== valgrind memcheck of the command line on every sample"
meson test -C build --print-errorlogs --suite valgrind
echo "== fuzzing: each target for 20 s from the seed corpus (fuzz/run.sh)"
for target in parse check translate size; do
  FUZZ_SEED=1 ./fuzz/run.sh "$target" 20
done
