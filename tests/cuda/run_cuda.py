#!/usr/bin/env python3
"""The CUDA target (docs/targets.md): every sample, every program of
tests/pipeline and tests/vectors translated with --target=cuda (which
verifies each kernel with `nvcc -ptx`, every warning an error, and runs the
target-neutral semantic and race checks), and each sample's header
(--emit=header --target=cuda) compiled with `nvcc -c`, all headers in one
nvcc call; a pipeline's launcher built and run for its refusals (no GPU
is needed: they happen before any CUDA call).  Then the kept outputs: each X.dpia here against X.cu (--update
rewrites them).  The nvcc runs (seconds each) go --jobs at a time, by
default a CPU each; the failures are reported in the programs' order.

nvcc is required: it is installed with the CUDA toolkit on the machines
that build dpia (/usr/local/cuda/bin/nvcc), so its absence is a failure,
not a skip.  Programs that fail for the OpenCL target too (a test of an
error) are expected to fail here with the same exit status; a foreign
function whose body is OpenCL C (clamp) is not CUDA C++ and is rejected
with E0327 (EXPECTED: a part of its message).

Under DPIA_TEST_NVCC_CACHE=DIR (tools/test.sh) dpia's nvcc is
nvcc_cache.py, which keeps nvcc's verdict on each text in DIR: the
sanitized stage, translating the same texts, replays the normal stage's
compiles (cache_replay checks that a replay is nvcc's own)."""
import argparse, concurrent.futures, glob, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# a kernel whose static shared memory exceeds the 48 KiB CUDA compiles
# (gemmBlocks and gemmAnyBlocks keep 128 KiB; for OpenCL it is E0007 at the
# launch): its header is not compiled (docs/targets.md, limits)
TOO_MUCH_SHARED = {"samples/gemm.dpia", "samples/gemm_any.dpia"}
EXPECTED = {"tests/pipeline/shared_defs.dpia": "is not valid CUDA C++"}


def run(argv, env=None):
    return subprocess.run(argv, capture_output=True, text=True, env=env)


def translate(dpia, env, p, cl):
    """p translated and verified (nvcc -ptx): its failures, and whether it
    counts as translated; cl is its OpenCL translation's exit status."""
    cu = run([dpia, "translate", "--target=cuda", p], env)
    if p in EXPECTED:
        if EXPECTED[p] not in cu.stderr or cu.returncode == 0:
            return [f"FAIL {p}: expected {EXPECTED[p]}, got exit {cu.returncode}:\n{cu.stderr}"], False
        return [], False
    if cl != 0:
        if cu.returncode != cl:
            return [f"FAIL {p}: exit {cu.returncode} for cuda, {cl} for opencl:\n{cu.stderr}"], False
        return [], False
    if cu.returncode != 0 or "__global__" not in cu.stdout:
        return [f"FAIL {p}: exit {cu.returncode}:\n{cu.stderr}"], False
    return [], True


def compile_headers(nvcc, tmp, headers):
    """every header in one translation unit: they must coexist"""
    unit = os.path.join(tmp, "headers.cu")
    with open(unit, "w") as f:
        for h in headers:
            f.write(f'#include "{h}"\n')
    r = run([nvcc, "-c", "-std=c++17", "--Werror", "all-warnings", "-o", os.path.join(tmp, "h.o"), unit])
    if r.returncode != 0:
        return [f"FAIL headers do not compile with nvcc -c:\n{r.stdout}{r.stderr}"], False
    return [], False


PIPELINE_CHECKS = r"""
#include <stdint.h>
#include "dot_full.cuh"
/* a pipeline's launcher refuses bad sizes and aliasing before any CUDA
 * call, so this runs without a GPU: fake device pointers are never used */
static int expect(int rc, int want, const char *text) {
  if (rc == want && strcmp(dpia_last_error_message(), text) == 0) return 0;
  printf("FAIL: %d '%s', expected %d '%s'\n", rc, dpia_last_error_message(), want, text);
  return 1;
}
int main() {
  float *a = reinterpret_cast<float *>(uintptr_t{1} << 20), *b = reinterpret_cast<float *>(uintptr_t{1} << 30);
  int fails = expect(dpia_dot_launch(0, a, b, b, 1000), DPIA_ERROR_PRECONDITION,
                     "dot: precondition N >= 2048 does not hold for N = 1000");
  fails += expect(dpia_dot_launch(0, a, b, b, -4), DPIA_ERROR_SIZE, "dot: size N = -4 is negative");
  fails += expect(dpia_dot_launch(0, b, b, a, 262144), DPIA_ERROR_ALIAS, "dot: output output overlaps input xs");
  return fails;
}
"""


def pipeline_checks(dpia, env, nvcc, tmp):
    """a pipeline's CUDA launcher (samples/dot_full.dpia) compiled, linked
    and run: its refusals happen before any CUDA call, so no GPU is needed"""
    d = os.path.join(tmp, "pipeline")
    os.makedirs(d)
    h = os.path.join(d, "dot_full.cuh")
    r = run([dpia, "translate", "--no-verify", "--target=cuda", "--emit=header", "samples/dot_full.dpia", "-o", h], env)
    if r.returncode != 0:
        return [f"FAIL samples/dot_full.dpia: header: {r.stderr}"], False
    unit, exe = os.path.join(d, "checks.cu"), os.path.join(d, "checks")
    with open(unit, "w") as f:
        f.write(PIPELINE_CHECKS)
    r = run([nvcc, "-std=c++17", "--Werror", "all-warnings", "-o", exe, unit])
    if r.returncode != 0:
        return [f"FAIL the pipeline launcher's checks do not build:\n{r.stdout}{r.stderr}"], False
    r = run([exe])
    if r.returncode != 0:
        return [f"FAIL the pipeline launcher's checks:\n{r.stdout}{r.stderr}"], False
    return [], False


