#!/usr/bin/env python3
"""error_codes.py: the codes of diagnostics (dpia/diag_codes.h) are stable
and real.

Usage: error_codes.py --dpia PATH ROOT

Checks that
- the table of dpia/diag_codes.h and the index docs/errors.md list the same
  codes, in the same order, with the same names and summaries;
- every code is used by the sources (as ERR_NAME, or as the literal "E0xxx"
  where a diagnostic is written out by hand), and every such literal is a
  code of the table;
- every entry of E0100 and above has an example (a ```dpia EXXXX block)
  unless it says why not ("No example"), and every example is rejected by
  `dpia check --diagnostics=json` (or the command of its `-- DPIA:` line)
  with errors of exactly its code;
- every program of tests/check/reject is rejected with errors that all
  carry a code of the table.
Prints a summary and exits 0, or lists the failures and exits 1."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []

# examples too long for docs/errors.md, made here
GENERATED = {
    # 200000 nested parentheses: past the parser's nesting limit even on
    # the large stack dpia retries deep programs on
    'E0901': 'kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> ' + '(' * 200000 + 'x' + ')' * 200000 + ')\n',
}


def fail(msg):
    failures.append(msg)


def table(root):
    src = open(os.path.join(root, 'dpia', 'diag_codes.h')).read()
    rows = re.findall(r'X\((E\d{4}), (\w+), "((?:[^"\\]|\\.)*)"\)', src)
    if not rows:
        sys.exit('error_codes.py: no codes found in dpia/diag_codes.h')
    return rows


def index(root):
    """[(code, name, summary, body)] of docs/errors.md"""
    text = open(os.path.join(root, 'docs', 'errors.md')).read()
    parts = re.split(r'^## (E\d{4}) (\w+)\n', text, flags=re.M)
    entries = []
    for i in range(1, len(parts), 3):
        body = parts[i + 2]
        paras = [p.strip() for p in body.strip().split('\n\n')]
        entries.append((parts[i], parts[i + 1], paras[0] if paras else '', body))
    return entries


def diagnose(dpia, command, path):
    """the exit status and the errors' codes of `dpia COMMAND --diagnostics=json path`"""
    r = subprocess.run([dpia] + command + ['--diagnostics=json', path], capture_output=True, text=True, timeout=120)
    try:
        diags = json.loads(r.stdout) if r.stdout.strip() else []
    except ValueError:
        return r.returncode, None, r.stdout + r.stderr
    return r.returncode, [d.get('code') for d in diags if d.get('level') == 'error'], r.stdout + r.stderr


def check_sources(root, codes):
    used = set()
    for d in ('dpia', 'translate', 'codegen', 'verify', 'app'):
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in files:
                if not f.endswith(('.c', '.h')) or f == 'diag_codes.h':
                    continue
                src = open(os.path.join(dirpath, f), encoding='utf-8', errors='replace').read()
                for name in re.findall(r'\bERR_([A-Z0-9_]+)\b', src):
                    used.add(name)
                for lit in re.findall(r'\\?"(E\d{4})\\?"', src):
                    if lit not in codes:
                        fail(f'{f}: the literal {lit} is not a code of dpia/diag_codes.h')
                    used.add(codes.get(lit, lit))
    for code, name in codes.items():
        if name not in used:
            fail(f'{code} {name} is used by no source')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dpia', required=True)
    ap.add_argument('root')
    args = ap.parse_args()
    rows = table(args.root)
    entries = index(args.root)

    if len({r[0] for r in rows}) != len(rows) or len({r[1] for r in rows}) != len(rows):
        fail('dpia/diag_codes.h: a code or a name occurs twice')
    if [r[0] for r in rows] != sorted(r[0] for r in rows):
        fail('dpia/diag_codes.h: the codes are not in ascending order')
    documented = {e[0]: e for e in entries}
    for code, name, summary in rows:
        e = documented.get(code)
        if not e:
            fail(f'{code} {name} is not documented in docs/errors.md')
        elif e[1] != name or e[2] != summary:
            fail(f'{code}: docs/errors.md has "{e[1]}: {e[2]}", the table "{name}: {summary}"')
    for code in documented:
        if code not in {r[0] for r in rows}:
            fail(f'docs/errors.md documents {code}, which is not in dpia/diag_codes.h')
    if [e[0] for e in entries] != [r[0] for r in rows]:
        fail('docs/errors.md: the entries are not in the order of the table')
    check_sources(args.root, {r[0]: r[1] for r in rows})

    nexamples = 0
    with tempfile.TemporaryDirectory() as tmp:
        for code, name, _, body in entries:
            blocks = re.findall(r'^```dpia(?: (\S+))?\n(.*?)^```', body, flags=re.M | re.S)
            if not blocks and code >= 'E0100' and 'No example' not in body:
                fail(f'{code}: neither an example nor "No example" in docs/errors.md')
            for tag, text in blocks:
                if tag != code:
                    fail(f'{code}: an example tagged {tag!r} in its entry')
                    continue
                m = re.search(r'^-- DPIA: (.*)$', text, flags=re.M)
                command = m.group(1).split() if m else ['check']
                path = os.path.join(tmp, code + '.dpia')
                with open(path, 'w') as f:
                    f.write(text)
                status, got, out = diagnose(args.dpia, command, path)
                nexamples += 1
                if status == 0 or got is None or not got or set(got) != {code}:
                    fail(f'{code}: the example gives exit status {status} and codes {got}, expected only {code}:\n{out}')
        for code, text in GENERATED.items():
            path = os.path.join(tmp, code + '.dpia')
            with open(path, 'w') as f:
                f.write(text)
            status, got, out = diagnose(args.dpia, ['check'], path)
            nexamples += 1
            if status == 0 or not got or set(got) != {code}:
                fail(f'{code}: the generated example gives exit status {status} and codes {got}, expected only {code}:\n'
                     + out[:500])

    reject = os.path.join(args.root, 'tests', 'check', 'reject')
    codes = {r[0] for r in rows}
    nrejects = 0
    for f in sorted(os.listdir(reject)):
        if not f.endswith('.dpia'):
            continue
        path = os.path.join(reject, f)
        text = open(path, encoding='utf-8', errors='replace').read()
        options = [w for line in re.findall(r'^-- ARGS: (.*)$', text, flags=re.M) for w in line.split()]
        # the options of `-- ARGS:` are translation options; check takes none
        status, got, out = diagnose(args.dpia, ['translate', '--no-verify', '-o', os.devnull] + options if options
                                    else ['check'], path)
        nrejects += 1
        if status == 0 or not got or any(c not in codes for c in got):
            fail(f'{f}: exit status {status}, codes {got}: every error needs a code of the table:\n{out}')

    for msg in failures:
        print('FAIL', msg)
    print(f'{len(rows)} codes, {nexamples} examples, {nrejects} rejected programs; {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
