#!/usr/bin/env bash
# Set up (tools/setup.sh) and run every test: the normal build, then the
# same suite under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh --sanitize
meson test -C build --print-errorlogs
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions="$PWD/tools/lsan.supp":print_suppressions=0 \
  meson test -C build-san --print-errorlogs
