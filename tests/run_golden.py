#!/usr/bin/env python3
"""Golden-file runner for `dpia check`.

Usage:
  run_golden.py --dpia PATH --mode check|check-v [--expect-exit N] [--update] DIR

For every X.dpia in DIR (sorted by name), run `dpia check X.dpia` (mode
check-v: `dpia check -v X.dpia`) with DIR as the working directory and the
file given by its bare name, so diagnostics read `X.dpia:line:col`.  Then:

  * the exit code must equal the one on a line `-- exit: N` of the file (the
    first such line), else --expect-exit, else 1 for a directory whose name
    contains "reject" and 0 otherwise;
  * stdout must equal X.out if it exists;
  * stderr must equal X.err if it exists; a test expecting a non-zero exit
    without an X.err fails (goldens cannot silently vanish) unless --update;
  * the text of every line `-- expect: TEXT` of the file must occur in
    stderr + stdout (case-sensitive substring).

With --update, X.out / X.err are (re)written from the actual output instead
of being compared, but only for files whose exit code matched: X.err when the
expected exit is non-zero, stderr is non-empty or X.err already exists; X.out
when stdout is non-empty or X.out already exists.

Each run has a 20 s timeout; a timeout or a death by signal is a failure.
Prints `PASS name` or `FAIL name: reason` (plus a unified diff on output
mismatches) per file, then `N passed, M failed`; exits 1 if anything failed.
"""

import argparse
import difflib
import os
import re
import signal
import subprocess
import sys

TIMEOUT_S = 20

EXIT_RE = re.compile(rb"^--\s*exit:\s*(-?\d+)\s*$")
EXPECT_RE = re.compile(rb"^--\s*expect:\s?(.*?)\s*$")


def decode(b):
    return b.decode("utf-8", errors="replace")


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def parse_directives(src):
    """(exit code or None, [expect strings as bytes]) from the file's lines."""
    exit_code = None
    expects = []
    for line in src.splitlines():
        m = EXIT_RE.match(line)
        if m and exit_code is None:
            exit_code = int(m.group(1))
            continue
        m = EXPECT_RE.match(line)
        if m and m.group(1):
            expects.append(m.group(1))
    return exit_code, expects


def udiff(expected, actual, name_exp, name_act):
    lines = difflib.unified_diff(
        decode(expected).splitlines(keepends=True),
        decode(actual).splitlines(keepends=True),
        fromfile=name_exp, tofile=name_act)
    out = []
    for l in lines:
        out.append(l if l.endswith("\n") else l + "\n\\ No newline at end of file\n")
    return "".join(out)


def signal_name(num):
    try:
        return signal.Signals(num).name
    except ValueError:
        return "signal %d" % num


def run_one(dpia, mode, directory, fname):
    """Returns (returncode, stdout, stderr, problem) where problem is a string
    for a timeout / failure to start, else None."""
    cmd = [dpia, "check"]
    if mode == "check-v":
        cmd.append("-v")
    cmd.append(fname)
    try:
        proc = subprocess.Popen(cmd, cwd=directory, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as e:
        return None, b"", b"", "cannot run %s: %s" % (dpia, e)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        out, err = proc.communicate()
        return proc.returncode, out, err, "timed out after %d s" % TIMEOUT_S
    return proc.returncode, out, err, None


def main():
    ap = argparse.ArgumentParser(description="golden-file runner for dpia check")
    ap.add_argument("--dpia", required=True, help="path of the dpia executable")
    ap.add_argument("--mode", required=True, choices=["check", "check-v"])
    ap.add_argument("--expect-exit", type=int, default=None,
                    help="exit code of files without a '-- exit: N' line")
    ap.add_argument("--update", action="store_true",
                    help="write X.out / X.err from the actual output")
    ap.add_argument("dir")
    args = ap.parse_args()
    try:
        sys.stdout.reconfigure(errors="backslashreplace")
    except AttributeError:
        pass

    dpia = os.path.abspath(args.dpia)
    directory = os.path.abspath(args.dir)
    if args.expect_exit is not None:
        default_exit = args.expect_exit
    else:
        default_exit = 1 if "reject" in os.path.basename(directory.rstrip("/")) else 0

    if not os.path.isdir(directory):
        print("FAIL %s: not a directory" % args.dir)
        print("0 passed, 1 failed")
        return 1
    names = sorted(f for f in os.listdir(directory)
                   if f.endswith(".dpia") and os.path.isfile(os.path.join(directory, f)))
    if not names:
        print("FAIL %s: no .dpia files" % args.dir)
        print("0 passed, 1 failed")
        return 1

    passed = failed = 0
    for fname in names:
        name = fname[:-len(".dpia")]
        path = os.path.join(directory, fname)
        out_path = os.path.join(directory, name + ".out")
        err_path = os.path.join(directory, name + ".err")
        file_exit, expects = parse_directives(read_bytes(path))
        want_exit = default_exit if file_exit is None else file_exit

        rc, out, err, problem = run_one(dpia, args.mode, directory, fname)
        reasons = []
        details = []
        if problem is not None:
            reasons.append(problem)
        elif rc < 0:
            reasons.append("crashed with %s" % signal_name(-rc))
        elif rc != want_exit:
            reasons.append("exit %d, expected %d" % (rc, want_exit))
        exit_ok = not reasons

        if exit_ok and args.update:
            if out or os.path.exists(out_path):
                write_bytes(out_path, out)
            if err or want_exit != 0 or os.path.exists(err_path):
                write_bytes(err_path, err)
        elif exit_ok:
            if os.path.exists(out_path):
                exp = read_bytes(out_path)
                if exp != out:
                    reasons.append("stdout differs from %s.out" % name)
                    details.append(udiff(exp, out, name + ".out", "stdout"))
            if os.path.exists(err_path):
                exp = read_bytes(err_path)
                if exp != err:
                    reasons.append("stderr differs from %s.err" % name)
                    details.append(udiff(exp, err, name + ".err", "stderr"))
            elif want_exit != 0:
                reasons.append("missing golden %s.err (generate it with --update)" % name)

        if problem is None:
            both = err + out
            for e in expects:
                if e not in both:
                    reasons.append("expected text not in output: %s" % decode(e))

        if reasons:
            failed += 1
            print("FAIL %s: %s" % (name, "; ".join(reasons)))
            for d in details:
                sys.stdout.write(d)
            if not details and (out or err) and (not exit_ok or expects):
                # show what was printed so the failure can be understood
                if err:
                    sys.stdout.write("  stderr:\n" + "".join(
                        "    " + l + "\n" for l in decode(err).splitlines()))
                if out:
                    sys.stdout.write("  stdout:\n" + "".join(
                        "    " + l + "\n" for l in decode(out).splitlines()))
        else:
            passed += 1
            print("PASS %s" % name)

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
