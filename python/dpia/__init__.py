"""dpia: the DPIA to OpenCL C translator (libdpia) from Python, through ctypes.

    translate(src, kernel=None, set=None, emit="opencl", ...) -> Result
    check(src, ...) -> Result                 (parse and type check)
    space(src, kernel, set=None) -> dict      (--emit=space)
    run(src, kernel, sizes, set=None, ...) -> Result with .run (dpia run --json)
    Space(space_dict): the points of a space and their validity
    rewrite.positions(src, kernel) / rewrite.apply(src, kernel, rule, path, n=64)
                                              (the rewrite rules, dpia rewrite)
    explore(src, kernel, sizes, budget=60, jobs=1, address=None, seed=1)
        -> Exploration                        (dpia explore; address: on a Ray cluster)

Every call is one dpia_process of libdpia (include/dpia.h); libdpia has no
global state, so calls from several threads are safe.  dpia.opencl launches
a translated kernel with pyopencl from its metadata; dpia.explore is
dpia explore's search (dpia.exploration: its candidates run here, or on a
Ray cluster's workers with address=).
"""
import ctypes
import itertools
import json
import os
import re
import shutil
import subprocess
import threading

__all__ = ["translate", "check", "verify", "space", "run", "rewrite", "explore", "Exploration", "Result", "Diagnostic", "Space", "Error", "DpiaError",
           "LibraryNotFoundError", "MissingPackageError", "library", "EMIT_KINDS"]

# the DpiaAction, DpiaEmit and DpiaInputs values of include/dpia.h
_ACTIONS = {"check": 0, "translate": 1, "verify": 2, "run": 3, "rewrite": 4, "explore": 5}
EMIT_KINDS = ("opencl", "intermediate", "imperative", "json", "header", "space")
_INPUTS = {"signed": 0, "positive": 1, "unit": 2}
# exit codes of the dpia command (README.md), the status of a result
STATUS_NAMES = {0: "ok", 1: "error", 2: "usage", 3: "verification_failed", 4: "opencl_unavailable",
                5: "precondition_failed", 70: "internal_error"}


class _Options(ctypes.Structure):
    """DpiaOptions, field by field (include/dpia.h); checked against
    dpia_options_size() when the library is loaded."""
    _fields_ = [
        ("action", ctypes.c_int),
        ("verbose", ctypes.c_int),
        ("kernel", ctypes.c_char_p),
        ("emit", ctypes.c_int),
        ("verify", ctypes.c_int),
        ("skip_semantic_check", ctypes.c_int),
        ("local_size", ctypes.c_long * 3),
        ("global_size", ctypes.c_long * 3),
        ("verifier", ctypes.c_void_p),
        ("nsizes", ctypes.c_int),
        ("size_names", ctypes.POINTER(ctypes.c_char_p)),
        ("size_values", ctypes.POINTER(ctypes.c_longlong)),
        ("check", ctypes.c_int),
        ("repeat", ctypes.c_int),
        ("seed", ctypes.c_ulonglong),
        ("platform", ctypes.c_int),
        ("device", ctypes.c_int),
        ("opencl_source", ctypes.c_char_p),
        ("inputs", ctypes.c_int),
        ("diagnostics_json", ctypes.c_int),
        ("run_json", ctypes.c_int),
        ("alloc", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("alloc_user", ctypes.c_void_p),
        ("arena_block_size", ctypes.c_size_t),
        ("memory_limit", ctypes.c_size_t),
        ("emit_also", ctypes.c_uint),
        ("source_name", ctypes.c_char_p),
        ("stamp", ctypes.c_int),
        ("nsets", ctypes.c_int),
        ("set_names", ctypes.POINTER(ctypes.c_char_p)),
        ("set_values", ctypes.POINTER(ctypes.c_longlong)),
        ("debug_drop_barriers", ctypes.c_int),
        ("high_level", ctypes.c_int),
        ("rewrite", ctypes.c_void_p),
        ("target", ctypes.c_char_p),
        ("explore", ctypes.c_void_p),
        ("tune_cache", ctypes.c_char_p),
        ("ninputs_given", ctypes.c_int),
        ("input_names", ctypes.POINTER(ctypes.c_char_p)),
        ("input_texts", ctypes.POINTER(ctypes.c_char_p)),
        ("debug_no_shortcuts", ctypes.c_int),
    ]


class _Rewrite(ctypes.Structure):
    """DpiaRewrite (include/dpia.h)"""
    _fields_ = [
        ("list", ctypes.c_int),
        ("json", ctypes.c_int),
        ("apply", ctypes.c_char_p),
        ("nparams", ctypes.c_int),
        ("param_names", ctypes.POINTER(ctypes.c_char_p)),
        ("param_values", ctypes.POINTER(ctypes.c_longlong)),
    ]


class _ExploreRun(ctypes.Structure):
    """DpiaExploreRun (include/dpia.h): a candidate given to an evaluator,
    and its answer"""
    _fields_ = [
        ("id", ctypes.c_int),
        ("strategy", ctypes.c_char_p),
        ("program", ctypes.c_char_p),
        ("kernel", ctypes.c_char_p),
        ("check", ctypes.c_int),
        ("repeat", ctypes.c_int),
        ("status", ctypes.c_int),
        ("min_ms", ctypes.c_double),
        ("median_ms", ctypes.c_double),
        ("reason", ctypes.c_char * 16),
    ]


_EVALUATE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_ExploreRun), ctypes.c_int)


