#!/usr/bin/env python3
"""The C target (docs/targets.md, `--target=c`): every sample kernel that
tests/samples/run_samples.py runs on PoCL, and every pipeline of
tests/pipeline/run_pipelines.py, run with `dpia run --target=c --check` (compiled by the host's C compiler with OpenMP, loaded and run on
the CPU, compared with the reference interpreter) at the same sizes; every
sample, every program of tests/pipeline and tests/vectors translated with
--target=c (which verifies each kernel with `cc -fsyntax-only -Wall
-Werror`); every sample's header compiled in one file with a program
that launches gemv's and the pipeline dot's (header_main.c); the refusals: a patched kernel
caught by --check, no C compiler (a clear error), a foreign function
that is OpenCL C (E0327); the barrier the OpenCL kernel has for PoCL 3.1
alone left out of the C kernel (group_loop_pair.dpia, FileCheck).  E0608, a barrier the work-item loops cannot
split at, is unreachable from a checked program: tests/unit/test_kir.c
covers it.  The runs go --jobs at a time; the failures are
reported in the programs' order."""
import argparse, ast, concurrent.futures, glob, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples"))
import cfd_inputs  # noqa: E402

# a foreign function whose body is OpenCL C (clamp) is not C
EXPECTED = {"tests/pipeline/shared_defs.dpia": "is not valid C"}


def runs(root, script):
    """RUNS of script (tests/samples/run_samples.py, a kernel each;
    tests/pipeline/run_pipelines.py, a pipeline each): (file, name, [sizes...])"""
    tree = ast.parse(open(os.path.join(root, script)).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "RUNS":
            return ast.literal_eval(node.value)
    raise SystemExit(f"FAIL: no RUNS in {script}")


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)


def run_kernel(dpia, f, k, sizes):
    args = [dpia, "run", "--target=c", "samples/" + f, "-k", k, "--check", "--seed", "7"]
    for n, v in sizes.items():
        args += ["--size", f"{n}={v}"]
    # a kernel run on inputs of its domain, as run_samples.py runs it
    # (cfd's flux: random inputs give negative pressures, --check E0006)
    with tempfile.TemporaryDirectory() as tmp:
        if k in cfd_inputs.RUN_INPUTS:
            args += cfd_inputs.RUN_INPUTS[k](tmp, sizes)
        p = run(args)
    if p.returncode != 0 or ": ok" not in p.stdout:
        return [f"FAIL {k} {sizes}: exit {p.returncode}\n{p.stdout}{p.stderr}"], 0
    return [], 1


def translate(dpia, p):
    cl = run([dpia, "translate", "--no-verify", p]).returncode
    c = run([dpia, "translate", "--target=c", p])
    if p in EXPECTED:
        if EXPECTED[p] not in c.stderr or c.returncode == 0:
            return [f"FAIL {p}: expected '{EXPECTED[p]}', got exit {c.returncode}:\n{c.stderr}"], 0
        return [], 0
    if cl != 0:
        if c.returncode != cl:
            return [f"FAIL {p}: exit {c.returncode} for c, {cl} for opencl:\n{c.stderr}"], 0
        return [], 0
    if c.returncode != 0 or "#pragma omp parallel for" not in c.stdout:
        return [f"FAIL {p}: exit {c.returncode}:\n{c.stderr}"], 0
    return [], 1


def patched(dpia, tmp):
    """an index of the generated dot product patched: --check catches it"""
    path = "samples/dot_partial.dpia"
    src = run([dpia, "translate", "--target=c", path]).stdout
    bad_src, n = re.subn(r"ys\[\(([^]]*)\)\*2048 \+ i\]", r"ys[(\1)*2048]", src, count=1)
    bad = os.path.join(tmp, "bad.c")
    with open(bad, "w") as f:
        f.write(bad_src)
    p = run([dpia, "run", "--target=c", path, "--size", "N=262144", "--check", "--seed", "7",
             "--opencl-source=" + bad])
    if n != 1 or p.returncode != 3 or "differs from the reference" not in p.stderr:
        return [f"FAIL a patched index of the C dot product is not caught (patched {n}, exit {p.returncode}):\n"
                f"{p.stdout}{p.stderr}"], 0
    return [], 1


def no_compiler(dpia, tmp):
    """without a C compiler: verification fails with E0002, running (not
    verified) with exit 4 and the compiler named"""
    env = dict(os.environ, CC=os.path.join(tmp, "no-cc"))
    p = subprocess.run([dpia, "translate", "--target=c", "samples/scal.dpia"], capture_output=True, text=True,
                       env=env)
    fails = []
    if p.returncode == 0 or "E0002" not in p.stderr or "C compiler" not in p.stderr:
        fails.append(f"FAIL translate without a C compiler: exit {p.returncode}, expected E0002\n{p.stderr}")
    p = subprocess.run([dpia, "run", "--no-verify", "--target=c", "samples/scal.dpia", "-k", "scal", "--size",
                        "N=64"], capture_output=True, text=True, env=env)
    if p.returncode != 4 or "no C compiler" not in p.stderr:
        fails.append(f"FAIL run without a C compiler: exit {p.returncode}\n{p.stderr}")
    return fails, 0 if fails else 1


