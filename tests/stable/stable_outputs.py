#!/usr/bin/env python3
"""Generated text names the source as the user sees it.

Usage: stable_outputs.py DPIA SAMPLES_DIR VERSION

  * `dpia translate /abs/path/scal.dpia --emit=opencl|json|header` run from
    the file's directory names it scal.dpia, from its parent dir/scal.dpia,
    from elsewhere ../.../scal.dpia: never an absolute path;
  * the output is byte-identical wherever the file and the current
    directory are (a copy in another directory translates the same);
  * --source-name NAME names NAME instead (--source-name=NAME too);
  * no version of dpia in the output unless --stamp, then in each kind;
  * dpia batch: "source_name" and "stamp" do the same.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

KINDS = ("opencl", "json", "header")


def translate(dpia, cwd, path, kind, *extra):
    r = subprocess.run([dpia, "translate", path, "--emit=" + kind, "--no-verify", *extra],
                       cwd=cwd, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"FAIL: dpia translate {path} --emit={kind} {' '.join(extra)} exited {r.returncode}: {r.stderr}")
    return r.stdout


def main():
    dpia, samples, version = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    failures = []

    def check(cond, msg):
        if not cond:
            failures.append(msg)
            print("FAIL:", msg)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = os.path.realpath(tmp)
        a = os.path.join(tmp, "a", "proj")
        b = os.path.join(tmp, "b")
        other = os.path.join(tmp, "c", "d")
        for d in (a, b, other):
            os.makedirs(d)
        for d in (a, b):
            shutil.copy(os.path.join(samples, "scal.dpia"), d)
        for kind in KINDS:
            here = translate(dpia, a, os.path.join(a, "scal.dpia"), kind)
            check("from scal.dpia" in here or '"file": "scal.dpia"' in here,
                  f"{kind}: an absolute path run from its directory is not named scal.dpia")
            check(tmp not in here and "/tmp/" not in here, f"{kind}: the output holds an absolute path")
            check(version not in here, f"{kind}: the output names version {version} without --stamp")
            rel = translate(dpia, a, "scal.dpia", kind)
            check(rel == here, f"{kind}: absolute and relative paths translate differently")
            elsewhere = translate(dpia, b, os.path.join(b, "scal.dpia"), kind)
            check(elsewhere == here, f"{kind}: a copy in another directory translates differently")
            parent = translate(dpia, os.path.dirname(a), os.path.join(a, "scal.dpia"), kind)
            check("proj/scal.dpia" in parent and tmp not in parent, f"{kind}: from the parent, not proj/scal.dpia")
            up = translate(dpia, other, os.path.join(a, "scal.dpia"), kind)
            check("../../a/proj/scal.dpia" in up and tmp not in up,
                  f"{kind}: from a sibling directory, not ../../a/proj/scal.dpia")
            named = translate(dpia, other, os.path.join(a, "scal.dpia"), kind, "--source-name", "kernels/s.dpia")
            check("kernels/s.dpia" in named and "scal.dpia" not in named and tmp not in named,
                  f"{kind}: --source-name kernels/s.dpia is not the name used")
            named2 = translate(dpia, other, os.path.join(a, "scal.dpia"), kind, "--source-name=kernels/s.dpia")
            check(named2 == named, f"{kind}: --source-name=NAME differs from --source-name NAME")
            stamped = translate(dpia, a, "scal.dpia", kind, "--stamp")
            check(f"dpia {version}" in stamped, f"{kind}: --stamp does not name version {version}")
        header = translate(dpia, other, os.path.join(a, "scal.dpia"), "header", "--source-name", "s.dpia")
        check("DPIA_GENERATED_S_H" in header, "header: the include guard does not follow --source-name")

        # dpia batch
        src = open(os.path.join(samples, "scal.dpia")).read()
        reqs = [{"id": 1, "source": src, "name": "/abs/scal.dpia", "source_name": "scal.dpia",
                 "emit": ["opencl", "header"], "verify": False},
                {"id": 2, "source": src, "name": "scal.dpia", "stamp": True, "emit": "header", "verify": False},
                {"id": 3, "source": src, "source_name": 3}]
        r = subprocess.run([dpia, "batch"], input="".join(json.dumps(q) + "\n" for q in reqs),
                           capture_output=True, text=True, timeout=60)
        resp = [json.loads(l) for l in r.stdout.splitlines()]
        check(len(resp) == 3, f"batch: {len(resp)} responses, not 3: {r.stderr}")
        if len(resp) == 3:
            o = resp[0].get("outputs", {})
            check("from scal.dpia" in o.get("opencl", "") and "/abs/" not in o.get("header", "x/abs/"),
                  "batch: source_name is not the name in generated text")
            check(version not in o.get("header", version), "batch: a version without stamp")
            check(f"dpia {version}" in resp[1].get("outputs", {}).get("header", ""), "batch: stamp names no version")
            check(resp[2]["status"] == "bad_request", "batch: a source_name that is not a string is accepted")

    print(f"{'FAIL' if failures else 'PASS'}: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
