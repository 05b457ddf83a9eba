#!/usr/bin/env python3
"""skip_reasons.py: run_diff.py says why it skips a program, and counts
each reason on a line of its own.

A sweep on Oclgrind skips the programs whose kernel Oclgrind cannot
create: its interpreter lacks the LLVM intrinsic llvm.abs.i32, which clang
makes of an int's absolute value written `select ((-x) > x) (-x) x`
(gen.py --seed 1072 --index 448, gen46's sweep), and dpia run then exits
4 as if there were no device.  Counted among the other skips, such
programs went unnoticed; run_diff.py's summary now has a line
`skipped N: Oclgrind cannot run llvm.abs.i32 (...)`.

1. With a stand-in for oclgrind first on PATH, which answers for the
   absolute value what Oclgrind 21.10 answers (its fatal error, then
   dpia's E0004, exit 4) and runs every other `dpia run` itself, on the
   default device: four programs, the absolute value, one whose
   reference is 0 for every kind of inputs (skipped with E0006), a float
   sum of 20000 terms off the float bound by rounding alone (skipped:
   its double twin agrees, run_diff.py's in_double) and one that runs.
   The summary must have one line for each of the three skip reasons
   and count the fourth as passed.  Then a program the stand-in makes
   wrong in float and in double alike: a failure, not a skip.
2. With the real Oclgrind, if installed (not with --no-oclgrind: a
   sanitized build, whose runtime Oclgrind's LD_PRELOAD would precede):
   the absolute value is skipped for that reason, or passes (an Oclgrind
   that implements llvm.abs), never another skip or a failure.

Usage: skip_reasons.py --dpia build/dpia [--no-oclgrind]"""
import argparse
import os
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_DIFF = os.path.join(HERE, 'run_diff.py')

ABS = '''-- an int's absolute value as a select, which clang makes llvm.abs.i32
-- run: -k k --size N=64
kernel k (N: nat) (xs: [N]int) =
  xs |> mapGlobal0 (\\x -> select ((-x) > x) (-x) x)
'''
ZEROS = '''-- a result of zeros whatever the inputs: nothing to compare
-- run: -k k --size N=64
kernel k (N: nat) (xs: [N]float) =
  xs |> mapGlobal0 (\\x -> x * 0.0)
'''
# a float sum drifting past the float bound (1e-4) by rounding alone: 20000
# terms of 6.2 added in one work-item make 124023.63 in float (numpy's
# float32 too), 123999.996 in the double reference; in double it agrees
# (run_diff.py, in_double; derived seed 1213 #31, gen53)
ROUNDING = '''-- a float sum of 20000 terms that drifts past the float bound by rounding
-- run: -k k --size N=20000
kernel k (N: nat) (xs: [N]float) =
  xs |> mapSeq (\\x -> max x 6.2) |> reduceSeq (\\x a -> x + a) 0.0
'''
# a wrong kernel in float and in double alike (the stand-in says so for
# both): a failure, which the double twin must not turn into a skip
WRONG = '''-- wrong on purpose: the stand-in's answer for float and double alike
-- run: -k k --size N=64
kernel k (N: nat) (xs: [N]float) =
  xs |> mapGlobal0 (\\x -> x * 3.0)
'''
RUNS = '''-- a program that runs
-- run: -k k --size N=64
kernel k (N: nat) (xs: [N]float) =
  xs |> mapGlobal0 (\\x -> x * 2.0 + 1.0)
'''

# What Oclgrind 21.10 and dpia print for ABS (gen46's sweep, seed 1072 #448)
ORACLE_SAYS = '''
OCLGRIND FATAL ERROR (./src/core/WorkItem.cpp:1681)
Undefined external function: llvm.abs.i32
When creating kernel 'k'
dpia: error[E0004]: OpenCL: the OpenCL program has no kernel k: \
OpenCL error CL_INVALID_KERNEL_NAME (-46) in clCreateKernel
'''