def no_pocl_barrier(dpia, filecheck):
    """group_loop_pair.dpia: the barrier the OpenCL kernel has for PoCL 3.1
    alone is left out of the C kernel (Backend.no_pocl_barriers), which
    still matches the reference"""
    p, here = "tests/c_target/group_loop_pair.dpia", "tests/c_target/group_loop_pair"
    fails = []
    for target, check in (("c", here + ".c.check"), ("opencl", here + ".cl.check")):
        t = run([dpia, "translate", "--target=" + target, "--global-size=16", p])
        r = subprocess.run([filecheck, check], input=t.stdout, capture_output=True, text=True)
        if t.returncode != 0 or r.returncode != 0:
            fails.append(f"FAIL {p} --target={target}: exit {t.returncode}, {check}:\n{t.stderr}{r.stderr}")
    r = run([dpia, "run", "--target=c", "--global-size=16", p, "--size", "N=64", "--check", "--seed", "7"])
    if r.returncode != 0 or ": ok" not in r.stdout:
        fails.append(f"FAIL {p}: run --target=c: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return fails, 0 if fails else 1


def headers(dpia, tmp):
    """every sample's header (--emit=header --target=c) in one file, and
    header_main.c using gemv's and dot_full's in another: they compile
    together and gemv's launcher computes, refuses a broken precondition and
    an aliased output; the pipeline dot's computes and refuses a broken
    precondition"""
    incs = []
    for p in sorted(glob.glob("samples/*.dpia")):
        h = os.path.join(tmp, os.path.basename(p)[:-5] + ".h")
        r = run([dpia, "translate", "--no-verify", "--target=c", "--emit=header", p, "-o", h])
        if r.returncode != 0:
            return [f"FAIL {p}: header: exit {r.returncode}\n{r.stderr}"], 0
        incs.append(f'#include "{os.path.basename(h)}"\n')
    unit = os.path.join(tmp, "headers.c")
    with open(unit, "w") as f:
        f.writelines(incs)
    cc = os.environ.get("CC") or "cc"
    exe = os.path.join(tmp, "header_main")
    here = os.path.dirname(os.path.abspath(__file__))
    r = run([cc, "-std=c11", "-O2", "-fopenmp", "-Wall", "-Werror", "-Wno-psabi", "-Wno-unused-but-set-variable",
             "-I", tmp, "-o", exe, unit, os.path.join(here, "header_main.c"), "-lm"])
    if r.returncode != 0:
        return [f"FAIL the samples' C headers do not compile together:\n{r.stdout}{r.stderr}"], 0
    r = run([exe])
    if r.returncode != 0 or "\nok: " not in r.stdout:
        return [f"FAIL header_main: exit {r.returncode}\n{r.stdout}{r.stderr}"], 0
    return [], 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dpia", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--filecheck", required=True, help="dpia-filecheck")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--all-points", action="store_true", help="every size of RUNS, not the first")
    args = ap.parse_args()
    args.dpia = os.path.abspath(args.dpia)
    args.filecheck = os.path.abspath(args.filecheck)
    os.chdir(args.root)
    progs = sorted(glob.glob("samples/*.dpia") + glob.glob("tests/pipeline/*.dpia") + glob.glob("tests/vectors/*.dpia"))
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        jobs = []
        for f, k, points in runs(args.root, "tests/samples/run_samples.py") + \
                runs(args.root, "tests/pipeline/run_pipelines.py"):
            for sizes in points if args.all_points else points[:1]:
                jobs.append(pool.submit(run_kernel, args.dpia, f, k, sizes))
        nruns = len(jobs)
        jobs += [pool.submit(translate, args.dpia, p) for p in progs]
        jobs += [pool.submit(patched, args.dpia, tmp), pool.submit(no_compiler, args.dpia, tmp),
                 pool.submit(no_pocl_barrier, args.dpia, args.filecheck),
                 pool.submit(headers, args.dpia, tmp)]
        results = [j.result() for j in jobs]
    fails = [m for msgs, _ in results for m in msgs]
    ran = sum(ok for _, ok in results[:nruns])
    translated = sum(ok for _, ok in results[nruns:nruns + len(progs)])
    for f in fails:
        print(f)
    print(f"{ran} of {nruns} sample runs match the reference, {translated} programs translated and compiled, "
          f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