class _Explore(ctypes.Structure):
    """DpiaExplore (include/dpia.h)"""
    _fields_ = [
        ("budget_s", ctypes.c_double),
        ("jobs", ctypes.c_int),
        ("json", ctypes.c_int),
        ("progress", ctypes.c_void_p),
        ("progress_user", ctypes.c_void_p),
        ("evaluate", _EVALUATE),
        ("evaluate_user", ctypes.c_void_p),
        ("nvalid_at", ctypes.c_int),  # DPIA_TUNE only (dpia tune --valid-at)
        ("valid_at", ctypes.c_void_p),
        ("max_tries", ctypes.c_int),  # DPIA_EXPLORE only (dpia explore --tries)
    ]


class Error(Exception):
    """every error of the package: DpiaError, LibraryNotFoundError and
    dpia.opencl's"""


class LibraryNotFoundError(Error, OSError):
    """libdpia was not found or does not load: .tried lists each attempt"""

    def __init__(self, tried):
        self.tried = tried
        super().__init__("dpia: libdpia cannot be loaded; tried, in order:\n%s\nSet DPIA_LIBRARY to the "
                         "library's path (LIBDIR/%s under the prefix of meson install, build/libdpia.so in a build "
                         "tree), or let pkg-config find the installed dpia.pc (PKG_CONFIG_PATH=LIBDIR/pkgconfig)"
                         % ("\n".join("  - %s" % t for t in tried), SONAME))


class MissingPackageError(Error, ImportError):
    """A Python package a call needs is not installed (ray, for
    dpia.explore(address=...)): .package names it"""

    def __init__(self, package, what, install):
        self.package = package
        super().__init__("dpia: %s needs the Python package '%s', which is not installed here: %s"
                         % (what, package, install), name=package)


class DpiaError(Error):
    """A failed call, when asked to raise (Result.raise_for_status): the
    result is its .result, the first error's message its text."""

    def __init__(self, result):
        self.result = result
        first = result.diagnostics[0].message if result.diagnostics else STATUS_NAMES.get(result.status, "?")
        super().__init__("dpia: %s (status %d, %s)" % (first, result.status, STATUS_NAMES.get(result.status, "?")))


class Diagnostic:
    """One diagnostic (dpia_result_diagnostics_json): level ("error"),
    code (an error's stable code, "E0301", from the index of errors,
    docs/errors.md; None for a note), file, line, column, end_line,
    end_column (None without a position), message, notes (Diagnostic
    objects)."""

    def __init__(self, d):
        self.level = d.get("level", "error")
        self.code = d.get("code")
        self.file = d.get("file")
        self.line = d.get("line")
        self.column = d.get("column")
        self.end_line = d.get("end_line")
        self.end_column = d.get("end_column")
        self.message = d.get("message", "")
        self.notes = [Diagnostic(n) for n in d.get("notes", [])]

    def __repr__(self):
        where = "%s:%s:%s: " % (self.file, self.line, self.column) if self.file else ""
        return "<Diagnostic %s%s%s: %s>" % (where, self.level, "[%s]" % self.code if self.code else "", self.message)

    def __str__(self):
        where = "%s:%s:%s: " % (self.file, self.line, self.column) if self.file else ""
        return "%s%s%s: %s" % (where, self.level, "[%s]" % self.code if self.code else "", self.message)


