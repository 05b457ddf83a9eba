#!/usr/bin/env python3
"""gesummvVec at 4096^2 against gesummvAny at 4097^2, launch by launch: a
measurement that prints figures, not a test.

  bench/gesummv_groups.py [--dpia build/dpia] [--rounds 200]

bench/anysize.py times each kernel in its own `dpia run` process, the
fastest of a few launches; on a shared machine that minimum is whichever
run met an idle moment, and its gesummv ratio ranged 0.67 to 1.06
(BENCHMARKS.md, "Any size against multiples").  Here both kernels and the
variants that tell the possible causes apart are built once in one
process (pyopencl, profiling events, the same buffers) and launched in
turn, one launch each a round, so the load falls on all of them alike:

  gesummvVec at 4096 and gesummvAny at 4096 with the local size left to the
    OpenCL implementation (NULL: PoCL makes 2 groups of 2048, one per
    thread of the 2-core machine), the same machine code;
  gesummvAny at 4097 with NULL (PoCL: 17 groups of 241, as 4097 = 17*241:
    9 and 8 on the 2 threads) and with work-groups of 17 (241 groups),
    rows of 4097 floats, so that 7 of 8 rows start off a 32-byte boundary
    (the float8 loads are unaligned);
  gesummvVec at 4096 in 16 groups of 256 (the 17 groups' count without
    their remainder).

Prints each one's time per element (N*N): minimum, 10th percentile and
median over the rounds, and the load average during the run.  Needs
pyopencl (tools/setup.sh).
"""
import argparse
import os
import subprocess

import numpy as np
import pyopencl as cl

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, '..', 'samples')

# label, file, kernel, N, local size (None: the implementation's choice)
CONFIGS = [
    ('gesummvVec 4096, local NULL', 'gesummv.dpia', 'gesummvVec', 4096, None),
    ('gesummvAny 4097, local NULL', 'blas2_any.dpia', 'gesummvAny', 4097, None),
    ('gesummvAny 4096, local NULL', 'blas2_any.dpia', 'gesummvAny', 4096, None),
    ('gesummvAny 4097, local 17', 'blas2_any.dpia', 'gesummvAny', 4097, 17),
    ('gesummvVec 4096, local 256', 'gesummv.dpia', 'gesummvVec', 4096, 256),
]


def load_average():
    with open('/proc/loadavg') as f:
        return float(f.read().split()[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--dpia', default=os.path.join(HERE, '..', 'build', 'dpia'))
    ap.add_argument('--rounds', type=int, default=200)
    a = ap.parse_args()
    ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    programs = {}
    for _, f, k, _, _ in CONFIGS:
        if k not in programs:
            source = subprocess.run([a.dpia, 'translate', os.path.join(SAMPLES, f), '-k', k], capture_output=True,
                                    text=True, check=True).stdout
            programs[k] = cl.Program(ctx, source).build()
    most = max(n for *_, n, _ in CONFIGS)
    rng = np.random.default_rng(1)
    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    a_buf = cl.Buffer(ctx, flags, hostbuf=rng.random(most * most, dtype=np.float32))
    b_buf = cl.Buffer(ctx, flags, hostbuf=rng.random(most * most, dtype=np.float32))
    x_buf = cl.Buffer(ctx, flags, hostbuf=rng.random(most, dtype=np.float32))
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, most * 4)
    kernels = []
    for label, _, k, n, local in CONFIGS:
        kern = cl.Kernel(programs[k], k)
        kern.set_args(out, np.float32(1.5), np.float32(-0.5), a_buf, b_buf, x_buf, np.int32(n))
        kernels.append((label, kern, n, local))
    times = {label: [] for label, *_ in kernels}
    loads = []
    for _ in range(a.rounds):
        loads.append(load_average())
        for label, kern, n, local in kernels:
            ev = cl.enqueue_nd_range_kernel(queue, kern, (n,), (local,) if local else None)
            ev.wait()
            times[label].append((ev.profile.end - ev.profile.start) / (n * n))  # ns per element
    print(f'{a.rounds} rounds, each kernel launched once a round in turn; load average {min(loads):.1f} to '
          f'{max(loads):.1f}')
    print(f'{"":30} {"ns/element: min":>16} {"p10":>7} {"median":>7}')
    for label, *_ in kernels:
        t = np.array(times[label])
        print(f'{label:30} {t.min():16.4f} {np.percentile(t, 10):7.4f} {np.median(t):7.4f}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
