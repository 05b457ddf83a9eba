#!/usr/bin/env python3
"""dpia's own search over the space of --emit=space: the same problems as
tune_kt.py, with no tuner but dpia.

For each problem it reads the space (`dpia translate --emit=space`),
enumerates the points its constraints allow at the problem sizes, and sends
one `dpia batch` request per point with the action run ("set": the point,
"sizes": the problem's): dpia specialises, translates and times the kernel
on the OpenCL device.  It ranks the points by their fastest launch, then
runs the best again with "check": true (the reference interpreter).

    python3 samples/tune/search_space.py [--dpia build/dpia]            # large sizes
    python3 samples/tune/search_space.py --small --budget 6             # the suite's: 6 points each, small sizes

Prints one line per problem and, last, a JSON array of the reports.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from dpia import Space  # noqa: E402  (only the space's arithmetic: no libdpia needed)

PROBLEMS = [
    ("dot", "dot_tune.dpia", "dotPartial", {"N": 1 << 22}),
    ("dot_vec", "dot_vec_tune.dpia", "dotVec", {"N": 1 << 22}),
    ("gemv", "gemv_tune.dpia", "gemv", {"M": 1024, "N": 4096}),
]
SMALL = {"dot": {"N": 1 << 16}, "dot_vec": {"N": 1 << 16}, "gemv": {"M": 64, "N": 1024}}


def search(dpia_exe, name, path, kernel, sizes, repeat, budget, seed):
    out = subprocess.run([dpia_exe, "translate", path, "-k", kernel, "--emit=space"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("%s: dpia translate --emit=space: %s" % (name, out.stderr))
    space = Space(json.loads(out.stdout))
    points = list(space.points(sizes))
    valid = len(points)
    if budget is not None and budget < len(points):
        points = random.Random(seed).sample(points, budget)
    src = open(path).read()
    requests = [{"id": i, "source": src, "name": os.path.basename(path), "kernel": kernel, "action": "run",
                 "verify": False, "set": p, "sizes": sizes, "repeat": repeat} for i, p in enumerate(points)]
    t0 = time.time()
    out = subprocess.run([dpia_exe, "batch"], input="".join(json.dumps(r) + "\n" for r in requests),
                         capture_output=True, text=True)
    seconds = time.time() - t0
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    timed = [(a["run"]["min_ms"], points[a["id"]]) for a in answers if a["status"] == "ok"]
    refused = [a for a in answers if a["status"] != "ok"]
    if not timed:
        raise SystemExit("%s: no point ran: %s" % (name, refused[:3]))
    best_ms, best = min(timed, key=lambda t: t[0])
    check = json.loads(subprocess.run(
        [dpia_exe, "batch"], input=json.dumps(dict(requests[0], set=best, check=True, repeat=1)) + "\n",
        capture_output=True, text=True).stdout)
    ok = check["status"] == "ok" and check["run"]["check"]["ok"]
    return {"problem": name, "kernel": kernel, "sizes": sizes, "device": check.get("run", {}).get("device"),
            "points": valid, "timed": len(timed), "refused": len(refused), "seconds": round(seconds, 2),
            "points_per_second": round(len(points) / seconds, 1), "best": best, "best_ms": best_ms,
            "checked": bool(ok), "check": check["run"]["check"]["report"] if ok else check["diagnostics"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dpia", default=os.path.join(HERE, "..", "..", "build", "dpia"))
    ap.add_argument("--small", action="store_true", help="small problem sizes (a quick run)")
    ap.add_argument("--repeat", type=int, default=3, help="timed launches per point")
    ap.add_argument("--budget", type=int, help="points per problem, drawn at random; default: every point")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    reports = []
    for name, file, kernel, sizes in PROBLEMS:
        if args.small:
            sizes = SMALL[name]
        r = search(args.dpia, name, os.path.join(HERE, file), kernel, sizes, args.repeat, args.budget, args.seed)
        print("%s: best %s, %.4f ms (%d points run in %.1f s, %.1f/s, %d refused, on %s); check: %s" % (
            name, r["best"], r["best_ms"], r["timed"], r["seconds"], r["points_per_second"], r["refused"],
            r["device"], r["check"]))
        reports.append(r)
    print(json.dumps(reports))
    return 0 if all(r["checked"] and not r["refused"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
