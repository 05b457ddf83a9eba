#!/usr/bin/env python3
"""Translation time and peak memory against program size: a
benchmark that prints figures, not a test.

  bench/translate_scaling.py [--dpia build/dpia] [--repeat 3]

Two families of programs, each translated with `dpia translate --no-verify`
(the translation itself; verification is measured by bench/stage_bench):

  chain K   a mapGlobal whose body is K mapSeq stages in sequence, each
            materialised in a global temporary: K = 100, 1000, 5000 as one
            `|>` chain (past 1000 levels, dpia translates on its own deep
            stack: app/driver.c), and K = 1024, 2048 and 8192 made by defs
            that each apply the one before twice;
  defs K    K defs, each applying the one before to its argument and adding
            1.0 (K = 1000, 2000, 4000, 8000): normalisation was quadratic;
  compose D `def f x = x * x * 0.5 + x * 0.25` applied D times to an input
            element (D = 5, 10, 20, 40): with sharing, D assignments.

For each it prints the median wall time of --repeat runs, the peak resident
memory of one run, and time per stage: linear growth shows as a roughly
constant time per stage and memory per stage.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

PEAK = ('import resource, subprocess, sys\n'
        'r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n'
        'sys.stderr.write(r.stderr.decode())\n'
        'print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n')


def chain_source(k):
    return ('kernel k (N: nat) (xs: [N]float) =\n  xs |> split 16 |> mapGlobal (\\row -> row\n'
            + '  |> mapSeq (\\x -> x + 1.0)\n' * k + '  ) |> join\n')


def doubling_source(log2):
    lines = ['def f0 (N: nat) (xs: [N]float) = xs |> mapSeq (\\x -> x + 1.0)']
    for i in range(1, log2 + 1):
        lines.append(f'def f{i} (N: nat) (xs: [N]float) = xs |> f{i-1} |> f{i-1}')
    lines.append(f'kernel k (N: nat) (xs: [N]float) = xs |> split 64 |> mapGlobal (\\c -> f{log2} c) |> join')
    return '\n'.join(lines) + '\n'


def defs_source(count):
    lines = ['def f0 (x: float) = x + 1.0']
    lines += [f'def f{i} (x: float) = f{i-1} x + 1.0' for i in range(1, count + 1)]
    lines.append(f'kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> f{count} x)')
    return '\n'.join(lines) + '\n'


def compose_source(depth):
    body = 'x'
    for _ in range(depth):
        body = f'f ({body})'
    return ('def f x = x * x * 0.5 + x * 0.25\n'
            f'kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> {body})\n')


def measure(dpia, path, repeat):
    cmd = [dpia, 'translate', '--no-verify', path]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if r.returncode != 0:
            sys.exit(f'{path}: dpia translate failed:\n{r.stderr.decode()}')
    peak = subprocess.run([sys.executable, '-c', PEAK] + cmd, capture_output=True, text=True)
    code, kib = peak.stdout.split()
    return statistics.median(times), int(kib)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--dpia', default=os.path.join('build', 'dpia'))
    ap.add_argument('--repeat', type=int, default=3)
    args = ap.parse_args()
    cases = [('chain', k, chain_source(k)) for k in (100, 1000, 5000)]
    cases += [('chain', 1 << n, doubling_source(n)) for n in (10, 11, 13)]
    cases += [('defs', k, defs_source(k)) for k in (1000, 2000, 4000, 8000)]
    cases += [('compose', d, compose_source(d)) for d in (5, 10, 20, 40)]
    print(f'{"program":<10} {"size":>6} {"time ms":>9} {"peak MiB":>9} {"us/unit":>8} {"KiB/unit":>9}')
    with tempfile.TemporaryDirectory() as tmp:
        for family, size, source in cases:
            path = os.path.join(tmp, f'{family}{size}.dpia')
            with open(path, 'w') as f:
                f.write(source)
            seconds, kib = measure(args.dpia, path, args.repeat)
            print(f'{family:<10} {size:>6} {seconds * 1e3:>9.1f} {kib / 1024:>9.1f} '
                  f'{seconds * 1e6 / size:>8.1f} {kib / size:>9.1f}')


if __name__ == '__main__':
    main()
