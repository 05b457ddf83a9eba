#!/usr/bin/env python3
"""doc_examples.py: the dpia examples of a document still check.

Usage: doc_examples.py --dpia PATH --min N DOC.md

A fenced block of DOC.md is an example program when its fence is ```dpia
or bare (```) and one of its lines starts with a declaration, `kernel
NAME`, `def NAME` or `pipeline NAME`.  Each is written to a file and given
to `dpia check --diagnostics=json`:
- an untagged example (``` or ```dpia) must be accepted, without errors;
- a ```dpia EXXXX example must be refused with errors of exactly that code
  (the convention of docs/reference.md and docs/errors.md);
- a ```dpia high-level example must be accepted by `dpia check
  --high-level` (a computing plain map is a note there, not an error);
- a ```dpia sketch, a program with parts left out (`...`), is skipped but
  counted, and must name a samples/ file (the program whole).
Blocks of another language (```c, ```text for check's output or a
message, ```sh, ```json, ...) are not programs; bare and ```dpia blocks
without a declaration (grammar rules, typing rules, translations,
expressions) are fragments: skipped, but counted.  The test fails if
fewer than N examples were checked, so an extractor that stops finding
them fails too.  docs/language.md explains the tags at its top.
Prints a summary and exits 0, or lists the failures and exits 1."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

DECL = re.compile(r'^(kernel|def|pipeline) +[A-Za-z_]\w*', re.M)


def blocks(text):
    """[(tag, body, line)] of the fenced blocks; tag '' for a bare fence.
    Fences may be indented (a block inside a list item)."""
    out = []
    lines = text.split('\n')
    cur = None
    for n, line in enumerate(lines, 1):
        # a fence as CommonMark has it: an info string holds no backquote
        # (a line opening with ```` ``` ```` is a code span)
        m = re.match(r'^(\s*)```([^`]*)$', line)
        if not m:
            if cur is not None:
                cur[2].append(line[len(cur[3]):] if line.startswith(cur[3]) else line)
            continue
        if cur is None:
            cur = (n, m.group(2).strip(), [], m.group(1))
        else:
            out.append((cur[1], '\n'.join(cur[2]) + '\n', cur[0]))
            cur = None
    if cur is not None:
        out.append(('unclosed', '', cur[0]))
    return out


def text_near(text, line):
    """the paragraph before the block at line (where a sketch names its sample)"""
    lines = text.split('\n')[:line - 1]
    return '\n'.join(lines[-8:])


def diagnose(dpia, path, extra):
    r = subprocess.run([dpia, 'check', '--diagnostics=json'] + extra + [path],
                       capture_output=True, text=True, timeout=120)
    try:
        diags = json.loads(r.stdout) if r.stdout.strip() else []
    except ValueError:
        return r.returncode, None, r.stdout + r.stderr
    return r.returncode, [d.get('code') for d in diags if d.get('level') == 'error'], r.stdout + r.stderr


def check_program(dpia, tmp, name, text, tag, body, line):
    """(kind, failure) of one fenced block: kind 'accepted' or 'refused' (a
    program checked as its fence says), 'sketch', 'fragment' (a bare or
    ```dpia block without a declaration), 'other' (another language's
    block), or 'failed' with the failure's message.  doc_commands.py uses
    it for the dpia programs of README.md and the guides."""
    words = tag.split()
    if tag == 'unclosed':
        return 'failed', f'{name}:{line}: a fence that is never closed'
    if words[:1] not in ([], ['dpia']):
        return 'other', None
    if not DECL.search(body):
        return 'fragment', None
    expect = words[1] if len(words) > 1 else None
    if expect == 'sketch':
        if not re.search(r'samples/\S+\.dpia', text_near(text, line)):
            return 'failed', f'{name}:{line}: a sketch that names no samples/ file holding it whole'
        return 'sketch', None
    high_level = expect == 'high-level'
    if high_level:
        expect = None
    if len(words) > 2 or (expect and not re.fullmatch(r'E\d{4}', expect)):
        return 'failed', (f'{name}:{line}: the fence ```{tag}: an example refused is tagged ```dpia EXXXX, '
                          'one of the high-level language ```dpia high-level, a sketch ```dpia sketch')
    path = os.path.join(tmp, f'example_{line}.dpia')
    with open(path, 'w') as f:
        f.write(body)
    status, got, out = diagnose(dpia, path, ['--high-level'] if high_level else [])
    if expect is None:
        if status != 0 or got:
            return 'failed', (f'{name}:{line}: the example is refused (exit status {status}, codes {got}):\n'
                              + out)
        return 'accepted', None
    if status == 0 or not got or set(got) != {expect}:
        return 'failed', (f'{name}:{line}: the example gives exit status {status} and codes {got}, '
                          f'expected only {expect}:\n{out}')
    return 'refused', None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dpia', required=True)
    ap.add_argument('--min', type=int, required=True, help='fail below this many checked examples')
    ap.add_argument('doc')
    args = ap.parse_args()
    text = open(args.doc, encoding='utf-8').read()
    name = os.path.basename(os.path.dirname(args.doc)) + '/' + os.path.basename(args.doc)
    failures = []
    counts = {'accepted': 0, 'refused': 0, 'sketch': 0, 'fragment': 0, 'other': 0}
    with tempfile.TemporaryDirectory() as tmp:
        for tag, body, line in blocks(text):
            kind, failure = check_program(args.dpia, tmp, name, text, tag, body, line)
            if failure:
                failures.append(failure)
            elif kind in counts:
                counts[kind] += 1
    accepted, refused = counts['accepted'], counts['refused']
    sketches, fragments, others = counts['sketch'], counts['fragment'], counts['other']
    checked = accepted + refused
    if checked < args.min:
        failures.append(f'{name}: {checked} examples checked, fewer than the {args.min} expected '
                        '(an example lost its declaration or its fence, or the extractor is broken)')
    for msg in failures:
        print('FAIL', msg)
    print(f'{name}: {checked} examples checked ({accepted} accepted, {refused} refused as tagged), '
          f'{sketches} sketches and {fragments} fragments without a declaration skipped, {others} blocks of other languages; '
          f'{len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
