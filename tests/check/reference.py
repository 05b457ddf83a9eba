#!/usr/bin/env python3
"""reference.py: docs/reference.md, the language reference, is complete and
its examples are real.

Usage: reference.py --dpia PATH ROOT

Checks that
- every primitive of the table in dpia/prims.h (the X-macro rows and the
  vector constructor rows) has exactly one row in the primitive tables of
  docs/reference.md (tables whose first column is "primitive"), and that
  table names no primitive the table does not have;
- each such row writes the primitive with its static arguments as
  prims.h names them (`split k`, `new T`), and its type as prims.h's
  signature (vector constructors may write `exp[float] -> ... ->
  exp[float4]`, one argument per lane);
- each example of such a row occurs in a ```dpia block of the reference
  that dpia check accepts;
- every ```dpia block is accepted by `dpia check`, and every ```dpia EXXXX
  block is rejected with errors of exactly that code (as
  tests/check/error_codes.py does for docs/errors.md);
- README.md and docs/*.md cite only sections of docs/reference.md that
  exist ("docs/reference.md section 4.4", "reference section 7"), and
  never ../shared, which users of the repository do not have.
Prints a summary and exits 0, or lists the failures and exits 1."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
    failures.append(msg)


def prim_rows(root):
    """[(name, statics, signature, vector)] of dpia/prims.h, in table order;
    vector is (scalar, width) for a vector constructor row, else None"""
    src = open(os.path.join(root, 'dpia', 'prims.h')).read()
    m = re.search(r'#define DPIA_PRIMS\(X\)(.*?)\n\n', src, flags=re.S)
    if not m:
        sys.exit('reference.py: no DPIA_PRIMS table in dpia/prims.h')
    body = re.sub(r'/\*.*?\*/', ' ', m.group(1).replace('\\\n', ' '), flags=re.S)
    rows = []
    pattern = (r'\bX\(\s*(\w+),\s*"([^"]+)",\s*(\d+),\s*(\d+),[^"]*?"([^"]*)"\s*\)'
               r'|DPIA_VECTOR_ROW\(\s*X,\s*(\w+),\s*(\w+),\s*(\d+)\s*\)')
    for r in re.finditer(pattern, body):
        if r.group(1):
            # the signature as the C string means it (a dependent array's \\i is \i)
            name, nsizes, ntype, sig = r.group(2), int(r.group(3)), int(r.group(4)), r.group(5).replace('\\\\', '\\')
            statics = []
            head = re.match(r'^([A-Za-z ]+)\.\s*(.*)$', sig)
            if head and len(head.group(1).split()) == nsizes + ntype:
                statics, sig = head.group(1).split(), head.group(2)
            elif nsizes + ntype:
                fail(f'dpia/prims.h: the signature of {name} does not name its {nsizes + ntype} static arguments')
            rows.append((name, statics, sig, None))
        else:
            scalar, width = r.group(7), int(r.group(8))
            sig = f'exp[{scalar}] -> ' * width + f'exp[{scalar}{width}]'
            rows.append((scalar + str(width), [], sig, (scalar, width)))
    # the row count of the table, to catch a row this parser missed
    enum = re.findall(r'\bX\(\s*\w+,\s*"', body) + re.findall(r'DPIA_VECTOR_ROW\(', body)
    if len(enum) != len(rows) or len(rows) < 50:
        sys.exit(f'reference.py: read {len(rows)} rows of dpia/prims.h, but it has {len(enum)}')
    return rows


def split_row(line):
    """the cells of a markdown table row, with \\| unescaped"""
    cells = re.split(r'(?<!\\)\|', line.strip())[1:-1]
    return [c.strip().replace('\\|', '|') for c in cells]


def code_spans(cell):
    return re.findall(r'`([^`]+)`', cell)


def doc_rows(text):
    """[(first span, type span, example spans, line number)] of the
    primitive tables: tables whose header's first cell is 'primitive'"""
    rows = []
    lines = text.split('\n')
    in_table = False
    for n, line in enumerate(lines, 1):
        if not line.startswith('|'):
            in_table = False
            continue
        cells = split_row(line)
        if cells and cells[0] == 'primitive':
            in_table = True
            continue
        if not in_table or set(line.replace('|', '').strip()) <= set('-: '):
            continue
        first = code_spans(cells[0])
        types = code_spans(cells[1]) if len(cells) > 1 else []
        examples = code_spans(cells[2]) if len(cells) > 2 else []
        rows.append((first[0] if first else '', types[0] if types else '', examples, n))
    return rows


def blocks(text):
    """[(tag, text, line number)] of the ```dpia blocks"""
    out = []
    for m in re.finditer(r'^```dpia(?: (\S+))?\n(.*?)^```', text, flags=re.M | re.S):
        out.append((m.group(1), m.group(2), text.count('\n', 0, m.start()) + 1))
    return out


def diagnose(dpia, path):
    """the exit status and the errors' codes of `dpia check --diagnostics=json path`"""
    r = subprocess.run([dpia, 'check', '--diagnostics=json', path], capture_output=True, text=True, timeout=120)
    try:
        diags = json.loads(r.stdout) if r.stdout.strip() else []
    except ValueError:
        return r.returncode, None, r.stdout + r.stderr
    return r.returncode, [d.get('code') for d in diags if d.get('level') == 'error'], r.stdout + r.stderr


