#!/usr/bin/env python3
"""Fail if a reviewed diagnostic golden shows an internal name.

Scans every .err golden under ROOT (build directories excluded) and checks
the message of each `file:line:col: error[CODE]|note: message` line.  Types in
messages are printed as the user writes them (dpia/types.h, TypeNamer), so
none of these may appear:

  ?n2  ?3          size and data type metavariables
  _                an unknown written as an underscore: (_, _), [_]_
  real  num        internal classes of unknown number types
  exp[...]         the phrase type of a value, unless the message shows an
                   imperative type (acc[...], var[...] or comm), where the
                   distinction between a value and an acceptor matters
  mapGlobal0 ...   a dimension suffix the program does not spell

usage: internal_names.py ROOT
"""
import os
import re
import sys

MESSAGE = re.compile(r"^[^\s:][^:]*:\d+:\d+: (?:error\[E\d+\]|note): (.*)$")
INTERNAL = [
    (re.compile(r'\?n\d*|\?\d'), 'a metavariable (?n2, ?3)'),
    (re.compile(r"(?<![\w'])_(?![\w'])"), "an unknown printed as '_'"),
    (re.compile(r'\breal\b'), "the internal number class 'real'"),
    (re.compile(r'\bnum\b'), "the internal number class 'num'"),
]
EXP = re.compile(r'\bexp\[')
IMPERATIVE = re.compile(r'\bacc\[|\bvar\[|\bcomm\b')
DIM0 = re.compile(r'\b((?:map|mapI|parfor)(?:Global|Workgroup|Local)0)\b')


def check_file(path):
    """the problems of one golden and how many messages it holds"""
    problems, messages = [], 0
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().splitlines()
    src_path = path[:-4] + '.dpia'
    source = ''
    if os.path.exists(src_path):
        with open(src_path, encoding='utf-8', errors='replace') as f:
            source = f.read()
    for number, line in enumerate(lines, 1):
        m = MESSAGE.match(line)
        if not m:
            continue
        message = m.group(1)
        messages += 1
        for pattern, what in INTERNAL:
            if pattern.search(message):
                problems.append(f'{path}:{number}: {what}: {message}')
        if EXP.search(message) and not IMPERATIVE.search(message):
            problems.append(f'{path}:{number}: exp[...] around the type of a value: {message}')
        for name in DIM0.findall(message):
            if not re.search(r'\b' + name + r'\b', source):
                problems.append(f"{path}:{number}: '{name}' where the program writes it without the suffix: {message}")
    return problems, messages


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    goldens, messages, problems = 0, 0, []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(('build', '.')))
        for name in sorted(filenames):
            if name.endswith('.err'):
                goldens += 1
                found, count = check_file(os.path.join(dirpath, name))
                problems += found
                messages += count
    if goldens == 0:
        sys.exit(f'internal_names: no .err goldens under {root}')
    # a change of the diagnostics' form that MESSAGE no longer matches would
    # leave nothing checked
    if messages < goldens:
        sys.exit(f'internal_names: only {messages} messages in {goldens} goldens: does MESSAGE match the diagnostics?')
    for p in problems:
        print(p)
    print(f'internal_names: {goldens} goldens, {messages} messages, {len(problems)} internal names')
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
