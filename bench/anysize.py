#!/usr/bin/env python3
"""Any-size kernels against the multiple-size ones: a benchmark that prints
a table, not a test.

  bench/anysize.py [--dpia build/dpia] [--rounds 3] [--repeat 5] [--only NAME,...] [--cpu-time]
                   [--tune-cache FILE|off] [--tune] [--tune-budget S]

Each row pairs a sample kernel whose sizes must be multiples of its tiles,
at a size that is one (N = 2^24; gemm at 1024^3 and 2048^3), with the
any-size kernel of the same computation (samples/dot_any.dpia,
blas2_any.dpia, gemm_any.dpia) at a size that is not (N = 2^24 + 1; gemm at
1025^3 and 2047^3; gemv and gesummv at 4096^2 against 4097^2).  Each
kernel runs under `dpia run --repeat R --json` (the device's time of the
launch, PoCL's compile and the host's buffers left out; a pipeline's time
is its launches'), the two of a row one after the other, and the rows in
turn, for --rounds rounds; a kernel's figure is its fastest run over all
rounds (the machine is shared: the minimum is what its load disturbs
least).  The time is divided by the elements of the computation (N; M*N
for gemv, N*N for gesummv, M*N*K for gemm), and the ratio is the multiple
kernel's time per element over the any-size kernel's: 1.00 is as fast,
0.50 twice as slow.

With --cpu-time a kernel's figure is the CPU time of a run instead (the
least over the rounds of the CPU time of `dpia run --no-verify --repeat
R+1` less that of `--repeat 1`, over R, the process and its children: the
launches' work on all the device's threads, not when they end): on a
machine whose cores other work shares, the wall-clock minimum moves with
the load by more than the kernels differ, and the CPU time much less; but
it does not see how evenly the work-groups are shared out.  A round's
figure is the difference of two processes' CPU times, which has a run's
noise: give it 20 runs or more (--repeat), not the default 5.

The multiple kernels are the samples a caller at a multiple size would
use; where the any-size kernel's strategy differs (dotAny's 64 x 64 per
group against dotPartial's 128 x 2048), the ratio measures the strategy
and the tail together.  gemmAny has gemm's slices and register tiles,
its blocks gemm's mirrored (256 x 128 against 128 x 256, for its order of
work-groups: samples/gemm_any.dpia's comment), and writes its M x N result
from the padded blocks directly.  Prints the table; exit 0 unless a run failed.

Tune parameters (docs/tune.md): gemm and gemmAny have the same ones, and
both kernels of a row must take their values the same way, or the ratio
measures the tuning.  `dpia run` reads the tuning cache of
$DPIA_TUNE_CACHE, else ~/.cache/dpia/tune.json, where an earlier `dpia
tune` of gemm alone would give gemm its tuned values and gemmAny its
declared defaults; so every run here gets DPIA_TUNE_CACHE from
--tune-cache, by default off: the declared defaults for both (which
differ in the block's shape only).  --tune
first tunes the two kernels of each gemm row each at its own size (the
multiple at 1024^3 and 2048^3, the any-size at 1025^3 and 2047^3), as
bench/run.sh tunes gemm: the register tile (RT, CP) at the vector width of
the instruction set with the default blocks at the row's first size, then
the blocks and slice (KS, AP, BP) with that tile at each size, each
`dpia tune` call within --tune-budget seconds, into the --tune-cache file
(a fresh one of its own when that is off); the table then says what each
kernel took and how long the tuning took.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, '..', 'samples')

N1 = 1 << 24
# name, (file, kernel, sizes) at a multiple, (file, kernel, sizes) at any
# size, elements of a size dict
ROWS = [
    ('scal', ('scal.dpia', 'scal', {'N': N1}), ('dot_any.dpia', 'scalAny', {'N': N1 + 1}),
     lambda s: s['N']),
    ('asum', ('asum.dpia', 'asumPartial', {'N': N1}), ('dot_any.dpia', 'asumAny', {'N': N1 + 1}),
     lambda s: s['N']),
    ('dot', ('dot_partial.dpia', 'dotPartial', {'N': N1}), ('dot_any.dpia', 'dotAny', {'N': N1 + 1}),
     lambda s: s['N']),
    ('gemv', ('gemv.dpia', 'gemv', {'M': 4096, 'N': 4096}),
     ('blas2_any.dpia', 'gemvAny', {'M': 4097, 'N': 4097}), lambda s: s['M'] * s['N']),
    ('gesummv', ('gesummv.dpia', 'gesummvVec', {'N': 4096}),
     ('blas2_any.dpia', 'gesummvAny', {'N': 4097}), lambda s: s['N'] * s['N']),
    ('gemm 1024', ('gemm.dpia', 'gemm', {'M': 1024, 'N': 1024, 'K': 1024}),
     ('gemm_any.dpia', 'gemmAny', {'M': 1025, 'N': 1025, 'K': 1025}), lambda s: s['M'] * s['N'] * s['K']),
    ('gemm 2048', ('gemm.dpia', 'gemm', {'M': 2048, 'N': 2048, 'K': 2048}),
     ('gemm_any.dpia', 'gemmAny', {'M': 2047, 'N': 2047, 'K': 2047}), lambda s: s['M'] * s['N'] * s['K']),
]


def size_arg(sizes):
    return ','.join(f'{n}={v}' for n, v in sizes.items())


def run(dpia, spec, repeat, env):
    """the fastest of `repeat` runs, in ms, and the tuning cache's values
    it took (None: the declared defaults), or raise with dpia's message"""
    f, k, sizes = spec
    args = [dpia, 'run', os.path.join(SAMPLES, f), '-k', k, '--repeat', str(repeat), '--json',
            '--size', size_arg(sizes)]
    p = subprocess.run(args, capture_output=True, text=True, timeout=1800, env=env)
    if p.returncode != 0:
        raise RuntimeError(f'{" ".join(args)}: exit {p.returncode}\n{p.stderr}')
    report = json.loads(p.stdout)
    return report['min_ms'], report.get('tuned')