class Result:
    """What one call gives: status (the exit code; ok when 0), outputs
    ({emit kind: text}, "json" and "space" parsed), diagnostics, and for
    run the report (run)."""

    def __init__(self, status, outputs, diagnostics, run=None, text="", tuned=None, times=None, best=None):
        self.status = status
        self.outputs = outputs
        self.diagnostics = diagnostics
        self.run = run
        self.text = text  # the primary output as printed (check -v's types, ...)
        # the tune values taken from the tuning cache and where they were
        # tuned (docs/tune.md), or None
        self.tuned = tuned
        # run: (fastest, median) of the launches in ms (dpia_result_run_time), None when not launched
        self.times = times
        # explore: the best program found (dpia_result_explore_best), None when none
        self.best = best

    @property
    def ok(self):
        return self.status == 0

    @property
    def status_name(self):
        return STATUS_NAMES.get(self.status, "internal_error")

    @property
    def source(self):
        """the OpenCL C, when asked for"""
        return self.outputs.get("opencl")

    @property
    def metadata(self):
        """the metadata (docs/reference.md section 9) of the kernel, or a list of one per
        kernel when no kernel was chosen; None when not asked for"""
        return self.outputs.get("json")

    @property
    def space(self):
        return self.outputs.get("space")

    def raise_for_status(self):
        if not self.ok:
            raise DpiaError(self)
        return self

    def __repr__(self):
        return "<dpia.Result %s, outputs %s, %d diagnostics>" % (self.status_name, sorted(self.outputs),
                                                                  len(self.diagnostics))


# the loader's name of libdpia (meson's soversion, meson.build)
SONAME = "libdpia.so.0"


def _pkg_config_libdir():
    """(libdir of the dpia.pc that pkg-config finds, or None; what was seen)"""
    for tool in ("pkg-config", "pkgconf"):
        exe = shutil.which(tool)
        if exe:
            break
    else:
        return None, "not installed"
    try:
        p = subprocess.run([exe, "--variable=libdir", "dpia"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return None, "%s --variable=libdir dpia: %s" % (tool, e)
    if p.returncode != 0 or not p.stdout.strip():
        search = os.environ.get("PKG_CONFIG_PATH")
        return None, "no dpia.pc found (%s)" % (
            "PKG_CONFIG_PATH=%s" % search if search else "PKG_CONFIG_PATH not set")
    return p.stdout.strip(), None


def _candidates():
    """(where, path or loader name, why not) in the order libdpia is looked for: the
    explicit DPIA_LIBRARY alone when set; else a build tree of the
    repository the package is imported from, the libdir of the installed
    dpia.pc (meson install writes it; pkg-config finds it under the prefix or
    PKG_CONFIG_PATH), then the system's loader (LD_LIBRARY_PATH, ld.so.cache,
    the default directories).  An attempt that found nothing to load has path
    None and says why."""
    env = os.environ.get("DPIA_LIBRARY")
    if env:
        yield "DPIA_LIBRARY", env, None
        return
    yield "DPIA_LIBRARY", None, "not set"
    # a checkout: python/dpia/__init__.py next to build/libdpia.so
    here = os.path.dirname(os.path.abspath(__file__))
    for build in ("build", "builddir"):
        candidate = os.path.normpath(os.path.join(here, "..", "..", build, "libdpia.so"))
        if os.path.exists(candidate):
            yield "the build tree", candidate, None
    libdir, why = _pkg_config_libdir()
    yield "pkg-config", os.path.join(libdir, SONAME) if libdir else None, why
    yield "the system's loader", SONAME, None


def _load():
    """(the loaded libdpia, its path) from the first candidate that loads;
    LibraryNotFoundError listing every attempt when none does"""
    tried = []
    for where, path, why in _candidates():
        if path is None:
            tried.append("%s: %s" % (where, why))
            continue
        # a path, not a loader name, that is not there: say so rather than the loader's text
        if os.sep in path and not os.path.exists(path):
            tried.append("%s: %s does not exist" % (where, path))
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s: %s" % (where, e))
    raise LibraryNotFoundError(tried)


_lib = None
_local = threading.local()  # per thread: a libclang verifier, made on first use


def _verifier():
    """this thread's verifier: making one costs milliseconds (libclang), so
    that every verifying call of the thread shares one, as dpia batch does"""
    v = getattr(_local, "verifier", None)
    if v is None:
        lib = library()
        v = _local.verifier = lib.dpia_verifier_new()
        if v:
            # threading.local drops it with the thread; free it then
            _local.finalizer = _Freer(lib, v)
    return v


class _Freer:
    def __init__(self, lib, v):
        self.lib, self.v = lib, v

    def __del__(self):
        try:
            self.lib.dpia_verifier_free(self.v)
        except Exception:
            pass


def library():
    """libdpia, loaded on first use: DPIA_LIBRARY names it explicitly, else
    it is looked for (_candidates); LibraryNotFoundError says what was
    tried."""
    global _lib
    if _lib is not None:
        return _lib
    lib, path = _load()
    lib.dpia_options_init.argtypes = [ctypes.POINTER(_Options)]
    lib.dpia_options_init.restype = None
    lib.dpia_options_size.argtypes = []
    lib.dpia_options_size.restype = ctypes.c_size_t
    lib.dpia_process.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_Options),
                                 ctypes.POINTER(ctypes.c_void_p)]
    lib.dpia_process.restype = ctypes.c_int
    lib.dpia_result_emitted.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]
    lib.dpia_result_emitted.restype = ctypes.c_void_p
    lib.dpia_result_output.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.dpia_result_output.restype = ctypes.c_void_p
    lib.dpia_result_diagnostics_json.argtypes = [ctypes.c_void_p]
    lib.dpia_result_diagnostics_json.restype = ctypes.c_char_p
    lib.dpia_result_tuned.argtypes = [ctypes.c_void_p]
    lib.dpia_result_tuned.restype = ctypes.c_char_p
    lib.dpia_result_run_time.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double),
                                         ctypes.POINTER(ctypes.c_double)]
    lib.dpia_result_run_time.restype = ctypes.c_int
    lib.dpia_result_explore_best.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.dpia_result_explore_best.restype = ctypes.c_void_p
    lib.dpia_result_free.argtypes = [ctypes.c_void_p]
    lib.dpia_result_free.restype = None
    lib.dpia_verifier_new.argtypes = []
    lib.dpia_verifier_new.restype = ctypes.c_void_p
    lib.dpia_verifier_free.argtypes = [ctypes.c_void_p]
    lib.dpia_verifier_free.restype = None
    if lib.dpia_options_size() != ctypes.sizeof(_Options):
        raise ImportError("dpia: libdpia's DpiaOptions has %d bytes, these bindings lay out %d: they do not match "
                          "this libdpia (%s)" % (lib.dpia_options_size(), ctypes.sizeof(_Options), path))
    _lib = lib
    return lib