def kept(dpia, env, p, update):
    """the kept output of this directory: X.dpia against X.cu (--update rewrites it)"""
    r = run([dpia, "translate", "--target=cuda", p], env)
    want_path = p[:-5] + ".cu"
    if update and r.returncode == 0:
        with open(want_path, "w") as f:
            f.write(r.stdout)
    want = open(want_path).read() if os.path.exists(want_path) else None
    if r.returncode != 0 or r.stdout != want:
        return [f"FAIL {p}: the CUDA differs from {want_path} (exit {r.returncode}):\n{r.stderr}"], False
    return [], False


def cache_replay(nvcc, tmp):
    """nvcc_cache.py replays a compile: a kernel with an error compiled
    at one path, then the same text at another, in a cache of their own:
    the second is not compiled (its entry is the only one) and says what
    nvcc said, naming its own file, with nvcc's exit status"""
    cache = os.path.join(tmp, "cache-check")
    env = dict(os.environ, DPIA_TEST_NVCC_REAL=nvcc, DPIA_TEST_NVCC_CACHE=cache)
    said = []
    for d in ("first", "second"):
        os.makedirs(os.path.join(tmp, d))
        src = os.path.join(tmp, d, "kernel.cu")
        with open(src, "w") as f:
            f.write("__global__ void k(float *x) { x[0] = undeclared; }\n")
        r = subprocess.run([sys.executable, os.path.join(HERE, "nvcc_cache.py"), "-ptx", "-std=c++17", "-o", "/dev/null",
                            src], capture_output=True, text=True, env=env)
        said.append((r.returncode, r.stdout + r.stderr, src))
    (code1, out1, src1), (code2, out2, src2) = said
    if not (code1 != 0 and code1 == code2 and src1 in out1 and out2 == out1.replace(src1, src2)
            and os.path.isdir(cache) and len(os.listdir(cache)) == 1):
        return [f"FAIL nvcc_cache.py does not replay nvcc: exit {code1} then {code2}, entries "
                f"{os.listdir(cache) if os.path.isdir(cache) else None}:\n{out1}\n{out2}"], False
    return [], False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dpia", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--update", action="store_true")
    # nvcc dominates (seconds a program) and is single-threaded: its runs
    # in parallel, the results reported in the programs' order
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    nvcc = os.environ.get("DPIA_NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        print("FAIL: nvcc not found (DPIA_NVCC, PATH, /usr/local/cuda/bin)")
        return 1
    env = dict(os.environ, DPIA_NVCC=nvcc)
    args.dpia = os.path.abspath(args.dpia)  # meson gives it relative to the build directory
    os.chdir(args.root)
    progs = sorted(glob.glob("samples/*.dpia") + glob.glob("tests/pipeline/*.dpia") + glob.glob("tests/vectors/*.dpia"))
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        if os.environ.get("DPIA_TEST_NVCC_CACHE"):
            # dpia's verifications through nvcc_cache.py (tools/test.sh):
            # the sanitized stage replays the normal stage's compiles of
            # the same texts; this script's own nvcc runs stay real
            wrapper = os.path.join(tmp, "nvcc")
            with open(wrapper, "w") as f:
                f.write(f"#!/bin/sh\nexec '{sys.executable}' '{os.path.join(HERE, 'nvcc_cache.py')}' \"$@\"\n")
            os.chmod(wrapper, 0o755)
            env = dict(env, DPIA_NVCC=wrapper, DPIA_TEST_NVCC_REAL=nvcc)
            fails += cache_replay(nvcc, tmp)[0]
        # first the quick translations without nvcc: each program's OpenCL
        # exit status (a test of an error fails for both targets) and the
        # samples' headers
        cl = {}
        headers = []
        for p in progs:
            cl[p] = run([args.dpia, "translate", "--no-verify", p], env).returncode
            if p.startswith("samples/") and p not in TOO_MUCH_SHARED and p not in EXPECTED and cl[p] == 0:
                h = os.path.join(tmp, os.path.basename(p)[:-5] + ".cuh")
                r = run([args.dpia, "translate", "--no-verify", "--target=cuda", "--emit=header", p, "-o", h], env)
                if r.returncode != 0:
                    fails.append(f"FAIL {p}: header: {r.stderr}")
                    continue
                headers.append(h)
        # then every nvcc run, the longest (the headers' -c) first
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            jobs = [pool.submit(compile_headers, nvcc, tmp, headers)]
            jobs.append(pool.submit(pipeline_checks, args.dpia, env, nvcc, tmp))
            jobs += [pool.submit(translate, args.dpia, env, p, cl[p]) for p in progs]
            jobs += [pool.submit(kept, args.dpia, env, p, args.update) for p in sorted(glob.glob("tests/cuda/*.dpia"))]
            results = [j.result() for j in jobs]
    translated = 0
    for msgs, ok in results:
        fails += msgs
        translated += ok
    for f in fails:
        print(f)
    print(f"{translated} programs translated and verified with nvcc, {len(headers)} headers compiled, "
          f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
