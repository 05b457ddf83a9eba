#!/usr/bin/env python3
"""Put one machine's section into BENCHMARKS.md, beside the others.

  bench/machine_section.py BENCHMARKS.md KEY SECTION.md

bench/run.sh writes the section of the machine it ran on (its tables,
its tuning, its full output) to SECTION.md; this replaces that machine's
section of BENCHMARKS.md and leaves everything else as it was: the other
machines' sections, and the sections other commands of bench/ write
(translation throughput, any size, the C target ...).  A section is the
text between the markers

  <!-- bench/run.sh machine: KEY -->
  ...
  <!-- bench/run.sh end: KEY -->

KEY names the machine (OpenCL device, cores: bench/run.sh).  A machine
seen for the first time goes after the last machine's section, or, in a
file with none, before the first section (`## `) after the title.
"""
import os
import sys


def begin_marker(key):
    return f'<!-- bench/run.sh machine: {key} -->'


def end_marker(key):
    return f'<!-- bench/run.sh end: {key} -->'


TITLE = '# Benchmarks: dpia kernels against hand-written OpenCL, CLBlast, OpenBLAS and a bandwidth roof\n'


def splice(text, key, section):
    block = begin_marker(key) + '\n' + section.rstrip('\n') + '\n' + end_marker(key) + '\n'
    begin, end = begin_marker(key), end_marker(key)
    if begin in text:
        head, rest = text.split(begin, 1)
        if end not in rest:
            sys.exit(f'machine_section.py: "{begin}" has no "{end}" after it')
        tail = rest.split(end, 1)[1]
        return head + block.rstrip('\n') + tail
    last_end = text.rfind('<!-- bench/run.sh end: ')
    if last_end >= 0:
        cut = text.index('\n', last_end) + 1
        return text[:cut] + '\n' + block + text[cut:]
    if not text:
        return TITLE + '\n' + block
    first = text.find('\n## ')
    if first < 0:
        return text.rstrip('\n') + '\n\n' + block
    return text[:first + 1] + block + '\n' + text[first + 1:]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    md, key, section_file = sys.argv[1:]
    text = open(md).read() if os.path.exists(md) else ''
    with open(section_file) as f:
        section = f.read()
    out = splice(text, key, section)
    with open(md + '.tmp', 'w') as f:
        f.write(out)
    os.replace(md + '.tmp', md)


if __name__ == '__main__':
    main()
