#!/usr/bin/env bash
# Install what is missing (Debian 12, as root), then configure and build dpia
# in build/ (and, with --sanitize, an ASan+UBSan build in build-san/).
set -euo pipefail
cd "$(dirname "$0")/.."

# cmake: the CMake package test (tests/api/cmake_test.py)
# g++, llvm-15-dev, zlib1g-dev, libxml2-dev: the C++ embedding sample and
# dpia-clang-check (verify/clang_helper.cpp: clang's parser linked
# statically, for the CLI's verification speed, bench/throughput.c)
packages=(gcc g++ libc6-dev pkg-config python3 meson ninja-build
          libclang-15-dev llvm-15-dev zlib1g-dev libxml2-dev libpcre2-dev
          ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd
          valgrind clang-14 libclang-rt-14-dev cmake)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

werror=false
[ "${CI:-}" = "true" ] && werror=true

configure() { # dir, extra meson options...
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" -Dwerror=$werror "$@" >/dev/null
  fi
  # quiet when it works; the whole build log when it does not
  local log
  log=$(mktemp)
  if ! ninja -C "$dir" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: building $dir failed" >&2
    return 1
  fi
  rm -f "$log"
}

configure build
if [ "${1:-}" = "--sanitize" ]; then
  configure build-san -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
fi
echo "setup: built build/dpia"
