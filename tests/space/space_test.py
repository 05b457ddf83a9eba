#!/usr/bin/env python3
"""`--emit=space` against dpia's own verdict.

For each sample of samples/tune/: the space JSON must equal its golden
(tests/space/NAME.space.json, rewritten by --update); then every point of
the tune parameters' domains, at each of a few problem sizes, is judged
twice:
  - by the space: every constraint, evaluated by Python's eval over the
    parameter and size names, holds;
  - by dpia: the kernel specialised by `dpia batch` with "set" (as --set)
    translates, and the preconditions left in its metadata (over the sizes
    only, decided by the specialised check) hold at the sizes.
The two verdicts must agree at every point; every constraint must hold at
every point dpia accepts and fail at one at least that it rejects (none is
vacuous).  A few points of each verdict are run through `dpia batch`'s
action run (PoCL): dpia's launch-time check refuses the rejected ones
(precondition_failed) and the accepted ones run and match the reference.

usage: space_test.py DPIA PROJECT_ROOT GOLDEN_DIR [--update]
"""
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

# program (from the project's root), kernel, problem sizes to judge the
# points at; the last one's constraint is on tune parameters only, decided
# by the specialised check itself (an error, not a launch-time precondition)
CASES = [
    ("samples/tune/dot_tune.dpia", "dotPartial", [{"N": 3 << 10}, {"N": 1 << 16}, {"N": 5 * 7 * 64}]),
    ("samples/tune/gemv_tune.dpia", "gemv", [{"M": 4, "N": 48}, {"M": 4, "N": 96}, {"M": 2, "N": 1024}]),
    # a vector width: the space split on V, whose constraints hold under its values
    ("samples/tune/dot_vec_tune.dpia", "dotVec", [{"N": 1001}, {"N": 3 << 12}, {"N": 1 << 16}, {"N": 6 << 6}]),
    ("tests/check/accept_v/tune_params.dpia", "chunks", [{}]),
]


def python(expr):
    """a C precondition of the metadata (integer /, &&, ||) in Python"""
    return expr.replace("/", "//").replace("&&", " and ").replace("||", " or ")


def holds(expr, env):
    return bool(eval(expr, {"__builtins__": {}}, dict(env)))


def domain(t):
    if "values" in t:
        return t["values"]
    return range(t["range"]["min"], t["range"]["max"] + 1)


def batch(dpia, requests):
    out = subprocess.run([dpia, "batch"], input="".join(json.dumps(r) + "\n" for r in requests),
                         capture_output=True, text=True, timeout=1200)
    if out.returncode != 0:
        raise SystemExit("FAIL dpia batch: exit %d: %s" % (out.returncode, out.stderr))
    return [json.loads(l) for l in out.stdout.splitlines()]


