#!/usr/bin/env python3
"""Translation stage tests (spec section 9 "Library").

For every .dpia file given (directories are scanned), for every kernel:
  * each stage's printout (--emit=intermediate, --emit=imperative) is
    accepted by `dpia check` again;
  * the translation is deterministic: two runs give the same bytes;
  * `dpia verify` succeeds (the imperative program re-checks under SCIR).
The kept outputs of each stage are compared by `dpia test` (X.cl, X.json,
X.intermediate, X.imperative next to X.dpia).
Prints one line per file and `N passed, M failed`; exit 1 on any failure.
"""
import argparse, os, subprocess, sys, tempfile

def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')

def has_kernel(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return any(line.startswith('kernel ') for line in f)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dpia', required=True)
    ap.add_argument('paths', nargs='+')
    a = ap.parse_args()
    a.dpia = os.path.abspath(a.dpia)
    files = []
    for p in a.paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith('.dpia'))
        else:
            files.append(p)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            if not has_kernel(path):
                continue
            name = os.path.basename(path)[:-5]
            problems = []
            for kind in ('intermediate', 'imperative'):
                rc, out, err = run([a.dpia, 'translate', '--no-verify', '--emit=' + kind, path])
                if rc != 0:
                    problems.append(f'--emit={kind} failed ({rc}):\n{err}')
                    continue
                rc2, out2, _ = run([a.dpia, 'translate', '--no-verify', '--emit=' + kind, path])
                if out2 != out:
                    problems.append(f'--emit={kind} is not deterministic')
                printed = os.path.join(tmp, f'{name}.{kind}.dpia')
                with open(printed, 'w') as f:
                    f.write(out)
                rc, _, err = run([a.dpia, 'check', printed])
                if rc != 0:
                    problems.append(f'dpia check rejects the --emit={kind} printout:\n{err}')
            rc, _, err = run([a.dpia, 'verify', path])
            if rc != 0:
                problems.append(f'dpia verify failed ({rc}):\n{err}')
            if problems:
                failed += 1
                print(f'FAIL {name}')
                for p in problems:
                    print('  ' + p.replace('\n', '\n  '))
            else:
                passed += 1
                print(f'PASS {name}')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0

if __name__ == '__main__':
    sys.exit(main())