def _names_values(d):
    names = (ctypes.c_char_p * max(1, len(d)))(*[str(k).encode() for k in d])
    values = (ctypes.c_longlong * max(1, len(d)))(*[int(v) for v in d.values()])
    return names, values


def _text(ptr, n):
    return ctypes.string_at(ptr, n).decode("utf-8") if ptr else None


def _process(src, action, kernel=None, set=None, emit=("opencl",), verify=False, name="<python>",
             source_name=None, sizes=None, check=False, repeat=1, seed=1, platform=0, device=0,
             opencl_source=None, inputs="signed", local_size=None, global_size=None, verbose=False, target=None,
             high_level=False, rewrite=None, tune_cache=None, explore=None):
    lib = library()
    if isinstance(emit, str):
        emit = (emit,)
    for e in emit:
        if e not in EMIT_KINDS:
            raise ValueError("dpia: unknown emit kind %r (%s)" % (e, ", ".join(EMIT_KINDS)))
    opt = _Options()
    lib.dpia_options_init(ctypes.byref(opt))
    opt.action = _ACTIONS[action]
    opt.verbose = int(bool(verbose))
    keep = []  # what opt points to lives as long as the call
    if kernel:
        opt.kernel = kernel.encode()
    opt.emit = EMIT_KINDS.index(emit[0]) if emit else 0
    for e in emit[1:]:
        opt.emit_also |= 1 << EMIT_KINDS.index(e)
    opt.verify = int(bool(verify))
    if verify or action == "verify":
        opt.verifier = _verifier()
    opt.diagnostics_json = 1
    if source_name:
        opt.source_name = source_name.encode()
    if target:  # the language generated: "opencl" (the default); unknown: E0810
        opt.target = target.encode()
    for d, field in ((local_size, "local_size"), (global_size, "global_size")):
        for i, v in enumerate(d or ()):
            getattr(opt, field)[i] = int(v)
    if set:
        names, values = _names_values(set)
        keep += [names, values]
        opt.nsets, opt.set_names, opt.set_values = len(set), names, values
    if sizes or action in ("run", "explore"):
        sizes = sizes or {}
        names, values = _names_values(sizes)
        keep += [names, values]
        opt.nsizes, opt.size_names, opt.size_values = len(sizes), names, values
    if action in ("run", "explore"):
        opt.check, opt.repeat, opt.seed = int(bool(check)), int(repeat), int(seed)
        opt.platform, opt.device, opt.run_json = int(platform), int(device), 1
        opt.inputs = _INPUTS[inputs]
        if opencl_source:
            opt.opencl_source = opencl_source.encode()
    if explore is not None:  # a _Explore, which the caller keeps alive
        opt.explore = ctypes.cast(ctypes.pointer(explore), ctypes.c_void_p)
        opt.verifier = _verifier()  # the best's check: verification, as dpia run --check
    opt.high_level = int(bool(high_level))
    if tune_cache is not None:  # a file, or "off"; None: $DPIA_TUNE_CACHE, else ~/.cache/dpia/tune.json
        opt.tune_cache = os.fspath(tune_cache).encode()
    if rewrite is not None:  # (list?, "RULE@PATH" or None, {name: value})
        listing, apply, params = rewrite
        rw = _Rewrite()
        rw.list = rw.json = int(listing)
        if apply is not None:
            rw.apply = apply.encode()
        names, values = _names_values(params or {})
        rw.nparams, rw.param_names, rw.param_values = len(params or {}), names, values
        keep += [rw, names, values]
        opt.rewrite = ctypes.cast(ctypes.pointer(rw), ctypes.c_void_p)
    data = src.encode("utf-8")
    result = ctypes.c_void_p()
    status = lib.dpia_process(name.encode(), data, len(data), ctypes.byref(opt), ctypes.byref(result))
    try:
        diags = lib.dpia_result_diagnostics_json(result) if result else None
        diagnostics = [Diagnostic(d) for d in json.loads(diags.decode("utf-8"))] if diags else []
        outputs, report = {}, None
        n = ctypes.c_size_t()
        text = _text(lib.dpia_result_output(result, ctypes.byref(n)), n.value) if result else ""
        if action == "translate" and status == 0:
            for e in emit:
                out = _text(lib.dpia_result_emitted(result, EMIT_KINDS.index(e), ctypes.byref(n)), n.value)
                outputs[e] = json.loads(out) if e in ("json", "space") and out is not None else out
        # the report of a launched kernel (sizes a precondition refuses are
        # status precondition_failed with the diagnostics, as in dpia batch)
        if action == "run" and text and status != 5:
            report = json.loads(text)
        tuned = lib.dpia_result_tuned(result) if result else None
        times = None
        lo, mid = ctypes.c_double(), ctypes.c_double()
        if action == "run" and result and lib.dpia_result_run_time(result, ctypes.byref(lo), ctypes.byref(mid)):
            times = (lo.value, mid.value)
        best = _text(lib.dpia_result_explore_best(result, ctypes.byref(n)), n.value) if action == "explore" else None
        return Result(status, outputs, diagnostics, report, text or "", tuned.decode("utf-8") if tuned else None,
                      times, best or None)
    finally:
        if result:
            lib.dpia_result_free(result)


