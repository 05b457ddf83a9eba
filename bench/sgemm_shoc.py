#!/usr/bin/env python3
"""sgemm_shoc.py: SHOC's sgemmNN strategy (samples/sgemm_shoc.dpia, its
accumulator in registers) and Parboil's sgemm (samples/sgemm_parboil.dpia)
timed against the samples' other matrix products in one run: mmTiled (samples/mm_tiled.dpia: 16 x 16 tiles, the
whole K-strips of a and b in local memory) and the gemm pipeline
(samples/gemm.dpia: packing of b and register tiles for CPUs), at the
same M = N = K.  `dpia run --json --repeat R` gives the median time of
each launch alone (for gemm, its two kernels); GFLOP/s counts 2*M*N*K.
Figures only: nothing here is a test.

    bench/sgemm_shoc.py --dpia build/dpia [--size 1024] [--repeat 5]"""
import argparse, json, os, subprocess


KERNELS = [  # file, kernel, what
    ("sgemm_shoc.dpia", "sgemmNN", "SHOC sgemmNN: 64x16 blocks, c[16] per work-item"),
    ("sgemm_parboil.dpia", "sgemmNT", "Parboil sgemm: 128x16 blocks, c[16] per work-item"),
    ("mm_tiled.dpia", "mmTiled", "16x16 tiles, K-strips in local memory"),
    ("gemm.dpia", "gemm", "packed b, 8x32 register tiles (CPU)"),
]


def median_ms(dpia, path, kernel, n, repeat):
    args = [dpia, "run", path, "-k", kernel, "--repeat", str(repeat), "--json", "--seed", "7",
            "--size", f"M={n}", "--size", f"N={n}", "--size", f"K={n}"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0]
    return json.loads(p.stdout)["median_ms"], None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dpia", required=True)
    ap.add_argument("--size", type=int, default=1024, help="M = N = K (a multiple of 512)")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    n = a.size
    print(f"M = N = K = {n}, median of {a.repeat} launches")
    print(f"{'kernel':10} {'ms':>10} {'GFLOP/s':>9}  strategy")
    for f, k, what in KERNELS:
        ms, why = median_ms(a.dpia, os.path.join(root, "samples", f), k, n, a.repeat)
        if ms is None:
            print(f"{k:10} {'-':>10} {'-':>9}  {what} ({why})")
            continue
        print(f"{k:10} {ms:10.2f} {2.0 * n ** 3 / (ms * 1e6):9.2f}  {what}")


if __name__ == "__main__":
    main()
