#!/usr/bin/env python3
"""The samples of samples/tune in the suite, with a small budget.

kt:     tune_kt.py (Kernel Tuner) with 4 random points per problem at small
        sizes, in the venv build/tune-venv (made here with Kernel Tuner and
        pyopencl from PyPI when tools/setup.sh has not made it; exit 77,
        skipped, only when PyPI cannot be reached)
search: search_space.py (dpia batch) with 6 random points per problem at
        small sizes
Each must report for each problem a best point that the space allows and
that dpia run --check accepted.

usage: tune_test.py kt|search DPIA LIBDPIA BUILD_DIR
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
NO_NETWORK = ("NewConnectionError", "Temporary failure in name resolution", "Network is unreachable",
              "No matching distribution found", "Could not find a version", "Connection refused", "timed out")


def venv_python(build):
    """build/tune-venv's python with kernel_tuner and pyopencl, made if
    needed; None when PyPI cannot be reached"""
    venv = os.path.join(build, "tune-venv")
    py = os.path.join(venv, "bin", "python")
    probe = [py, "-c", "import kernel_tuner, pyopencl"]
    if os.path.exists(py) and subprocess.run(probe, capture_output=True).returncode == 0:
        return py
    subprocess.run(["/usr/bin/python3", "-m", "venv", venv], check=True)
    pip = subprocess.run([py, "-m", "pip", "install", "-q", "kernel_tuner", "pyopencl"], capture_output=True,
                         text=True, timeout=1200)
    if pip.returncode != 0:
        if any(s in pip.stderr + pip.stdout for s in NO_NETWORK):
            print("SKIP: Kernel Tuner cannot be installed (no network):", pip.stderr[-500:])
            return None
        raise SystemExit("FAIL pip install kernel_tuner pyopencl:\n" + pip.stderr)
    return py


def main():
    which, dpia_exe, libdpia, build = sys.argv[1:5]
    env = dict(os.environ, DPIA_LIBRARY=os.path.abspath(libdpia))
    if which == "kt":
        py = venv_python(build)
        if py is None:
            return 77
        cmd = [py, os.path.join(HERE, "tune_kt.py"), "--small", "--budget", "4"]
    else:
        cmd = [sys.executable, os.path.join(HERE, "search_space.py"), "--dpia", dpia_exe, "--small", "--budget", "6"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200)
    print(out.stdout, out.stderr[-3000:])
    if out.returncode != 0 or not out.stdout.strip():
        print("FAIL %s: exit %d" % (" ".join(cmd), out.returncode))
        return 1
    reports = json.loads(out.stdout.strip().splitlines()[-1])
    # the space from the command line: this process does not load libdpia
    # (a sanitized one cannot be loaded into Python)
    from dpia import Space
    failures = []
    for r in reports:
        path = os.path.join(HERE, {"dot": "dot_tune.dpia", "dot_vec": "dot_vec_tune.dpia", "gemv": "gemv_tune.dpia"}[r["problem"]])
        got = subprocess.run([dpia_exe, "translate", path, "-k", r["kernel"], "--emit=space"], capture_output=True,
                             text=True)
        space = Space(json.loads(got.stdout))
        if not space.valid(r["best"], r["sizes"]):
            failures.append("%s: the best point %s is not in the space" % (r["problem"], r["best"]))
        if not r["checked"] or r["timed"] < 1 or not r["best_ms"] > 0:
            failures.append("%s: %s" % (r["problem"], r))
    if {r["problem"] for r in reports} != {"dot", "dot_vec", "gemv"}:
        failures.append("problems reported: %s" % [r["problem"] for r in reports])
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
