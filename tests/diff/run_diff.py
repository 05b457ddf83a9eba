#!/usr/bin/env python3
"""run_diff.py: differential test of the translator (issue 4, item 6).

Generates COUNT random well-typed strategy programs from SEED (gen.py), and
for each one: `dpia check` must accept it (a rejection is a generator bug or
a wrong rejection: both are reported), then `dpia run --check` runs it on the
OpenCL device with the generator's sizes and compares it with the reference
interpreter; any exit status other than 0 is a FAILURE, printed with the
program text and dpia's output.  Exit 4 (OpenCL unavailable) skips the run.
Then every tests/diff/regress/*.dpia file is run the same way: its first
line says which bug it shows, its second `-- run: -k KERNEL --size N=...`
gives the command line; a third line `-- expect: reject` means the program
must be rejected by `dpia check` (a wrong acceptance), with exit 1, and
`-- expect: reject-or-ok` that it must be rejected or run correctly.

The meson test runs 200 programs:
    tests/diff/run_diff.py --dpia build/dpia --seed 1 --count 200
A longer run, for hunting bugs:
    tests/diff/run_diff.py --dpia build/dpia --seed S --count 5000 --keep /tmp/fails
One program again:  tests/diff/gen.py --seed S --index I
Prints `N passed, M failed` at the end; exit 1 if anything failed.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402

RUN_TIMEOUT = 300


def run(cmd, env):
    for attempt in range(30):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env)
            if p.returncode == 127 and 'error while loading shared libraries' in p.stderr and attempt < 29:
                time.sleep(2)  # libdpia is being relinked by a concurrent build
                continue
            return p.returncode, p.stdout + p.stderr
        except (PermissionError, FileNotFoundError):
            if attempt == 29:  # dpia missing: being relinked for too long
                raise
            time.sleep(2)  # the binary is being relinked by a concurrent build
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors='replace') if isinstance(e.stdout, bytes) else (e.stdout or '')
            return 'timeout', out + f'\n(timed out after {RUN_TIMEOUT} s)'


def parse_header(text):
    """(kernel, [size args], expect) from the `-- run:` and `-- expect:` lines."""
    kernel, sizes, expect = None, [], 'ok'
    for line in text.splitlines()[:5]:
        m = re.match(r'--\s*run:\s*(.*)', line)
        if m:
            args = m.group(1).split()
            i = 0
            while i < len(args):
                if args[i] == '-k':
                    kernel = args[i + 1]
                    i += 2
                elif args[i] == '--size':
                    sizes += ['--size', args[i + 1]]
                    i += 2
                else:
                    sizes.append(args[i])
                    i += 1
        m = re.match(r'--\s*expect:\s*(\w+)', line)
        if m:
            expect = m.group(1)
    return kernel, sizes, expect


def test_one(dpia, path, text, kernel, sizes, expect, seed, env):
    """(status, detail): status in ok, skip, FAIL."""
    rc, out = run([dpia, 'check', path], env)
    if expect in ('reject', 'reject-or-ok'):
        if rc == 1:
            return 'ok', ''
        if expect == 'reject-or-ok' and rc == 0:
            rc, out = run([dpia, 'run', path, '-k', kernel, *sizes, '--check', '--seed', str(seed)], env)
            if rc == 0:
                return 'ok', out
            return 'FAIL', f'dpia check accepts the program, but dpia run exits {rc} (expected a rejection by check, ' \
                f'or a correct run):\n{out}'
        if rc != 0:
            return 'FAIL', f'dpia check exited {rc} (expected 1: a rejection)\n{out}'
        detail = 'dpia check accepted a program it must reject'
        rc, out = run([dpia, 'run', path, '-k', kernel, *sizes, '--check', '--seed', str(seed)], env)
        return 'FAIL', f'{detail}; dpia run exits {rc}:\n{out}'
    if rc != 0:
        what = 'REJECTED by dpia check (a generator bug, or a wrong rejection)' if rc == 1 else \
            f'dpia check exited {rc}'
        return 'FAIL', f'{what}:\n{out}'
    rc, out = run([dpia, 'run', path, '-k', kernel, *sizes, '--check', '--seed', str(seed)], env)
    if rc == 0:
        return 'ok', out
    if rc == 4:
        return 'skip', out
    what = {1: 'exit 1 (error in the program: a generator bug if it is a precondition, else a wrong rejection)',
            3: 'exit 3 (verification failed or the result differs from the reference)',
            70: 'exit 70 (internal error)'}.get(rc, f'exit {rc}')
    return 'FAIL', f'dpia run: {what}:\n{out}'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument('--dpia', required=True)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=200)
    ap.add_argument('--start', type=int, default=0, help='first program index')
    ap.add_argument('--keep', help='directory for failing programs')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--avoid', default='', help='leave out these generator patterns (comma-separated): '
                    + ', '.join(gen.AVOIDABLE))
    ap.add_argument('--no-regress', action='store_true', help='do not run regress/*.dpia')
    ap.add_argument('--quiet', action='store_true', help='print only failures and the summary')
    a = ap.parse_args()
    dpia = os.path.abspath(a.dpia)
    env = dict(os.environ, POCL_KERNEL_CACHE='0')
    avoid = [x for x in a.avoid.split(',') if x]
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)

    cases = []  # (name, text, kernel, sizes, expect)
    for i in range(a.start, a.start + a.count):
        p = gen.generate(a.seed, i, avoid)
        cases.append((f'seed {a.seed} #{i}', p.text, p.kernel, p.size_args(), 'ok'))
    regress = os.path.join(HERE, 'regress')
    if not a.no_regress and os.path.isdir(regress):
        for f in sorted(os.listdir(regress)):
            if f.endswith('.dpia'):
                with open(os.path.join(regress, f)) as fh:
                    text = fh.read()
                kernel, sizes, expect = parse_header(text)
                cases.append((f'regress/{f}', text, kernel, sizes, expect))

    passed = failed = skipped = 0
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        def job(k):
            name, text, kernel, sizes, expect = cases[k]
            path = os.path.join(tmp, f'p{k}.dpia')
            with open(path, 'w') as fh:
                fh.write(text)
            return test_one(dpia, path, text, kernel, sizes, expect, a.seed, env)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            for k, (status, detail) in enumerate(ex.map(job, range(len(cases)))):
                name, text, kernel, sizes, expect = cases[k]
                if status == 'ok':
                    passed += 1
                    if not a.quiet:
                        print(f'PASS {name}', flush=True)
                elif status == 'skip':
                    skipped += 1
                    print(f'SKIP {name}: OpenCL unavailable', flush=True)
                else:
                    failed += 1
                    print(f'FAILURE {name}\n--- program ---\n{text}--- output ---\n{detail.rstrip()}\n---', flush=True)
                    if a.keep:
                        base = name.replace('/', '_').replace(' ', '_').replace('#', '')
                        with open(os.path.join(a.keep, base + '.dpia'), 'w') as fh:
                            fh.write(text)
    print(f'({time.time() - start:.0f} s, {skipped} skipped)')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