# The stand-in: `oclgrind FLAGS... DPIA run FILE ...`
STAND_IN = '''#!{python}
import os, sys
args = sys.argv[1:]
if args == ['--version']:
    print('Oclgrind (stand-in of tests/diff/skip_reasons.py)')
    sys.exit(0)
dpia = args.index({dpia!r})
with open(args[dpia + 2]) as fh:
    text = fh.read()
if 'select ((-x) > x)' in text:
    sys.stderr.write({says!r})
    sys.exit(4)
if 'wrong on purpose' in text:
    bound = '1e-12' if '[N]double' in text else '1e-04'
    sys.stderr.write("error[E0005]: kernel 'k' differs from the reference interpreter: relative error 0.5 exceeds "
                     "the bound " + bound + "; largest at element 0: got 3, expected 2\\n")
    sys.exit(3)
os.execv(args[dpia], args[dpia:])
'''


def run_diff(dpia, files, env):
    p = subprocess.run([sys.executable, RUN_DIFF, '--dpia', dpia, '--no-regress', '--count', '0', '--jobs', '1',
                        '--quiet', '--oracle', 'oclgrind', *files], capture_output=True, text=True, env=env,
                       timeout=600)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--dpia', required=True)
    ap.add_argument('--no-oclgrind', action='store_true', help='leave out the run on the real Oclgrind')
    a = ap.parse_args()
    dpia = os.path.abspath(a.dpia)
    failures = []
    abs_line = 'skipped 1: Oclgrind cannot run llvm.abs.i32 (undefined external function, exit 4)'
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, text in (('abs', ABS), ('zeros', ZEROS), ('runs', RUNS), ('rounding', ROUNDING), ('wrong', WRONG)):
            files.append(os.path.join(tmp, name + '.dpia'))
            with open(files[-1], 'w') as fh:
                fh.write(text)
        bin_dir = os.path.join(tmp, 'bin')
        os.mkdir(bin_dir)
        stand_in = os.path.join(bin_dir, 'oclgrind')
        with open(stand_in, 'w') as fh:
            fh.write(STAND_IN.format(python=sys.executable, dpia=dpia, says=ORACLE_SAYS))
        os.chmod(stand_in, os.stat(stand_in).st_mode | stat.S_IXUSR)

        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get('PATH', ''))
        rc, out = run_diff(dpia, files[:4], env)
        lines = out.splitlines()
        print('with the stand-in:\n' + '\n'.join(x for x in lines if x.startswith(('skipped', 'SKIP', '(')) or
                                                  x.endswith('failed')))
        if 'OpenCL unavailable or failing (exit 4)' in out:
            print('no OpenCL device here: the stand-in runs dpia on it')
            return 77
        zeros_line = 'skipped 1: a reference of zeros for every kind of inputs (E0006)'
        rounding_line = ('skipped 1: float rounding: the same program in double agrees with the reference '
                         '(E0005 in float)')
        for want in (abs_line, zeros_line, rounding_line, '1 passed, 0 failed'):
            if want not in lines:
                failures.append(f'with the stand-in for oclgrind, no line {want!r} in run_diff.py\'s output:\n{out}')
        if rc != 0:
            failures.append(f'with the stand-in for oclgrind, run_diff.py exits {rc}:\n{out}')
        # a kernel wrong in double too stays a failure
        rc, out = run_diff(dpia, files[4:], env)
        print('with the stand-in, a kernel wrong in float and double: ' +
              '; '.join(x for x in out.splitlines() if x.endswith('failed')))
        if rc != 1 or '0 passed, 1 failed' not in out.splitlines() or 'and in double (exit 3)' not in out:
            failures.append(f'with the stand-in, a kernel wrong in float and in double is not a failure (exit {rc}):'
                            f'\n{out}')

        if a.no_oclgrind or shutil.which('oclgrind') is None:
            print('the real Oclgrind: not run (--no-oclgrind or not installed)')
        else:
            rc, out = run_diff(dpia, files[:1], dict(os.environ))
            lines = out.splitlines()
            print('on Oclgrind: ' + '; '.join(x for x in lines if x.startswith('skipped') or x.endswith('failed')))
            if rc != 0 or not (abs_line in lines or '1 passed, 0 failed' in lines):
                failures.append(f'on Oclgrind, the absolute value is neither skipped for llvm.abs.i32 nor passed '
                                f'(exit {rc}):\n{out}')
    for f in failures:
        print('FAIL ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