def translate(src, kernel=None, set=None, emit=("opencl", "json"), verify=False, name="<python>",
              source_name=None, local_size=None, global_size=None, target=None, tune_cache=None, sizes=None):
    """Translate the program text src (all kernels, or kernel's): a Result
    whose outputs hold each kind of emit ("opencl", "json" parsed, "space"
    parsed, "header", "intermediate", "imperative").  set gives tune
    parameters their values ({"WG": 128}, as --set); the others of kernel
    come from the tuning cache (tune_cache: a file, or "off"; None:
    $DPIA_TUNE_CACHE, else ~/.cache/dpia/tune.json) when `dpia tune` kept
    values for this source and kernel on this device (result.tuned says
    which: the values tuned at the nearest sizes when sizes gives the
    kernel's nat parameters, {"N": 4096}, else the entry written last),
    else from their declared defaults; verify runs dpia's
    verification too (as `dpia translate` does by default: slower); target
    the language generated (as --target; None: "opencl")."""
    return _process(src, "translate", kernel=kernel, set=set, emit=emit, verify=verify, name=name,
                    source_name=source_name, local_size=local_size, global_size=global_size, target=target,
                    tune_cache=tune_cache, sizes=sizes)


def check(src, kernel=None, set=None, name="<python>", verbose=False, target=None, high_level=False):
    """Parse and type check (dpia check): result.text holds the types when
    verbose; high_level accepts kernels that only lack a strategy (note
    E0607, dpia check --high-level)."""
    return _process(src, "check", kernel=kernel, set=set, emit=(), name=name, verbose=verbose, target=target,
                    high_level=high_level)


