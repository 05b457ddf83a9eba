#!/usr/bin/env python3
"""unroll_random.py: throughput_test unroll over random programs.

Writes COUNT random well-typed strategy programs of tests/diff/gen.py
(seed SEED; a quarter of them with vector lanes, --with vectors) into a
temporary directory and runs `throughput_test unroll` on it: each kernel
generated with the steps of its unrolled loops kept as runs (KS_RUN), with
the same steps written out where they are made, and with each step lowered
on its own must have the same text.  The generator's small constant sizes
(slide 5 1, split 2, take 4) make loops of a few steps that code generation
writes out, in places the samples do not: under guards, in loops, with
dead bindings, with barriers.

With --mode halves, `throughput_test halves` instead: each kernel generated
with the halves of its zip elements found once and with every half walked
through its path must have the same text (codegen/access.c).

With --mode record, `throughput_test record`: each command site's reads
and writes recorded from its code must be its command's scans
(codegen/barriers.c); the programs cycle through gen.py's optional
features (none, vectors, depmaps, both).

usage: unroll_random.py THROUGHPUT_TEST GEN_PY [--seed S] [--count N] [--mode unroll|halves|record]
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("throughput_test")
    ap.add_argument("gen_py")
    ap.add_argument("--seed", type=int, default=50)
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--mode", choices=["unroll", "halves", "record"], default="unroll")
    a = ap.parse_args()
    # the generator imported, not run once a program (400 interpreters
    # started took most of the test's time): the same programs as
    # `gen.py --seed S --index I [--with vectors]` prints
    spec = importlib.util.spec_from_file_location("gen", a.gen_py)
    gen = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(a.gen_py)))
    spec.loader.exec_module(gen)
    with tempfile.TemporaryDirectory(prefix="unroll_random") as d:
        for i in range(a.count):
            if a.mode == "record":
                extra = [[], ["vectors"], ["depmaps"], ["vectors", "depmaps"]][i % 4]
            else:
                extra = ["vectors"] if i % 4 == 3 else []
            with open(os.path.join(d, f"r{i}.dpia"), "w") as f:
                f.write(gen.generate(a.seed, i, [], extra).text + "\n")
        run = subprocess.run([a.throughput_test, a.mode, d], capture_output=True, text=True)
        sys.stdout.write(run.stdout)
        sys.stderr.write(run.stderr)
        return run.returncode


if __name__ == "__main__":
    sys.exit(main())
