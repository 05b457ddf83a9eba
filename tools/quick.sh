#!/usr/bin/env bash
# The quick suite, for after each change (under 5 minutes on 2 cores): the
# unit tests, the parser, the checker and its error index, translation and
# code generation against their goldens, the race check on the samples,
# the stable outputs, FileCheck, dpia test and the fuzz regressions.  It
# leaves to ./tools/test.sh what runs kernels on a device (run, diff,
# oclgrind, header, python, api, embed, search, tune), the long command
# line tests (cli, limits, space) and the sanitizer, valgrind and fuzzing
# passes.  Builds build/ first if needed (tools/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || ./tools/setup.sh
ninja -C build >/dev/null
exec meson test -C build --print-errorlogs \
  --suite unit --suite parse --suite check --suite translate --suite codegen --suite print \
  --suite batch --suite stable --suite filecheck --suite dpiatest --suite fuzz-regress \
  --suite throughput --suite verify "$@"
