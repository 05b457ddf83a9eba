#!/usr/bin/env python3
"""The Python package (python/dpia) against libdpia and PoCL: installed by
pip from the repository into a temporary directory, then how it finds
libdpia (DPIA_LIBRARY, pkg-config, the loader; what it says when it
cannot), translate (source, metadata, diagnostics), check, space and Space
(against `dpia translate --emit=space` and dpia's specialised
translation), run, and dpia.opencl launching the tune samples (gemv
specialised and with its work-group size symbolic, so with a local
buffer; the dot product's partial sums) and pipelines (samples/dot_full.dpia)
against numpy, with its precondition, argument and device-limit checks
(E0007: on PoCL, and on Oclgrind devices given small limits as
tests/oclgrind/run_device_limits.py does for dpia run).

usage: python_test.py DPIA LIBDPIA PROJECT_ROOT
       python_test.py --limits-child SITE SAMPLES FILE KERNEL SIZES_JSON
         (a launch of one case of oclgrind_device_limits, run under Oclgrind)
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, which has python3-pyopencl


def main():
    dpia_exe, libdpia, root = sys.argv[1:4]
    try:
        import numpy as np
        import pyopencl as cl
    except ImportError:
        if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON):
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
        raise
    failures = []

    def expect(what, ok):
        if not ok:
            failures.append(what)
        return ok

    target = tempfile.mkdtemp(prefix="dpia-python-")
    atexit.register(shutil.rmtree, target, True)
    # from a copy: building writes build/ and an egg-info next to the sources
    package = os.path.join(target, "src")
    shutil.copytree(os.path.join(root, "python"), package)
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                          "--no-index", "--target", os.path.join(target, "site"), package],
                         capture_output=True, text=True, cwd=target)
    if not expect("pip install: %s" % pip.stderr, pip.returncode == 0):
        return report(failures)
    os.environ["DPIA_LIBRARY"] = os.path.abspath(libdpia)
    sys.path.insert(0, os.path.join(target, "site"))
    import dpia
    import dpia.opencl
    expect("dpia imported from %s, not the pip install" % dpia.__file__,
           dpia.__file__.startswith(os.path.join(target, "site")))
    library_discovery(expect, target, libdpia)
    rewrites(expect, dpia, root)

    gemv = open(os.path.join(root, "samples", "tune", "gemv_tune.dpia")).read()
    dot = open(os.path.join(root, "samples", "tune", "dot_tune.dpia")).read()

    # translate: source and metadata of the specialised kernel
    r = dpia.translate(gemv, kernel="gemv", set={"WG": 64}, verify=True, name="gemv_tune.dpia")
    expect("translate WG=64: %r %s" % (r, r.diagnostics), r.ok and r.diagnostics == [])
    expect("reqd_work_group_size(64, 1, 1) in the source", "reqd_work_group_size(64, 1, 1)" in (r.source or ""))
    expect("metadata: %s" % r.metadata, r.metadata and r.metadata["local_size"] == ["64"]
           and r.metadata["preconditions"] == ["N % 64 == 0", "N >= 64"] and r.metadata["source"] == r.source)
    # the same as the command line
    cli = subprocess.run([dpia_exe, "translate", os.path.join(root, "samples", "tune", "gemv_tune.dpia"), "-k", "gemv",
                          "--set", "WG=64", "--source-name", "gemv_tune.dpia"], capture_output=True, text=True)
    expect("the source differs from dpia translate's", cli.returncode == 0 and cli.stdout == r.source)
    # the target: opencl is the default, the same text; an unknown one is E0810
    t = dpia.translate(gemv, kernel="gemv", set={"WG": 64}, name="gemv_tune.dpia", target="opencl")
    expect("target='opencl': %r %s" % (t, t.diagnostics), t.ok and t.source == cli.stdout)
    t = dpia.check(gemv, target="fortran")
    expect("target='fortran': %r %s" % (t, t.diagnostics), t.status == 2 and t.diagnostics
           and t.diagnostics[0].code == "E0810")
    # diagnostics as objects
    r = dpia.translate(gemv, kernel="gemv", set={"WG": 48}, name="g.dpia")
    d = r.diagnostics[0] if r.diagnostics else None
    expect("WG=48: %r %s" % (r, r.diagnostics), r.status == 2 and r.status_name == "usage" and d is not None
           and d.file == "g.dpia" and d.line == 5 and "48 is not a value of the tune parameter WG" in d.message
           and d.code == "E0804" and r.source is None)
    r = dpia.translate("kernel k (xs: [8]float) = xs |> mapGlobal (\\x -> x + y)\n", name="bad.dpia")
    expect("a type error: %r %s" % (r, r.diagnostics), r.status == 1 and r.diagnostics
           and r.diagnostics[0].line == 1 and r.diagnostics[0].level == "error" and r.diagnostics[0].code == "E0201"
           and "error[E0201]" in str(r.diagnostics[0]))
    try:
        r.raise_for_status()
        expect("raise_for_status did not raise", False)
    except dpia.DpiaError as e:
        expect("DpiaError: %s" % e, e.result is r)
    r = dpia.check(gemv, verbose=True)
    expect("check -v: %r %s" % (r, r.text), r.ok and "requires N % WG == 0" in r.text)
    expect("emit kinds", dpia.translate(gemv, emit=["intermediate", "header"]).outputs.keys() == {"intermediate", "header"})

    # space: the command line's, and its points those dpia accepts
    sp = dpia.space(dot, "dotPartial")
    cli = subprocess.run([dpia_exe, "translate", os.path.join(root, "samples", "tune", "dot_tune.dpia"), "-k",
                          "dotPartial", "--emit=space"], capture_output=True, text=True)
    cli_space = json.loads(cli.stdout)
    expect("space: %s vs %s" % (sp, cli_space), {k: v for k, v in sp.items() if k != "file"}
           == {k: v for k, v in cli_space.items() if k != "file"})
    space = dpia.Space(sp)
    sizes = {"N": 3 << 10}
    points = list(space.points(sizes))
    expect("restrictions: %s" % space.restrictions(sizes), space.restrictions(sizes) == ["3072 % (C*WG) == 0"])
    accepted = []
    for WG in space.domain("WG"):
        for C in range(1, 49):
            r = dpia.translate(dot, kernel="dotPartial", set={"WG": WG, "C": C}, emit="json")
            if r.ok and all(dpia.opencl.evaluate(p, sizes) for p in r.metadata["preconditions"]):
                accepted.append({"WG": WG, "C": C})
    expect("points: %s, dpia accepts %s" % (points, accepted), [p for p in points if p["C"] <= 48] == accepted
           and accepted)
    expect("launch", space.launch({"WG": 64, "C": 16}, sizes) == ([192], [64]))
    g = dpia.Space(dpia.space(gemv, "gemv"))
    expect("gemv local memory", g.local_memory_bytes({"WG": 128}, {"M": 1, "N": 1024}) == 512)
    # a split space (the vector width): its conditional launch size
    vec = dpia.Space(dpia.space(open(os.path.join(root, "samples", "tune", "dot_vec_tune.dpia")).read(), "dotVec"))
    expect("split: %s" % vec.data.get("split"), vec.data.get("split") == ["V"]
           and vec.launch({"V": 4, "WG": 64, "C": 16}, {"N": 1 << 16}) == ([1024], [64])
           and not vec.valid({"V": 1, "WG": 64, "C": 16}, {"N": 1 << 16})
           and vec.valid({"V": 8, "WG": 64, "C": 16}, {"N": 1 << 16}))

    # run: dpia run --json through the library
    r = dpia.run(gemv, "gemv", {"M": 8, "N": 1024}, set={"WG": 32}, check=True, repeat=2)
    if r.status == 4:
        print("SKIP no OpenCL device:", r.diagnostics)
        return 77
    expect("run: %r %s" % (r, r.run), r.ok and r.run["check"]["ok"] and r.run["local_size"] == [32]
           and r.run["runs"] == 2)
    r = dpia.run(gemv, "gemv", {"M": 8, "N": 1000}, set={"WG": 32})
    expect("run N=1000: %r" % r, r.status == 5 and r.run is None and "does not satisfy" in r.diagnostics[0].message)

    # dpia.opencl on PoCL
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    rng = np.random.default_rng(1)
    M, N = 8, 1024
    A = rng.random((M, N), dtype=np.float32)
    x = rng.random(N, dtype=np.float32)
    y = rng.random(M, dtype=np.float32)
    want = 2 * A.astype(np.float64) @ x + 0.5 * y
    args = {"mat": A, "x": x, "y": y, "alpha": 2.0, "beta": 0.5}
    for label, setting, sizes in [("WG=64", {"WG": 64}, {"M": M, "N": N}),
                                  ("symbolic WG", None, {"M": M, "N": N, "WG": 128})]:
        r = dpia.translate(gemv, kernel="gemv", set=setting)
        k = dpia.opencl.Kernel(ctx, r.metadata)
        out = k(queue, sizes, args)
        err = np.abs(out["output"] - want).max() / np.abs(want).max()
        expect("gemv %s: relative error %g" % (label, err), err < 1e-5)
        expect("gemv %s: time %s" % (label, k.last_ms), k.last_ms is not None and k.last_ms > 0)
    expect("the symbolic gemv has a local buffer", any(p.get("space") == "local" for p in r.metadata["params"]))
    try:
        k(queue, {"M": M, "N": 1000, "WG": 128}, args)
        expect("N=1000 launched", False)
    except dpia.opencl.PreconditionError as e:
        expect("PreconditionError: %s" % e, "N % WG == 0" in str(e))
    try:
        k(queue, {"M": M, "N": 512, "WG": 128}, args)
        expect("an input of the wrong size launched", False)
    except ValueError as e:
        expect("wrong size: %s" % e, "mat of kernel gemv has shape (8, 1024) (8192 elements)" in str(e)
               and "[M][N]float: shape (8, 512) at M = 8, N = 512, WG = 128" in str(e))
    try:
        k(queue, {"M": M, "N": N, "WG": 128}, dict(args, x=x.astype(np.float64)))
        expect("an input of the wrong type launched", False)
    except TypeError as e:
        expect("wrong type: %s" % e, "float64" in str(e))
    r = dpia.translate(dot, kernel="dotPartial", set={"WG": 64, "C": 16})
    xs = rng.random(1 << 16, dtype=np.float32)
    ys = rng.random(1 << 16, dtype=np.float32)
    out = dpia.opencl.Kernel(ctx, r.metadata)(queue, {"N": 1 << 16}, {"xs": xs, "ys": ys})
    partial = out["output"]
    want = float(xs.astype(np.float64) @ ys)
    expect("dot partial sums: %d, sum %g vs %g" % (partial.size, partial.sum(dtype=np.float64), want),
           partial.size == (1 << 16) // 16 and abs(partial.sum(dtype=np.float64) - want) < 1e-4 * want)
    # a 2-D launch with temporaries (samples/mm_tiled.dpia: local tiles)
    mm = open(os.path.join(root, "samples", "mm_tiled.dpia")).read()
    r = dpia.translate(mm, kernel="mmTiled")
    temps = [p for p in r.metadata["params"] if p["role"] == "temp"]
    M, N, K = 32, 48, 16
    a = rng.random((M, K), dtype=np.float32)
    b = rng.random((K, N), dtype=np.float32)
    out = dpia.opencl.Kernel(ctx, r.metadata)(queue, {"M": M, "N": N, "K": K}, {"a": a, "b": b})
    err = np.abs(out["output"].reshape(M, N) - a.astype(np.float64) @ b).max()
    expect("mmTiled: %d temporaries, error %g" % (len(temps), err), len(temps) == 2 and err < 1e-4)
    # arrays of float3 are packed, 3 floats an element (docs/language.md section 11)
    f3 = "kernel crossProducts (N: nat) (us vs: [N]float3) =\n" \
         "  zip us vs |> mapGlobal (\\p -> float3 ((fst p).y * (snd p).z - (fst p).z * (snd p).y)\n" \
         "    ((fst p).z * (snd p).x - (fst p).x * (snd p).z) ((fst p).x * (snd p).y - (fst p).y * (snd p).x))\n"
    r = dpia.translate(f3, kernel="crossProducts")
    expect("float3 metadata: %r" % r.metadata["params"][0],
           r.ok and r.metadata["params"][0].get("element_bytes") == 12)
    us = rng.random((100, 3), dtype=np.float32)
    vs = rng.random((100, 3), dtype=np.float32)
    out = dpia.opencl.Kernel(ctx, r.metadata)(queue, {"N": 100}, {"us": us, "vs": vs})
    err = np.abs(out["output"].reshape(100, 3) - np.cross(us, vs)).max()
    expect("float3 cross products of packed arrays: error %g" % err, err < 1e-5)
    # two outputs from one map (docs/language.md section 24): returned by
    # name, each in its shape and type
    two = "kernel rows (N M: nat) (xs: [N][M]float) =\n" \
          "  xs |> mapGlobal1 (\\r -> r |> mapGlobal0 (\\x -> (x * 2.0, toInt x)) |> unzip) |> unzip\n"
    r = dpia.translate(two, kernel="rows")
    xs = (rng.random((13, 7), dtype=np.float32) * 100).astype(np.float32)
    out = dpia.opencl.Kernel(ctx, r.metadata)(queue, {"N": 13, "M": 7}, {"xs": xs})
    o1, o2 = out.get("output_1"), out.get("output_2")
    expect("unzip: outputs %s" % sorted(out), o1 is not None and o2 is not None)
    if o1 is not None and o2 is not None:
        expect("unzip: output_1 %s %s, output_2 %s %s" % (o1.shape, o1.dtype, o2.shape, o2.dtype),
               o1.shape == (13, 7) and o2.shape == (13, 7) and o2.dtype == np.int32 and
               np.array_equal(o1, xs * 2) and np.array_equal(o2, xs.astype(np.int32)))
    # each part reports what it found, whatever raises in another
    for part, args in ((opencl_shapes, (ctx, queue, root, rng)), (opencl_in_place, (ctx, queue, root, rng)),
                       (opencl_permutation, (ctx, queue, rng)),
                       (opencl_names, (ctx, queue, rng)),
                       (opencl_pipelines, (ctx, queue, root, rng)), (opencl_device_limits, (ctx, queue, rng)),
                       (opencl_empty_launch, (ctx, queue, root)), (opencl_empty_pipeline, (ctx, queue, root)),
                       (oclgrind_device_limits, (target, root)),
                       (tuning_cache, (dpia_exe, ctx, queue, root, rng))):
        try:
            part(expect, *args)
        except Exception as e:  # noqa: BLE001 (reported as the failure)
            expect("%s: %s: %s" % (part.__name__, type(e).__name__, e), False)
    return report(failures)


def tuning_cache(expect, dpia_exe, ctx, queue, root, rng):
    """the tuning cache (docs/tune.md) used by dpia.translate, dpia.run
    and the kernels dpia.opencl launches: `dpia tune` writes it, the test
    sets its value to C=16 (not the default 8), and the calls that name no
    value get it, said by result.tuned; set= wins; a corrupt cache is E0811"""
    import dpia
    import dpia.opencl
    import numpy as np
    path = os.path.join(root, "tests", "tune", "scal_tune.dpia")
    src = open(path).read()
    cache = os.path.join(tempfile.mkdtemp(prefix="dpia-tune-"), "tune.json")
    atexit.register(shutil.rmtree, os.path.dirname(cache), True)
    p = subprocess.run([dpia_exe, "tune", path, "-k", "scalTune", "--size", "N=4096", "--budget", "120", "--repeat",
                        "1", "--cache", cache], capture_output=True, text=True, timeout=300)
    if not expect("dpia tune: exit %d %s" % (p.returncode, p.stderr), p.returncode == 0):
        return
    c = json.load(open(cache))
    c["entries"][0]["values"] = {"C": 16}
    json.dump(c, open(cache, "w"))
    # the same text, whatever the name: the cache is keyed by the text's hash
    r = dpia.translate(src, kernel="scalTune", tune_cache=cache)
    want = dpia.translate(src, kernel="scalTune", set={"C": 16}, tune_cache="off")
    expect("translate with the cache: %r %s" % (r, r.tuned),
           r.ok and (r.tuned or "").startswith("C=16, tuned by dpia tune on ") and r.source == want.source)
    os.environ["DPIA_TUNE_CACHE"] = cache  # the default when tune_cache is not given
    try:
        r = dpia.translate(src, kernel="scalTune")
        expect("translate with $DPIA_TUNE_CACHE: %s" % r.tuned, r.ok and r.source == want.source)
        r4 = dpia.translate(src, kernel="scalTune", set={"C": 4})
        expect("set= wins over the cache", r4.ok and r4.tuned is None and "xs[gid*4 + 3]" in r4.source)
        run = dpia.run(src, "scalTune", {"N": 1024}, check=True)
        expect("run with the cache: %s" % (run.run,),
               run.ok and run.run["tuned"].startswith("C=16") and run.run["global_size"] == [64])
    finally:
        del os.environ["DPIA_TUNE_CACHE"]
    # the tuned kernel launched by dpia.opencl: 1024/16 work-items
    xs = rng.random(1024, dtype=np.float32)
    out = dpia.opencl.Kernel(ctx, r.metadata)(queue, {"N": 1024}, {"alpha": 3.0, "xs": xs})["output"]
    expect("dpia.opencl of the tuned kernel: global size %s" % r.metadata.get("global_size"),
           np.allclose(out, 3.0 * xs) and r.metadata.get("global_size") == ["N/16"])
    # entries at two sizes: translate given sizes= takes the nearest one's
    # values (the benchmark translates gemm so, for each size it times),
    # without sizes the entry written last (C=4 at N=2^20, after C=16 at 4096)
    far = dict(c["entries"][0], sizes={"N": 1048576}, values={"C": 4})
    json.dump(dict(c, entries=[c["entries"][0], far]), open(cache, "w"))
    want4 = dpia.translate(src, kernel="scalTune", set={"C": 4}, tune_cache="off")
    r = dpia.translate(src, kernel="scalTune", tune_cache=cache)
    expect("translate without sizes: the entry written last: %s" % r.tuned, r.ok and r.source == want4.source)
    r = dpia.translate(src, kernel="scalTune", sizes={"N": 8192}, tune_cache=cache)
    expect("translate at N=8192: the entry of N=4096: %s" % r.tuned,
           r.ok and r.source == want.source and "at N=4096" in (r.tuned or ""))
    r = dpia.translate(src, kernel="scalTune", sizes={"N": 524288}, tune_cache=cache)
    expect("translate at N=2^19: the entry of N=2^20: %s" % r.tuned, r.ok and r.source == want4.source)
    # at N=24 the nearest entry's C=16 breaks N % 16 == 0: passed over, with
    # a note (E1110), for the next, C=4 at N=2^20 (issue 39)
    r = dpia.translate(src, kernel="scalTune", sizes={"N": 24}, tune_cache=cache)
    expect("translate at N=24: C=16 passed over: %s %s" % (r.tuned, [(d.code, d.message) for d in r.diagnostics]),
           r.ok and r.source == want4.source and "at N=1048576" in (r.tuned or "")
           and [(d.level, d.code) for d in r.diagnostics] == [("note", "E1110")])
    open(cache, "w").write("{not json")
    r = dpia.translate(src, kernel="scalTune", tune_cache=cache)
    expect("a corrupt cache: %s" % r.diagnostics, r.status == 1 and [d.code for d in r.diagnostics] == ["E0811"])


def rewrites(expect, dpia, root):
    """dpia.rewrite: the listing as objects, the same as the command line's
    golden (tests/rewrite/dot_list.json); the derivation of
    docs/language.md section 21 by rule names and paths alone, giving the
    golden tests/rewrite/dot_parts_derived.dpia; refusals with their codes"""
    dot = open(os.path.join(root, "samples", "explore", "dot.dpia")).read()
    golden = json.load(open(os.path.join(root, "tests", "rewrite", "dot_list.json")))
    listing = dpia.rewrite.positions(dot, "dotHL", name="dot.dpia")
    expect("positions: %s" % listing, [(p.path, p.expression, [(r.name, [q.name for q in r.params]) for r in p.rules])
                                       for p in listing]
           == [(p["path"], p["expression"], [(r["rule"], [q["name"] for q in r["params"]]) for r in p["rules"]])
               for p in golden["positions"]])
    root_rules = listing[0].rule("partialReduce") if listing else None
    expect("the root's partialReduce takes n >= 1 with no default: %r" % root_rules,
           root_rules is not None and root_rules.path == "." and root_rules.params[0].min == 1
           and root_rules.params[0].default is None)
    src = dot
    for rule, path, params in (("fuseReduceMap", "0.1.0", {}), ("splitJoin", ".", {"n": 128}),
                               ("lowerWorkgroup", "1", {}), ("lowerLocal", "1.0.1", {}),
                               ("lowerReduceSeq", "1.0.1.1.0", {})):
        r = dpia.rewrite.apply(src, "dotParts", rule, path, name="dot.dpia", **params)
        if not expect("%s@%s: %r %s" % (rule, path, r, r.diagnostics), r.ok and r.program):
            break
        src = r.program
    want = open(os.path.join(root, "tests", "rewrite", "dot_parts_derived.dpia")).read()
    expect("the derivation gives dot_parts_derived.dpia:\n%s" % src, src == want)
    # dotHL of the same program is still high-level: its note alone
    c = dpia.check(src, high_level=True)
    expect("the derived dotParts translates: %r %s" % (c, c.diagnostics), c.ok and [d.code for d in c.diagnostics]
           == ["E0607"] and "'dotHL'" in c.diagnostics[0].message)
    for rule, path, params, code in (("fuseAll", ".", {}, "E1101"), ("lowerSeq", "1.9", {}, "E1102"),
                                     ("vectorise", "1", {"n": 5}, "E1103"), ("lowerLocal", "1", {}, "E1104"),
                                     ("toPrivate", "1", {}, "E1105")):
        r = dpia.rewrite.apply(dot, "dotHL", rule, path, **params)
        expect("%s@%s refused with %s: %r %s" % (rule, path, code, r, r.diagnostics),
               r.status == 1 and r.program is None and r.diagnostics and r.diagnostics[0].code == code)
    try:
        dpia.rewrite.positions(dot, "nope")
        expect("positions of no kernel did not raise", False)
    except dpia.DpiaError as e:
        expect("no kernel: %s" % e, e.result.diagnostics[0].code == "E0806")
    hl = dpia.check(dot, kernel="dotHL", high_level=True)
    expect("check high_level: %r %s" % (hl, hl.diagnostics), hl.ok)
    expect("check without high_level refuses dotHL", dpia.check(dot, kernel="dotHL").status == 1)


def outcome(f):
    """f()'s value, or the exception it raised (a failure the caller reports)"""
    try:
        return f()
    except Exception as e:  # noqa: BLE001 (reported as the failure)
        return e


