#!/usr/bin/env bash
# Set up (tools/setup.sh) and run every test: the normal build, then the
# same suite under AddressSanitizer and UndefinedBehaviorSanitizer (less the
# random differential runs, already run once, which compile one OpenCL
# program each and would take many minutes under the sanitizers; the tests
# on Oclgrind, suite oclgrind and diff-oclgrind, are not registered in a
# sanitized build: Oclgrind preloads its runtime, which ASan's must
# precede; the rewrite rules' search of the samples goes to depth 2, where
# every rule is still applied, not 3, which takes 10 minutes there; the
# samples run at one point of their sizes and with one launch option a
# kernel, DPIA_SAMPLES_ONE_POINT, the normal build having run them all), then
# valgrind memcheck of the command line, then a short run of each fuzz
# target (fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh --sanitize
# one PoCL kernel cache for both stages (tests/pocl_cache.py): the
# drivers that run the samples build each kernel once, the sanitized
# stage's runs finding the machine code of the normal stage's
DPIA_TEST_POCL_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/dpia-pocl.XXXXXX")
# and one cache of nvcc's verdicts on the CUDA kernels dpia verifies
# (tests/cuda/nvcc_cache.py): the sanitized stage's test cuda translates
# the same texts and replays the normal stage's compiles
DPIA_TEST_NVCC_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/dpia-nvcc.XXXXXX")
export DPIA_TEST_POCL_CACHE DPIA_TEST_NVCC_CACHE
trap 'rm -rf "$DPIA_TEST_POCL_CACHE" "$DPIA_TEST_NVCC_CACHE"' EXIT
meson test -C build --print-errorlogs --no-suite valgrind
# intercept_tls_get_addr=0: GCC 12's sanitizer runtime (up to GCC 13 and
# LLVM 16) takes a dynamic TLS block that happens to start 16 bytes past a
# page boundary for one with a pre-2.25 glibc header, and reads its bounds
# from the two words before it; LeakSanitizer's tracer then dies ("Tracer
# caught signal 11") at the exit of a run that passed.  Seen in
# pipeline-run after PoCL runs (its LLVM uses dynamic TLS), not
# reproducible at will, as a placement of malloc is.  Without the
# interceptor LeakSanitizer scans no dynamic TLS for pointers, which could
# only add reports (libdpia keeps nothing in TLS; the thread_local state of
# generated headers is in test programs' static TLS, still scanned).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions="$PWD/tools/lsan.supp":print_suppressions=0 DPIA_SAMPLES_ONE_POINT=1 TEST_REWRITE_DEPTH=2 \
  meson test -C build-san --print-errorlogs --no-suite diff --no-suite valgrind
echo "== valgrind memcheck of the command line on every sample"
meson test -C build --print-errorlogs --suite valgrind
echo "== fuzzing: each target for 20 s from the seed corpus (fuzz/run.sh)"
for target in parse check translate size; do
  FUZZ_SEED=1 ./fuzz/run.sh "$target" 20
done
