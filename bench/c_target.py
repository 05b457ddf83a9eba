#!/usr/bin/env python3
"""c_target.py: every sample kernel of tests/samples/run_samples.py timed on
the C target (--target=c: C with OpenMP on the host CPU, docs/targets.md)
and on the OpenCL device (PoCL here), at the largest size of each, and a
table of the median times and their ratio (C over OpenCL: below 1, the C
target is faster).  `dpia run --json --repeat R` gives the times: each
kernel's launch alone, without building it or moving data.

    bench/c_target.py --dpia build/dpia [--repeat 10] [--only gemv,mmTiled] [--scale 16]

OMP_NUM_THREADS sets the C target's threads; POCL_KERNEL_CACHE=0 is not
set (the build is outside the time)."""
import argparse, ast, json, os, subprocess, sys


def runs(root):
    tree = ast.parse(open(os.path.join(root, "tests/samples/run_samples.py")).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "RUNS":
            return ast.literal_eval(node.value)
    raise SystemExit("no RUNS in tests/samples/run_samples.py")


def median_ms(dpia, target, path, kernel, sizes, repeat):
    args = [dpia, "run", f"--target={target}", path, "-k", kernel, "--repeat", str(repeat), "--json", "--seed", "7"]
    for n, v in sizes.items():
        args += ["--size", f"{n}={v}"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0]
    return json.loads(p.stdout)["median_ms"], None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dpia", required=True)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--only", default="", help="kernels to time (comma-separated), else all")
    ap.add_argument("--scale", type=int, default=1,
                    help="every size times this (a power of two keeps the preconditions of multiples): the test "
                         "sizes are small, and a launch of a few microseconds times the OpenMP team's start")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    only = {k for k in a.only.split(",") if k}
    print(f"{'kernel':22} {'sizes':28} {'OpenCL ms':>10} {'C ms':>10} {'C/OpenCL':>9}")
    ratios = []
    for f, k, points in runs(root):
        if only and k not in only:
            continue
        sizes = max(points, key=lambda p: sorted(p.values(), reverse=True))  # the largest
        sizes = {n: v * a.scale for n, v in sizes.items()}
        path = os.path.join(root, "samples", f)
        cl, why_cl = median_ms(a.dpia, "opencl", path, k, sizes, a.repeat)
        c, why_c = median_ms(a.dpia, "c", path, k, sizes, a.repeat)
        size_text = " ".join(f"{n}={v}" for n, v in sizes.items())
        if cl is None or c is None:
            print(f"{k:22} {size_text:28} {'-':>10} {'-':>10} {'-':>9}  ({why_cl or why_c})")
            continue
        ratio = c / cl if cl > 0 else float("inf")
        ratios.append(ratio)
        print(f"{k:22} {size_text:28} {cl:10.3f} {c:10.3f} {ratio:9.2f}")
    if ratios:
        prod = 1.0
        for r in ratios:
            prod *= r
        print(f"geometric mean of C/OpenCL over {len(ratios)} kernels: {prod ** (1 / len(ratios)):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
