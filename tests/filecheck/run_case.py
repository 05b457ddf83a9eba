#!/usr/bin/env python3
"""Run one dpia-filecheck case (tests/filecheck/cases).

  run_case.py FILECHECK CASEDIR NAME EXPECTED_EXIT [file|stdin|noargs] [--update]

The check file is NAME.check (or NAME.dpia), the input NAME.in, passed as a
path (file, the default), on standard input (stdin), or not at all with no
check file either (noargs: the usage message).  The run happens inside
CASEDIR with relative names, so messages are the same on every machine.

The exit status must be EXPECTED_EXIT and standard output empty.  Standard
error must equal the golden NAME.err; a case expected to pass has no golden
and must print nothing, and a case expected to fail must have one, so that
it fails for the stated reason and not another.  --update writes the
golden from the actual output (review it before committing).
"""
import os
import subprocess
import sys


def main():
    args = [a for a in sys.argv[1:] if a != '--update']
    update = len(args) != len(sys.argv) - 1
    if len(args) not in (4, 5):
        sys.exit(__doc__)
    filecheck, casedir, name, expected_exit = args[:4]
    mode = args[4] if len(args) == 5 else 'file'
    filecheck = os.path.abspath(filecheck)

    check = name + '.check'
    if not os.path.exists(os.path.join(casedir, check)):
        check = name + '.dpia'
    command = [filecheck]
    stdin = subprocess.DEVNULL
    if mode == 'file':
        command += [check, name + '.in']
    elif mode == 'stdin':
        command += [check]
        stdin = open(os.path.join(casedir, name + '.in'), 'rb')
    elif mode != 'noargs':
        sys.exit('unknown mode ' + mode)
    result = subprocess.run(command, cwd=casedir, stdin=stdin, capture_output=True)
    if mode == 'stdin':
        stdin.close()

    failures = []
    if result.returncode != int(expected_exit):
        failures.append('exit status %d, expected %s' % (result.returncode, expected_exit))
    if result.stdout:
        failures.append('unexpected standard output:\n' + result.stdout.decode(errors='replace'))
    err = result.stderr.decode(errors='replace')
    golden = os.path.join(casedir, name + '.err')
    if update and int(expected_exit) != 0:
        with open(golden, 'w') as f:
            f.write(err)
    if int(expected_exit) == 0:
        if err:
            failures.append('unexpected standard error:\n' + err)
        if os.path.exists(golden):
            failures.append('a passing case has a golden %s' % golden)
    elif not os.path.exists(golden):
        failures.append('no golden %s (create it with --update and review it); got:\n%s' % (golden, err))
    else:
        with open(golden) as f:
            want = f.read()
        if want != err:
            failures.append('standard error differs from %s\n--- expected\n%s--- got\n%s' % (golden, want, err))

    print(' '.join(command[1:]) or '(no arguments)', '-> exit', result.returncode)
    for failure in failures:
        print('FAIL', name + ':', failure)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
