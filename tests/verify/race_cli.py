#!/usr/bin/env python3
"""The race check of `dpia verify` (verify/race.h), from the command line,
with no OpenCL device (OCL_ICD_VENDORS names an empty directory).

  race_cli.py --dpia DPIA --samples DIR --dropped FILE...
      every kernel of every .dpia of DIR passes the race check (`dpia
      verify -v` says "race check passed"), except the few listed in
      NOT_CHECKED, which must say why they are not checked (and fail when
      they become checkable: a stale entry); and each FILE (samples whose
      kernels synchronise through local memory) fails `dpia verify` with a
      race, E0008 and exit 3, when the check runs the kernels with their
      barriers left out (DPIA_DEBUG_DROP_BARRIERS=1): the check finds the
      races the barriers prevent, whatever code generation does.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# Sample kernels the race check does not run, and the reason it gives.
NOT_CHECKED = {
    # the program's own OpenCL C, which the interpreter cannot run
    ('mandelbrot.dpia', 'mandelbrot'): 'foreign function',
    ('mandelbrot.dpia', 'mandelbrotTiled'): 'foreign function',
    # the semantic check's sizes are beyond its budget (semantic_cli.py)
    ('gemm.dpia', 'gemmBlocks'): 'the semantic check was not done',
    ('sgemm_shoc.dpia', 'sgemmNN'): 'the semantic check was not done',
    ('sgemm_parboil.dpia', 'sgemmNT'): 'the semantic check was not done',
}


def run(cmd, env):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


def samples_mode(dpia, d, env):
    failures, count = [], 0
    for name in sorted(os.listdir(d)):
        if not name.endswith('.dpia'):
            continue
        path = os.path.join(d, name)
        r = run([dpia, 'verify', '-v', path], env)
        if r.returncode != 0:
            failures.append(f'{name}: dpia verify exits {r.returncode}\n{r.stderr}')
            continue
        for line in r.stdout.splitlines():
            if 'race check' not in line:
                continue
            count += 1
            kernel = line.split(':')[0].replace('kernel ', '', 1).strip()
            why = NOT_CHECKED.get((name, kernel))
            passed = 'race check passed' in line
            if passed and why:
                failures.append(f'{name}: {kernel} is checked now; remove it from NOT_CHECKED')
            elif not passed and why and why in line:
                print(f'SKIP {name}: {line}')
            elif not passed:
                failures.append(f'{name}: {line}')
    return failures, count


def dropped_mode(dpia, files, env):
    failures = []
    drop = dict(env, DPIA_DEBUG_DROP_BARRIERS='1')
    for path in files:
        name = os.path.basename(path)
        r = run([dpia, 'verify', '--diagnostics=json', path], drop)
        try:
            diags = json.loads(r.stdout or r.stderr or '[]')
        except json.JSONDecodeError:
            diags = []
        codes = [d.get('code') for d in diags]
        races = [d['message'] for d in diags if d.get('code') == 'E0008']
        if r.returncode != 3 or not races:
            failures.append(f'{name}: with its barriers left out, dpia verify exits {r.returncode} with codes '
                            f'{codes}, expected 3 with E0008\n{r.stdout}{r.stderr}')
        elif 'race on' not in races[0] or 'with no barrier fencing' not in races[0]:
            failures.append(f'{name}: the E0008 message does not name the race: {races[0]}')
        else:
            print(f'ok {name}: {races[0][:160]}...')
    return failures, len(files)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dpia', required=True)
    ap.add_argument('--samples', required=True)
    ap.add_argument('--dropped', nargs='+', required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as no_vendors:
        env = dict(os.environ, OCL_ICD_VENDORS=no_vendors)
        env.pop('DPIA_DEBUG_DROP_BARRIERS', None)
        failures, count = samples_mode(a.dpia, a.samples, env)
        more, n = dropped_mode(a.dpia, a.dropped, env)
    failures += more
    for f in failures:
        print('FAIL', f, file=sys.stderr)
    print(f'{count} kernels, {n} files without barriers, {len(failures)} failures')
    return 1 if failures or count == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