def expand_vector_type(written, width):
    """`exp[float] -> ... -> exp[float4]` with one argument per lane"""
    m = re.match(r'^(.*?) -> \.\.\. -> (.*)$', written)
    return (m.group(1) + ' -> ') * width + m.group(2) if m else written


def check_primitives(text, rows, accepted_text):
    documented = {}
    for first, typ, examples, line in doc_rows(text):
        words = first.split()
        if not words:
            fail(f'docs/reference.md:{line}: a primitive row without the primitive in backquotes')
            continue
        documented.setdefault(words[0], []).append((words[1:], typ, examples, line))
    names = {r[0] for r in rows}
    for name, entries in documented.items():
        if name not in names:
            fail(f'docs/reference.md:{entries[0][3]}: `{name}` is not a primitive of dpia/prims.h')
    for name, statics, sig, vector in rows:
        entries = documented.get(name, [])
        if len(entries) != 1:
            fail(f'primitive {name} of dpia/prims.h has {len(entries)} rows in the tables of docs/reference.md, '
                 'not 1' + ('' if entries else ': document it (name, type, example) in section 5'))
            continue
        args, typ, examples, line = entries[0]
        if args != statics:
            fail(f'docs/reference.md:{line}: `{" ".join([name] + args)}`, but prims.h gives {name} the static '
                 f'arguments {statics or "none"}')
        got = expand_vector_type(typ, vector[1]) if vector else typ
        if got != sig:
            fail(f'docs/reference.md:{line}: the type of {name} is written `{typ}`, but prims.h says `{sig}`')
        if not examples:
            fail(f'docs/reference.md:{line}: {name} has no example')
        for ex in examples:
            if not any(ex in b for b in accepted_text):
                fail(f'docs/reference.md:{line}: the example `{ex}` of {name} occurs in no ```dpia block '
                     '(so dpia check never checks it)')


def check_blocks(dpia, text):
    """check every block; returns the texts of the accepted ones"""
    accepted = []
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for tag, body, line in blocks(text):
            n += 1
            path = os.path.join(tmp, f'reference_{line}.dpia')
            with open(path, 'w') as f:
                f.write(body)
            status, got, out = diagnose(dpia, path)
            if tag is None:
                if status != 0 or got:
                    fail(f'docs/reference.md:{line}: the example is rejected (exit status {status}, codes {got}):\n'
                         + out)
                else:
                    accepted.append(body)
            elif not re.fullmatch(r'E\d{4}', tag):
                fail(f'docs/reference.md:{line}: a block tagged {tag!r}: the tag of an error example is its code')
            elif status == 0 or not got or set(got) != {tag}:
                fail(f'docs/reference.md:{line}: the example gives exit status {status} and codes {got}, '
                     f'expected only {tag}:\n{out}')
    return n, accepted


def headings(text):
    """the section numbers of docs/reference.md: '4', '4.4', ..."""
    return set(re.findall(r'^#{2,4} (\d+(?:\.\d+)*)\.? ', text, flags=re.M))


def check_citations(root, sections):
    files = [os.path.join(root, 'README.md')]
    docs = os.path.join(root, 'docs')
    files += [os.path.join(docs, f) for f in sorted(os.listdir(docs)) if f.endswith('.md')]
    ncites = 0
    for path in files:
        rel = os.path.relpath(path, root)
        text = open(path, encoding='utf-8').read()
        for m in re.finditer(r'\.\./shared|shared/spec|DPIA\.md', text):
            fail(f'{rel}:{text.count(chr(10), 0, m.start()) + 1}: cites {m.group(0)!r}, which is not part of '
                 'the repository: cite docs/reference.md')
        # "docs/reference.md section 4.4", "reference.md sections 5.3 and 5.7",
        # and within reference.md itself "section 4.4"
        own = rel == os.path.join('docs', 'reference.md')
        pattern = (r'(?:section|sections)\s+(\d+(?:\.\d+)*)((?:(?:,\s*|\s+and\s+)\d+(?:\.\d+)*)*)' if own else
                   r'reference(?:\.md)?`?,?\s+(?:section|sections)\s+(\d+(?:\.\d+)*)'
                   r'((?:(?:,\s*|\s+and\s+)\d+(?:\.\d+)*)*)')
        for m in re.finditer(pattern, text):
            if own:
                # a citation of another document ("docs/language.md section 6")
                before = text[max(0, m.start() - 40):m.start()]
                if re.search(r'(language|errors)\.md`?\s*$|paper\'?s?\s*$', before):
                    continue
            for number in [m.group(1)] + re.findall(r'\d+(?:\.\d+)*', m.group(2) or ''):
                ncites += 1
                if number not in sections:
                    fail(f'{rel}:{text.count(chr(10), 0, m.start()) + 1}: cites section {number} of '
                         'docs/reference.md, which has no such section')
    return ncites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dpia', required=True)
    ap.add_argument('root')
    args = ap.parse_args()
    text = open(os.path.join(args.root, 'docs', 'reference.md'), encoding='utf-8').read()
    rows = prim_rows(args.root)
    nblocks, accepted = check_blocks(args.dpia, text)
    check_primitives(text, rows, accepted)
    ncites = check_citations(args.root, headings(text))
    for msg in failures:
        print('FAIL', msg)
    print(f'{len(rows)} primitives, {nblocks} examples, {ncites} citations of sections; {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