def raises(expect, what, error, text, f):
    """f() raises error with text in its message"""
    try:
        f()
        expect("%s: no %s" % (what, error.__name__), False)
    except Exception as e:  # noqa: BLE001 (any other error is a failure, reported)
        expect("%s: %s: %s" % (what, type(e).__name__, e), isinstance(e, error) and text in str(e))


def opencl_permutation(expect, ctx, queue, rng):
    """a scatter through an input declared a permutation (docs/language.md
    section 29): the metadata says so, a numpy permutation gives
    out[p[i]] = 2 xs[i], a repeated or out-of-range position is refused
    before anything is enqueued"""
    import numpy as np
    import dpia
    import dpia.opencl
    src = ("kernel scaled (N: nat) (xs: [N]float) (p: [N]idx[N]) permutation p =\n"
           "  xs |> mapGlobal (\\x -> x * 2.0) |> scatter p\n")
    r = dpia.translate(src, kernel="scaled")
    p_param = [q for q in r.metadata["params"] if q["name"] == "p"][0]
    expect("permutation metadata: %r" % p_param, p_param.get("permutation") is True)
    k = dpia.opencl.Kernel(ctx, r.metadata)
    N = 1000
    xs = rng.random(N, dtype=np.float32)
    p = rng.permutation(N).astype(np.int32)
    out = k(queue, {"N": N}, {"xs": xs, "p": p})["output"]
    want = np.empty(N, dtype=np.float32)
    want[p] = xs * 2
    expect("scatter through a permutation", np.array_equal(out, want))
    bad = p.copy()
    bad[7] = bad[3]
    raises(expect, "a repeated position", ValueError, "p[7] = %d repeats p[3]" % p[3],
           lambda: k(queue, {"N": N}, {"xs": xs, "p": bad}))
    bad[7] = N
    raises(expect, "a position out of range", ValueError, "p[7] = %d is outside it" % N,
           lambda: k(queue, {"N": N}, {"xs": xs, "p": bad}))


