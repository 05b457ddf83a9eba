#!/usr/bin/env python3
"""Limits: each case is a program (written inline or generated
here), a command, and the expected exit code and message.  Every limit
fails with a clear error, in bounded time, never with a crash (a signal),
an internal error (exit 70) or an exhausted machine.

Usage: run_limits.py DPIA SAMPLES [--no-run]
(--no-run: skip the `dpia run` cases, which need an OpenCL device).

The nesting limits, and where they are enforced; each is its base value
times 32 (DPIA_DEEP_SCALE), since a program that hits a base limit is
translated again on a thread with a 256 MiB stack (app/driver.c):
  source nesting      1000 levels (dpia/ast.h DPIA_MAX_NESTING; parser)
  imperative nesting  4000 levels (the re-check of the translation,
                      app/driver.c pass_recheck)
  nesting after inlining defs  10000 levels (dpia/check.h
                      DPIA_MAX_NORMAL_DEPTH; normalisation, also stage II)
The other limits:
  phrase nodes after inlining  4000000 (DPIA_MAX_NORMAL_NODES)
  memory of one translation    1 GiB (DpiaOptions.memory_limit)
  input file          64 MiB (app/main.c)
  sizes               64-bit arithmetic, exact; split k, asVector k
  dpia run            int indices: sizes, element counts and loop steps
                      below 2^31; buffers within the device's
                      CL_DEVICE_MAX_MEM_ALLOC_SIZE (verify/run_limits.h)

Time: each case has a wall-clock limit (240 s) that only catches a hang,
never a slow machine: CI runs this under the sanitizers on a shared
machine whose load multiplies wall times many times over.  That a case
scales (no quadratic blow-up) is checked in the same run by the ratio of
the processor time (user + system, of the dpia process alone) of two
sizes of one program (linear), which load changes far less than wall
time, and which a slower build changes alike at both sizes."""
import os, resource, subprocess, sys, tempfile, time

dpia = os.path.abspath(sys.argv[1])
samples = os.path.abspath(sys.argv[2])
with_run = '--no-run' not in sys.argv[3:]
passed = failed = 0

HANG_S = 240  # a wall-clock limit that only a hang reaches (module docstring)


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def expect(what, args, code, text, seconds=HANG_S):
    """dpia ARGS must exit with code, with text in its output, before a
    hang's limit; its processor time in seconds (None if it failed)"""
    global passed, failed
    start, cpu0 = time.monotonic(), cpu_children()
    try:
        p = subprocess.run([dpia] + args, capture_output=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        failed += 1
        print(f'FAIL {what}: no answer within {seconds} s')
        return None
    took, cpu = time.monotonic() - start, cpu_children() - cpu0
    out = p.stdout.decode(errors='replace') + p.stderr.decode(errors='replace')
    problems = []
    if p.returncode != code:
        problems.append(f'exit {p.returncode}, expected {code}')
    if text not in out:
        problems.append(f'{text!r} not in the output')
    if problems:
        failed += 1
        print(f'FAIL {what}: {"; ".join(problems)}\n  output: {out[:700]}')
        return None
    passed += 1
    print(f'PASS {what} ({took:.1f} s, processor {cpu:.2f} s)')
    return cpu


def linear(what, small, large, times):
    """the processor times small and large (expect's) of a program at two
    sizes, large `times` times small: linear, the ratio about `times`
    (less: a run's fixed cost); quadratic, times^2.  Fails above
    times^1.5, the two's geometric mean"""
    global passed, failed
    if small is None or large is None:
        return  # the case itself failed
    bound = times ** 1.5
    ratio = large / max(small, 1e-3)
    if ratio > bound:
        failed += 1
        print(f'FAIL {what}: {times}x the size took {ratio:.1f}x the processor time ({small:.3f} s, then '
              f'{large:.3f} s), more than {bound:.1f}x: not linear')
    else:
        passed += 1
        print(f'PASS {what}: {times}x the size, {ratio:.1f}x the processor time (at most {bound:.1f}x)')

def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, 'w') as f:
        f.write(text)
    return path

