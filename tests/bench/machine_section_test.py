#!/usr/bin/env python3
"""bench/machine_section.py keeps one section per machine in BENCHMARKS.md:
a second machine's run goes beside the first's, a machine's new run
replaces its own section only, and the sections other commands write are
kept byte for byte.

usage: machine_section_test.py SOURCE_ROOT"""
import os
import subprocess
import sys
import tempfile

tool = os.path.join(sys.argv[1], 'bench', 'machine_section.py')
failed = 0


def check(ok, what, detail=''):
    global failed
    print(('PASS ' if ok else 'FAIL ') + what)
    if not ok:
        failed += 1
        print('  ' + detail.replace('\n', '\n  '))


def run(md, key, section):
    with tempfile.NamedTemporaryFile('w', suffix='.md', delete=False) as f:
        f.write(section)
    p = subprocess.run([sys.executable, tool, md, key, f.name], capture_output=True, text=True)
    os.unlink(f.name)
    return p


with tempfile.TemporaryDirectory() as tmp:
    md = os.path.join(tmp, 'BENCHMARKS.md')
    other = ('# Benchmarks\n\nWhat the sections are.\n\n'
             '## Translation throughput\n\nbench/variants.py wrote this.\n\n'
             '## Any size\n\nbench/anysize.py wrote this.\n')
    open(md, 'w').write(other)
    run(md, 'cpu-a, 2 cores', '## Machine A\n\nA, first run\n')
    text = open(md).read()
    check(text.startswith('# Benchmarks\n\nWhat the sections are.\n\n<!-- bench/run.sh machine: cpu-a, 2 cores -->\n'
                          '## Machine A\n\nA, first run\n<!-- bench/run.sh end: cpu-a, 2 cores -->\n'),
          'a first machine goes before the first section', text)
    run(md, 'cpu-b, 8 cores', '## Machine B\n\nB\n')
    text = open(md).read()
    a, b = text.find('A, first run'), text.find('## Machine B')
    check(0 <= a < b < text.find('## Translation throughput'), 'a second machine goes after the first', text)
    run(md, 'cpu-a, 2 cores', '## Machine A\n\nA, second run\n')
    after = open(md).read()
    check('A, first run' not in after and 'A, second run' in after,
          "a machine's new run replaces its own section", after)
    check(after.replace('A, second run', 'A, first run') == text,
          "nothing but the machine's section changes: the other machine's, the other commands' sections",
          after)
    run(md, 'cpu-a, 2 cores', '## Machine A\n\nA, second run\n')
    check(open(md).read() == after, 'the same run twice gives the same file')
    empty = os.path.join(tmp, 'new.md')
    run(empty, 'cpu-a, 2 cores', '## Machine A\n\nA\n')
    new = open(empty).read()
    check(new.startswith('# Benchmarks') and '## Machine A' in new, 'a missing file is made with a title', new)
    broken = os.path.join(tmp, 'broken.md')
    open(broken, 'w').write('# B\n\n<!-- bench/run.sh machine: cpu-a, 2 cores -->\n## A\n')
    p = run(broken, 'cpu-a, 2 cores', '## A\n')
    check(p.returncode != 0 and 'has no' in p.stderr and open(broken).read().endswith('## A\n'),
          'a section without its end marker is refused and the file left as it was', p.stderr)

sys.exit(1 if failed else 0)
