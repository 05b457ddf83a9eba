#!/usr/bin/env python3
"""`dpia translate -o PATH` when PATH is not a regular file: a FIFO (as
/dev/null or /dev/stdout would be) is written in place and stays a FIFO;
the atomic temporary-and-rename of -o is for regular files only (a rename
over /dev/null would replace the device by a regular file).

usage: output_test.py DPIA SAMPLES_DIR
"""
import os
import stat
import subprocess
import sys
import tempfile
import threading


def main():
    dpia, samples = sys.argv[1:3]
    sample = os.path.join(samples, "scal.dpia")
    want = subprocess.run([dpia, "translate", sample], capture_output=True, text=True, check=True).stdout
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "pipe")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo).read()), daemon=True)
        reader.start()
        p = subprocess.run([dpia, "translate", sample, "-o", fifo], capture_output=True, text=True, timeout=60)
        reader.join(60)
        if p.returncode != 0:
            failures.append("exit %d: %s" % (p.returncode, p.stderr))
        if not stat.S_ISFIFO(os.stat(fifo).st_mode):
            failures.append("the FIFO was replaced by a regular file")
        if got != [want]:
            failures.append("the reader did not get the kernel")
        if sorted(os.listdir(tmp)) != ["pipe"]:
            failures.append("temporary files left: %s" % os.listdir(tmp))
        # a regular file is still written atomically (no temporary left)
        out = os.path.join(tmp, "k.cl")
        subprocess.run([dpia, "translate", sample, "-o", out], check=True)
        if open(out).read() != want or sorted(os.listdir(tmp)) != ["k.cl", "pipe"]:
            failures.append("-o to a regular file")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