def main():
    dpia, root, golden = sys.argv[1:4]
    update = "--update" in sys.argv[4:]
    failures = []
    for program, kernel, sizes in CASES:
        path = os.path.join(root, program)
        sample = os.path.basename(program)
        out = subprocess.run([dpia, "translate", path, "-k", kernel, "--emit=space", "--source-name", sample],
                             capture_output=True, text=True)
        if out.returncode != 0:
            failures.append("%s: --emit=space exit %d: %s" % (sample, out.returncode, out.stderr))
            continue
        expected_path = os.path.join(golden, sample.replace(".dpia", ".space.json"))
        if update:
            with open(expected_path, "w") as f:
                f.write(out.stdout)
        elif open(expected_path).read() != out.stdout:
            failures.append("%s: --emit=space differs from %s:\n%s" % (sample, expected_path, out.stdout))
        space = json.loads(out.stdout)
        # the same through dpia batch ("emit": "space", a JSON value)
        via = batch(dpia, [{"source": open(path).read(), "name": sample, "kernel": kernel, "emit": "space"}])
        if via[0].get("outputs", {}).get("space") != space:
            failures.append("%s: dpia batch's space differs: %s" % (sample, via[0]))
        names = [t["name"] for t in space["tune"]]
        points = list(itertools.product(*[domain(t) for t in space["tune"]]))
        source = open(path).read()
        answers = batch(dpia, [{"id": i, "source": source, "kernel": kernel, "set": dict(zip(names, p)),
                                "emit": "json", "verify": False} for i, p in enumerate(points)])
        if len(answers) != len(points):
            failures.append("%s: %d answers to %d requests" % (sample, len(answers), len(points)))
            continue
        constraints = space["constraints"]
        held_accepted = {c: True for c in constraints}
        failed_rejected = {c: False for c in constraints}
        judged = {True: [], False: []}
        for p, a in zip(points, answers):
            if a["status"] not in ("ok", "error"):
                failures.append("%s %s: %s" % (sample, p, a))
                continue
            left = a["outputs"]["json"]["preconditions"] if a["status"] == "ok" else None
            for s in sizes:
                env = dict(zip(names, p), **s)
                by_dpia = left is not None and all(holds(python(e), s) for e in left)
                verdicts = {c: holds(c, env) for c in constraints}
                by_space = all(verdicts.values())
                if by_dpia != by_space:
                    failures.append("%s at %s: dpia %s, the space %s (%s)" % (
                        sample, env, "accepts" if by_dpia else "rejects",
                        "accepts" if by_space else "rejects", verdicts))
                for c, v in verdicts.items():
                    if by_dpia and not v:
                        held_accepted[c] = False
                    if not by_dpia and not v:
                        failed_rejected[c] = True
                judged[by_dpia].append(env)
        for c in constraints:
            if not held_accepted[c]:
                failures.append("%s: constraint %s fails at a point dpia accepts" % (sample, c))
            if not failed_rejected[c]:
                failures.append("%s: constraint %s fails at no point dpia rejects (vacuous)" % (sample, c))
        if not judged[True] or not judged[False]:
            failures.append("%s: the sizes must give points of both verdicts" % sample)
        print("%s: %d points x %d sizes, %d accepted, %d rejected, constraints %s" % (
            sample, len(points), len(sizes), len(judged[True]), len(judged[False]), constraints))
        # a few of each verdict through dpia's own launch-time check (PoCL)
        tries = judged[True][::max(1, len(judged[True]) // 3)][:3] + judged[False][::max(1, len(judged[False]) // 3)][:3]
        runs = batch(dpia, [{"id": i, "source": source, "kernel": kernel, "action": "run", "verify": False,
                             "set": {n: env[n] for n in names}, "sizes": {n: v for n, v in env.items() if n not in names},
                             "check": True} for i, env in enumerate(tries)])
        for env, r in zip(tries, runs):
            accepted = env in judged[True]
            if r["status"] == "opencl_unavailable":
                continue
            if not accepted and r["status"] == "error":
                # rejected by the specialised check itself: the same error as translating
                if not any(v["status"] == "error" for v in answers):
                    failures.append("%s: run at %s: %s" % (sample, env, r))
                continue
            want = "ok" if accepted else "precondition_failed"
            if r["status"] != want:
                failures.append("%s: run at %s: %s, expected %s: %s" % (sample, env, r["status"], want, r["diagnostics"]))
    failures += errors_kept(dpia)
    failures += walk_samples(dpia, root)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


def tuned_kernels(text):
    """(name, [tune parameter names]) of each kernel of a program's text
    that declares tune parameters: the header runs from `kernel NAME` to
    the first `=` outside brackets (a default's `= 8` is inside one)"""
    found = []
    for m in re.finditer(r"^kernel\s+(\w+)", text, re.M):
        depth, i = 0, m.end()
        while i < len(text) and not (depth == 0 and text[i] == "="):
            depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(text[i], 0)
            i += 1
        names = []
        for group in re.finditer(r"\(([^():]*):\s*tune\b", text[m.end():i]):
            names += group.group(1).split()
        if names:
            found.append((m.group(1), names))
    return found


# the values each size of a walked kernel is judged at (every combination)
WALK_SIZES = [1, 12, 64, 96, 1000, 4096, 65536]
# points of a kernel judged one by one (a larger space: every k-th point)
WALK_POINTS = 48
# the kernels also compared with `dpia tune --json`, and the sizes it runs
# their points at (small spaces and sizes: every point runs on PoCL).  Not
# nbodyLocal and gemv_tune's gemv: dpia tune takes a tune parameter
# without a default (their WG) for a size to give with --size.
TUNE_SIZES = {"gemvVecRows": {"M": 12, "N": 32}, "gemvVecRowsGroups": {"M": 96, "N": 32}}


def walk_samples(dpia, root):
    """Every kernel of samples/ that declares tune parameters has a space
    (`dpia tune` tunes each of them): it lists every one of its tune
    parameters, and the points its constraints accept at each combination
    of WALK_SIZES are those at which the kernel specialised by "set" (all
    its tune parameters, through dpia batch, as `dpia tune` runs a point)
    has a space whose constraints, over the sizes only, hold.  The
    spaces of TUNE_SIZES's kernels are also compared with `dpia tune
    --json`'s points: it skips exactly the points the constraints reject at
    its sizes."""
    failures = []
    programs = []
    for top, _, files in os.walk(os.path.join(root, "samples")):
        programs += [os.path.join(top, f) for f in files if f.endswith(".dpia")]
    walked = 0
    for path in sorted(programs):
        text = open(path).read()
        rel = os.path.relpath(path, root)
        for kernel, declared in tuned_kernels(text):
            walked += 1
            out = subprocess.run([dpia, "translate", path, "-k", kernel, "--emit=space"], capture_output=True, text=True)
            if out.returncode != 0:
                failures.append("%s -k %s: --emit=space exit %d: %s" % (rel, kernel, out.returncode, out.stderr))
                continue
            space = json.loads(out.stdout)
            names = [t["name"] for t in space["tune"]]
            if sorted(names) != sorted(declared):
                failures.append("%s -k %s: the space lists %s, the kernel declares %s" % (rel, kernel, names, declared))
                continue
            points = list(itertools.product(*[domain(t) for t in space["tune"]]))
            judged = points[::max(1, -(-len(points) // WALK_POINTS))]
            answers = batch(dpia, [{"id": i, "source": text, "name": rel, "kernel": kernel, "emit": "space",
                                    "set": dict(zip(names, p))} for i, p in enumerate(judged)])
            combos = [dict(zip(space["sizes"], v)) for v in itertools.product(WALK_SIZES, repeat=len(space["sizes"]))]
            accepted = 0
            for p, a in zip(judged, answers):
                left = a["outputs"]["space"]["constraints"] if a["status"] == "ok" else None
                if left is not None and a["outputs"]["space"]["tune"]:
                    failures.append("%s -k %s at %s: tune parameters left symbolic: %s" % (rel, kernel, p, a))
                    continue
                for s in combos:
                    env = dict(zip(names, p), **s)
                    by_dpia = left is not None and all(holds(c, s) for c in left)
                    by_space = all(holds(c, env) for c in space["constraints"])
                    accepted += by_dpia
                    if by_dpia != by_space:
                        failures.append("%s -k %s at %s: dpia %s, the space %s" % (
                            rel, kernel, env, "accepts" if by_dpia else "rejects",
                            "accepts" if by_space else "rejects"))
                        break
            print("%s -k %s: %d points, %d judged at %d sizes, %d accepted" % (
                rel, kernel, len(points), len(judged), len(combos), accepted))
            if kernel in TUNE_SIZES:
                failures += tune_agrees(dpia, path, rel, kernel, space, len(points))
    if walked < 9:
        failures.append("walked %d sample kernels with tune parameters, expected 9 at least" % walked)
    return failures


def tune_agrees(dpia, path, rel, kernel, space, npoints):
    """dpia tune --json at TUNE_SIZES skips exactly the points the space's
    constraints reject there, and tries every point"""
    sizes = TUNE_SIZES[kernel]
    out = subprocess.run([dpia, "tune", path, "-k", kernel, "--json", "--cache", "off", "--repeat", "1", "--seed", "1",
                          "--size", ",".join("%s=%d" % kv for kv in sizes.items())],
                         capture_output=True, text=True, timeout=600)
    if out.returncode == 4 and "E0004" in out.stderr:
        return []  # no OpenCL device
    try:
        report = json.loads(out.stdout)
    except ValueError:
        return ["%s -k %s: dpia tune exit %d: %s" % (rel, kernel, out.returncode, out.stderr)]
    failures = []
    if len(report["points"]) != npoints:
        failures.append("%s -k %s: dpia tune has %d points, the space %d" % (rel, kernel, len(report["points"]), npoints))
    for pt in report["points"]:
        env = dict(pt["values"], **sizes)
        by_space = all(holds(c, env) for c in space["constraints"])
        if by_space != (pt["status"] != "skipped"):
            failures.append("%s -k %s at %s: dpia tune %s, the space %s" % (
                rel, kernel, env, pt["status"], "accepts" if by_space else "rejects"))
    print("%s -k %s: dpia tune's %d points agree" % (rel, kernel, len(report["points"])))
    return failures


def errors_kept(dpia):
    """A program that no value of its tune parameters makes valid is still
    an error with --emit=space (the symbolic check's), as one whose vector
    width is a tune parameter when several kernels are asked for at once."""
    failures = []
    wrong = ("kernel k (N: nat) (V: tune [2, 4]) (xs: [N]float) =\n"
             "  xs |> asVector V |> mapGlobal (\\x -> x * y) |> asScalar\n")
    two = ("kernel a (N: nat) (V: tune [2, 4]) (xs: [N]float) = xs |> asVector V |> mapGlobal (\\x -> x) |> asScalar\n"
           "kernel b (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x)\n")
    for label, src, args, want in [("no value helps", wrong, [], "'y'"),
                                   ("two kernels", two, [], "asVector needs a vector width"),
                                   ("one of two", two, ["-k", "a"], None)]:
        with tempfile.NamedTemporaryFile("w", suffix=".dpia") as f:
            f.write(src)
            f.flush()
            out = subprocess.run([dpia, "translate", f.name, "--emit=space"] + args, capture_output=True, text=True)
        if want is None:
            ok = out.returncode == 0 and json.loads(out.stdout)["split"] == ["V"]
        else:
            ok = out.returncode == 1 and want in out.stderr and out.stdout == ""
        if not ok:
            failures.append("%s: exit %d\n%s%s" % (label, out.returncode, out.stdout, out.stderr))
    return failures


if __name__ == "__main__":
    sys.exit(main())