def defs_chain(body0, step, count, kernel):
    """def f0 = body0; def f{i} = step(f{i-1}); then the kernel"""
    lines = [f'def f0 {body0}']
    for i in range(1, count + 1):
        lines.append(f'def f{i} {step(f"f{i-1}")}')
    lines.append(kernel(f'f{count}'))
    return '\n'.join(lines) + '\n'

with tempfile.TemporaryDirectory() as tmp:
    both = (['check'], ['translate'])

    # source nesting: past the base limit, on the deep stack ...
    nested = write(tmp, 'nested.dpia',
                   'kernel k (xs: [4]float) = xs |> mapGlobal (\\x -> ' + '(' * 1200 + 'x' + ')' * 1200 + ')\n')
    for cmd in both:
        expect(f'{cmd[0]}: 1200 nested parentheses (deep stack)', cmd + [nested], 0, '')
    # ... and past the deep limit, the parser's own message (no stack overflow)
    deep = write(tmp, 'deep.dpia',
                 'kernel k (xs: [4]float) = ' + '(' * 33000 + 'xs' + ')' * 33000 + '\n')
    for cmd in both:
        expect(f'{cmd[0]}: 33000 nested parentheses', cmd + [deep], 1,
               'deep.dpia:1:32027: error[E0901]: nesting too deep (more than 32000 levels)')
    deep_lambda = write(tmp, 'lambdas.dpia', 'kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal ('
                        + '\\x -> ' * 33000 + 'x)\n')
    expect('check: 33000 nested lambdas', ['check', deep_lambda], 1, 'nesting too deep (more than 32000 levels)')

    # a chain of 5000 stages in one |> chain: past the base
    # limit, within the deep one, and linear in time and memory
    chain5000 = write(tmp, 'chain5000.dpia', 'kernel k (N: nat) (xs: [N]float) =\n'
                      '  xs |> split 16 |> mapGlobal (\\row -> row\n'
                      + '  |> mapSeq (\\x -> x + 1.0)\n' * 5000 + '  ) |> join\n')
    expect('translate: a chain of 5000 mapSeq stages', ['translate', '--no-verify', chain5000], 0, 'kernel void k(')

    # nesting after inlining: each def one level deeper than the one before
    # (normalisation was quadratic in the number of defs: 1.5 s for 2000)
    linear_defs = write(tmp, 'linear.dpia', defs_chain(
        '(x: float) = x + 1.0', lambda f: f'(x: float) = {f} x + 1.0', 4000,
        lambda f: f'kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> {f} x)'))
    expect('translate: 4000 defs, each nesting one more level', ['translate', '--no-verify', linear_defs], 0,
           'kernel void k(')
    # ... and 20 levels more each, within the deep limit, linear in the
    # defs: 4000 take about 8 times what 500 take (finishing each def
    # looked at every type variable of the defs before it, and code
    # generation walked each sum's whole left operand: 21 more levels a
    # def made both quadratic, 16000 defs 23 s, minutes under the
    # sanitizers)
    def deeper_chain(count):
        return defs_chain('(x: float) = x + 1.0', lambda f: f'(x: float) = {f} x' + ' + 1.0' * 20, count,
                          lambda f: f'kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> {f} x)')
    deeper = [expect(f'check: {n} defs, each nesting 21 more levels', ['check', write(tmp, f'deeper{n}.dpia', deeper_chain(n))],
                     0, '') for n in (500, 4000)]
    linear('check: defs each nesting 21 more levels', deeper[0], deeper[1], 8)
    # ... and past the deep limit
    deeper_defs = write(tmp, 'deeper_defs.dpia', deeper_chain(16000))
    expect('check: 16000 defs, each nesting 21 more levels', ['check', deeper_defs], 1,
           'error[E0901]: program nested too deeply: more than 320000 levels after inlining defs')
    # ... and a chain of maps whose length doubles with each def
    maps = write(tmp, 'maps.dpia', defs_chain(
        '(N: nat) (xs: [N]float) = xs |> mapSeq (\\x -> x + 1.0)',
        lambda f: f'(N: nat) (xs: [N]float) = xs |> {f} |> {f}', 14,
        lambda f: f'kernel k (N: nat) (xs: [N]float) = xs |> split 64 |> mapGlobal (\\c -> {f} c) |> join'))
    # (it hit the node limit: normalising f_i before substituting copied
    # the argument at every level; and normalisation's recursion no longer
    # bounds the result's depth, which is measured: stage I overflowed the
    # stack, and on the deep stack the strategy check did)
    expect('check: 2^14 maps in sequence by doubling defs', ['check', maps], 0, '')

    # phrase nodes after inlining: defs that double in size each level
    wide = write(tmp, 'wide.dpia', defs_chain(
        '(x: float) = x + 1.0', lambda f: f'(x: float) = {f} x * {f} x', 40,
        lambda f: f'kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> {f} x)'))
    for cmd in both:
        expect(f'{cmd[0]}: defs doubling in size 40 times', cmd + [wide], 1,
               'error[E0902]: program too large: more than 4000000 phrase nodes after inlining defs')
    # ... while type checking such defs (without a kernel) stays linear: each
    # def's requirements are kept once, not once per use (they doubled)
    defs_only = write(tmp, 'defs_only.dpia', defs_chain(
        '(N: nat) (xs: [N]float) = xs |> split 2 |> join',
        lambda f: f'(N: nat) (xs: [N]float) = xs |> {f} |> {f}', 60, lambda f: ''))
    expect('check: 60 defs each using the one before twice (no kernel)', ['check', '-v', defs_only], 0,
           'def f60 : (N: nat) -> exp[[N]float] -> exp[[N]float]')

    # verification re-parses and re-checks the imperative program, which
    # nests deeper than its source (about 2.5 levels a materialised stage):
    # it allows 4 times the source's nesting (the checker's own bound), so a
    # chain as deep as the parser accepts verifies (at 400 stages it was an
    # internal error, exit 3) ...
    stages = write(tmp, 'stages.dpia', 'kernel k (N: nat) (xs: [N]float) =\n'
                   '  xs |> split 16 |> mapGlobal (\\row -> row\n'
                   + '  |> toPrivate (mapSeq (\\x -> x + 1.0))\n' * 990 + '  ) |> join\n')
    expect('translate: 990 materialised stages, verified', ['translate', stages], 0, 'kernel void k(')
    # (the re-check's own limit, 4000 levels times 32, would take some
    # 50000 materialised stages to reach: too slow for the suite)

    # a chain of 2^11 maps, within the node and depth limits: its
    # translation grew quadratically and went over the memory limit; it is
    # linear now (the limit itself: tests/api/api_test.c, memory_limit)
    chain = write(tmp, 'chain.dpia', defs_chain(
        '(N: nat) (xs: [N]float) = xs |> mapSeq (\\x -> x + 1.0)',
        lambda f: f'(N: nat) (xs: [N]float) = xs |> {f} |> {f}', 11,
        lambda f: f'kernel k (N: nat) (xs: [N]float) = xs |> split 64 |> mapGlobal (\\c -> {f} c) |> join'))
    expect('check: 2^11 maps in sequence', ['check', chain], 0, '')
    expect('translate: 2^11 maps in sequence', ['translate', '--no-verify', chain], 0, 'kernel void k(')

    # input size: 64 MiB and one byte (a comment) is refused before parsing;
    # exactly 64 MiB is read
    line = '-- ' + 'x' * 60 + '\n'
    limit = 64 << 20
    text = (line * (limit // len(line) + 1))[:limit - 1] + '\n'
    exact = write(tmp, 'exact.dpia', text)
    expect('check: a file of exactly 64 MiB', ['check', exact], 0, '')
    big = write(tmp, 'big.dpia', text + '\n')
    expect('check: a file of 64 MiB + 1 byte', ['check', big], 2, "'" + big + "' is larger than 64 MiB")
    os.unlink(exact)
    os.unlink(big)

    # sizes
    cases = [
        ('size overflowing 64 bits', 'kernel k (xs: [4611686018427387904*8]float) = xs |> mapGlobal (\\x -> x)',
         'error[E0405]: size arithmetic overflows 64 bits'),
        ('size literal beyond 64 bits', 'kernel k (xs: [99999999999999999999]float) = xs |> mapGlobal (\\x -> x)',
         'size.dpia:1:16: error[E0102]: integer literal too large'),
        ('symbolic size overflowing 64 bits',
         'kernel k (N: nat) (xs: [N*9223372036854775807*2]float) = xs |> mapGlobal (\\x -> x)',
         'error[E0405]: size arithmetic overflows 64 bits'),
        ('split 0', 'kernel k (N: nat) (xs: [N]float) = xs |> split 0 |> mapGlobal (\\x -> x) |> join',
         'error[E0404]: split needs a size of at least 1, found 0'),
        ('asVector 5', 'kernel k (xs: [20]float) = xs |> asVector 5 |> mapGlobal (\\x -> x) |> asScalar',
         'error[E0310]: asVector needs a vector width of 2, 3, 4, 8 or 16'),
        ('asVector 5 on a symbolic size',
         'kernel k (N: nat) (xs: [N]float) = xs |> asVector 5 |> mapGlobal (\\x -> x) |> asScalar',
         'error[E0310]: asVector needs a vector width of 2, 3, 4, 8 or 16'),
    ]
    for what, program, message in cases:
        path = write(tmp, 'size.dpia', program + '\n')
        for cmd in both:
            expect(f'{cmd[0]}: {what}', cmd + [path], 1, message)

    if with_run:
        scal = os.path.join(samples, 'scal.dpia')
        # the generated code indexes with int: sizes that do not fit are
        # refused before anything is allocated (N = 2^31 would be 8 GiB of
        # floats on the device and 16 GiB of doubles on the host)
        expect('run: scal with N = 2^31', ['run', scal, '-k', 'scal', '--size', 'N=2147483648'], 2,
               'size N = 2147483648 is too large: the generated kernel takes it as an int (at most 2147483647)')
        expect('run: scal with N = 2^31, its buffers',
               ['run', scal, '-k', 'scal', '--size', 'N=2147483648'], 2,
               'input buffer xs would have 2147483648 elements: the generated kernel indexes it with int')
        matrix = write(tmp, 'matrix.dpia',
                       'kernel rows (N M: nat) (xs: [N][M]float) =\n'
                       '  xs |> mapGlobal (\\row -> reduceSeq (\\x a -> x + a) 0.0 row)\n')
        expect('run: N*M = 2^32 elements, N and M below 2^31',
               ['run', matrix, '--size', 'N=65536', '--size', 'M=65536'], 2,
               'input buffer xs would have 4294967296 elements')
        expect('run: a loop index stepping by the global size past 2^31 - 1',
               ['run', scal, '-k', 'scal', '--size', 'N=2000000000', '--global-size=1000000000'], 2,
               'global size 1000000000 of dimension 0 is too large for int indices')
        # a temporary larger than any device allows (256 GiB of double16,
        # 2^31 - 1024 elements), refused with the device's limit
        temp = write(tmp, 'temp.dpia',
                     'kernel bigTemp (N: nat) (xs: [N + 1023]float) =\n'
                     '  xs |> slide 1024 1\n'
                     '     |> mapGlobal (\\w -> w |> toGlobal (mapSeq (\\x -> vec 16 (toDouble x)))\n'
                     '                           |> reduceSeq (\\v a -> a + v) (vec 16 0.0))\n')
        expect('run: a 256 GiB temporary', ['run', temp, '--size', 'N=2097151'], 4,
               "temporary tmp needs 274877775872 bytes, more than the device's largest buffer "
               "(CL_DEVICE_MAX_MEM_ALLOC_SIZE")

print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
