#!/usr/bin/env python3
"""What a size that does not divide costs: a benchmark that prints figures,
not a test.

  bench/tails.py [--dpia build/dpia] [--rounds 5] [--repeat 10] [--log2n 24]

For dot and asum, samples/dot_any.dpia's kernels (dotAny, asumAny: any N,
the input padded up to a multiple of 4096) against the same strategy for
multiples of 4096 (dotTiled, asumTiled below: split instead of splitPad),
side by side in one run on the default OpenCL device (PoCL on the CPU):

  tiled     the multiple-size kernel at N = 2^24
  any       the any-size kernel at N = 2^24 + 1, as dpia generates it now:
            its loops partitioned where their tests change
            (codegen/partition.c), full tiles read without a test
  guarded   the any-size kernel at N = 2^24 + 1 as dpia generated it
            before (bench/kernels/tails_guarded.cl): each element read
            behind a test on N

Each round runs the kernels one after the other (`dpia run --json
--repeat R`, fresh inputs, the minimum of R launches); a kernel's figure is
the median over the rounds of its time per element, and the ratios are to
the tiled kernel's.  The machine is shared and noisy: compare the figures of
one run.  Every run is checked against the reference (--check), so a
figure is never that of a wrong kernel.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ANY = os.path.join(ROOT, "samples", "dot_any.dpia")
GUARDED = os.path.join(HERE, "kernels", "tails_guarded.cl")

TILED = """\
kernel dotTiled (N: nat) (xs ys: [N]float) =
  zip xs ys
  |> split 4096
  |> mapWorkgroup (\\block ->
       block |> split 64
             |> mapLocal (\\part -> reduceSeq (\\x a -> fst x * snd x + a) 0.0 part))
  |> join

kernel asumTiled (N: nat) (xs: [N]float) =
  xs
  |> split 4096
  |> mapWorkgroup (\\block ->
       block |> split 64
             |> mapLocal (\\part -> reduceSeq (\\x a -> fabs x + a) 0.0 part))
  |> join
"""


def run(dpia, path, kernel, n, repeat, source=None):
    cmd = [dpia, "run", path, "-k", kernel, "--size", "N=%d" % n, "--repeat", str(repeat), "--json", "--check"]
    if source:
        cmd.append("--opencl-source=" + source)
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        sys.exit("%s failed (exit %d):\n%s%s" % (" ".join(cmd), out.returncode, out.stdout, out.stderr))
    report = json.loads(out.stdout)
    if not report["check"]["ok"]:
        sys.exit("%s: wrong answer: %s" % (" ".join(cmd), report["check"]["report"]))
    return report["min_ms"] / n * 1e6  # ns per element


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dpia", default=os.path.join(ROOT, "build", "dpia"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--log2n", type=int, default=24)
    args = ap.parse_args()
    n = 1 << args.log2n
    with tempfile.TemporaryDirectory() as tmp:
        tiled = os.path.join(tmp, "tiled.dpia")
        with open(tiled, "w") as f:
            f.write(TILED)
        rows = []
        for name in ("dot", "asum"):
            variants = [("tiled", lambda: run(args.dpia, tiled, name + "Tiled", n, args.repeat)),
                        ("any", lambda: run(args.dpia, ANY, name + "Any", n + 1, args.repeat)),
                        ("guarded", lambda: run(args.dpia, ANY, name + "Any", n + 1, args.repeat, GUARDED))]
            times = {v: [] for v, _ in variants}
            for _ in range(args.rounds):
                for v, f in variants:
                    times[v].append(f())
            med = {v: statistics.median(t) for v, t in times.items()}
            rows.append((name, med))
    print("N = 2^%d (tiled), 2^%d + 1 (any, guarded); ns per element, median of %d rounds of min of %d launches"
          % (args.log2n, args.log2n, args.rounds, args.repeat))
    print("%-6s %10s %10s %10s %12s %14s" % ("", "tiled", "any", "guarded", "any/tiled", "guarded/tiled"))
    for name, med in rows:
        print("%-6s %10.3f %10.3f %10.3f %12.2f %14.2f" % (name, med["tiled"], med["any"], med["guarded"],
                                                           med["any"] / med["tiled"], med["guarded"] / med["tiled"]))


if __name__ == "__main__":
    main()
