#!/usr/bin/env python3
"""The CUDA target (docs/targets.md): every sample, every program of
tests/pipeline and tests/vectors translated with --target=cuda (which
verifies each kernel with `nvcc -ptx`, every warning an error, and runs the
target-neutral semantic and race checks), and each sample's header
(--emit=header --target=cuda) compiled with `nvcc -c`, all headers in one
nvcc call.  Then the kept outputs: each X.dpia here against X.cu (--update
rewrites them).

nvcc is required: it is installed with the CUDA toolkit on the machines
that build dpia (/usr/local/cuda/bin/nvcc), so its absence is a failure,
not a skip.  Programs that fail for the OpenCL target too (a test of an
error) are expected to fail here with the same exit status; a foreign
function whose body is OpenCL C (clamp) is not CUDA C++ and is rejected
with E0327 (EXPECTED: a part of its message)."""
import argparse, glob, os, shutil, subprocess, sys, tempfile

# a kernel whose static shared memory exceeds the 48 KiB CUDA compiles
# (gemmBlocks keeps 128 KiB; for OpenCL it is E0007 at the launch):
# its header is not compiled (docs/targets.md, limits)
TOO_MUCH_SHARED = {"samples/gemm.dpia"}
EXPECTED = {"tests/pipeline/shared_defs.dpia": "is not valid CUDA C++"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dpia", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    nvcc = os.environ.get("DPIA_NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        print("FAIL: nvcc not found (DPIA_NVCC, PATH, /usr/local/cuda/bin)")
        return 1
    env = dict(os.environ, DPIA_NVCC=nvcc)
    args.dpia = os.path.abspath(args.dpia)  # meson gives it relative to the build directory
    os.chdir(args.root)
    progs = sorted(glob.glob("samples/*.dpia") + glob.glob("tests/pipeline/*.dpia") + glob.glob("tests/vectors/*.dpia"))
    fails = 0
    translated = 0
    with tempfile.TemporaryDirectory() as tmp:
        headers = []
        for p in progs:
            cu = subprocess.run([args.dpia, "translate", "--target=cuda", p], capture_output=True, text=True, env=env)
            cl = subprocess.run([args.dpia, "translate", "--no-verify", p], capture_output=True, text=True, env=env)
            if p in EXPECTED:
                if EXPECTED[p] not in cu.stderr or cu.returncode == 0:
                    print(f"FAIL {p}: expected {EXPECTED[p]}, got exit {cu.returncode}:\n{cu.stderr}")
                    fails += 1
                continue
            if cl.returncode != 0:
                if cu.returncode != cl.returncode:
                    print(f"FAIL {p}: exit {cu.returncode} for cuda, {cl.returncode} for opencl:\n{cu.stderr}")
                    fails += 1
                continue
            if cu.returncode != 0 or "__global__" not in cu.stdout:
                print(f"FAIL {p}: exit {cu.returncode}:\n{cu.stderr}")
                fails += 1
                continue
            translated += 1
            if p.startswith("samples/") and p not in TOO_MUCH_SHARED:
                h = os.path.join(tmp, os.path.basename(p)[:-5] + ".cuh")
                r = subprocess.run([args.dpia, "translate", "--no-verify", "--target=cuda", "--emit=header", p, "-o", h],
                                   capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    print(f"FAIL {p}: header: {r.stderr}")
                    fails += 1
                    continue
                headers.append(h)
        # every header in one translation unit: they must coexist
        unit = os.path.join(tmp, "headers.cu")
        with open(unit, "w") as f:
            for h in headers:
                f.write(f'#include "{h}"\n')
        r = subprocess.run([nvcc, "-c", "-std=c++17", "--Werror", "all-warnings", "-o", os.path.join(tmp, "h.o"), unit],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL headers do not compile with nvcc -c:\n{r.stdout}{r.stderr}")
            fails += 1
    # the kept outputs of this directory: X.dpia against X.cu (--update rewrites them)
    for p in sorted(glob.glob("tests/cuda/*.dpia")):
        r = subprocess.run([args.dpia, "translate", "--target=cuda", p], capture_output=True, text=True, env=env)
        kept = p[:-5] + ".cu"
        if args.update and r.returncode == 0:
            with open(kept, "w") as f:
                f.write(r.stdout)
        want = open(kept).read() if os.path.exists(kept) else None
        if r.returncode != 0 or r.stdout != want:
            print(f"FAIL {p}: the CUDA differs from {kept} (exit {r.returncode}):\n{r.stderr}")
            fails += 1
    print(f"{translated} programs translated and verified with nvcc, {len(headers)} headers compiled, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
