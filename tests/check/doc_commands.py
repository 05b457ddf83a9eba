#!/usr/bin/env python3
"""doc_commands.py: README.md's and the guides' examples are still true.

Usage: doc_commands.py --dpia PATH --root ROOT --min N [--libdpia PATH]
                       [--min-python N] [--budget S] DOC.md

For every fenced block of DOC.md (blocks as doc_examples.py finds them):
- a dpia program (a bare or ```dpia block holding a declaration) is
  checked as doc_examples.py checks it (the same fence tags: ```dpia
  EXXXX, ```dpia high-level, ```dpia sketch);
- a command block, bare, ```console, ```sh or ```text, one of whose lines
  starts with `$ dpia `: each `$ dpia ...` line is run with the dpia under
  test, and what it prints on stdout is compared with the lines under it
  (up to the next `$ ` line; blank lines at the end left out).  It must
  exit 0.  The commands run in a temporary directory where `samples`,
  `tests`, `docs` and `python` are the repository's (so `-o FILE` writes
  there), with $DPIA_TUNE_CACHE a file of that directory, on the OpenCL
  device dpia chooses (PoCL here).  A block tagged `norun` (```console
  norun) is not run but counted: a command whose time no budget bounds,
  as docs/tune.md's gemm at 1024^3, whose check of the winner alone takes
  about 100 s, or a search whose report the budget decides beyond what
  the comparison forgives (docs/tune.md's asum with --valid-at: how many
  points are skipped at the extra sizes depends on how many were tried);
- a ```c, ```cpp block is a whole program: built (cc -std=c11 / c++
  -std=c++17, -O1 -fopenmp -Wall -Werror -Wno-psabi, include/ for dpia.h,
  -lm, -lOpenCL when it includes CL/) in that directory, where a command
  before it may have written the header it includes, and run: it must
  exit 0.  A ```python block is run (/usr/bin/python3, the package of
  python/ through PYTHONPATH, libdpia through DPIA_LIBRARY, in the same
  directory as the commands) and must exit 0.  Either is counted, not
  run, when its fence is also tagged `fragment` (```python fragment: a
  snippet using names it does not define).  Without --libdpia (a
  sanitized build: Python cannot load a libdpia built with
  AddressSanitizer) the Python blocks are counted, not run;
- other blocks (grammar, usage lines, shell commands without output,
  JSON) are counted.

What the comparison lets differ, and nothing else:
- a line `...` (alone on its line, any indentation) stands for any number
  of lines left out, none included;
- a number followed by a unit, `ms`, `s` or `GB/s`, or a run of numbers
  before one (`re-timed: 0.0061 0.0048 0.0050 ms`), is any number: a time
  or a bandwidth;
- the device the docs show, `pthread-skylake-avx512-AMD EPYC` of the
  platform `Portable Computing Language`, driver `3.1+debian`, stands for
  whatever device, platform and driver the machine has; the tuning cache
  the docs show, `/root/.cache/dpia/tune.json`, for the test's;
- a command with `--budget` (dpia tune, dpia explore) runs with this
  test's budget in place of the shown one (--budget S, default 120 s).
  The searches the guides run (docs/explore.md's 96 strategies,
  docs/tune.md's 4 points) try their whole space in a few seconds on an
  idle machine and end there, so the budget only bounds a slow machine:
  a small one (it was 5 s, 10 s under the sanitizers) cut them short
  under load, their rankings shorter than shown (a false failure).  What
  the time decides may still differ: the
  counts of the search (`N tried`, `N timed`, `not derived N, rejected
  by check N, preconditions N, failed N, not timed N`), the order of the
  ranking (an entry `K.  TIME ms  STRATEGY` matches any strategy, its
  derivation any list of `RULE@PATH n=V`) and the best (`best: STRATEGY
  (...`); and in the commands after it in the block, the values a run
  took from the tuning cache (`tuned: VALUES, tuned by ...`), and whether
  the budget ended the search (`; the budget ended it`: docs/explore.md
  shows a search its 20 s ended, the test's tries the whole space).  The rank
  numbers, the space's size, the words and the rest of each line are
  compared as shown.
A program a command writes (`-o FILE.dpia`, dpia explore's best) must
pass `dpia check`.

The test fails when fewer than --min examples were checked or run
(programs checked, commands run, C and C++ built and run, Python run), or fewer than
--min-python Python blocks ran when they could, so that an extractor that
stops finding examples fails.  Prints a summary and exits 0, or lists the
failures and exits 1."""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_examples import blocks, check_program  # noqa: E402

