#!/usr/bin/env python3
"""Any-size kernels against the multiple-size ones: a benchmark that prints
a table, not a test.

  bench/anysize.py [--dpia build/dpia] [--rounds 3] [--repeat 5] [--only NAME,...]

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

The multiple kernels are the samples a caller at a multiple size would
use; where the any-size kernel's strategy differs (dotAny's 64 x 64 per
group against dotPartial's 128 x 2048), the ratio measures the strategy
and the tail together.  gemmAny has gemm's blocks, slices and register
tiles, and writes its M x N result from the padded blocks directly.  Prints the table; exit 0 unless a run failed.
"""
import argparse
import json
import os
import subprocess
import sys

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


def run(dpia, spec, repeat):
    """the fastest of `repeat` runs, in ms, or raise with dpia's message"""
    f, k, sizes = spec
    args = [dpia, 'run', os.path.join(SAMPLES, f), '-k', k, '--repeat', str(repeat), '--json',
            '--size', ','.join(f'{n}={v}' for n, v in sizes.items())]
    p = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        raise RuntimeError(f'{" ".join(args)}: exit {p.returncode}\n{p.stderr}')
    return json.loads(p.stdout)['min_ms']


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
    a = ap.parse_args()
    only = [x for x in a.only.split(',') if x]
    rows = [r for r in ROWS if not only or r[0].split()[0] in only]
    best = {}
    for rnd in range(a.rounds):
        for name, multiple, anysize, _ in rows:
            for which, spec in (('multiple', multiple), ('any', anysize)):
                t = run(a.dpia, spec, a.repeat)
                key = (name, which)
                best[key] = min(best.get(key, t), t)
        print(f'round {rnd + 1} of {a.rounds} done', file=sys.stderr, flush=True)
    head = (f'{"":10} {"multiple kernel":16} {"at":>10} {"ns/elem":>9}   '
            f'{"any-size kernel":16} {"at":>16} {"ns/elem":>9}   {"ratio":>5}')
    print(head)
    print('-' * len(head))
    for name, multiple, anysize, elems in rows:
        tm, ta = best[(name, 'multiple')], best[(name, 'any')]
        em, ea = tm * 1e6 / elems(multiple[2]), ta * 1e6 / elems(anysize[2])
        print(f'{name:10} {multiple[1]:16} {sizes_text(multiple[2]):>10} {em:9.4f}   '
              f'{anysize[1]:16} {sizes_text(anysize[2]):>16} {ea:9.4f}   {em / ea:5.2f}')
    print(f'(fastest of {a.rounds} rounds x {a.repeat} runs each, one process per kernel and round; '
          'ratio: multiple time per element / any-size time per element)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
