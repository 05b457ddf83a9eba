#!/usr/bin/env python3
"""Tune dpia kernels with Kernel Tuner, from nothing but dpia's search space
(--emit=space) and the kernels dpia specialises at each point (--set).

For each problem (the dot product's partial sums, samples/tune/dot_tune.dpia,
vectorised, dot_vec_tune.dpia, and gemv, gemv_tune.dpia) it hands Kernel
Tuner:
  - tune_params: the space's domains;
  - restrictions: the space's constraints at the problem sizes;
  - the kernel: a function of the point that returns dpia's specialised
    OpenCL C (reqd_work_group_size, constants), with no #define added;
  - the launch: the work-group size is the space's local size, the number
    of work-groups its global size over its local size;
  - the arguments: from the metadata of the specialised kernels (buffers
    as large as the largest point needs).
Kernel Tuner checks every point's output against numpy; the sample reports
the best configuration of each problem, then checks it with dpia run
--check (the reference interpreter) on the same device.

    build/tune-venv/bin/python samples/tune/tune_kt.py             # every point
    build/tune-venv/bin/python samples/tune/tune_kt.py --budget 8  # 8 random points per problem

Kernel Tuner and pyopencl from PyPI (tools/setup.sh installs them in
build/tune-venv); libdpia through the dpia package (python/, DPIA_LIBRARY).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import dpia  # noqa: E402

# what each kernel computes, for Kernel Tuner's check of every point: the
# output (as large as the largest point's, zero beyond this point's)
# against numpy, from the arguments by name
def dot_ok(a, out):
    want = float(a["xs"].astype(np.float64) @ a["ys"])
    return abs(float(out.sum(dtype=np.float64)) - want) <= 1e-4 * abs(want)


def gemv_ok(a, out):
    m, n = int(a["M"]), int(a["N"])
    want = a["alpha"] * (a["mat"].reshape(m, n).astype(np.float64) @ a["x"]) + a["beta"] * a["y"]
    return np.allclose(out[:m], want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


PROBLEMS = [
    # name, file, kernel, problem sizes, scalar arguments, check
    ("dot", "dot_tune.dpia", "dotPartial", {"N": 1 << 22}, {}, dot_ok),
    ("dot_vec", "dot_vec_tune.dpia", "dotVec", {"N": 1 << 22}, {}, dot_ok),
    ("gemv", "gemv_tune.dpia", "gemv", {"M": 1024, "N": 4096}, {"alpha": 1.5, "beta": 0.5}, gemv_ok),
]
SMALL = {"dot": {"N": 1 << 16}, "dot_vec": {"N": 1 << 16}, "gemv": {"M": 64, "N": 1024}}

_NUMPY = {"float": np.float32, "double": np.float64, "int": np.int32}


def arguments(src, kernel, space, sizes, scalars, rng):
    """Kernel Tuner's argument list for the kernels specialised at the
    valid points (their interfaces are the same: the tune parameters are
    constants), each buffer as large as the largest point needs, in
    scalars (a float4 buffer of n elements is 4*n floats)"""
    params = {}
    for point in space.points(sizes):
        meta = dpia.translate(src, kernel=kernel, set=point, emit="json").raise_for_status().metadata
        for p in meta["params"]:
            n = 0
            if "elements" in p:
                base, lanes = (p["type"].rstrip("0123456789"), int(p["type"][len(p["type"].rstrip("0123456789")):] or 1))
                n = dpia.evaluate(p["elements"].replace("/", "//"), sizes) * (4 if lanes == 3 else lanes)
                p = dict(p, type=base)
            if p["name"] not in params:
                params[p["name"]] = dict(p, count=n)
            params[p["name"]]["count"] = max(params[p["name"]]["count"], n)
    names, args = [], []
    for name, p in params.items():
        if p.get("space") == "local":
            continue
        names.append((name, p["role"]))
        if p["role"] == "nat":
            args.append(np.int32(sizes[name]))
        elif p["role"] == "scalar":
            args.append(_NUMPY[p["type"]](scalars[name]))
        else:
            dtype = _NUMPY[p["type"]]
            args.append(rng.random(p["count"]).astype(dtype) if p["role"] == "input" else np.zeros(p["count"], dtype=dtype))
    return names, args


def tune(name, path, kernel, sizes, scalars, ok, budget, seed, verbose):
    import kernel_tuner

    src = open(path).read()
    space = dpia.Space(dpia.space(src, kernel, name=os.path.basename(path)))
    rng = np.random.default_rng(seed)
    # the work-group size: a tune parameter's name, or a constant
    local = space.data["local_size"]
    if local is None:
        raise SystemExit("%s: the kernel leaves its work-group size to OpenCL; Kernel Tuner needs one" % name)
    block_names, tune_params = [], space.tune_params()
    for d, e in enumerate(local):
        if e in space.names:
            block_names.append(e)
        else:
            fixed = "dpia_local_%d" % d
            tune_params[fixed] = [dpia.evaluate(e, sizes)]
            block_names.append(fixed)
    translated = {}

    def source(params):
        point = {n: int(params[n]) for n in space.names}
        key = tuple(sorted(point.items()))
        if key not in translated:
            r = dpia.translate(src, kernel=kernel, set=point, emit="opencl").raise_for_status()
            translated[key] = r.source
        return translated[key]

    def groups(params):
        g, loc = space.launch({n: int(params[n]) for n in space.names}, sizes)
        return tuple(gi // li for gi, li in zip(g, loc))

    names, args = arguments(src, kernel, space, sizes, scalars, rng)
    by_name = {n: a for (n, role), a in zip(names, args)}
    outputs = [i for i, (n, role) in enumerate(names) if role == "output"]
    if len(outputs) != 1:
        raise SystemExit("%s: a kernel with one output only" % name)
    # Kernel Tuner refreshes the outputs (zeros) before it checks a point
    answer = [a if i == outputs[0] else None for i, a in enumerate(args)]

    def verify(answer, result, atol=None):
        return ok(by_name, result[outputs[0]])

    strategy, options = ("brute_force", None) if budget is None else ("random_sample", {"max_fevals": budget})
    t0 = time.time()
    # Kernel Tuner writes its temporary files into the current directory
    here = os.getcwd()
    os.chdir(tempfile.mkdtemp(prefix="dpia-kt-"))
    try:
        results, env = kernel_tuner.tune_kernel(
            kernel, source, groups, args, tune_params, answer=answer, verify=verify,
            grid_div_x=[], grid_div_y=[], grid_div_z=[], block_size_names=block_names,
            restrictions=space.restrictions(sizes), lang="OpenCL", defines={}, strategy=strategy,
            strategy_options=options, iterations=3, verbose=verbose, quiet=not verbose)
    finally:
        shutil.rmtree(os.getcwd(), ignore_errors=True)
        os.chdir(here)
    seconds = time.time() - t0
    timed = [r for r in results if isinstance(r.get("time"), (int, float))]
    if not timed:
        raise SystemExit("%s: Kernel Tuner timed no configuration" % name)
    best = min(timed, key=lambda r: r["time"])
    point = {n: int(best[n]) for n in space.names}
    # the winner against dpia's reference interpreter, at the same sizes
    check = dpia.run(src, kernel, sizes, set=point, check=True)
    ok = check.ok and check.run and check.run["check"]["ok"]
    return {"problem": name, "kernel": kernel, "sizes": sizes, "device": env.get("device_name"),
            "points": sum(1 for _ in space.points(sizes)), "timed": len(timed), "seconds": round(seconds, 2),
            "best": point, "best_ms": best["time"], "checked": bool(ok),
            "check": check.run["check"]["report"] if check.run and check.run.get("check") else
            [str(d) for d in check.diagnostics]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=int, help="points per problem (random_sample); default: every point")
    ap.add_argument("--small", action="store_true", help="small problem sizes (a quick run)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    reports = []
    for name, file, kernel, sizes, scalars, ok in PROBLEMS:
        if args.small:
            sizes = SMALL[name]
        r = tune(name, os.path.join(HERE, file), kernel, sizes, scalars, ok, args.budget, args.seed, args.verbose)
        print("%s: best %s, %.4f ms (%d of %d valid points timed in %.1f s on %s); dpia run --check: %s" % (
            name, r["best"], r["best_ms"], r["timed"], r["points"], r["seconds"], r["device"], r["check"]))
        reports.append(r)
    print(json.dumps(reports))
    return 0 if all(r["checked"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
