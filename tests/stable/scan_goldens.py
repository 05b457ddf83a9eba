#!/usr/bin/env python3
"""Goldens hold no machine path and no version.

Usage: scan_goldens.py SOURCE_ROOT VERSION

Scans every expected-output file of the repository (under tests/, samples/,
bench/ and docs/: *.cl, *.json, *.h, *.out, *.err, *.intermediate,
*.imperative) for an absolute path of a build machine (/work/, /tmp/,
/home/, /root/) and for dpia's version string as a whole word.  A golden
holding either would differ between machines or releases.  Prints one line
per finding, then `N files scanned, M findings`; exits 1 on any finding.
"""
import os
import re
import sys

EXTS = (".cl", ".json", ".h", ".out", ".err", ".intermediate", ".imperative")
DIRS = ("tests", "samples", "bench", "docs")
PATHS = re.compile(r"(?<![\w.])/(?:work|tmp|home|root)/")


def main():
    root, version = sys.argv[1], sys.argv[2]
    ver = re.compile(r"(?<![\w.])" + re.escape(version) + r"(?![\w.])")
    scanned = findings = 0
    for top in DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            for f in sorted(filenames):
                if not f.endswith(EXTS):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                scanned += 1
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        for what, rx in (("absolute path", PATHS), ("version " + version, ver)):
                            m = rx.search(line)
                            if m:
                                findings += 1
                                print(f"{rel}:{n}:{m.start() + 1}: {what}: {line.strip()[:120]}")
    print(f"{scanned} files scanned, {findings} findings")
    if scanned == 0:
        print("no golden found: wrong SOURCE_ROOT?")
        return 1
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