SYSTEM_PYTHON = '/usr/bin/python3'  # Debian's, with python3-pyopencl and numpy
DOC_DEVICE = 'pthread-skylake-avx512-AMD EPYC'
DOC_PLATFORM = 'Portable Computing Language'
DOC_DRIVER = '3.1+debian'
DOC_CACHE = '/root/.cache/dpia/tune.json'
LINKED = ('samples', 'tests', 'docs', 'python')
COMMAND_TAGS = ('', 'console', 'sh', 'text')

NUM = r'-?\d+(?:\.\d+)?(?:e[-+]?\d+)?'
# a number, or a run of them, before a unit (the unit itself kept)
TIMED = re.compile(r'(?<![\w.])(' + NUM + r'(?: ' + NUM + r')*)(?= ?(?:ms|s|GB/s)\b)')
# in a budgeted search: the counts the budget decides
COUNTS = re.compile(r'(?<![\w.])\d+(?= (?:tried|timed)\b)'
                    r'|(?<=not derived )\d+|(?<=rejected by check )\d+|(?<=preconditions )\d+'
                    r'|(?<=failed )\d+|(?<=not timed )\d+')
ENTRY = re.compile(r'^(\s*\d+\.\s+' + NUM + r' ms  )(.+?)((?:  \[checked: [^]]*\])?)$')
DERIVATION = re.compile(r'^(\s+)\w+@[\d.]+(?: \w+=\d+)*(?:, \w+@[\d.]+(?: \w+=\d+)*)*$')
BEST = re.compile(r'^(best: )(.+?)( \(' + NUM + r' ms\).*)$')
TUNED = re.compile(r'^(\s*tuned: )(.+?)(, tuned by .*)$')
ANY_NUM = '\x00NUM\x00'
ANY_NUMS = '\x00NUMS\x00'
ANY_TEXT = '\x00TEXT\x00'
ANY_CACHE = '\x00CACHE\x00'
STEP = r'\w+@[\d.]+(?: \w+=\d+)*'


def line_pattern(shown, budgeted):
    """the regular expression a shown output line stands for (module docstring)"""
    s = shown
    if budgeted:
        m = DERIVATION.match(s)
        if m:
            return re.escape(m.group(1)) + STEP + '(?:, ' + STEP + ')*'
        m = ENTRY.match(s)
        if m:
            s = m.group(1) + ANY_TEXT + m.group(3)
        for form in (BEST, TUNED):
            m = form.match(s)
            if m:
                s = m.group(1) + ANY_TEXT + m.group(3)
        s = COUNTS.sub(ANY_NUM, s)
    s = TIMED.sub(lambda m: ANY_NUMS if ' ' in m.group(1) else ANY_NUM, s)
    for shown_text, hole in ((DOC_CACHE, ANY_CACHE), (DOC_DEVICE, ANY_TEXT), (DOC_PLATFORM, ANY_TEXT),
                             (DOC_DRIVER, ANY_TEXT)):
        s = s.replace(shown_text, hole)
    s = re.escape(s)
    return (s.replace(re.escape(ANY_NUMS), NUM + '(?: ' + NUM + ')*').replace(re.escape(ANY_NUM), NUM)
            .replace(re.escape(ANY_TEXT), '.+?').replace(re.escape(ANY_CACHE), r'\S*tune\.json'))


BUDGET_ENDED = '; the budget ended it'


