#!/usr/bin/env bash
# Install what is missing (Debian 12, as root), then configure and build dpia
# in build/ (and, with --sanitize, an ASan+UBSan build in build-san/).
set -euo pipefail
cd "$(dirname "$0")/.."

# python3-pyopencl ... python3-venv: the Python package (python/, tests/python)
# and the Kernel Tuner sample (samples/tune, its venv in build/tune-venv)
# cmake: the CMake package test (tests/api/cmake_test.py)
# oclgrind: a simulated OpenCL device that checks every memory access for
# data races between work-items and out-of-bounds accesses, which PoCL
# (work-items one after another between barriers) does not show: the
# second oracle of the samples and random programs (tests/oclgrind,
# run_diff.py --oracle oclgrind), and a device with small limits for the
# device-limit errors of dpia run (E0007)
# g++, llvm-15-dev, zlib1g-dev, libxml2-dev: the C++ embedding sample and
# dpia-clang-check (verify/clang_helper.cpp: clang's parser linked
# statically, for the CLI's verification speed, bench/throughput.c)
packages=(gcc g++ libc6-dev pkg-config python3 meson ninja-build
          libclang-15-dev llvm-15-dev zlib1g-dev libxml2-dev libpcre2-dev
          ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd
          valgrind clang-14 libclang-rt-14-dev cmake oclgrind
          python3-pyopencl python3-numpy python3-setuptools python3-wheel python3-pip python3-venv)
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
  else
    # a directory configured before: the options still apply (-Dbench=true
    # to one configured without it)
    meson configure "$dir" "$@" >/dev/null
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

# -Dbench=true: the benchmarks (bench/), off in a default build, and their
# test bench-peer-check
configure build -Dbench=true

# Kernel Tuner (PyPI) for samples/tune/tune_kt.py and its suite test, in a
# venv of its own: it needs numpy 2, which Debian's pyopencl (numpy 1) is
# not built for, so the venv takes pyopencl from PyPI too.  Without network
# the test installs it itself or is skipped (77).
if [ ! -x build/tune-venv/bin/python ] ||
   ! build/tune-venv/bin/python -c 'import kernel_tuner, pyopencl' 2>/dev/null; then
  if /usr/bin/python3 -m venv build/tune-venv &&
     build/tune-venv/bin/python -m pip install -q kernel_tuner pyopencl; then
    echo "setup: Kernel Tuner in build/tune-venv"
  else
    echo "setup: could not install Kernel Tuner in build/tune-venv (no network?); tests/tune installs it or skips" >&2
  fi
fi
# Ray (PyPI) for dpia.explore(address=...), candidates run on a Ray
# cluster, and its test tests/explore/explore_python.py (a Ray head on
# 127.0.0.1, two workers), in a venv of its own, at the version the
# package is tested with: the extra "ray" of python/pyproject.toml
# (dpia.exploration.RAY_REQUIREMENT, which the test compares).  Under
# CI=true the test fails without it; elsewhere it is skipped.
ray_requirement=$(sed -n 's/^ray = \["\(ray==[0-9.]*\)"\]$/\1/p' python/pyproject.toml)
if [ ! -x build/ray-venv/bin/python ] ||
   ! build/ray-venv/bin/python -c "import importlib.metadata as m, sys; sys.exit(m.version('ray') != '${ray_requirement#ray==}')" 2>/dev/null; then
  if /usr/bin/python3 -m venv build/ray-venv &&
     build/ray-venv/bin/python -m pip install -q "$ray_requirement"; then
    echo "setup: $ray_requirement in build/ray-venv"
  else
    echo "setup: could not install $ray_requirement in build/ray-venv (no network?); tests/explore's explore-python skips (fails under CI)" >&2
  fi
fi
if [ "${1:-}" = "--sanitize" ]; then
  configure build-san -Dbench=true -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
fi
echo "setup: built build/dpia"
