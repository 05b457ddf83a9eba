#!/usr/bin/env python3
"""run_diff.py: differential test of the translator.

Generates COUNT random well-typed strategy programs from SEED (gen.py), and
for each one: `dpia check` must accept it (a rejection is a generator bug or
a wrong rejection: both are reported), then `dpia run --check` runs it on the
OpenCL device with the generator's sizes and compares it with the reference
interpreter; any exit status other than 0 is a FAILURE, printed with the
program text, the command and dpia's output.  Exit 4 (OpenCL unavailable)
skips the run.  Inputs of type idx[n] (index arrays, scalar indices) need
nothing here: `dpia run` fills them with random valid indices in [0, n)
from --seed, like the other inputs.  A third of the programs (chosen by the seed) run with a
launch size other than their natural NDRange (--global-size/--local-size
from the kernel's metadata: fewer groups or work-items than elements, so
that the maps become loops, more work-items than elements, so that they
become guarded, another local size), exercising the other loop forms of
spec section 8.  With --replica-dims F, a share F of those launches also
has 2 or 3 work-groups (or 2 to 4 work-items) in one or two dimensions
the kernel does not use: replicas that run its code alike, whose writes
the single writers' guards on group and global ids must keep apart
(codegen/single_writer.c; drawn from a stream of their own, so that the
other launches stay as they were).  PoCL compiles every kernel afresh (POCL_KERNEL_CACHE=0).
Then every tests/diff/regress/*.dpia file (a fixed bug) is run the same
way, and with --open every open/*.dpia file (an open bug; reported, not
counted): its first line says which bug it shows, its second `-- run: -k KERNEL --size N=...`
gives the command line; a third line `-- expect: reject` means the program
must be rejected by `dpia check` (a wrong acceptance), with exit 1,
`-- expect: reject E0505` that it must be rejected with that error code
and no other (`dpia check --diagnostics=json`), and `-- expect:
reject-or-ok` that it must be rejected or run correctly.  A generated
program says so too: gen.py writes some the checker must refuse (a
mirror read back or updated in place, gen_depresults.py), each with its
code, counted as passed when refused with it.
A launch variation refused with E0604 alone (a barrier needed where not all
work-items of a group arrive: the launch turned a mapLocal whose body needs
one into a loop) counts as passed when the natural launch runs correctly (skipped where
its reference there is zeros for every kind of inputs);
the summary says how many there were.

The meson test runs 200 programs:
    tests/diff/run_diff.py --dpia build/dpia --seed 1 --count 200
A longer run, for hunting bugs:
    tests/diff/run_diff.py --dpia build/dpia --seed S --count 5000 --keep /tmp/fails
One program again:  tests/diff/gen.py --seed S --index I  (its `-- run:`
line has the sizes; a failure report shows the launch options too).
While hunting, --avoid leaves out the patterns of bugs already found (see
gen.AVOIDABLE) and --check-only tests the generator alone (fast).

--oracle oclgrind runs each `dpia run` on Oclgrind's simulated device
instead of PoCL (tests/oclgrind/oclgrind_log.py), which checks every
access: `oclgrind --data-races --uniform-writes --log LOG
--local-mem-size 262144 dpia run ...` (256 KiB of local memory, so that a
program whose sizes give it larger local temporaries runs rather than
exits 4).  Any message in LOG is a FAILURE too, besides the exit-status
checks above: two work-items touching the same byte between barriers with
at least one write (same-value writes included), or an access outside a
buffer.  PoCL runs a group's work-items one after another between
barriers, so a missing barrier passes there.  The failure report
summarises the log: each distinct finding once, with its buffer, the two
work-items and their source lines.  With --keep the log is kept next to
the program (NAME.oclgrind.log).  The meson test diff-oclgrind runs
300 programs with vectors this way, and the regression programs:
    tests/diff/run_diff.py --dpia build/dpia --seed 2 --count 300 --with vectors --oracle oclgrind
Programs named on the command line (FILE.dpia, with their `-- run:` line,
a kept failure say) run after those, the same way.
A program is skipped, not failed, when it cannot be checked here: exit 4
(no OpenCL device, or one failing), an int overflow on its inputs, a
reference of zeros for every kind of inputs, or Oclgrind stopping at an
LLVM intrinsic it does not implement (`Undefined external function:
llvm.abs.i32`, clang's form of an int's absolute value: the kernel is not
created, dpia run exits 4), or a float result off by more than the
float bound (E0005) whose double twin (the program with its float types
made double, in_double) agrees with its reference at the same launch:
rounding, a long float sum's drift, not a wrong kernel (a twin that
disagrees too is reported with the failure).  Each skip names its reason, and the summary
counts each reason on a line of its own (`skipped 2: Oclgrind cannot run
llvm.abs.i32 ...`), so that a sweep says how many programs went unchecked
and why (tests/diff/skip_reasons.py tests this).
With --derived the programs are gen_derived.py's instead of gen.py's:
each high-level program of `gen.py --high-level --seed S --index I`
lowered by a random walk of the rewrite rules (`dpia rewrite`, through
one `dpia batch` process) until `dpia check` accepts it, at sizes that
satisfy its preconditions (the meson test diff-derived runs 100 on
Oclgrind).  `--derived --with neighbours` draws, for about half the
programs, a high-level kernel whose later map reads a map's result at
other elements than its own (a stencil, a shift, a permutation of a
chunk, a tile reduced by columns: gen_high.py, neighbours_kernel), so
that the derived strategy keeps that result in a temporary other
work-items or steps read; without it the programs are as they were.
Prints `N passed, M failed` at the end; exit 1 if anything failed.
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'oclgrind'))
import gen  # noqa: E402
import gen_derived  # noqa: E402
import oclgrind_log  # noqa: E402

RUN_TIMEOUT = 300
# --oracle oclgrind: the simulated device's local memory, 256 KiB rather
# than Oclgrind's 32 KiB, so that a program whose sizes give it larger
# local temporaries is checked for races rather than skipped (exit 4)
ORACLE_LOCAL_MEM = 262144
LAUNCH_FRACTION = 0.3
# what dpia run --check says of a reference that is 0 everywhere
ZERO_REFERENCE = 'the reference is 0 at all'
# what Oclgrind says when its interpreter meets an LLVM intrinsic it does
# not implement: llvm.abs.i32, which clang makes of an int's absolute
# value written select ((-x) > x) (-x) x.  Creating the kernel fails, so
# dpia run finds no kernel and exits 4 as if no device were there.
UNDEFINED_EXTERNAL = re.compile(r'Undefined external function: (\S+)')
# what dpia run --check says of a float result off by more than its bound
FLOAT_OFF = re.compile(r'differs from the reference interpreter: relative error \S+ exceeds the bound 1e-04')
# the skip of a float program whose double twin agrees (in_double)
FLOAT_ROUNDING = 'float rounding: the same program in double agrees with the reference'


def in_double(text):
    """The program with its float types (float, float4 ...), toFloat and
    float literals (1.5f) made double, or None where it has a double
    already (a float converted to it would be a double converted to
    itself).  A float program off its reference by more than the float
    bound (E0005) whose double twin, the same code at another precision,
    agrees within the double bound is float rounding, not a wrong kernel:
    a long float sum drifts (derived seed 1213 #31, gen53: 10850 terms of
    about 6.2 added in one work-item, 67548.04 in float where the double
    reference is 67538.48, as numpy's float32 gives in the same order)."""
    code = '\n'.join(x for x in text.splitlines() if not x.lstrip().startswith('--'))
    if re.search(r'\b(double\d*|toDouble)\b', code):
        return None
    text = re.sub(r'\bfloat(\d*)\b', r'double\1', text)
    text = re.sub(r'\btoFloat\b', 'toDouble', text)
    return re.sub(r'\b(\d+(?:\.\d+)?)f\b', r'\1', text)


def skip_reason(detail):
    """Why a program was skipped (its output and command line in detail):
    the summary counts each reason on a line of its own, so that a sweep's
    report says how many programs went unchecked, and why."""
    m = UNDEFINED_EXTERNAL.search(detail)
    if m:
        return f'Oclgrind cannot run {m.group(1)} (undefined external function, exit 4)'
    if ZERO_REFERENCE in detail:
        return 'a reference of zeros for every kind of inputs (E0006)'
    if FLOAT_ROUNDING in detail:
        return FLOAT_ROUNDING + ' (E0005 in float)'
    if 'leaves the 32-bit range' in detail:
        return 'an int overflow on these inputs'
    return 'OpenCL unavailable or failing (exit 4)'


def run(cmd, env, split=False):
    """(exit status, output), or (status, stdout, stderr) when split."""
    for attempt in range(30):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env)
            if p.returncode == 127 and 'error while loading shared libraries' in p.stderr and attempt < 29:
                time.sleep(2)  # libdpia is being relinked by a concurrent build
                continue
            if split:
                return p.returncode, p.stdout, p.stderr
            return p.returncode, p.stdout + p.stderr
        except (PermissionError, FileNotFoundError):
            if attempt == 29:  # dpia missing: being relinked for too long
                raise
            time.sleep(2)  # the binary is being relinked by a concurrent build
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors='replace') if isinstance(e.stdout, bytes) else (e.stdout or '')
            out += f'\n(timed out after {RUN_TIMEOUT} s)'
            return ('timeout', out, '') if split else ('timeout', out)