def output_matches(shown_lines, got, budgeted):
    """whether the output got matches the shown lines (a `...` line: any lines)"""
    if budgeted:
        shown_lines = [line.replace(BUDGET_ENDED, '') for line in shown_lines]
        got = got.replace(BUDGET_ENDED, '')
    parts = []
    for shown in shown_lines:
        if shown.strip() == '...':
            parts.append(r'(?:[^\n]*\n)*?')
        else:
            parts.append(line_pattern(shown, budgeted) + r'\n')
    return re.fullmatch(''.join(parts), got) is not None


def commands(body):
    """[(command, [shown output lines])] of a command block"""
    out = []
    for line in body.rstrip('\n').split('\n'):
        if line.startswith('$ '):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    for _, shown in out:
        while shown and not shown[-1].strip():
            shown.pop()
    return out


def run_command(args, work, env, name, line, command, shown, budgeted):
    """the failure of one `$ dpia ...` example, or None; budgeted: a command
    before it in the block searched with the test's budget"""
    argv = shlex.split(command)
    if argv[:1] != ['dpia']:
        return f'{name}:{line}: `$ {command}`: only dpia commands are run (tag the block norun)'
    argv = [a for b in argv for a in (b.split('=', 1) if b.startswith('--budget=') else [b])]
    budgeted = budgeted or '--budget' in argv
    if '--budget' in argv:
        argv[argv.index('--budget') + 1] = '%g' % args.budget
    try:
        r = subprocess.run([args.dpia] + argv[1:], cwd=work, env=env, capture_output=True, text=True,
                           timeout=300)
    except subprocess.TimeoutExpired:
        return f'{name}:{line}: `$ {command}` did not end in 300 s'
    if r.returncode != 0:
        return f'{name}:{line}: `$ {command}` exits {r.returncode}:\n{r.stdout}{r.stderr}'
    # what a terminal shows: the diagnostics dpia writes on stderr before it
    # runs (notes such as E1110), then the report; or the report alone
    if not (output_matches(shown, r.stdout, budgeted) or output_matches(shown, r.stderr + r.stdout, budgeted)):
        return (f'{name}:{line}: `$ {command}` prints what the document does not show'
                f'{" (run with --budget %g)" % args.budget if budgeted else ""}:\n'
                '--- shown\n' + '\n'.join(shown) + '\n--- printed\n' + r.stdout)
    # a program the command wrote (explore's -o) passes dpia check, as docs/explore.md says
    if '-o' in argv and argv[argv.index('-o') + 1].endswith('.dpia'):
        written = argv[argv.index('-o') + 1]
        c = subprocess.run([args.dpia, 'check', written], cwd=work, capture_output=True, text=True, timeout=120)
        if c.returncode != 0:
            return f'{name}:{line}: `$ {command}` wrote {written}, which dpia check refuses:\n{c.stdout}{c.stderr}'
    return None