def opencl_shapes(expect, ctx, queue, root, rng):
    """dpia.opencl checks shapes, sizes and argument names, returns outputs
    in their shape, and refuses an output that shares memory with another
    buffer argument (device arrays and buffers)"""
    import numpy as np
    import pyopencl as cl
    import pyopencl.array as cla
    import dpia
    import dpia.opencl
    blur = open(os.path.join(root, "samples", "gaussian_blur.dpia")).read()
    r = dpia.translate(blur, kernel="gaussian3x3")
    img_param = [p for p in r.metadata["params"] if p["name"] == "img"][0]
    expect("shape in the metadata: %s" % img_param, img_param["shape"] == ["M", "N"] and img_param["elements"] == "M*N")
    k = dpia.opencl.Kernel(ctx, r.metadata)
    M, N = 37, 53
    img = rng.random((M, N), dtype=np.float32)
    w = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=np.float64) / 16
    padded = np.pad(img.astype(np.float64), 1, mode="edge")
    want = sum(w[i, j] * padded[i:i + M, j:j + N] for i in range(3) for j in range(3))
    out = k(queue, {"M": M, "N": N}, {"img": img})["output"]
    expect("gaussian3x3: output shape %s, error %g" % (out.shape, np.abs(out - want).max() if out.shape == want.shape
                                                       else -1), out.shape == (M, N) and np.abs(out - want).max() < 1e-5)
    # a transposed matrix has as many elements but not the shape
    raises(expect, "a transposed image", ValueError, "input img of kernel gaussian3x3 has shape (53, 37) (1961 elements), "
           "the kernel's input is [M][N]float: shape (37, 53) at M = 37, N = 53",
           lambda: k(queue, {"M": M, "N": N}, {"img": np.ascontiguousarray(img.T)}))
    # a view in another order is the matrix it shows
    out = k(queue, {"M": M, "N": N}, {"img": np.asfortranarray(img)})["output"]
    expect("a Fortran-ordered image", out.shape == want.shape and np.abs(out - want).max() < 1e-5)
    raises(expect, "size 8.7", TypeError, "size M = 8.7 of kernel gaussian3x3 is not an integer",
           lambda: k(queue, {"M": 8.7, "N": N}, {"img": img}))
    raises(expect, "an unknown size", ValueError, "kernel gaussian3x3 has no size K; its sizes are M, N",
           lambda: k(queue, {"M": M, "N": N, "K": 3}, {"img": img}))
    raises(expect, "an unknown argument", ValueError, "kernel gaussian3x3 has no argument image; its arguments are "
           "output, img", lambda: k(queue, {"M": M, "N": N}, {"image": img}))
    raises(expect, "a bool size", TypeError, "size N = True of kernel gaussian3x3 is not an integer",
           lambda: k(queue, {"M": M, "N": True}, {"img": img}))
    expect("numpy sizes", k(queue, {"M": np.int64(M), "N": np.int32(N)}, {"img": img})["output"].shape == (M, N))

    alias_error = getattr(dpia.opencl, "AliasError", None)
    expect("dpia.opencl.AliasError", alias_error is not None)
    alias_error = alias_error or ValueError
    # device data: in place is refused naming both parameters, whatever the
    # view (48 x 64: the halves of a 96 x 64 array are aligned sub-buffers)
    M, N = 48, 64
    img = rng.random((M, N), dtype=np.float32)
    padded = np.pad(img.astype(np.float64), 1, mode="edge")
    want = sum(w[i, j] * padded[i:i + M, j:j + N] for i in range(3) for j in range(3))
    dimg = cla.to_device(queue, img)
    raises(expect, "blur in place", alias_error, "output output and input img of kernel gaussian3x3 share "
           "memory (bytes 0 to 12288 and 0 to 12288 of one buffer)",
           lambda: k(queue, {"M": M, "N": N}, {"img": dimg, "output": dimg}))
    raises(expect, "blur in place through the buffer", alias_error, "output output and input img",
           lambda: k(queue, {"M": M, "N": N}, {"img": dimg, "output": dimg.base_data}))
    expect("the refused launch wrote img", np.array_equal(dimg.get(), img))
    # two halves of one buffer: disjoint, accepted; overlapping views refused
    big = cla.empty(queue, (2 * M, N), np.float32)
    big[:M] = dimg
    raises(expect, "overlapping views", alias_error, "(bytes 6144 to 18432 and 0 to 12288 of one buffer)",
           lambda: k(queue, {"M": M, "N": N}, {"img": big[:M], "output": big[M // 2:M // 2 + M]}))
    res = outcome(lambda: k(queue, {"M": M, "N": N}, {"img": big[:M], "output": big[M:]})["output"])
    expect("blur into the other half: %r" % res, hasattr(res, "offset") and res.offset == M * N * 4
           and np.abs(res.get() - want).max() < 1e-5 and np.array_equal(big[:M].get(), img))
    # a device input of the wrong shape; an output given as a numpy array
    raises(expect, "a transposed device image", ValueError, "device array of float32 with shape (64, 48)",
           lambda: k(queue, {"M": M, "N": N}, {"img": cla.to_device(queue, np.ascontiguousarray(img.T))}))
    raises(expect, "a numpy output", TypeError, "output output of kernel gaussian3x3 is given as ndarray",
           lambda: k(queue, {"M": M, "N": N}, {"img": img, "output": np.empty((M, N), np.float32)}))
    # two inputs may share: the kernel only reads them
    mm = dpia.translate(open(os.path.join(root, "samples", "mm_tiled.dpia")).read(), kernel="mmTiled")
    sq = rng.random((32, 32), dtype=np.float32)
    dsq = cla.to_device(queue, sq)
    out = outcome(lambda: dpia.opencl.Kernel(ctx, mm.metadata)(queue, {"M": 32, "N": 32, "K": 32},
                                                               {"a": dsq, "b": dsq})["output"])
    expect("two inputs in one array: %r" % type(out), getattr(out, "shape", None) == (32, 32)
           and np.abs(out - sq.astype(np.float64) @ sq).max() < 1e-4)


def opencl_in_place(expect, ctx, queue, root, rng):
    """kernels computing in place (docs/language.md section 27): no output
    argument, the input updated on the device (a device array given is
    updated and returned; a numpy array is copied, the copy updated and
    read back), another argument in its buffer refused"""
    import numpy as np
    import pyopencl.array as cla
    import dpia
    import dpia.opencl
    scal = dpia.translate(open(os.path.join(root, "samples", "scal.dpia")).read(), kernel="scalInPlace")
    out_param = scal.metadata["params"][0]
    expect("in-place metadata: %r" % out_param, out_param.get("updates") == "xs")
    k = dpia.opencl.Kernel(ctx, scal.metadata)
    N = 1000
    xs = rng.random(N, dtype=np.float32)
    kept = xs.copy()
    out = k(queue, {"N": N}, {"alpha": 3.0, "xs": xs})["output"]
    expect("scalInPlace of a numpy array", np.abs(out - 3.0 * kept).max() < 1e-5 and np.array_equal(xs, kept))
    dxs = cla.to_device(queue, xs)
    res = k(queue, {"N": N}, {"alpha": 0.5, "xs": dxs})["output"]
    expect("scalInPlace of a device array: updated there", res is dxs and np.abs(dxs.get() - 0.5 * kept).max() < 1e-6)
    raises(expect, "an output argument of an in-place kernel", ValueError,
           "kernel scalInPlace has no argument output; its arguments are alpha, xs",
           lambda: k(queue, {"N": N}, {"alpha": 1.0, "xs": xs, "output": dxs}))
    # the region of jacobi2dCopyBack: the boundary of xs kept
    jac = dpia.translate(open(os.path.join(root, "samples", "jacobi2d.dpia")).read(), kernel="jacobi2dCopyBack")
    k = dpia.opencl.Kernel(ctx, jac.metadata)
    M, N = 17, 23
    a, nxt = rng.random((M, N), dtype=np.float32), rng.random((M, N), dtype=np.float32)
    want = a.copy()
    want[1:M - 1, 1:N - 1] = nxt[1:M - 1, 1:N - 1]
    da = cla.to_device(queue, a)
    k(queue, {"M": M, "N": N}, {"xs": da, "next": nxt})
    expect("jacobi2dCopyBack: the interior copied, the boundary kept", np.array_equal(da.get(), want))
    raises(expect, "next in the buffer updated", dpia.opencl.AliasError,
           "input xs, which kernel jacobi2dCopyBack updates in place, and input next share memory",
           lambda: k(queue, {"M": M, "N": N}, {"xs": da, "next": da}))
    # two inputs updated (updates x, b): adiKernel1's X and B, each
    # returned as its output, against the sweep in numpy
    adi = dpia.translate(open(os.path.join(root, "samples", "adi.dpia")).read(), kernel="adiKernel1")
    k = dpia.opencl.Kernel(ctx, adi.metadata)
    N = 19
    a, b, x = rng.random((N, N)), rng.random((N, N)) + 1.0, rng.random((N, N))
    wx, wb = x.copy(), b.copy()
    for c in range(1, N):
        wx[:, c] = wx[:, c] - wx[:, c - 1] * a[:, c] / wb[:, c - 1]
        wb[:, c] = wb[:, c] - a[:, c] * a[:, c] / wb[:, c - 1]
    dx, db = cla.to_device(queue, x), cla.to_device(queue, b)
    res = k(queue, {"N": N}, {"a": a, "b": db, "x": dx})
    expect("adiKernel1: x and b updated in place",
           res["output_1"] is dx and res["output_2"] is db and np.abs(dx.get() - wx).max() < 1e-9 and
           np.abs(db.get() - wb).max() < 1e-9)
    raises(expect, "x and b in one buffer", dpia.opencl.AliasError,
           "adiKernel1 updates in place", lambda: k(queue, {"N": N}, {"a": a, "b": dx, "x": dx}))


def opencl_names(expect, ctx, queue, rng):
    """parameters named like OpenCL C built-ins (step, dot; step_2 and dot_2
    in the kernel) are passed and named by the program's names; the C names
    are beside them in the metadata"""
    import numpy as np
    import dpia
    import dpia.opencl
    src = "kernel axpy (N: nat) (step: float) (dot ys: [N]float) =\n" \
          "  zip dot ys |> mapGlobal (\\p -> step * fst p + snd p)\n"
    r = dpia.translate(src, kernel="axpy")
    names = [(p["name"], p.get("c_name")) for p in r.metadata["params"]]
    expect("metadata names: %s" % names, names == [("output", None), ("step", "step_2"), ("dot", "dot_2"),
                                                   ("ys", None), ("N", None)])
    expect("the kernel's C names", "float step_2," in r.metadata["source"] and "dot_2[gid]" in r.metadata["source"])
    k = dpia.opencl.Kernel(ctx, r.metadata)
    dot = rng.random(100, dtype=np.float32)
    ys = rng.random(100, dtype=np.float32)
    out = outcome(lambda: k(queue, {"N": 100}, {"step": 2.5, "dot": dot, "ys": ys})["output"])
    expect("axpy with step and dot: %r" % type(out), getattr(out, "shape", None) == (100,)
           and np.abs(out - (2.5 * dot.astype(np.float64) + ys)).max() < 1e-5)
    raises(expect, "a short dot", ValueError, "input dot of kernel axpy has shape (99,)",
           lambda: k(queue, {"N": 100}, {"step": 2.5, "dot": dot[:99], "ys": ys}))
    raises(expect, "the C name", ValueError, "kernel axpy has no argument step_2; its arguments are output, step, dot, ys",
           lambda: k(queue, {"N": 100}, {"step_2": 2.5, "dot": dot, "ys": ys}))


# a program of a kernel the library checks (dpia.check) in a child process
DISCOVERY_CHILD = r"""
import json, dpia
try:
    r = dpia.check("kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x)\n")
    print(json.dumps({"ok": r.ok}))
except Exception as e:
    print(json.dumps({"error": type(e).__name__, "message": str(e), "tried": getattr(e, "tried", None),
                      "dpia": isinstance(e, dpia.Error), "oserror": isinstance(e, OSError)}))
"""


def library_discovery(expect, target, libdpia):
    """the package finds libdpia through DPIA_LIBRARY, else pkg-config's
    dpia.pc, else the loader, and says what it tried when none has it
    (each case a child process importing the pip-installed package, in an
    environment without the others)"""
    empty = os.path.join(target, "no-pkgconfig")
    os.makedirs(empty, exist_ok=True)
    base = {k: v for k, v in os.environ.items() if k not in ("DPIA_LIBRARY", "LD_LIBRARY_PATH")}
    # no dpia.pc from the system's directories either
    base.update(PYTHONPATH=os.path.join(target, "site"), PKG_CONFIG_PATH=empty, PKG_CONFIG_LIBDIR=empty)

    def child(**env):
        p = subprocess.run([sys.executable, "-c", DISCOVERY_CHILD], capture_output=True, text=True, cwd=target,
                           env=dict(base, **env))
        try:
            return json.loads(p.stdout)
        except ValueError:
            return {"stdout": p.stdout, "stderr": p.stderr[-2000:]}

    def refused(r, *parts):
        return (r.get("error") == "LibraryNotFoundError" and r.get("dpia") and r.get("oserror")
                and all(x in r.get("message", "") for x in parts + ("Set DPIA_LIBRARY",)))

    built = os.path.realpath(libdpia)
    r = child(DPIA_LIBRARY=built)
    expect("DPIA_LIBRARY=%s: %s" % (built, r), r.get("ok") is True)
    missing = os.path.join(target, "nowhere", "libdpia.so.0")
    r = child(DPIA_LIBRARY=missing)
    expect("DPIA_LIBRARY to a missing file: %s" % r, refused(r, "DPIA_LIBRARY: %s does not exist" % missing)
           and len(r["tried"]) == 1)
    not_elf = os.path.join(target, "libdpia.txt")
    with open(not_elf, "w") as fh:
        fh.write("not a library\n")
    r = child(DPIA_LIBRARY=not_elf)
    expect("DPIA_LIBRARY to a file that is no library: %s" % r, refused(r, "DPIA_LIBRARY: %s: " % not_elf))
    # dpia.pc as meson install writes it (its libdir), in PKG_CONFIG_PATH
    pcdir, libdir = os.path.join(target, "pc"), os.path.join(target, "prefix", "lib")
    os.makedirs(pcdir)
    os.makedirs(libdir)
    os.symlink(built, os.path.join(libdir, "libdpia.so.0"))
    with open(os.path.join(pcdir, "dpia.pc"), "w") as fh:
        fh.write("prefix=%s\nlibdir=${prefix}/lib\nName: dpia\nDescription: dpia\nVersion: 0.1.0\n"
                 "Libs: -L${libdir} -ldpia\n" % os.path.dirname(libdir))
    r = child(PKG_CONFIG_PATH=pcdir)
    expect("dpia.pc in PKG_CONFIG_PATH: %s" % r, r.get("ok") is True)
    os.remove(os.path.join(libdir, "libdpia.so.0"))
    r = child(PKG_CONFIG_PATH=pcdir)
    expect("dpia.pc naming a libdir without libdpia: %s" % r,
           refused(r, "pkg-config: %s does not exist" % os.path.join(libdir, "libdpia.so.0")))
    # nothing reachable: every attempt listed (unless the loader has a libdpia of its own)
    if subprocess.run([sys.executable, "-c", "import ctypes; ctypes.CDLL('libdpia.so.0')"], env=base,
                      capture_output=True).returncode == 0:
        print("NOTE libdpia.so.0 is installed for the system's loader: the case of no library is not tested")
    else:
        r = child()
        expect("no library reachable: %s" % r,
               refused(r, "DPIA_LIBRARY: not set", "pkg-config: no dpia.pc found (PKG_CONFIG_PATH=%s)" % empty,
                       "the system's loader: libdpia.so.0: cannot open shared object file")
               and len(r["tried"]) == 3)


def opencl_pipelines(expect, ctx, queue, root, rng):
    """dpia.opencl launches a pipeline (samples/dot_full.dpia and others)
    with the checks of a kernel, its temporaries allocated"""
    import numpy as np
    import pyopencl.array as cla
    import dpia
    import dpia.opencl
    dot = open(os.path.join(root, "samples", "dot_full.dpia")).read()
    meta = dpia.translate(dot, kernel="dot").metadata
    N = 1 << 18
    xs = rng.random(N, dtype=np.float32)
    ys = rng.random(N, dtype=np.float32)
    want = float(xs.astype(np.float64) @ ys)
    p = dpia.opencl.Pipeline(ctx, meta)
    for label, launcher in (("Pipeline", p), ("Kernel of a pipeline", dpia.opencl.Kernel(ctx, meta))):
        out = outcome(lambda: launcher(queue, {"N": N}, {"xs": xs, "ys": ys})["output"])
        expect("dot pipeline through %s (%s): %r, want %g" % (label, type(launcher).__name__, out, want),
               isinstance(launcher, dpia.opencl.Pipeline) and getattr(out, "shape", None) == (1,)
               and abs(out[0] - want) < 1e-5 * want)
    expect("dot pipeline time: %s" % p.last_ms, p.last_ms is not None and p.last_ms > 0)
    raises(expect, "dot: a precondition", dpia.opencl.PreconditionError,
           "pipeline dot: N = 1000 violates N >= 2048 and N % 262144 == 0",
           lambda: p(queue, {"N": 1000}, {"xs": xs[:1000], "ys": ys[:1000]}))
    raises(expect, "dot: N = 2^18 + 2^17", dpia.opencl.PreconditionError, "violates N % 262144 == 0",
           lambda: p(queue, {"N": 3 << 17}, {"xs": xs, "ys": ys}))
    raises(expect, "dot: a wrong shape", ValueError, "input xs of pipeline dot has shape (2, 131072) (262144 "
           "elements), the pipeline's input is [N]float: shape (262144,) at N = 262144",
           lambda: p(queue, {"N": N}, {"xs": xs.reshape(2, -1), "ys": ys}))
    raises(expect, "dot: a short input", ValueError, "input ys of pipeline dot has shape (262143,)",
           lambda: p(queue, {"N": N}, {"xs": xs, "ys": ys[1:]}))
    raises(expect, "dot: an unknown argument", ValueError, "pipeline dot has no argument zs; its arguments are "
           "output, xs, ys", lambda: p(queue, {"N": N}, {"xs": xs, "zs": ys}))
    raises(expect, "dot: a kernel's size", ValueError, "pipeline dot has no size M; its sizes are N",
           lambda: p(queue, {"N": N, "M": 128}, {"xs": xs, "ys": ys}))
    raises(expect, "dot: a float size", TypeError, "size N = 262144.0 of pipeline dot is not an integer",
           lambda: p(queue, {"N": float(N)}, {"xs": xs, "ys": ys}))
    raises(expect, "dot: a missing input", ValueError, "pipeline dot needs the input ys",
           lambda: p(queue, {"N": N}, {"xs": xs}))
    # device data: an output into a device array, and one sharing an input's buffer
    dxs = cla.to_device(queue, xs)
    dout = cla.empty(queue, (1,), np.float32)
    got = outcome(lambda: p(queue, {"N": N}, {"xs": dxs, "ys": ys, "output": dout})["output"])
    expect("dot into a device array: %r" % got, got is dout and abs(dout.get()[0] - want) < 1e-5 * want)
    raises(expect, "dot: the output in xs", dpia.opencl.AliasError, "output output and input xs of pipeline dot "
           "share memory (bytes 0 to 4 and 0 to 1048576 of one buffer)",
           lambda: p(queue, {"N": N}, {"xs": dxs, "ys": ys, "output": dxs[:1]}))
    # a temporary of packed float3 (12 bytes an element) between two kernels
    f3 = open(os.path.join(root, "tests", "vectors", "float3_pipeline.dpia")).read()
    v = rng.random((100, 3), dtype=np.float32)
    out = outcome(lambda: dpia.opencl.Kernel(ctx, dpia.translate(f3, kernel="pp").metadata)(
        queue, {"N": 100}, {"xs": v})["output"])
    want3 = 2 * v[:, 0].astype(np.float64) + 4 * v[:, 1].astype(np.float64) * v[:, 2]
    expect("float3 pipeline: %r" % type(out), getattr(out, "shape", None) == (100,)
           and np.abs(out - want3).max() < 1e-5)
    # local memory sized at the launch: its element type from the kernels' metadata
    rows = ("kernel rowParts (M N WG: nat) (mat: [M][N]float) =\n"
            "  mat |> mapWorkgroup (\\row -> row |> split (N / WG)\n"
            "    |> toLocal (mapLocal (\\c -> mapSeq (\\x -> x) c))\n"
            "    |> mapLocal (\\c -> reduceSeq (\\x a -> x + a) 0.0 c))\n"
            "kernel rowSums (M K: nat) (ps: [M][K]float) = ps |> mapGlobal (\\r -> reduceSeq (\\x a -> x + a) 0.0 r)\n"
            "pipeline sums (M N WG: nat) (mat: [M][N]float) = rowParts M N WG mat |> rowSums\n")
    r = dpia.translate(rows, kernel="sums")
    local = [a for launch in r.metadata["launches"] for a in launch["args"] if "local_elements" in a]
    expect("sums: a local argument in the metadata, with its element type: %s" % local,
           len(local) == 1 and local[0].get("type") == "float")
    mat = rng.random((5, 1024), dtype=np.float32)
    out = outcome(lambda: dpia.opencl.Pipeline(ctx, r.metadata)(
        queue, {"M": 5, "N": 1024, "WG": 32}, {"mat": mat})["output"])
    expect("sums: %r" % type(out), getattr(out, "shape", None) == (5,)
           and np.abs(out - mat.astype(np.float64).sum(axis=1)).max() < 1e-3)
    # a pipeline whose result is a pair of arrays (docs/language.md section 8):
    # both outputs by name, as a two-output kernel's; output_2 into a device array
    pair_src = open(os.path.join(root, "tests", "pipeline", "pair_outputs.dpia")).read()
    fp = dpia.opencl.Pipeline(ctx, dpia.translate(pair_src, kernel="fromTwo").metadata)
    a, b = rng.random(37, dtype=np.float32), rng.random(37, dtype=np.float32)
    out = outcome(lambda: fp(queue, {"N": 37}, {"xs": a, "ys": b}))
    wa, wb = 2 * a.astype(np.float64) - b, a.astype(np.float64) + 1 - b
    expect("fromTwo: both outputs by name: %r" % (sorted(out) if isinstance(out, dict) else out,),
           isinstance(out, dict) and sorted(out) == ["output_1", "output_2"]
           and np.abs(out["output_1"] - wa).max() < 1e-5 and np.abs(out["output_2"] - wb).max() < 1e-5)
    d2 = cla.empty(queue, (37,), np.float32)
    out = outcome(lambda: fp(queue, {"N": 37}, {"xs": a, "ys": b, "output_2": d2}))
    expect("fromTwo: output_2 into a device array: %r" % type(out),
           isinstance(out, dict) and out.get("output_2") is d2 and np.abs(d2.get() - wb).max() < 1e-5
           and np.abs(out["output_1"] - wa).max() < 1e-5)
    raises(expect, "fromTwo: output_2 in xs's buffer", dpia.opencl.AliasError, "output output_2 and input xs of "
           "pipeline fromTwo share memory", lambda: fp(queue, {"N": 37}, {"xs": d2, "ys": b, "output_2": d2}))
    # an input named like a temporary: the metadata's "buffer" would be ambiguous
    clash = dpia.translate(dot.replace("(xs ys: [N]float) = dotParts xs ys", "(tmp0 ys: [N]float) = dotParts tmp0 ys"),
                           kernel="dot").metadata
    if {t["name"] for t in clash["temporaries"]} & {q["name"] for q in clash["params"]}:
        raises(expect, "an input named tmp0", ValueError, "the metadata of pipeline dot names both a parameter and "
               "a temporary tmp0", lambda: dpia.opencl.Pipeline(ctx, clash))
    else:
        out = dpia.opencl.Pipeline(ctx, clash)(queue, {"N": N}, {"tmp0": xs, "ys": ys})["output"]
        expect("an input named tmp0: %r" % out, abs(out[0] - want) < 1e-5 * want)


def opencl_empty_launch(expect, ctx, queue, root):
    """an NDRange with no work-item (ceil(N/64) groups at N = 0) computes
    nothing when every output is empty, and is refused, naming the output,
    when one is not (no work-item would write it)"""
    import numpy as np
    import dpia
    import dpia.opencl
    with open(os.path.join(root, "samples", "dot_any.dpia")) as f:
        any_size = f.read()
    k = dpia.opencl.Kernel(ctx, dpia.translate(any_size, kernel="scalAny").metadata)
    out = k(queue, {"N": 0}, {"alpha": 2.0, "xs": np.zeros(0, np.float32)})["output"]
    expect("scalAny at N = 0: %r" % out, out.shape == (0,))
    half = ("kernel k (N: nat) (xs: [N]float) (ys: [4]float) =\n"
            "  (xs |> mapGlobal (\\x -> x), ys |> mapSeq (\\y -> y))\n")
    k = dpia.opencl.Kernel(ctx, dpia.translate(half, kernel="k").metadata)
    raises(expect, "an empty NDRange with an output of 4", dpia.opencl.EmptyRangeError,
           "dpia.opencl: error[E0413]: kernel k at N = 0: the NDRange "
           "of k has no work-item, but output output_2 is not empty",
           lambda: k(queue, {"N": 0}, {"xs": np.zeros(0, np.float32), "ys": np.ones(4, np.float32)}))


def opencl_empty_pipeline(expect, ctx, queue, root):
    """a pipeline's launch with no work-item (N = 0) is left out when every
    buffer it writes is empty, stage by stage as the C launchers decide:
    dotAnyFull and asumAnyFull write 0.0 at N = 0 and the host's value at
    N = 1, prodAny the empty product 1.0, atax zeros at M = 0 (its second
    launch reading an empty temporary) and nothing at N = 0; halfPipe at
    N = 0 is refused, naming the launch and the output no work-item would
    write"""
    import numpy as np
    import dpia
    import dpia.opencl

    def pipeline(path, name):
        with open(os.path.join(root, path)) as f:
            return dpia.opencl.Pipeline(ctx, dpia.translate(f.read(), kernel=name).metadata)

    empty, one = np.zeros(0, np.float32), np.array([0.75], np.float32)
    for name in ("dotAnyFull", "asumAnyFull"):
        p = pipeline("samples/dot_any.dpia", name)
        args = {"xs": empty, "ys": empty} if name == "dotAnyFull" else {"xs": empty}
        out = p(queue, {"N": 0}, args)["output"]
        expect("%s at N = 0: %r" % (name, out), out.shape == (1,) and out[0] == 0.0)
        args = {"xs": one, "ys": -one} if name == "dotAnyFull" else {"xs": -one}
        out = p(queue, {"N": 1}, args)["output"]
        expect("%s at N = 1: %r" % (name, out), out[0] == (-0.5625 if name == "dotAnyFull" else 0.75))
    p = pipeline("tests/pipeline/empty.dpia", "prodAny")
    out = p(queue, {"N": 0}, {"xs": empty})["output"]
    expect("prodAny at N = 0: %r" % out, out.shape == (1,) and out[0] == 1.0)
    atax = pipeline("samples/atax.dpia", "atax")
    out = atax(queue, {"M": 0, "N": 3}, {"a": np.zeros((0, 3), np.float32), "x": np.ones(3, np.float32)})["output"]
    expect("atax at M = 0: %r" % out, out.shape == (3,) and not out.any())
    out = atax(queue, {"M": 3, "N": 0}, {"a": np.zeros((3, 0), np.float32), "x": empty})["output"]
    expect("atax at N = 0: %r" % out, out.shape == (0,))
    half = pipeline("tests/pipeline/empty.dpia", "halfPipe")
    raises(expect, "halfPipe at N = 0", dpia.opencl.EmptyRangeError,
           "dpia.opencl: error[E0413]: pipeline halfPipe at N = 0: launch 0 (kernel "
           "halfEmpty) has no work-item, but its output output_2 (buffer tmp1) is not empty",
           lambda: half(queue, {"N": 0}, {"xs": empty, "ys": np.ones(4, np.float32)}))


def opencl_device_limits(expect, ctx, queue, rng):
    """a launch needing more local memory or larger work-groups than the
    device has raises DeviceLimitError (E0007) before anything is
    enqueued, as dpia run and the header refuse it; on PoCL, unchecked, too
    much local memory aborts the process.  The kernels are made from the
    device's limits: twice its local memory, twice its work-group."""
    import numpy as np
    import dpia
    import dpia.opencl
    dev = queue.device
    floats = dev.local_mem_size // 2  # twice the device's bytes
    wide = 2 * dev.max_work_group_size
    src = ("kernel bigLocal (N: nat) (xs: [N]float) =\n"
           "  xs |> split %d |> mapWorkgroup (\\c -> c |> split %d\n"
           "    |> toLocal (mapLocal (\\v -> mapSeq (\\x -> x) v))\n"
           "    |> mapLocal (\\v -> reduceSeq (\\x a -> x + a) 0.0 v)) |> join\n"
           "kernel rowParts (M N WG: nat) (mat: [M][N]float) =\n"
           "  mat |> mapWorkgroup (\\row -> row |> split (N / WG)\n"
           "    |> toLocal (mapLocal (\\c -> mapSeq (\\x -> x) c))\n"
           "    |> mapLocal (\\c -> reduceSeq (\\x a -> x + a) 0.0 c))\n"
           "kernel wideGroup (N: nat) (xs: [N]float) =\n"
           "  xs |> split %d |> mapWorkgroup (\\c -> c |> mapLocal (\\x -> x * 2.0)) |> join\n"
           "kernel twice (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x * 2.0)\n"
           "pipeline wide (N: nat) (xs: [N]float) = twice xs |> wideGroup\n") % (floats, floats // 64, wide)
    device = "OpenCL device %s: " % dev.name.strip()
    has = "more than the device's %d (CL_DEVICE_LOCAL_MEM_SIZE)" % dev.local_mem_size

    def refused(what, text, f):
        raises(expect, what, dpia.opencl.DeviceLimitError, "dpia.opencl: error[E0007]: " + text, f)

    k = dpia.opencl.Kernel(ctx, dpia.translate(src, kernel="bigLocal").metadata)
    refused("a local array of %d bytes" % (4 * floats), device + "kernel bigLocal needs %d bytes of local memory a "
            "work-group (its own: %d bytes by CL_KERNEL_LOCAL_MEM_SIZE), %s" % (4 * floats, 4 * floats, has),
            lambda: k(queue, {"N": floats}, {"xs": np.zeros(floats, np.float32)}))
    expect("DeviceLimitError.code", dpia.opencl.DeviceLimitError.code == "E0007"
           and issubclass(dpia.opencl.DeviceLimitError, dpia.Error))
    # local memory given at the launch: fits, too much, fits again (pyopencl
    # caches a kernel object's get_work_group_info answers, so its
    # CL_KERNEL_LOCAL_MEM_SIZE is the first call's figure: neither call may
    # be judged by it)
    k = dpia.opencl.Kernel(ctx, dpia.translate(src, kernel="rowParts").metadata)
    small = rng.random((2, 4096), dtype=np.float32)
    want = small.reshape(2, 64, 64).sum(axis=2, dtype=np.float64)
    first = outcome(lambda: k(queue, {"M": 2, "N": 4096, "WG": 64}, {"mat": small})["output"])
    expect("rowParts with 16 KiB of local memory: %r" % type(first), getattr(first, "shape", None) == (2, 64)
           and np.abs(first - want).max() < 1e-4)
    refused("a local argument of %d bytes" % (4 * floats), device + "kernel rowParts needs %d bytes of local memory a "
            "work-group (loc: a local temporary of %d bytes), %s" % (4 * floats, 4 * floats, has),
            lambda: k(queue, {"M": 1, "N": floats, "WG": 64}, {"mat": np.zeros((1, floats), np.float32)}))
    again = outcome(lambda: k(queue, {"M": 2, "N": 4096, "WG": 64}, {"mat": small})["output"])
    expect("rowParts fits again: %r" % type(again), getattr(again, "shape", None) == (2, 64)
           and np.abs(again - want).max() < 1e-4)
    k = dpia.opencl.Kernel(ctx, dpia.translate(src, kernel="wideGroup").metadata)
    refused("work-groups of %d" % wide, device + "kernel wideGroup is launched with work-groups of %d work-items, more "
            "than the device's %d (CL_DEVICE_MAX_WORK_GROUP_SIZE)" % (wide, dev.max_work_group_size),
            lambda: k(queue, {"N": wide}, {"xs": np.zeros(wide, np.float32)}))
    p = dpia.opencl.Pipeline(ctx, dpia.translate(src, kernel="wide").metadata)
    refused("a pipeline's second kernel", "pipeline wide on " + device + "kernel wideGroup is launched with "
            "work-groups of %d work-items" % wide, lambda: p(queue, {"N": wide}, {"xs": np.zeros(wide, np.float32)}))


# Oclgrind's options, the sample, the kernel or pipeline, its sizes, the
# message's expected parts (None: the launch runs): the cases of
# tests/oclgrind/run_device_limits.py a Python launch can make
OCLGRIND_CASES = [
    (["--local-mem-size", "200"], "gemv.dpia", "gemv", {"M": 3, "N": 64},
     ["kernel gemv needs 256 bytes of local memory a work-group (its own: 256 bytes by CL_KERNEL_LOCAL_MEM_SIZE), "
      "more than the device's 200 (CL_DEVICE_LOCAL_MEM_SIZE)"]),
    (["--local-mem-size", "256"], "gemv.dpia", "gemv", {"M": 3, "N": 64}, None),
    (["--max-wgsize", "32"], "dot_partial.dpia", "dotPartial", {"N": 262144},
     ["kernel dotPartial is launched with work-groups of 128 work-items, more than the device's 32 "
      "(CL_DEVICE_MAX_WORK_GROUP_SIZE)"]),
    (["--max-wgsize", "128"], "mm_tiled.dpia", "mmTiled", {"M": 32, "N": 32, "K": 5},
     ["kernel mmTiled is launched with work-groups of 16x16 = 256 work-items, more than the device's 128 "
      "(CL_DEVICE_MAX_WORK_GROUP_SIZE)"]),
    (["--max-wgsize", "16"], "dot_full.dpia", "dot", {"N": 262144},
     ["pipeline dot on OpenCL device Oclgrind Simulator: kernel dotParts is launched with work-groups of 128 "
      "work-items, more than the device's 16 (CL_DEVICE_MAX_WORK_GROUP_SIZE)"]),
]


def oclgrind_device_limits(expect, target, root):
    """E0007 on Oclgrind devices given small limits: each case a child
    process (limits_child) under oclgrind"""
    sys.path.insert(0, os.path.join(root, "tests", "oclgrind"))
    import oclgrind_log
    why = oclgrind_log.available()
    if why:
        expect("Oclgrind in CI: %s" % why, oclgrind_log.missing_status() != 1)
        print("NOTE the device limits on Oclgrind are not tested: %s" % why)
        return
    for options, sample, name, sizes, parts in OCLGRIND_CASES:
        cmd = ["oclgrind", *options, sys.executable, os.path.abspath(__file__), "--limits-child",
               os.path.join(target, "site"), os.path.join(root, "samples"), sample, name, json.dumps(sizes)]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        try:
            r = json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            r = {"stdout": p.stdout, "stderr": p.stderr[-2000:]}
        what = "%s %s under oclgrind %s: %s" % (sample, name, " ".join(options), r)
        if parts is None:
            expect(what, r.get("ran") is True)
        else:
            expect(what, r.get("error") == "DeviceLimitError" and r.get("code") == "E0007"
                   and all(x in r.get("message", "") for x in parts))


def limits_child(site, samples, sample, name, sizes):
    """launch name of samples/sample at sizes on the first device with
    inputs of ones; print what happened as JSON"""
    import numpy as np
    import pyopencl as cl
    sys.path.insert(0, site)
    import dpia
    import dpia.opencl
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    meta = dpia.translate(open(os.path.join(samples, sample)).read(), kernel=name).raise_for_status().metadata
    sizes = json.loads(sizes)
    args = {}
    for p in meta["params"]:
        if p["role"] == "scalar":
            args[p["name"]] = 1.0
        elif p["role"] == "input":
            dtype, lanes = dpia.opencl.numpy_type(p["type"])
            shape = tuple(dpia.opencl.evaluate(e, sizes) for e in p["shape"]) + ((lanes,) if lanes > 1 else ())
            args[p["name"]] = np.ones(shape, dtype)
    try:
        dpia.opencl.Kernel(ctx, meta)(queue, sizes, args)
        print(json.dumps({"ran": True}))
    except dpia.Error as e:
        print(json.dumps({"error": type(e).__name__, "code": getattr(e, "code", None), "message": str(e)}))
    return 0


def report(failures):
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--limits-child"]:
        sys.exit(limits_child(*sys.argv[2:7]))
    sys.exit(main())
