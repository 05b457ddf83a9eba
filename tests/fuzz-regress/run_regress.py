#!/usr/bin/env python3
"""Regression tests from fuzzing (fuzz/README.md): every .dpia file here is
an input a fuzz target found a crash, hang, leak or sanitizer report with,
now fixed.  Its leading comment says what was found and fixed, and lines

    -- run: ARGS => CODE [TEXT]

run `dpia ARGS FILE` and require exit code CODE and, if given, TEXT in the
output (stdout and stderr).  Whatever the expectations, a run must end
within the time limit, without a signal and without an internal error
(exit 70).  Usage: run_regress.py DPIA DIR"""
import os, shlex, subprocess, sys

dpia, directory = os.path.abspath(sys.argv[1]), sys.argv[2]
TIMEOUT = 120
passed = failed = 0

def fail(what, why, output=''):
    global failed
    failed += 1
    print(f'FAIL {what}: {why}')
    if output:
        print('  output: ' + output[:800].replace('\n', '\n          '))

files = sorted(f for f in os.listdir(directory) if f.endswith('.dpia'))
if not files:
    fail(directory, 'no .dpia files')
for name in files:
    path = os.path.join(directory, name)
    runs = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith('-- run:'):
                args, _, expect = line[len('-- run:'):].partition('=>')
                code, _, text = expect.strip().partition(' ')
                runs.append((shlex.split(args), int(code), text.strip()))
    if not runs:
        fail(name, 'no "-- run:" line')
    for args, code, text in runs:
        what = f'dpia {" ".join(args)} {name}'
        try:
            p = subprocess.run([dpia] + args + [path], capture_output=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            fail(what, f'no answer within {TIMEOUT} s')
            continue
        out = p.stdout.decode(errors='replace') + p.stderr.decode(errors='replace')
        if p.returncode < 0 or p.returncode == 70:
            fail(what, f'crashed (exit {p.returncode})', out)
        elif p.returncode != code:
            fail(what, f'exit {p.returncode}, expected {code}', out)
        elif text and text not in out:
            fail(what, f'{text!r} not in the output', out)
        else:
            passed += 1
            print(f'PASS {what}')

print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
