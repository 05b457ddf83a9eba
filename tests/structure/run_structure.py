#!/usr/bin/env python3
"""Structural checks on generated OpenCL: each .dpia here carries
`-- CHECK:` lines for dpia-filecheck (PCRE2), run against
`dpia translate FILE` (plus the options of any `-- ARGS:` line).  Prints `N passed, M failed`."""
import os, subprocess, sys
dpia, filecheck, here = (os.path.abspath(a) for a in sys.argv[1:4])
passed = failed = 0
for f in sorted(os.listdir(here)):
    if not f.endswith('.dpia'):
        continue
    path = os.path.join(here, f)
    args = [l.split(':', 1)[1].split() for l in open(path) if l.startswith('-- ARGS:')]
    t = subprocess.run([dpia, 'translate', f] + sum(args, []), cwd=here, capture_output=True, text=True)
    c = subprocess.run([filecheck, path], input=t.stdout, capture_output=True, text=True)
    if t.returncode == 0 and c.returncode == 0:
        passed += 1
        print(f'PASS {f}')
    else:
        failed += 1
        print(f'FAIL {f}: translate exit {t.returncode}, filecheck exit {c.returncode}\n{t.stderr}{c.stdout}{c.stderr}')
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
