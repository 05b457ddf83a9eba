#!/usr/bin/env python3
"""What `dpia explore` (docs/explore.md) reaches: for each high-level
program of samples/explore, the best strategy it finds within the budget
against the best strategy written by hand for the same computation in
samples/, timed side by side.  A benchmark that prints figures, not a test.

  bench/explore.py [--build build] [--budget 120] [--seconds 20] [--jobs 2]
                   [--only PROGRAM ...] [--size PROGRAM:SIZES ...]
                   [--processes [--rounds 5]]

For each program: `dpia explore` with the budget (-o the best), then the
best and every hand-written kernel timed together by bench/interleave.py:
built once in one process, each on its own buffers, launched in rounds
(every kernel once a round, in a new order each round) for --seconds.
A kernel's time is the median over the rounds; the best hand-written
kernel is the one of the lowest median; the ratio is the median over the
rounds of found / that hand-written kernel's time in the same round
(below 1: the search found a faster one).  Both kernels of a round ran
within milliseconds of each other, so the load of the shared machine
falls on both alike.  --processes times as before session 32 instead:
each kernel in its own `dpia run --repeat 10` process, --rounds times in
a new order, a kernel's time its fastest launch, the ratio of the
fastest launches; on this 2-core virtual machine that minimum is
whichever process met an idle moment (four scal kernels moving the same
bytes spread over 2.8 to 4.3 ms in one such run).

The table: the program, the rules the best applied, the strategies tried,
when the best was found (seconds from the start of the search), the
best's time, the hand-written one's (which kernel) and the ratio.  A
whole reduction (asum, dot): the search derives a pipeline of two
kernels, so it is compared with the hand-written pipelines
(asum_full.dpia, dot_full.dpia), a round's time being the sum of the
pipeline's launches.  The machine's load is printed: on a shared machine
the times vary with it.

Under each row: every hand-written kernel's time, and `same OpenCL as K`
when the found kernel translates to the OpenCL C of the hand-written K
(`dpia translate`, but for the kernel's name and the header comment):
then the two differ only by the noise of the timing.
"""
import re
import argparse
import json
import os
import random
import subprocess
import sys
import statistics
import tempfile

import interleave

# program, kernel, sizes, hand-written (file, kernel) of the same computation.
# The memory-bound programs' arrays are 64 MB or more (gesummv: two), larger than the
# caches this virtual machine shares with others: at 16 MB (N = 4194304,
# 2048^2) their times moved up to twice from run to run on the idle
# machine, with the data in a cache or not (BENCHMARKS.md, "What `dpia
# explore` reaches")
PROGRAMS = [
    ('scal.dpia', 'scalHL', 'N=16777216',
     [('scal.dpia', 'scal'), ('scal.dpia', 'scalVec'), ('scal_vec.dpia', 'scalVec16'),
      ('scal_vec.dpia', 'scalChunk')]),
    ('asum.dpia', 'asumHL', 'N=16777216',
     [('asum_full.dpia', 'asum')]),
    ('dot.dpia', 'dotHL', 'N=16777216',
     [('dot_full.dpia', 'dot')]),
    ('gemv.dpia', 'gemvHL', 'M=4096,N=4096',
     [('gemv.dpia', 'gemv'), ('gemv_vec.dpia', 'gemvVec'), ('gemv_vec.dpia', 'gemvVec2'),
      ('gemv_vec.dpia', 'gemvVecRows')]),
    ('gesummv.dpia', 'gesummvHL', 'N=4096',
     [('gesummv.dpia', 'gesummv'), ('gesummv.dpia', 'gesummvVec')]),
    ('stencil1d.dpia', 'stencilHL', 'N=16777216',
     [('stencil1d.dpia', 'stencil'), ('stencil1d.dpia', 'stencilTiled'), ('stencil1d.dpia', 'stencilChunk')]),
    ('jacobi2d.dpia', 'jacobi2dHL', 'M=4096,N=4096',
     [('jacobi2d.dpia', 'jacobi2d'), ('jacobi2d.dpia', 'jacobi2dTiled'), ('jacobi2d.dpia', 'jacobi2dChunk')]),
    ('kmeans.dpia', 'kmeansHL', 'N=131072,K=5,F=34',
     [('kmeans.dpia', 'kmeans'), ('kmeans.dpia', 'kmeansVec')]),
    ('mriq.dpia', 'mriqHL', 'X=4096,K=1024',
     [('mriq.dpia', 'mriq'), ('mriq.dpia', 'mriqVec')]),
    ('nbody.dpia', 'nbodyHL', 'N=4096',
     [('nbody.dpia', 'nbody'), ('nbody.dpia', 'nbodyVec')]),
    ('mm.dpia', 'mmHL', 'M=512,N=512,K=512',
     [('mm_tiled.dpia', 'mmTiled'), ('mm_vec.dpia', 'mmVec'), ('mm_vec.dpia', 'mmBlock')]),
]


