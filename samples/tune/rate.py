#!/usr/bin/env python3
"""Configurations per second: every point of dot_tune.dpia's space (the
2048 points of WG x C, valid or not) specialised and translated to OpenCL C
(verification off, as a search driver translates its candidates), once
through the Python package (one dpia_process per point, in process) and
once through `dpia batch` (one request line per point, one process);
then the valid points at one size verified as well (SCIR re-check, libclang
and the semantic check).

    python3 samples/tune/rate.py [--dpia build/dpia]
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import dpia  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dpia", default=os.path.join(HERE, "..", "..", "build", "dpia"))
    args = ap.parse_args()
    src = open(os.path.join(HERE, "dot_tune.dpia")).read()
    space = dpia.Space(dpia.space(src, "dotPartial"))
    points = [dict(zip(space.names, p)) for p in itertools.product(*[space.domain(n) for n in space.names])]

    t0 = time.time()
    ok = sum(dpia.translate(src, kernel="dotPartial", set=p, emit="opencl").ok for p in points)
    py = time.time() - t0
    print("python package: %d points (%d translated) in %.2f s: %.0f points/s" % (len(points), ok, py, len(points) / py))

    lines = "".join(json.dumps({"source": src, "kernel": "dotPartial", "set": p, "verify": False}) + "\n"
                    for p in points)
    t0 = time.time()
    out = subprocess.run([args.dpia, "batch"], input=lines, capture_output=True, text=True)
    b = time.time() - t0
    ok = sum(json.loads(l)["status"] == "ok" for l in out.stdout.splitlines())
    print("dpia batch:     %d points (%d translated) in %.2f s: %.0f points/s" % (len(points), ok, b, len(points) / b))

    valid = list(space.points({"N": 1 << 20}))
    t0 = time.time()
    ok = sum(dpia.translate(src, kernel="dotPartial", set=p, emit="opencl", verify=True).ok for p in valid)
    v = time.time() - t0
    print("python package, verified: %d valid points at N=2^20 (%d verified) in %.2f s: %.1f points/s" % (
        len(valid), ok, v, len(valid) / v))


if __name__ == "__main__":
    sys.exit(main())
