#!/usr/bin/env python3
"""`dpia batch`'s action run on the OpenCL device (PoCL): the report of
`dpia run --json` as the response's "run" member, the reference check, a
tune parameter given by "set" or left symbolic and given by "sizes", a
precondition that the sizes violate (precondition_failed, exit code 1) and
the run members refused for another action.  Exit 77 (skipped) when there
is no OpenCL device.

usage: batch_run.py DPIA SAMPLES_DIR
"""
import json
import os
import subprocess
import sys


def main():
    dpia, samples = sys.argv[1:3]
    gemv = open(os.path.join(samples, "tune", "gemv_tune.dpia")).read()
    requests = [
        {"id": "set", "source": gemv, "action": "run", "set": {"WG": 64}, "sizes": {"M": 8, "N": 1024},
         "check": True, "repeat": 3, "seed": 7},
        {"id": "symbolic", "source": gemv, "action": "run", "sizes": {"M": 4, "N": 512, "WG": 128}},
        {"id": "pre", "source": gemv, "action": "run", "set": {"WG": 64}, "sizes": {"M": 8, "N": 1000}},
        {"id": "missing", "source": gemv, "action": "run", "set": {"WG": 64}, "sizes": {"M": 8}},
        {"id": "translate", "source": gemv, "sizes": {"M": 8}},
        {"id": "repeat", "source": gemv, "action": "run", "sizes": {"M": 8, "N": 64, "WG": 32}, "repeat": 0},
        {"id": "check", "source": gemv, "action": "run", "sizes": {"M": 8, "N": 64, "WG": 32}, "check": 1},
    ]
    out = subprocess.run([dpia, "batch"], input="".join(json.dumps(r) + "\n" for r in requests),
                         capture_output=True, text=True, timeout=600)
    got = {}
    for line in out.stdout.splitlines():
        r = json.loads(line)
        got[r["id"]] = r
    if out.returncode != 0 or len(got) != len(requests):
        print("FAIL dpia batch: exit %d\n%s%s" % (out.returncode, out.stdout, out.stderr))
        return 1
    if got["set"]["status"] == "opencl_unavailable":
        print("SKIP no OpenCL device:", got["set"]["diagnostics"])
        return 77
    failures = []

    def expect(what, ok):
        if not ok:
            failures.append(what)

    r = got["set"]
    run = r.get("run") or {}
    expect("set: %s" % r, r["status"] == "ok" and r["exit_code"] == 0 and run.get("kernel") == "gemv"
           and run.get("sizes") == {"M": 8, "N": 1024} and run.get("global_size") == [512]
           and run.get("local_size") == [64] and run.get("runs") == 3 and run.get("min_ms", 0) > 0
           and (run.get("check") or {}).get("ok") is True and run["check"].get("seed") == 7)
    r = got["symbolic"]
    run = r.get("run") or {}
    expect("symbolic: %s" % r, r["status"] == "ok" and run.get("local_size") == [128]
           and run.get("global_size") == [512] and run.get("check") is None)
    r = got["pre"]
    expect("precondition: %s" % r, r["status"] == "precondition_failed" and r["exit_code"] == 1 and "run" not in r
           and "N = 1000 does not satisfy N % 64 == 0" in r["diagnostics"][0]["message"])
    r = got["missing"]
    expect("missing size: %s" % r, r["status"] == "bad_request" and "needs a value for its size N"
           in r["diagnostics"][0]["message"])
    for name, text in [("translate", "\"sizes\" applies to the action run only"),
                       ("repeat", "\"repeat\" must be a natural number"),
                       ("check", "\"check\" must be true or false")]:
        r = got[name]
        expect("%s: %s" % (name, r), r["status"] == "bad_request" and text in r["diagnostics"][0]["message"])
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