def load():
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def time_of(dpia, path, kernel, sizes):
    p = subprocess.run([dpia, 'run', path, '-k', kernel, '--size', sizes, '--repeat', '10', '--json'],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.stderr.write(f'{path} -k {kernel}: exit {p.returncode}\n{p.stderr}')
        return None
    return json.loads(p.stdout)['min_ms']


def opencl(dpia, path, kernel, sizes):
    """the kernel's OpenCL C without its header comment, its name a
    placeholder and the whitespace collapsed (the parameters are aligned
    after the name); None for a pipeline or a failure"""
    p = subprocess.run([dpia, 'translate', path, '-k', kernel], capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or len(re.findall(r'^kernel ', p.stdout, re.M)) != 1:
        return None
    text = re.sub(r'^/\*.*?\*/', '', p.stdout, count=1, flags=re.S)
    return ' '.join(re.sub(r'\b%s\b' % re.escape(kernel), 'KERNEL', text).split())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    ap.add_argument('--budget', type=float, default=120)
    ap.add_argument('--seconds', type=float, default=20,
                    help='the interleaved timing of each program: rounds for this long (at least 20 rounds)')
    ap.add_argument('--processes', action='store_true',
                    help="time each kernel in its own `dpia run` process, --rounds times (the method before "
                         "session 32), in place of the interleaved timing")
    ap.add_argument('--rounds', type=int, default=5, help='with --processes: the rounds')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--only', nargs='*', help='these programs only (scal asum dot gemv gesummv stencil1d jacobi2d kmeans mriq nbody mm)')
    ap.add_argument('--size', action='append', default=[], metavar='PROGRAM:SIZES',
                    help="another size for one program, e.g. 'gemv:M=4096,N=4096' (the search's "
                         "and the timings'); may be given again for other programs")
    args = ap.parse_args()
    names = [sample[:-len('.dpia')] for sample, _, _, _ in PROGRAMS]
    other_sizes = {}
    for spec in args.size:
        program, sep, sizes = spec.partition(':')
        if not sep or program not in names or not re.fullmatch(r'[A-Za-z_]\w*=\d+(,[A-Za-z_]\w*=\d+)*', sizes):
            ap.error(f"--size {spec!r}: want PROGRAM:NAME=N,... with PROGRAM one of {' '.join(names)}")
        other_sizes[program] = sizes
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dpia = os.path.join(os.path.abspath(args.build), 'dpia')
    print(f'dpia explore, budget {args.budget:g} s, seed {args.seed}; load average {load()}')
    rows = []
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        for sample, kernel, sizes, hand in PROGRAMS:
            if args.only and sample[:-len('.dpia')] not in args.only:
                continue
            sizes = other_sizes.get(sample[:-len('.dpia')], sizes)
            best_path = os.path.join(tmp, kernel + '_best.dpia')
            p = subprocess.run([dpia, 'explore', os.path.join(root, 'samples', 'explore', sample), '-k', kernel,
                                '--size', sizes, '--budget', str(args.budget), '--jobs', str(args.jobs),
                                '--seed', str(args.seed), '--json', '-o', best_path],
                               capture_output=True, text=True, timeout=args.budget * 10 + 600)
            if p.returncode != 0:
                sys.stderr.write(f'explore {kernel}: exit {p.returncode}\n{p.stderr}')
                rows.append((kernel, sizes, None, None, None, None, None, None))
                continue
            d = json.loads(p.stdout)
            best = d['best']
            entries = [('found', best_path, kernel)] + [
                (k, os.path.join(root, 'samples', f), k) for f, k in hand]
            if args.processes:
                times = {name: [] for name, _, _ in entries}
                for _ in range(args.rounds):
                    order = entries[:]
                    rng.shuffle(order)
                    for name, path, k in order:
                        t = time_of(dpia, path, k, sizes)
                        if t is not None:
                            times[name].append(t)
            else:
                times = {name: [t * 1e3 for t in ts] for name, ts in interleave.time_interleaved(
                    dpia, entries, dict((n, int(v)) for n, v in (a.split('=') for a in sizes.split(','))),
                    seconds=args.seconds, seed=args.seed).items()}
            found = min(times['found']) if times['found'] else None
            hand_best = min(((min(v), n) for n, v in times.items() if n != 'found' and v), default=None)
            if not args.processes:
                # the hand-written kernel of the lowest median, and the median
                # of the found kernel's time over its time in the same round
                reference = min((n for n in times if n != 'found'), key=lambda n: statistics.median(times[n]))
                paired = interleave.compare(times, 'found', reference)
                found, hand_best = statistics.median(times['found']), (statistics.median(times[reference]), reference)
            else:
                paired = None
            mine = opencl(dpia, best_path, kernel, sizes)
            same = [k for f, k in hand if mine and opencl(dpia, os.path.join(root, 'samples', f), k, sizes) == mine]
            stat = min if args.processes else statistics.median
            hands = ', '.join(f'{n} {stat(v):.4f}' for n, v in times.items() if n != 'found' and v)
            rows.append((kernel, sizes, best['strategy'], best['rules'], d['tried'], d['space'], best['found_s'],
                         (found, hand_best, paired), hands, same))
    print(f'{"program":10} {"size":20} {"strategy found":34} {"rules":>5} {"tried":>9} {"found at":>9} '
          f'{"found ms":>9} {"hand ms":>9} {"hand-written":14} {"ratio":>6}')
    for kernel, sizes, strategy, rules, tried, space, found_s, t, *more in rows:
        if strategy is None:
            print(f'{kernel:10} {sizes:20} (nothing found)')
            continue
        found, hand_best, paired = t
        hand_ms, hand_name = hand_best if hand_best else (None, '-')
        ratio = (f'{paired:6.2f}' if paired is not None else
                 f'{found / hand_ms:6.2f}' if found and hand_ms else '     -')
        print(f'{kernel:10} {sizes:20} {strategy:34} {rules:5} {tried:4}/{space:<4} {found_s:8.1f}s '
              f'{found if found else float("nan"):9.4f} {hand_ms if hand_ms else float("nan"):9.4f} '
              f'{hand_name:14} {ratio}')
        print(f'    hand-written ms: {more[0]}' + (f'; same OpenCL as {", ".join(more[1])}' if more[1] else ''))
    print(f'load average {load()}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
