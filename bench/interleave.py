#!/usr/bin/env python3
"""Kernels timed launch by launch in one process: a measurement for
benchmarks, not a test.

  bench/interleave.py [--dpia build/dpia] [--seconds 20] --size N=... FILE:KERNEL ...

Each kernel (or pipeline) is translated by `dpia translate --emit=json`,
built once with pyopencl on the first OpenCL device (PoCL), given its own
buffers of random inputs (the same numbers for every kernel's i-th input
of the same type and length) and launched as its description says
(global and local sizes, a pipeline's launches and temporaries, local
memory for its local temporaries).  Then rounds: in each round every
kernel is launched once, in a new random order, and timed by its
profiling events (a pipeline: the sum of its launches').  The rounds go on
until --seconds have passed (at least 20 rounds, at most 2000).

Timing every kernel in every round, in one process, puts the load of a
shared machine on all of them alike, where timing each in its own `dpia
run` gives the fastest launch of whichever process met an idle moment: on
the 2-core virtual machine of BENCHMARKS.md, four scal kernels that move
the same bytes spread over 2.8 to 4.3 ms that way in one run.

Printed for each kernel: the fastest launch, the median and the rounds.
`compare()` gives a program's ratio: the median over the rounds of
(this kernel's time / the reference kernel's time in the same round).
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import pyopencl as cl

SCALAR_TYPES = {'float': (4, 4), 'int': (4, 4), 'double': (8, 8), 'uint': (4, 4), 'bool': (4, 4)}


def type_layout(t):
    """(bytes, alignment) of an element type as dpia's OpenCL C lays it out:
    scalars, vectors (float4: 16 bytes, a 3-vector as a 4-vector) and
    tuples, a struct of their members (typedef struct { A fst; B snd; })."""
    t = t.strip()
    if t.startswith('('):
        depth, parts, start = 0, [], 1
        for i, c in enumerate(t):
            if c == '(':
                depth += 1
            elif c == ')':
                depth -= 1
            elif c == ',' and depth == 1:
                parts.append(t[start:i])
                start = i + 1
        parts.append(t[start:-1])
        size, align = 0, 1
        for p in parts:
            s, a = type_layout(p)
            size = (size + a - 1) // a * a + s
            align = max(align, a)
        return (size + align - 1) // align * align, align
    m = re.fullmatch(r'([a-z]+?)(\d*)', t)
    if not m or m.group(1) not in SCALAR_TYPES:
        raise ValueError(f'element type {t!r}: not one this timer lays out')
    size, align = SCALAR_TYPES[m.group(1)]
    n = int(m.group(2) or 1)
    n = 4 if n == 3 else n
    return size * n, size * n


def size_value(expr, sizes):
    """a size expression of dpia's description (N/2048, 33*N/32, M*N),
    natural-number division as in the kernels"""
    py = re.sub(r'(?<![/])/(?![/])', '//', expr)
    if not re.fullmatch(r'[\w\s+\-*/%()]*', py):
        raise ValueError(f'size expression {expr!r}')
    return int(eval(py, {'__builtins__': {}, 'min': min, 'max': max}, dict(sizes)))


def describe(dpia, path, kernel):
    p = subprocess.run([dpia, 'translate', path, '-k', kernel, '--emit=json'],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f'{path} -k {kernel}: dpia translate exit {p.returncode}\n{p.stderr}')
    return json.loads(p.stdout)


class Timed:
    """one kernel or pipeline, built, its buffers made, ready to launch"""

    def __init__(self, ctx, queue, label, desc, sizes, inputs):
        self.label, self.queue = label, queue
        program = cl.Program(ctx, desc['source']).build()
        self.buffers, self.scalars = {}, {}
        nth = {}
        for p in desc['params'] + desc.get('temporaries', []):
            role = p.get('role', 'temp')
            if role == 'nat':
                self.scalars[p['name']] = np.int32(sizes[p['name']])
            elif role == 'scalar':
                self.scalars[p['name']] = (np.int32(3) if p['type'] in ('int', 'uint')
                                           else np.float64(1.5) if p['type'] == 'double' else np.float32(1.5))
            elif p.get('space') == 'local':
                self.buffers[p['name']] = cl.LocalMemory(type_layout(p['type'])[0] * size_value(p['elements'], sizes))
            else:
                nbytes = max(type_layout(p['type'])[0] * size_value(p['elements'], sizes), 1)
                if role == 'input':
                    key = (p['type'], nbytes, nth.get((p['type'], nbytes), 0))
                    nth[key[:2]] = key[2] + 1
                    if key not in inputs:
                        inputs[key] = random_bytes(p['type'], nbytes, len(inputs))
                    self.buffers[p['name']] = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                                                        hostbuf=inputs[key])
                else:
                    self.buffers[p['name']] = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, nbytes)
        if 'launches' in desc:
            self.launches = []
            for launch in desc['launches']:
                args = [self.buffers[a['buffer']] if 'buffer' in a else np.int32(size_value(a['size'], sizes))
                        for a in launch['args']]
                self.launches.append(self.prepare(program, launch['kernel'], args, launch, sizes))
        else:
            args = [self.buffers[p['name']] if p['name'] in self.buffers else self.scalars[p['name']]
                    for p in desc['params']]
            self.launches = [self.prepare(program, desc['kernel'], args, desc, sizes)]

    @staticmethod
    def prepare(program, name, args, launch, sizes):
        k = getattr(program, name)
        k.set_args(*args)
        global_size = tuple(size_value(e, sizes) for e in launch['global_size'])
        local_size = tuple(size_value(e, sizes) for e in launch['local_size']) if launch['local_size'] else None
        return k, global_size, local_size

    def launch(self):
        """the seconds of one launch (a pipeline: of its launches, summed)"""
        events = [cl.enqueue_nd_range_kernel(self.queue, k, g, l) for k, g, l in self.launches]
        events[-1].wait()
        return sum(e.profile.end - e.profile.start for e in events) * 1e-9


def random_bytes(type_name, nbytes, seed):
    """inputs as `dpia run` makes them by default: either sign, |x| in
    [1/16, 1) for floating point; small integers otherwise"""
    rng = np.random.default_rng(1000 + seed)
    base = re.match(r'[a-z]+', type_name.strip('( ')).group(0)
    if base in ('int', 'uint', 'bool'):
        return rng.integers(0, 16, nbytes // 4, dtype=np.int32)
    dtype = np.float64 if base == 'double' else np.float32
    n = nbytes // np.dtype(dtype).itemsize
    return (rng.uniform(1 / 16, 1, n) * rng.choice([-1, 1], n)).astype(dtype)


def time_interleaved(dpia, kernels, sizes, seconds=20.0, seed=1, min_rounds=20, max_rounds=2000):
    """kernels: [(label, path, kernel)]; returns {label: [seconds of each round]}"""
    device = cl.get_platforms()[0].get_devices()[0]  # dpia run's default: the first platform's first device
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    inputs = {}
    timed = [Timed(ctx, queue, label, describe(dpia, path, k), sizes, inputs) for label, path, k in kernels]
    for t in timed:  # warm up: first launches page in buffers and code
        t.launch()
        t.launch()
    rng = random.Random(seed)
    times = {t.label: [] for t in timed}
    start = time.monotonic()
    rounds = 0
    while rounds < max_rounds and (rounds < min_rounds or time.monotonic() - start < seconds):
        order = timed[:]
        rng.shuffle(order)
        for t in order:
            times[t.label].append(t.launch())
        rounds += 1
    return times


def compare(times, label, reference):
    """the median over the rounds of times[label] / times[reference], round by round"""
    return statistics.median(a / b for a, b in zip(times[label], times[reference]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dpia', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build', 'dpia'))
    ap.add_argument('--seconds', type=float, default=20)
    ap.add_argument('--size', action='append', required=True, metavar='NAME=N[,NAME=N]')
    ap.add_argument('kernels', nargs='+', metavar='FILE:KERNEL')
    args = ap.parse_args()
    sizes = {}
    for spec in args.size:
        for part in spec.split(','):
            name, _, value = part.partition('=')
            sizes[name] = int(value)
    kernels = [(spec, spec.rpartition(':')[0], spec.rpartition(':')[2]) for spec in args.kernels]
    times = time_interleaved(args.dpia, kernels, sizes, args.seconds)
    first = kernels[0][0]
    print(f'{"kernel":40} {"min ms":>9} {"median ms":>9} {"rounds":>6} {"ratio to " + first}')
    for label, ts in times.items():
        print(f'{label:40} {min(ts) * 1e3:9.4f} {statistics.median(ts) * 1e3:9.4f} {len(ts):6} '
              f'{compare(times, label, first):.3f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
