#!/usr/bin/env python3
"""triangle.py: PolyBench/GPU covariance's sums (samples/covariance.dpia)
timed in one run on the OpenCL device (PoCL here), the upper triangle
(`covar`: a select whose sum runs only on the side it chooses,
docs/language.md section 28, M*(M+1)/2 sums) against the whole square
(`covarSquare`: M*M sums) and against `covarMirror`, the triangle stored
twice, (j1, j2) and (j2, j1), by one kernel (docs/language.md section
29.1: the symmetric result, PolyBench's covar_kernel), at each size; and
`covarDep`, PolyBench's
covar_kernel loop nest itself with dependent sizes (docs/language.md
section 30: work-item j1 loops over j2 = j1 .. M-1, no test of positions),
against `covar`; and `covarPacked`, covarDep's loops storing the
M*(M+1)/2 sums packed (depJoin, docs/language.md section 30.2) rather
than in the square with zeros below the diagonal, against covarDep.  A
table of the median times, the ratio of the symmetric triangle over the
square, covarDep over covar and covarPacked over covarDep.  `dpia run --json --repeat R` gives
the times: each kernel's launch alone, without building it or moving data.

    bench/triangle.py --dpia build/dpia [--repeat 10] [--sizes 256x256,512x512]

Sizes are MxN (M columns, N rows of the data)."""
import argparse, json, os, subprocess


def median_ms(dpia, path, kernel, sizes, repeat):
    args = [dpia, "run", path, "-k", kernel, "--repeat", str(repeat), "--json", "--seed", "7"]
    for n, v in sizes.items():
        args += ["--size", f"{n}={v}"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise SystemExit(f"{kernel} {sizes}: " + (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0])
    return json.loads(p.stdout)["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dpia", required=True)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--sizes", default="256x256,512x512,1024x512")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "samples", "covariance.dpia")
    print(f"{'M x N':12} {'covar ms':>10} {'mirror ms':>10} {'square ms':>10} {'mirror/square':>14}"
          f" {'covarDep ms':>12} {'covarDep/covar':>15}"
          f" {'covarPacked ms':>15} {'packed/dep':>11}")
    for point in a.sizes.split(","):
        m, n = (int(v) for v in point.split("x"))
        tri = median_ms(a.dpia, path, "covar", {"M": m, "N": n}, a.repeat)
        mirror = median_ms(a.dpia, path, "covarMirror", {"M": m, "N": n}, a.repeat)
        square = median_ms(a.dpia, path, "covarSquare", {"M": m, "N": n}, a.repeat)
        dep = median_ms(a.dpia, path, "covarDep", {"M": m, "N": n}, a.repeat)
        packed = median_ms(a.dpia, path, "covarPacked", {"M": m, "N": n}, a.repeat)
        print(f"{point:12} {tri:10.3f} {mirror:10.3f} {square:10.3f} {mirror / square:14.2f}"
              f" {dep:12.3f} {dep / tri:15.2f}"
              f" {packed:15.3f} {packed / dep:11.2f}")


if __name__ == "__main__":
    main()