def compile_snippet(args, work, name, line, lang, body):
    """the failure of building and running a whole C or C++ program, or None"""
    ext, cc = (('c', [os.environ.get('CC', 'cc'), '-std=c11']) if lang == 'c'
               else ('cpp', [os.environ.get('CXX', 'c++'), '-std=c++17']))
    path = os.path.join(work, f'snippet_{line}.{ext}')
    exe = os.path.join(work, f'snippet_{line}')
    with open(path, 'w') as f:
        f.write(body)
    libs = ['-lm'] + (['-lOpenCL'] if 'CL/' in body else [])
    flags = ['-O1', '-fopenmp', '-Wall', '-Werror', '-Wno-psabi', '-I', os.path.join(args.root, 'include')]
    r = subprocess.run(cc + flags + [path, '-o', exe] + libs, cwd=work, capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        return f'{name}:{line}: the {lang} program does not compile (tag it fragment if it is one):\n{r.stderr}'
    try:
        r = subprocess.run([exe], cwd=work, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return f'{name}:{line}: the {lang} program did not end in 60 s'
    if r.returncode != 0:
        return f'{name}:{line}: the {lang} program exits {r.returncode}:\n{r.stdout}{r.stderr}'
    return None


def run_python(args, work, env, name, line, body):
    """the failure of running a whole Python snippet, or None"""
    path = os.path.join(work, f'snippet_{line}.py')
    with open(path, 'w') as f:
        f.write(body)
    py = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
    try:
        r = subprocess.run([py, path], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return f'{name}:{line}: the Python snippet did not end in 120 s'
    if r.returncode != 0:
        return (f'{name}:{line}: the Python snippet fails (exit {r.returncode}; tag it fragment if it is one):\n'
                + r.stdout + r.stderr)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dpia', required=True)
    ap.add_argument('--root', required=True, help='the repository (samples/, python/, include/)')
    ap.add_argument('--libdpia', help='libdpia for the Python snippets (none: they are not run)')
    ap.add_argument('--min', type=int, required=True, help='fail below this many examples checked or run')
    ap.add_argument('--min-python', type=int, default=0, help='fail below this many Python snippets run')
    ap.add_argument('--budget', type=float, default=120, help='the budget of dpia tune and explore examples')
    ap.add_argument('doc')
    args = ap.parse_args()
    args.dpia = os.path.abspath(args.dpia)
    args.root = os.path.abspath(args.root)
    text = open(args.doc, encoding='utf-8').read()
    name = os.path.relpath(os.path.abspath(args.doc), args.root)
    failures = []
    n = dict.fromkeys(('program', 'command', 'compiled', 'python', 'norun', 'fragment', 'python_skipped',
                       'other'), 0)
    with tempfile.TemporaryDirectory() as work:
        for d in LINKED:
            os.symlink(os.path.join(args.root, d), os.path.join(work, d))
        env = dict(os.environ, DPIA_TUNE_CACHE=os.path.join(work, 'tune.json'))
        env.pop('DPIA_LIBRARY', None)
        if args.libdpia:
            env['DPIA_LIBRARY'] = os.path.abspath(args.libdpia)
            env['PYTHONPATH'] = os.path.join(args.root, 'python') + os.pathsep + env.get('PYTHONPATH', '')
        for tag, body, line in blocks(text):
            words = tag.split()
            lang = words[0] if words else ''
            if lang in COMMAND_TAGS and re.search(r'^\$ ', body, re.M):
                if 'norun' in words:
                    n['norun'] += 1
                    continue
                budgeted = False
                for command, shown in commands(body):
                    failure = run_command(args, work, env, name, line, command, shown, budgeted)
                    budgeted = budgeted or re.search(r'\s--budget\b', command) is not None
                    if failure:
                        failures.append(failure)
                    else:
                        n['command'] += 1
                continue
            if lang in ('c', 'cpp', 'python'):
                if 'fragment' in words:
                    n['fragment'] += 1
                    continue
                if lang == 'python' and not args.libdpia:
                    n['python_skipped'] += 1
                    continue
                failure = (run_python(args, work, env, name, line, body) if lang == 'python'
                           else compile_snippet(args, work, name, line, lang, body))
                if failure:
                    failures.append(failure)
                else:
                    n['python' if lang == 'python' else 'compiled'] += 1
                continue
            kind, failure = check_program(args.dpia, work, name, text, tag, body, line)
            if failure:
                failures.append(failure)
            elif kind in ('accepted', 'refused'):
                n['program'] += 1
            elif kind == 'sketch':
                n['fragment'] += 1
            else:  # another language's block, or a bare one without a declaration
                n['other'] += 1
    done = n['program'] + n['command'] + n['compiled'] + n['python']
    if done < args.min:
        failures.append(f'{name}: {done} examples checked or run, fewer than the {args.min} expected '
                        '(an example lost its fence or its `$ `, or the extractor is broken)')
    if args.libdpia and n['python'] < args.min_python:
        failures.append(f'{name}: {n["python"]} Python snippets run, fewer than the {args.min_python} expected')
    for msg in failures:
        print('FAIL', msg)
    print(f'{name}: {done} examples checked or run ({n["program"]} programs, {n["command"]} commands, '
          f'{n["compiled"]} C/C++ built and run, {n["python"]} Python run); not run: {n["norun"]} command blocks '
          f'tagged norun, {n["fragment"]} fragments and sketches, {n["python_skipped"]} Python snippets '
          f'(no --libdpia); {n["other"]} other blocks; {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