def cpu_run(dpia, spec, repeat, env, warm):
    """the CPU time of a run in ms, as the docstring says, and the tuning
    cache's values it took; warm: run once first (PoCL's compile)"""
    f, k, sizes = spec

    def once(n):
        args = [dpia, 'run', os.path.join(SAMPLES, f), '-k', k, '--repeat', str(n), '--json', '--no-verify',
                '--size', size_arg(sizes)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(args, capture_output=True, text=True, timeout=1800, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            raise RuntimeError(f'{" ".join(args)}: exit {p.returncode}\n{p.stderr}')
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return cpu, json.loads(p.stdout).get('tuned')

    if warm:
        once(1)
    one, _ = once(1)
    many, tuned = once(repeat + 1)
    return max(many - one, 0.0) * 1e3 / repeat, tuned


# the register tile's parameters, tuned first (bench/run.sh), then the
# blocks' (KS, AP, BP) with the tile found
TILE = ('RT', 'CP')


def tune(dpia, specs, budget, env):
    """tune each kernel of specs (one kernel, its sizes in order) at each of
    its own sizes into env's cache, as bench/run.sh tunes gemm; the tile of
    each kernel, and the seconds taken"""
    width = 8
    with open('/proc/cpuinfo') as f:
        if ' avx512f' in f.read():
            width = 16
    start = time.monotonic()
    tiles = {}

    def dpia_tune(f, k, sizes, sets):
        args = [dpia, 'tune', os.path.join(SAMPLES, f), '-k', k, '--size', size_arg(sizes), '--seed', '1',
                '--budget', str(budget), '--json'] + [a for n, v in sets for a in ('--set', f'{n}={v}')]
        print('$ ' + ' '.join(args), file=sys.stderr, flush=True)
        p = subprocess.run(args, capture_output=True, text=True, env=env)  # the check at 2048^3 takes minutes
        if p.returncode != 0:
            raise RuntimeError(f'{" ".join(args)}: exit {p.returncode}\n{p.stderr}')
        return json.loads(p.stdout)['best']

    for f, k, all_sizes in specs:
        best = dpia_tune(f, k, all_sizes[0], [('V', width), ('KS', 512), ('AP', 16), ('BP', 8)])
        tiles[k] = [(n, best[n]) for n in TILE]
        for sizes in all_sizes:
            dpia_tune(f, k, sizes, [('V', width)] + tiles[k])
    return tiles, time.monotonic() - start


def sizes_text(sizes):
    vals = list(sizes.values())
    return f'{vals[0]}^{len(vals)}' if len(set(vals)) == 1 and len(vals) > 1 else \
        ' '.join(f'{n}={v}' for n, v in sizes.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--dpia', default=os.path.join(HERE, '..', 'build', 'dpia'))
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--only', default='', help='comma-separated row names (scal, asum, dot, gemv, gesummv, gemm)')
    ap.add_argument('--cpu-time', action='store_true',
                    help='time a run by its CPU time (R+1 runs less 1), not the fastest launch')
    ap.add_argument('--tune-cache', default='off',
                    help='the tuning cache every run reads (DPIA_TUNE_CACHE; default off: the declared defaults)')
    ap.add_argument('--tune', action='store_true',
                    help='first tune the gemm rows\' kernels each at its own size into --tune-cache')
    ap.add_argument('--tune-budget', type=int, default=300, help='seconds for each dpia tune call (as bench/run.sh)')
    a = ap.parse_args()
    only = [x for x in a.only.split(',') if x]
    rows = [r for r in ROWS if not only or r[0].split()[0] in only]
    env = dict(os.environ)
    tmp = None
    if a.tune and a.tune_cache == 'off':
        tmp = tempfile.TemporaryDirectory(prefix='anysize-tune-')
        a.tune_cache = os.path.join(tmp.name, 'tune.json')
    env['DPIA_TUNE_CACHE'] = a.tune_cache
    tuned_note = ''
    if a.tune:
        specs = {}  # kernel: (file, kernel, [sizes...]) of the gemm rows chosen
        for name, multiple, anysize, _ in rows:
            if name.startswith('gemm'):
                for f, k, sizes in (multiple, anysize):
                    specs.setdefault(k, (f, k, []))[2].append(sizes)
        if specs:
            tiles, secs = tune(a.dpia, list(specs.values()), a.tune_budget, env)
            tuned_note = (f'tuned in {secs:.0f} s (register tiles: ' +
                          ', '.join(f'{k} ' + ' '.join(f'{n}={v}' for n, v in t) for k, t in tiles.items()) + ')')
    best, took = {}, {}
    for rnd in range(a.rounds):
        for name, multiple, anysize, _ in rows:
            for which, spec in (('multiple', multiple), ('any', anysize)):
                t, tuned = cpu_run(a.dpia, spec, a.repeat, env, rnd == 0) if a.cpu_time else \
                    run(a.dpia, spec, a.repeat, env)
                key = (name, which)
                best[key] = min(best.get(key, t), t)
                took[key] = tuned
        print(f'round {rnd + 1} of {a.rounds} done', file=sys.stderr, flush=True)
    head = (f'{"":10} {"multiple kernel":16} {"at":>10} {"ns/elem":>9}   '
            f'{"any-size kernel":16} {"at":>16} {"ns/elem":>9}   {"ratio":>5}')
    print(head)
    print('-' * len(head))
    for name, multiple, anysize, elems in rows:
        tm, ta = best[(name, 'multiple')], best[(name, 'any')]
        em, ea = tm * 1e6 / elems(multiple[2]), ta * 1e6 / elems(anysize[2])
        print(f'{name:10} {multiple[1]:16} {sizes_text(multiple[2]):>10} {em:9.4f}   '
              f'{anysize[1]:16} {sizes_text(anysize[2]):>16} {ea:9.4f}   ' +
              (f'{em / ea:5.2f}' if ea > 0 else '    -'))  # a CPU time of 0: too few runs to tell
    what = (f'CPU time per run, least of {a.rounds} rounds of {a.repeat} + 1 runs less 1' if a.cpu_time else
            f'fastest of {a.rounds} rounds x {a.repeat} runs each')
    print(f'({what}, one process per kernel and round; '
          'ratio: multiple time per element / any-size time per element)')
    cache = 'off: the declared defaults' if a.tune_cache == 'off' else (
        'a fresh one, removed after' if tmp else a.tune_cache)
    print(f'(tuning cache {cache}' + (f'; {tuned_note}' if tuned_note else '') + ')')
    for name, multiple, anysize, _ in rows:
        for which, spec in (('multiple', multiple), ('any', anysize)):
            if took[(name, which)]:
                print(f'  {spec[1]} at {sizes_text(spec[2])}: tuned {took[(name, which)]}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