def verify(src, kernel=None, set=None, name="<python>", target=None):
    """Translate and verify (dpia verify)."""
    return _process(src, "verify", kernel=kernel, set=set, emit=(), name=name, target=target)


def run(src, kernel, sizes, set=None, check=False, repeat=1, seed=1, platform=0, device=0, name="<python>",
        verify=False, inputs="signed", target=None, tune_cache=None):
    """Run the kernel on an OpenCL device with random inputs (dpia run
    --json): result.run is the report (times, sizes, NDRange, check, and
    "tuned" when the tuning cache gave values, as translate)."""
    return _process(src, "run", kernel=kernel, set=set, emit=(), name=name, sizes=sizes, check=check,
                    repeat=repeat, seed=seed, platform=platform, device=device, verify=verify, inputs=inputs,
                    target=target, tune_cache=tune_cache)


def space(src, kernel, set=None, name="<python>"):
    """The search space of kernel's tune parameters (--emit=space) as a
    dict; raises DpiaError when the program does not translate."""
    r = _process(src, "translate", kernel=kernel, set=set, emit=("space",), name=name).raise_for_status()
    return r.space


_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def substitute(expr, values):
    """expr with each name of values replaced by its value"""
    return _WORD.sub(lambda m: str(values[m.group(0)]) if m.group(0) in values else m.group(0), expr)


def evaluate(expr, values):
    """a constraint or size expression of a space (Python syntax) at values"""
    return eval(expr, {"__builtins__": {}}, dict(values))


class Space:
    """A space of --emit=space: its parameters' domains, the constraints at
    given problem sizes, and the valid points."""

    def __init__(self, space):
        self.data = space
        self.names = [t["name"] for t in space["tune"]]
        self.sizes = list(space["sizes"])

    def domain(self, name):
        t = next(t for t in self.data["tune"] if t["name"] == name)
        return list(t["values"]) if "values" in t else list(range(t["range"]["min"], t["range"]["max"] + 1))

    def tune_params(self):
        """{name: [values]}: Kernel Tuner's tune_params"""
        return {n: self.domain(n) for n in self.names}

    def restrictions(self, sizes=None):
        """the constraints with the problem sizes substituted: Kernel
        Tuner's restrictions (each a Python expression over the tune
        parameters); a constraint on sizes alone is left out when it holds
        and raises ValueError when it does not"""
        out = []
        for c in self.data["constraints"]:
            e = substitute(c, sizes or {})
            if not any(n in self.names for n in _WORD.findall(e)):
                if not evaluate(e, {}):
                    raise ValueError("dpia: the sizes %s violate %s" % (sizes, c))
                continue
            out.append(e)
        return out

    def valid(self, point, sizes=None):
        values = dict(sizes or {}, **point)
        return all(evaluate(c, values) for c in self.data["constraints"])

    def points(self, sizes=None):
        """every valid point, as dicts, in the order of the domains"""
        for p in itertools.product(*[self.domain(n) for n in self.names]):
            point = dict(zip(self.names, p))
            if self.valid(point, sizes):
                yield point

    def launch(self, point, sizes=None):
        """(global size, local size or None) at a point"""
        values = dict(sizes or {}, **point)
        g = [evaluate(e, values) for e in self.data["global_size"]]
        loc = self.data["local_size"]
        return g, ([evaluate(e, values) for e in loc] if loc is not None else None)

    def local_memory_bytes(self, point, sizes=None):
        return evaluate(self.data["local_memory_bytes"], dict(sizes or {}, **point))


# dpia.rewrite and dpia.exploration use _process: imported once everything above is defined
from . import rewrite  # noqa: E402
from . import exploration  # noqa: E402
from .exploration import explore, Exploration  # noqa: E402