def parse_header(text):
    """(kernel, [size args], expect) from the `-- run:` and `-- expect:` lines."""
    kernel, sizes, expect = None, [], 'ok'
    for line in text.splitlines()[:5]:
        m = re.match(r'--\s*run:\s*(.*)', line)
        if m:
            args = m.group(1).split()
            i = 0
            while i < len(args):
                if args[i] == '-k':
                    kernel = args[i + 1]
                    i += 2
                elif args[i] == '--size':
                    sizes += ['--size', args[i + 1]]
                    i += 2
                else:
                    sizes.append(args[i])
                    i += 1
        m = re.match(r'--\s*expect:\s*([\w-]+(?:\s+E\d{4})*)', line)
        if m:
            expect = m.group(1)
    return kernel, sizes, expect


def size_expr(expr, values):
    """The value of a metadata size expression (C syntax, exact '/')."""
    if not re.fullmatch(r'[0-9A-Za-z_+\-*/%() ]+', expr):
        raise ValueError(expr)
    return eval(expr.replace('/', '//'), {'__builtins__': {}}, dict(values))  # noqa: S307


def choose_launch(dpia, path, kernel, sizes, rng, env, replica_rng=None):
    """Launch options other than the kernel's natural NDRange (fewer
    work-items or groups than elements: loops; more work-items than
    elements: guards; another local size), chosen with rng from the
    kernel's metadata.  [] when there is nothing to vary.  replica_rng
    (--replica-dims): also work-items or work-groups in one or two
    dimensions the kernel does not use, which run its code alike
    (replicas: codegen/single_writer.c)."""
    rc, out, _ = run([dpia, 'translate', path, '-k', kernel, '--emit=json', '--no-verify'], env, split=True)
    if rc != 0:
        return []
    meta = json.loads(out)
    values = [a.split('=', 1) for a in sizes if '=' in a]
    values = {k: int(v) for k, v in values}
    try:
        glob = [size_expr(x, values) for x in meta['global_size']]
        loc = [size_expr(x, values) for x in meta['local_size']] if meta.get('local_size') else None
    except (ValueError, SyntaxError, ZeroDivisionError, NameError):
        return []
    if loc is None:
        g2 = [rng.randint(1, g) if g > 1 and rng.random() < 0.8 else g for g in glob]
        l2 = None
        if rng.random() < 0.3:
            l2 = [rng.choice([1, 2, 4, 8, 16, 32]) if d == 0 else 1 for d in range(len(g2))]
            g2 = [-(-g // l) * l for g, l in zip(g2, l2)]
        return replica_dims(replica_rng, l2, g2, global_first=True)
    groups = [max(1, g // max(1, l)) for g, l in zip(glob, loc)]
    l2 = []
    for l in loc:
        cands = [l, max(1, rng.randint(1, l))]
        if l % 2 == 0:
            cands.append(l // 2)
        if l * 2 <= 128:
            cands.append(l * 2)
        l2.append(rng.choice(cands))
    while math.prod(l2) > 256:
        l2[l2.index(max(l2))] //= 2
    gr2 = [rng.randint(1, g) if rng.random() < 0.5 else g for g in groups]
    if gr2 != groups or l2 != loc or rng.random() < 0.5:
        return replica_dims(replica_rng, l2, [a * b for a, b in zip(gr2, l2)])
    if replica_rng:  # the natural number of groups, given in full for the added dimensions
        return replica_dims(replica_rng, l2, [a * b for a, b in zip(groups, l2)])
    return [f'--local-size={",".join(map(str, l2))}']


def choose_local_alone(dpia, path, kernel, rng, env):
    """The user's local size alone (--local-size=, no global size),
    another than the kernel's natural one, chosen with rng, now and then
    with one or two dimensions beyond the kernel's own of 2 or 3
    work-items: `dpia run` keeps the natural number of work-groups where a
    map distributes them and one where none does (docs/reference.md,
    section 8.3), so the added work-items are replicas within one group,
    which the single writers' guards on local ids keep apart (gen51's race
    of --local-size=8,2 was at such a launch; choose_launch gives the
    local size alone only at the natural one).  None for a kernel with
    no local size or a symbolic one (its global size, the natural one, is
    then the launch's, which another local size must divide, E0805):
    choose_launch's launch instead."""
    rc, out, _ = run([dpia, 'translate', path, '-k', kernel, '--emit=json', '--no-verify'], env, split=True)
    if rc != 0:
        return []
    meta = json.loads(out)
    try:
        loc = [int(x) for x in meta.get('local_size') or []]
    except ValueError:
        return None
    if not loc:
        return None
    ndims = len(loc)
    local = []
    for l in loc:
        cands = [max(1, rng.randint(1, l))] + ([l // 2] if l % 2 == 0 else []) + ([l * 2] if l * 2 <= 128 else [])
        local.append(rng.choice(cands + [l]) if ndims > 1 else rng.choice(cands))
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        if len(local) < 3:
            local.append(rng.choice([2, 2, 3]))
    while math.prod(local) > 256:
        local[local.index(max(local))] //= 2
    return [f'--local-size={",".join(map(str, local))}']


def replica_dims(rng, local, glob, global_first=False):
    """The options of these local and global sizes (local None: not
    given), with one or two dimensions beyond the kernel's own added when
    rng is given: 2 or 3 work-groups there of 1 or 2 work-items each (2
    to 4 work-items where the local size is not given), replicas of a
    group body or of the kernel's code, which the single writers' guards
    on group and global ids keep from writing twice (gen49's and gen50's
    races and internal error were found only at such launches)."""
    if rng:
        for _ in range(min(3 - len(glob), rng.choice([1, 1, 1, 2]))):
            if local is None:
                glob.append(rng.choice([2, 3, 4]))
                continue
            lsize, groups = rng.choice([1, 1, 2]), rng.choice([2, 2, 3])
            local.append(lsize)
            glob.append(lsize * groups)
    opts = [f'--global-size={",".join(map(str, glob))}']
    if local is not None:
        opts.insert(0 if not global_first else 1, f'--local-size={",".join(map(str, local))}')
    return opts


def test_one(dpia, path, kernel, sizes, expect, seed, env, launch_rng=None, check_only=False, oclgrind_log_path=None,
             target=(), replica_rng=None, local_alone_rng=None):
    """(status, detail, launch options): status in ok, skip, FAIL.
    oclgrind_log_path: run on Oclgrind, its findings to this file (a
    finding is a FAIL).  target: `--target=c` to run the C target, or ()."""
    expect, *codes = expect.split()
    rc, out = run([dpia, 'check', path] + (['--diagnostics=json'] if codes else []), env)
    if expect in ('reject', 'reject-or-ok'):
        if rc == 1 and codes:
            # `reject E0505`: refused with these codes, and for no other reason
            try:
                got = sorted({d['code'] for d in json.loads(out)})
            except (ValueError, KeyError, TypeError):
                got = None
            if got != sorted(codes):
                return 'FAIL', f'dpia check refuses the program with {got}, expected {" ".join(codes)}:\n{out}', []
        if rc == 1:
            return 'ok', '', []
        if expect == 'reject-or-ok' and rc == 0:
            rc, out = run([dpia, 'run', *target, path, '-k', kernel, *sizes, '--check', '--seed', str(seed)], env)
            if rc == 0:
                return 'ok', out, []
            return 'FAIL', f'dpia check accepts the program, but dpia run exits {rc} (expected a rejection by check, ' \
                f'or a correct run):\n{out}', []
        if rc != 0:
            return 'FAIL', f'dpia check exited {rc} (expected 1: a rejection)\n{out}', []
        detail = 'dpia check accepted a program it must reject'
        rc, out = run([dpia, 'run', *target, path, '-k', kernel, *sizes, '--check', '--seed', str(seed)], env)
        return 'FAIL', f'{detail}; dpia run exits {rc}:\n{out}', []
    if rc != 0:
        what = 'REJECTED by dpia check (a generator bug, or a wrong rejection)' if rc == 1 else \
            f'dpia check exited {rc}'
        return 'FAIL', f'{what}:\n{out}', []
    if check_only:
        return 'ok', out, []
    launch = choose_local_alone(dpia, path, kernel, local_alone_rng, env) if local_alone_rng else None
    if launch is None:
        launch = choose_launch(dpia, path, kernel, sizes, launch_rng, env, replica_rng) if launch_rng else []
    rest = ['-k', kernel, *sizes, *launch, '--check', '--seed', str(seed)]
    cmd = ['dpia', 'run', *target, os.path.basename(path), *rest]
    full = [dpia, 'run', *target, path, *rest]
    if oclgrind_log_path:
        full = oclgrind_log.command(full, oclgrind_log_path, ORACLE_LOCAL_MEM)
        cmd = oclgrind_log.command(cmd, os.path.basename(oclgrind_log_path), ORACLE_LOCAL_MEM)
    rc, out = run(full, env)
    # a reference that is 0 at every element (a comparison never true, a
    # cutoff no input reaches) verifies nothing, and run --check says so
    # (E0006): other inputs, as its message suggests, or a skip
    base_full, base_cmd = full, cmd
    for kind in ('positive', 'unit'):
        if not (rc == 3 and ZERO_REFERENCE in out):
            break
        full, cmd = [*base_full, f'--inputs={kind}'], [*base_cmd, f'--inputs={kind}']
        rc, out = run(full, env)
    if rc == 3 and ZERO_REFERENCE in out:
        return 'skip', f'$ {" ".join(cmd)}\n{out}', launch
    findings = oclgrind_log.summarize(oclgrind_log.read_log(oclgrind_log_path)) if oclgrind_log_path else ''
    if findings:
        return 'FAIL', f'$ {" ".join(cmd)}\ndpia run: exit {rc}; Oclgrind reports:\n{findings}\n' \
            f'--- dpia run\'s output ---\n{out}', launch
    if rc == 0:
        return 'ok', out, launch
    if rc == 4:
        return 'skip', f'$ {" ".join(cmd)}\n{out}', launch
    if rc == 3 and FLOAT_OFF.search(out):
        with open(path) as fh:
            twin = in_double(fh.read())
        if twin is not None:
            # the same program and launch in double: within its bound, the
            # float kernel's error is rounding; off, a wrong kernel
            dpath = path[:-len('.dpia')] + '.double.dpia'
            with open(dpath, 'w') as fh:
                fh.write(twin)
            dfull = [dpath if x == path else x for x in full]
            dlog = None
            if oclgrind_log_path:
                dlog = oclgrind_log_path + '.double'
                dfull = [dlog if x == oclgrind_log_path else x for x in dfull]
            rc2, out2 = run(dfull, env)
            dfindings = oclgrind_log.summarize(oclgrind_log.read_log(dlog)) if dlog else ''
            if rc2 == 0 and not dfindings:
                return 'skip', f'$ {" ".join(cmd)}\n{out}\n{FLOAT_ROUNDING}:\n{out2}', launch
            out += f'\nand in double (exit {rc2}):\n{out2}{dfindings}'
    if rc == 1 and launch:
        # A launch under which a barrier is needed where not all work-items
        # of the group arrive (a mapLocal that becomes a loop around a stage
        # its nested mapLocal reads) is refused with E0604: a located
        # rejection of that launch, not a wrong kernel.  The program must
        # still run at its natural launch.
        _, jout, jerr = run([dpia, 'translate', *target, path, '-k', kernel, *launch, '--no-verify', '--diagnostics=json'], env,
                            split=True)
        if set(re.findall(r'"code": "(E\d+)"', jout + jerr)) == {'E0604'}:
            natural = [dpia, 'run', *target, path, '-k', kernel, *sizes, '--check', '--seed', str(seed)]
            if oclgrind_log_path:
                natural = oclgrind_log.command(natural, oclgrind_log_path, ORACLE_LOCAL_MEM)
            rc2, out2 = run(natural, env)
            # a reference of zeros there too: other inputs, as above (the
            # natural run of derived seed 1201 #36 --with neighbours, gen51:
            # `alpha * x - fabs (alpha * x)`, 0 for alpha > 0, was a FAILURE)
            for kind in ('positive', 'unit'):
                if not (rc2 == 3 and ZERO_REFERENCE in out2):
                    break
                rc2, out2 = run([*natural, f'--inputs={kind}'], env)
            if rc2 == 3 and ZERO_REFERENCE in out2:
                return 'skip', f'$ {" ".join(cmd)}\n{out}\nand at the natural launch:\n{out2}', launch
            findings = oclgrind_log.summarize(oclgrind_log.read_log(oclgrind_log_path)) if oclgrind_log_path else ''
            if findings:
                return 'FAIL', f'$ {" ".join(cmd)}\n{out}\nand at the natural launch, Oclgrind reports:\n{findings}', \
                    launch
            if rc2 == 0:
                return 'launch-rejected', f'$ {" ".join(cmd)}\n{out}', launch
            return 'FAIL', f'$ {" ".join(cmd)}\n{out}\nand at the natural launch, dpia run exits {rc2}:\n{out2}', launch
    if rc == 3 and 'leaves the 32-bit range' in out:
        # the generated program overflows an int on these inputs: undefined
        # in OpenCL C, not a fault of the translation
        return 'skip', f'$ {" ".join(cmd)}\n{out}', launch
    what = {1: 'exit 1 (error in the program: a generator bug if it is a precondition, else a wrong rejection)',
            3: 'exit 3 (verification failed or the result differs from the reference)',
            70: 'exit 70 (internal error)'}.get(rc, f'exit {rc}')
    return 'FAIL', f'$ {" ".join(cmd)}\ndpia run: {what}:\n{out}', launch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument('--dpia', required=True)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=200)
    ap.add_argument('--start', type=int, default=0, help='first program index')
    ap.add_argument('--keep', help='directory for failing programs')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--avoid', default='', help='leave out these generator patterns (comma-separated; they hit '
                    'known bugs): ' + '; '.join(f'{k}: {v}' for k, v in gen.AVOIDABLE.items()))
    ap.add_argument('--no-regress', action='store_true', help='do not run regress/*.dpia')
    ap.add_argument('--open', action='store_true', help='also run open/*.dpia (open bugs): they are reported, '
                    'not counted as failures, and one that passes is flagged to be moved to regress/')
    ap.add_argument('--quiet', action='store_true', help='print only failures and the summary')
    ap.add_argument('--check-only', action='store_true', help='only `dpia check` the programs (a fast test of '
                    'the generator)')
    ap.add_argument('--oracle', choices=['pocl', 'oclgrind'], default='pocl',
                    help='where `dpia run` runs: the default OpenCL device (PoCL), or Oclgrind\'s simulated device, '
                    'whose data-race and bounds checks count as failures (oclgrind --data-races --uniform-writes)')
    ap.add_argument('--target', choices=['opencl', 'c'], default='opencl',
                    help='the target `dpia run` translates for and runs: OpenCL on the device (the default), or C '
                    'with OpenMP on the host CPU (docs/targets.md); --oracle oclgrind needs opencl')
    ap.add_argument('--launch-fraction', type=float, default=LAUNCH_FRACTION,
                    help=f'the share of generated programs run with another launch size than their natural '
                    f'NDRange (default {LAUNCH_FRACTION}; 1 for all: a hunt for races under Oclgrind in the loops and '
                    'guards of other launches)')
    ap.add_argument('--replica-dims', type=float, default=0.0,
                    help='the share of the programs run at another launch (--launch-fraction) that also get work-items '
                    'or work-groups in one or two dimensions the kernel does not use (default 0; a hunt for races '
                    'between the replicas that run its code alike, codegen/single_writer.c)')
    ap.add_argument('--local-alone', type=float, default=0.0,
                    help='the share of the programs run at another launch (--launch-fraction) launched with another '
                    'local size alone (--local-size=, the number of work-groups dpia run\'s), now and then with work-items '
                    'in one or two dimensions the kernel does not use (default 0; a hunt for missing guards on local ids '
                    'at the launches of gen51\'s race, which choose_launch does not make)')
    ap.add_argument('--with', dest='extra', action='append', default=[],
                    choices=sorted({**gen.OPTIONAL, **gen_derived.OPTIONAL}),
                    help='a generator feature that is off by default (gen.py --with: ' + ', '.join(sorted(gen.OPTIONAL))
                    + '; with --derived, of the high-level programs: ' + ', '.join(sorted(gen_derived.OPTIONAL)) + ')')
    ap.add_argument('--derived', action='store_true',
                    help='programs derived from gen.py --high-level ones by random walks of the rewrite rules '
                    '(gen_derived.py) instead of gen.py\'s strategy programs')
    ap.add_argument('programs', nargs='*', metavar='FILE.dpia',
                    help='also run these programs, each with its -- run: line (a kept failure again, say)')
    a = ap.parse_args()
    dpia = os.path.abspath(a.dpia)
    env = dict(os.environ, POCL_KERNEL_CACHE='0')
    avoid = [x for x in a.avoid.split(',') if x]
    for x in avoid:
        if x not in gen.AVOIDABLE:
            ap.error(f'unknown pattern {x!r} for --avoid')
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    if a.oracle == 'oclgrind' and a.target != 'opencl':
        ap.error('--oracle oclgrind runs OpenCL: not with --target ' + a.target)
    if a.oracle == 'oclgrind' and not a.check_only:
        why = oclgrind_log.available()
        if why:
            print(f'--oracle oclgrind: {why}')
            return oclgrind_log.missing_status()

    cases = []  # (name, text, kernel, sizes, expect, launch rng)
    replicas = {}  # case index: the rng of its replica dimensions (--replica-dims)
    local_alone = {}  # case index: the rng of its local size alone (--local-alone)
    if a.derived and avoid:
        ap.error('--derived programs are derived from high-level ones: no --avoid')
    wrong = [x for x in a.extra if (x in gen_derived.OPTIONAL) != a.derived]
    if wrong:
        ap.error(f'--with {wrong[0]} is a feature of ' + ('gen.py\'s programs, not --derived ones' if a.derived
                                                          else 'the high-level programs of --derived'))
    batch = gen_derived.Batch(dpia) if a.derived and a.count else None
    for i in range(a.start, a.start + a.count):
        p = gen_derived.derive(batch, a.seed, i, a.extra) if batch else gen.generate(a.seed, i, avoid, a.extra)
        # a third of the programs run with another launch size than their natural NDRange
        lr = random.Random(f'launch:{a.seed}:{i}')
        cases.append((f'seed {a.seed} #{i}', p.text, p.kernel, p.size_args(), p.expect,
                      lr if lr.random() < a.launch_fraction else None))
        # and some of those with replicas in dimensions the kernel does not
        # use (--replica-dims): a stream of its own, so that without the
        # option the launches are as they were
        rr = random.Random(f'replicas:{a.seed}:{i}')
        if a.replica_dims and rr.random() < a.replica_dims:
            replicas[len(cases) - 1] = rr
        # and some with the user's local size alone (--local-alone), a
        # stream of its own too
        la = random.Random(f'local-alone:{a.seed}:{i}')
        if a.local_alone and cases[-1][5] is not None and la.random() < a.local_alone:
            local_alone[len(cases) - 1] = la
    if batch:
        batch.close()
    for sub, wanted in (('regress', not a.no_regress), ('open', a.open)):
        folder = os.path.join(HERE, sub)
        if not wanted or not os.path.isdir(folder):
            continue
        for f in sorted(os.listdir(folder)):
            if f.endswith('.dpia'):
                with open(os.path.join(folder, f)) as fh:
                    text = fh.read()
                kernel, sizes, expect = parse_header(text)
                cases.append((f'{sub}/{f}', text, kernel, sizes, expect, None))
    for f in a.programs:
        with open(f) as fh:
            text = fh.read()
        kernel, sizes, expect = parse_header(text)
        if kernel is None:
            ap.error(f'{f}: no `-- run: -k KERNEL ...` line in its first lines')
        cases.append((f, text, kernel, sizes, expect, None))

    passed = failed = skipped = rejected_launches = 0
    skip_reasons = {}  # reason: how many programs
    durations = []
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        def job(k):
            name, text, kernel, sizes, expect, lr = cases[k]
            path = os.path.join(tmp, f'p{k}.dpia')
            with open(path, 'w') as fh:
                fh.write(text)
            log = os.path.join(tmp, f'p{k}.oclgrind.log') if a.oracle == 'oclgrind' else None
            t0 = time.time()
            res = test_one(dpia, path, kernel, sizes, expect, a.seed, env, lr, a.check_only, log,
                           [f'--target={a.target}'] if a.target != 'opencl' else [], replicas.get(k),
                           local_alone.get(k))
            durations.append((time.time() - t0, name))
            return res

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            for k, (status, detail, launch) in enumerate(ex.map(job, range(len(cases)))):
                name, text, kernel, sizes, expect, _ = cases[k]
                if launch:  # the run line says how it was launched
                    text = re.sub(r'^(-- run:.*)$', lambda m: m.group(1) + ' ' + ' '.join(launch), text, count=1,
                                  flags=re.M)
                if name.startswith('open/'):
                    if status == 'ok':
                        print(f'NOW PASSES {name}: move it to regress/', flush=True)
                    else:
                        lines = [x for x in detail.splitlines() if 'error' in x or 'Assertion' in x] or [status]
                        first = re.sub(r'^\S*\.dpia:\d+:\d+: ', '', lines[-1].strip())
                        print(f'OPEN {name}: {first[:160]}', flush=True)
                    continue
                if status == 'skip' and name.startswith('regress/') and 'ended the run with signal' in detail:
                    # A regression program is kept because the OpenCL
                    # implementation once crashed on dpia's kernel for it:
                    # a crash again is the bug back, not a missing device.
                    status = 'FAIL'
                if status == 'launch-rejected':
                    passed += 1
                    rejected_launches += 1
                    if not a.quiet:
                        print(f'PASS {name} (its launch variation {" ".join(launch)} is refused with E0604; the '
                              'natural launch runs)', flush=True)
                elif status == 'ok':
                    passed += 1
                    if not a.quiet:
                        print(f'PASS {name}', flush=True)
                elif status == 'skip':
                    skipped += 1
                    reason = skip_reason(detail)
                    skip_reasons[reason] = skip_reasons.get(reason, 0) + 1
                    print(f'SKIP {name}: {reason}:\n{detail.rstrip()}', flush=True)
                else:
                    failed += 1
                    print(f'FAILURE {name}\n--- program ---\n{text}--- output ---\n{detail.rstrip()}\n---', flush=True)
                    if a.keep:
                        base = name.replace('/', '_').replace(' ', '_').replace('#', '')
                        with open(os.path.join(a.keep, base + '.dpia'), 'w') as fh:
                            fh.write(text)
                        log = os.path.join(tmp, f'p{k}.oclgrind.log')
                        if a.oracle == 'oclgrind' and os.path.exists(log):
                            shutil.copyfile(log, os.path.join(a.keep, base + '.oclgrind.log'))
    durations.sort(reverse=True)
    print(f'({time.time() - start:.0f} s, {skipped} skipped, {rejected_launches} launch variations refused '
          '(E0604); slowest: '
          + ', '.join(f'{n} {d:.1f} s' for d, n in durations[:3]) + ')')
    for reason, n in sorted(skip_reasons.items(), key=lambda x: (-x[1], x[0])):
        print(f'skipped {n}: {reason}')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
