#!/usr/bin/env bash
# Configure and build the libFuzzer targets in build-fuzz/ (fuzz/README.md):
# clang with -fsanitize=fuzzer-no-link,address,undefined for the library,
# -fsanitize=fuzzer for the four targets.  Usage: fuzz/build.sh [BUILDDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-fuzz}
cc=${FUZZ_CC:-}
if [ -z "$cc" ]; then
  for c in clang-14 clang; do
    if command -v "$c" >/dev/null; then cc=$c; break; fi
  done
fi
[ -n "$cc" ] || { echo "fuzz/build.sh: clang not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 1; }
werror=false
[ "${CI:-}" = "true" ] && werror=true
if [ ! -f "$dir/build.ninja" ]; then
  CC=$cc meson setup "$dir" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized -Dwerror=$werror >/dev/null
fi
ninja -C "$dir" fuzz/fuzz_parse fuzz/fuzz_check fuzz/fuzz_translate fuzz/fuzz_size >/dev/null
echo "fuzz/build.sh: built $dir/fuzz/fuzz_{parse,check,translate,size} with $cc"
