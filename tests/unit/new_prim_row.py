#!/usr/bin/env python3
"""A new row of the primitive table (dpia/prims.h) breaks the build at every
decision about primitives in the front end and the translation: each of
DECISIONS is compiled, with the flags the build uses for it
(compile_commands.json), against a copy of the sources whose table has one
more row, a scalar primitive that no PRIM_CASES_ list and no switch names.
Each file must fail with the compiler's "not handled in switch" for the new
row, so a new primitive cannot be added without saying, in each of them,
what it is there (docs/architecture.md, "Adding a primitive").

usage: new_prim_row.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

# every file of the front end and translation that decides by primitive
DECISIONS = ["dpia/prims.c", "dpia/strategy.c", "dpia/scir.c", "dpia/check_notes.c", "dpia/invariant.c",
             "dpia/pipeline.c", "translate/stage1.c", "translate/stage2.c", "translate/hoist.c"]
TABLE = "#define DPIA_PRIMS(X)"
ROW = '  X(NEW_ROW, "newRow", 0, 0, PF_FUNC, SCALAR, NONE, COUNT, "exp[a] -> exp[a]") \\\n'
MISSING = "'PRIM_NEW_ROW' not handled in switch"


def main():
    build, source = (os.path.abspath(a) for a in sys.argv[1:3])
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = {os.path.normpath(os.path.join(c["directory"], c["file"])): c for c in json.load(f)}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        # the copy sits where the sources are relative to a build directory of
        # the same depth, so the relative -I flags of the commands still work
        rel_build = os.path.relpath(build, source)
        if rel_build.startswith(".."):
            print("SKIP: the build directory is outside the source tree")
            return 77
        copy = os.path.join(tmp, "src")
        for d in ("dpia", "translate", "include"):
            shutil.copytree(os.path.join(source, d), os.path.join(copy, d))
        os.makedirs(os.path.join(copy, rel_build))
        prims = os.path.join(copy, "dpia", "prims.h")
        with open(prims) as f:
            lines = f.readlines()
        at = next(i for i, line in enumerate(lines) if line.startswith(TABLE))
        lines.insert(at + 1, ROW)
        with open(prims, "w") as f:
            f.writelines(lines)
        for name in DECISIONS:
            cmd = commands.get(os.path.join(source, name))
            if not cmd:
                failures.append("%s: no compile command in %s" % (name, build))
                continue
            args = shlex.split(cmd["command"])
            # compile only, to nowhere, no dependency file
            keep, i = [], 0
            while i < len(args):
                a = args[i]
                if a in ("-o", "-MQ", "-MF"):
                    i += 2
                    continue
                if a in ("-MD", "-c") or a.endswith(".c"):
                    i += 1
                    continue
                keep.append(a)
                i += 1
            cwd = os.path.join(copy, rel_build)
            p = subprocess.run(keep + ["-fsyntax-only", "-fdiagnostics-color=never", os.path.join(copy, name)],
                               cwd=cwd, capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
            places = [line for line in p.stderr.splitlines() if MISSING in line]
            if p.returncode == 0 or not places:
                failures.append("%s compiles with a primitive it does not decide about\n%s" % (name, p.stderr))
            else:
                print("%s: %d switch%s over Prim" % (name, len(places), "" if len(places) == 1 else "es"))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
