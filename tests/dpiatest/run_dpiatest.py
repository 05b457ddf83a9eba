#!/usr/bin/env python3
"""Tests of `dpia test` itself (app/test_runner.c), on a copy of cases/.

  run_dpiatest.py DPIA CASEDIR [--run] [--update]

  * cases/pass: every directive and expected file that holds (CHECK,
    CHECK-NEXT, CHECK-SAME, CHECK-NOT, CHECK-DAG, CHECK-COUNT-n, CHECK-LABEL,
    captures, -- ARGS: (with --imperative-defs too), -- exit:, -- expect:,
    -- expect-not:, X.err, X.out, X.cl, X.json, X.h, X.intermediate,
    X.imperative, a nested directory): exit 0, 'N passed, 0 failed';
  * cases/fail/NAME.dpia, one at a time: exit 1 and standard output equal to
    the golden NAME.stdout (each directive failing, a capture, an edited
    kept file, a bad -- ARGS: line ...); --update rewrites the goldens;
  * an expected file edited in the copy fails with a readable unified diff,
    `dpia test --update` restores it byte for byte (and leaves the .dpia,
    its CHECK lines, alone), and the test passes again;
  * a bad command line exits 2;
  * a crash while testing a file (made on purpose: DPIA_DEBUG_TEST_CRASH)
    prints `FAIL X.dpia: dpia crashed ...` and ends the run by its signal,
    with the results before it printed;
  * with --run (an OpenCL device): cases/run's RUN lines pass, and
    cases/run_fail's fails naming the RUN line and showing dpia run's error.
Runs happen inside the copy with relative paths, so output is the same on
every machine.  Prints what failed and exits 1 if anything did.
"""
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def dpia_test(dpia, cwd, *args, env=None):
    p = subprocess.run([dpia, 'test', *args], cwd=cwd, capture_output=True, timeout=300, env=env)
    return p.returncode, p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace')


def expect(cond, what, out=''):
    if not cond:
        failures.append(what + ('\n' + out if out else ''))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    flags = set(sys.argv[1:]) - set(args)
    dpia, casedir = os.path.abspath(args[0]), os.path.abspath(args[1])
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, 'cases')
        shutil.copytree(casedir, work)

        npass = sum(len([f for f in files if f.endswith('.dpia')])
                    for _, _, files in os.walk(os.path.join(work, 'pass')))
        rc, out, err = dpia_test(dpia, work, '-v', 'pass')
        expect(rc == 0 and out.endswith('%d passed, 0 failed\n' % npass) and 'PASS pass/nested/deep.dpia\n' in out,
               'pass: exit %d' % rc, out + err)

        for f in sorted(os.listdir(os.path.join(work, 'fail'))):
            if not f.endswith('.dpia'):
                continue
            rc, out, err = dpia_test(dpia, os.path.join(work, 'fail'), f)
            golden = os.path.join(casedir, 'fail', f[:-5] + '.stdout')
            if '--update' in flags:
                with open(golden, 'w') as g:
                    g.write(out)
            expect(rc == 1, 'fail/%s: exit %d, expected 1' % (f, rc), out + err)
            want = open(golden).read() if os.path.exists(golden) else '(no golden %s)' % golden
            expect(out == want, 'fail/%s: output differs from %s' % (f, golden), out)

        # an edited expected file: a readable diff, then --update restores it
        for name, old, new in [('kept.cl', 'output[gid] = alpha * xs[gid];', 'output[gid] = xs[gid];'),
                               ('reject.err', 'recursive definition', 'recursive def')]:
            path = os.path.join(work, 'pass', name)
            original = open(path, 'rb').read()
            dpia_src = open(os.path.join(work, 'pass', name.split('.')[0] + '.dpia'), 'rb').read()
            edited = original.decode().replace(old, new, 1)
            expect(edited != original.decode(), 'edit of %s did not apply' % name)
            open(path, 'w').write(edited)
            rc, out, err = dpia_test(dpia, work, 'pass')
            stem = name.split('.')[0]
            for line in ['FAIL pass/%s.dpia: differs from %s' % (stem, name), '--- ' + name,
                         '\n-' + [l for l in edited.splitlines() if new in l][0] + '\n',
                         '\n+' + [l for l in original.decode().splitlines() if old in l][0] + '\n',
                         '%d passed, 1 failed' % (npass - 1)]:
                expect(rc == 1 and line in out, 'edited %s: no %r in the output' % (name, line), out + err)
            rc, out, err = dpia_test(dpia, work, '--update', 'pass')
            expect(rc == 0 and 'updated pass/' + name in out, 'update of %s: exit %d' % (name, rc), out + err)
            expect(open(path, 'rb').read() == original, '--update did not restore %s' % name)
            expect(open(os.path.join(work, 'pass', stem + '.dpia'), 'rb').read() == dpia_src,
                   '--update changed %s.dpia' % stem)
            rc, out, err = dpia_test(dpia, work, 'pass')
            expect(rc == 0, 'after --update of %s: exit %d' % (name, rc), out + err)

        for bad in [[], ['--bogus', 'pass'], ['no_such_dir'], ['pass/kept.cl']]:
            rc, out, err = dpia_test(dpia, work, *bad)
            expect(rc == 2 and 'error' in err, 'dpia test %s: exit %d, expected 2' % (' '.join(bad), rc), err)
        # a crash names its file: the results before it kept, the run ended
        # by the signal (DPIA_DEBUG_TEST_CRASH makes that file's test fault;
        # under AddressSanitizer its report ends the run, with exit 1)
        env = dict(os.environ, DPIA_DEBUG_TEST_CRASH='label_vars.dpia')
        rc, out, err = dpia_test(dpia, work, '-v', 'pass', env=env)
        expect(rc != 0 and 'PASS pass/kept.dpia\n' in out and 'pass/label_vars.dpia' not in out
               and 'FAIL pass/label_vars.dpia: dpia crashed (signal ' in err and 'passed' not in out,
               'a crash while testing: exit %d' % rc, out + err)
        rc, out, _ = dpia_test(dpia, work, '--help')
        expect(rc == 0 and out.startswith('usage: dpia test'), 'dpia test --help: exit %d' % rc, out)

        if '--run' in flags:
            rc, out, err = dpia_test(dpia, work, 'run')
            expect(rc == 0, 'run: exit %d' % rc, out + err)
            rc, out, err = dpia_test(dpia, work, 'run_fail')
            expect(rc == 1 and 'FAIL run_fail/scal.dpia: RUN -k scalVec --size N=1022: dpia run --check '
                   'exited with 1' in out and 'does not satisfy N % 4 == 0' in out,
                   'run_fail: exit %d' % rc, out + err)

    for f in failures:
        print('FAIL ' + f)
    print('%d failures' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
