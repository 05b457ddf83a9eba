#!/usr/bin/env python3
"""opencl_names.py: every name in the OpenCL C name tables of codegen/backend_opencl_names.c
(kernel names, spec section 8) is rejected as a kernel name and as a kernel's
nat parameter name, and each table is sorted and free of duplicates (the
checker looks names up by binary search).

Usage: opencl_names.py --dpia PATH CHECK_C

Names that the DPIA parser already refuses as declaration names (its
keywords and primitives: `kernel`, `sin`, `select`...) cannot reach the
checker; they are left out after a first run reports them.  Prints
`N names rejected` and exits 0, or lists the failures and exits 1."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

TABLES = ('opencl_keywords', 'opencl_types', 'opencl_functions', 'opencl_macros')


def tables(src):
    out = {}
    for name in TABLES:
        m = re.search(r'static const char \*const ' + name + r'\[\] = \{(.*?)\};', src, re.S)
        if not m:
            sys.exit(f'opencl_names.py: table {name} not found')
        out[name] = re.findall(r'"([^"]*)"', m.group(1))
    return out


def run(dpia, names, tmp):
    """{(kind, name): first error message at its declaration} for files with
    one kernel per name and one with the name as a nat parameter (40 names a
    file: dpia stops after 100 errors); the exit codes"""
    got, codes = {}, set()
    for i in range(0, len(names), 40):
        code, g = run_one(dpia, names[i:i + 40], tmp)
        got.update(g)
        codes.add(code)
    return codes, got


def run_one(dpia, names, tmp):
    lines = []
    where = {}
    for n in names:
        where[len(lines) + 1] = ('kernel', n)
        lines.append(f'kernel {n} (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x)')
        where[len(lines) + 1] = ('nat', n)
        lines.append(f'kernel k{len(lines)} ({n}: nat) (xs: [{n}]float) = xs |> mapGlobal (\\x -> x)')
    path = os.path.join(tmp, 'names.dpia')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    p = subprocess.run([dpia, 'check', 'names.dpia'], cwd=tmp, capture_output=True, text=True, timeout=120)
    got = {}
    for m in re.finditer(r'^names\.dpia:(\d+):\d+: error\[E\d+\]: (.*)$', p.stderr, re.M):
        got.setdefault(where[int(m.group(1))], m.group(2))
    return p.returncode, got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dpia', required=True)
    ap.add_argument('names_c')
    a = ap.parse_args()
    with open(a.names_c) as f:
        tabs = tables(f.read())
    failures = []
    for name, items in tabs.items():
        # strcmp order on ASCII names is Python's str order
        if items != sorted(items):
            bad = next(x for x, y in zip(items, sorted(items)) if x != y)
            failures.append(f'{name} is not sorted (first out of place: {bad!r})')
        if len(set(items)) != len(items):
            failures.append(f'{name} has duplicates')
    names = sorted({n for items in tabs.values() for n in items})
    dpia = os.path.abspath(a.dpia)
    with tempfile.TemporaryDirectory() as tmp:
        code, got = run(dpia, names, tmp)
        parser = {n for (kind, n), msg in got.items() if 'rebound' in msg or 'expected a name' in msg
                  or 'expected' in msg and kind == 'nat'}
        names = [n for n in names if n not in parser]
        code, got = run(dpia, names, tmp)
    if code != {1}:
        failures.append(f'dpia check exited {sorted(code)}, expected 1')
    for n in names:
        for kind, needle in (('kernel', f"kernel name '{n}' is "), ('nat', f"nat parameter name '{n}' is ")):
            msg = got.get((kind, n))
            if not msg or needle not in msg:
                failures.append(f'{kind} {n}: {msg or "accepted"}')
    for f in failures:
        print('FAIL', f)
    print(f'{len(names)} names rejected ({len(parser)} refused by the parser first), {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
