#!/usr/bin/env python3
"""Translation throughput over a search's strategy space: a benchmark that
prints figures, not a test.

  bench/variants.py [--dpia build/dpia] [--rounds 3] [--repeat 10]
  bench/variants.py [--dpia ...] --dump DIR   # every output of every kernel (diff -r two builds')
  bench/variants.py [--dpia ...] --callgrind  # instructions per translation, by stage

The space is that of samples/dot_vec.dpia's strategy (paper section 6.3) as
a search would enumerate it: vector width V in 1, 2, 4, 8, 16 (1: no
asVector, samples/dot_partial.dpia's), work-group size WG in 32, 64, 128,
256, chunk C in 16, 32, 64, 256, 1024, 4096 (the products each work-item
reduces sequentially), with or without a toLocal stage (the partial sums
go through local memory, then each work-item copies one out): 240 kernels.  A small chunk is the costly
case: reduceSeq over a constant length of at most 16 is unrolled, and every
step's indices are simplified.

All requests go to one `dpia batch --no-verify` process (translation only,
OpenCL C), the one-line kernel `xs |> mapGlobal (\\x -> x * 2.0)` among
them: each round sends, for each variant, a group of --repeat requests of
the one-line kernel, then a group of the variant; a group is sent once the
answers to the one before are in, and timed from sending to its last
answer, in CPU time of the dpia process (Linux's /proc/PID/schedstat; wall
time elsewhere), which the load of a shared machine disturbs far less than
wall time.  Per kernel, the figure is the median of its groups; the mean
over the variants is 240 over the sum of their times (variants per second
through the whole space).  Targets (issue 35): mean at most 2.5x and
slowest at most 4x the one-line kernel's time; the last line says whether
they hold (exit 0 if so, 1 if not).  The machine is shared and noisy:
compare figures of one run; callgrind's instruction counts
(valgrind --tool=callgrind build/dpia batch --no-verify < requests) are
repeatable where times are not: --callgrind counts them, by stage.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

WIDTHS = [1, 2, 4, 8, 16]
GROUPS = [32, 64, 128, 256]
CHUNKS = [16, 32, 64, 256, 1024, 4096]
TARGET_MEAN, TARGET_SLOWEST = 2.5, 4.0

ONE_LINE = "kernel scale (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x * 2.0)\n"


def variant_source(width, group, chunk, local):
    """samples/dot_vec.dpia with V, WG, C and the toLocal stage chosen."""
    inputs = "zip xs ys" if width == 1 else "zip (asVector %d xs) (asVector %d ys)" % (width, width)
    reduce = "(\\zs2 -> reduceSeq (\\x a -> fst x * snd x + a) 0.0 zs2)"
    if local:
        per_group = ("zs1 |> split %d\n           |> toLocal (mapLocal %s)\n"
                     "           |> mapLocal (\\s -> s)" % (chunk, reduce))
    else:
        per_group = "zs1 |> split %d\n           |> mapLocal %s" % (chunk, reduce)
    return ("kernel dotVar (N: nat) (xs ys: [N]float) =\n"
            "  %s\n"
            "  |> split (%d * %d)\n"
            "  |> mapWorkgroup (\\zs1 ->\n"
            "       %s)\n"
            "  |> join\n%s" % (inputs, chunk, group, per_group, "" if width == 1 else "  |> asScalar\n"))


def unrolled(name):
    """Whether the variant's reduceSeq, over its chunk of 16, is unrolled (a
    statement a step; the larger chunks' is a loop)."""
    return "_c16" in name


def variants():
    return [("v%d_wg%d_c%d%s" % (v, wg, c, "_local" if local else ""), variant_source(v, wg, c, local))
            for v in WIDTHS for wg in GROUPS for c in CHUNKS for local in (False, True)]


class Batch:
    """One `dpia batch --no-verify` process, fed a group of requests at a
    time: the next group is sent once every answer of the one before is in,
    so that a group's time is its own (and answers never queue up behind a
    reader that the machine's load keeps waiting)."""

    def __init__(self, dpia):
        self.proc = subprocess.Popen([dpia, "batch", "--no-verify"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.sent = 0

    def cpu_seconds(self):
        """The time the process has run on a CPU (Linux's schedstat, in
        nanoseconds), or None where there is none."""
        try:
            with open("/proc/%d/schedstat" % self.proc.pid) as f:
                return int(f.read().split()[0]) * 1e-9
        except (OSError, ValueError, IndexError):
            return None

    def run(self, requests):
        """The answers to requests, and the seconds from sending them to the
        last answer: the process's CPU time (wall time where that cannot be
        read).  All are written before any is read: keep the answers of a
        group within the pipe's buffer (a few short outputs)."""
        c0 = self.cpu_seconds()
        t0 = time.perf_counter()
        for r in requests:
            self.proc.stdin.write(json.dumps(dict(r, id=self.sent)) + "\n")
            self.sent += 1
        self.proc.stdin.flush()
        answers = [json.loads(self.proc.stdout.readline() or "null") for _ in requests]
        seconds = time.perf_counter() - t0
        c1 = self.cpu_seconds()
        if c0 is not None and c1 is not None:
            seconds = c1 - c0
        for answer in answers:
            if answer is None:
                raise SystemExit("dpia batch stopped (exit %s)" % self.proc.poll())
            if answer["status"] != "ok":
                raise SystemExit("request %s: %s %s" % (answer["id"], answer["status"], answer["diagnostics"]))
        return answers, seconds

    def close(self):
        self.proc.stdin.close()
        if self.proc.wait() != 0:
            raise SystemExit("dpia batch failed (exit %d)" % self.proc.returncode)


def dump(dpia, directory):
    """Every kind of output of every variant (and the one-line kernel), one
    file each: two builds' directories compare with diff -r."""
    kinds = ["opencl", "intermediate", "imperative", "json", "header"]
    kernels = [("one_line", ONE_LINE)] + variants()
    b = Batch(dpia)
    answers = [b.run([{"source": src, "name": name + ".dpia", "emit": kinds}])[0][0] for name, src in kernels]
    b.close()
    os.makedirs(directory, exist_ok=True)
    for (name, _), answer in zip(kernels, answers):
        for kind in kinds:
            text = answer["outputs"][kind]
            if not isinstance(text, str):
                text = json.dumps(text, indent=1, sort_keys=True) + "\n"
            with open(os.path.join(directory, "%s.%s" % (name, kind)), "w") as f:
                f.write(text)
    print("%d kernels x %d outputs in %s" % (len(kernels), len(kinds), directory))


# The stages of a translation: the functions that run once per request
# (app/driver.c's passes, translate/, codegen/kernel.c), none recursive, so
# that callgrind's inclusive count of each is exact.
STAGES = [("parse", "pass_parse"), ("check", "pass_check"), ("strategy", "pass_strategy"),
          ("stage I", "translate_stage1"), ("stage II", "translate_stage2"), ("hoisting", "translate_hoist"),
          ("invariant checks", "phrase_invariant_violation"), ("code generation", "kernel_from_def")]
# functions counted with a stage's function (neither calls the other): the
# invariant checks of a stage's output made from the stage before's (the
# driver calls phrase_invariant_violation_noting; _after, which calls it,
# earlier builds), and stage I as a debug build's driver runs it (its last
# check left to them)
COUNTED_AS = {"phrase_invariant_violation_after": "phrase_invariant_violation",
              "phrase_invariant_violation_noting": "phrase_invariant_violation",
              "translate_stage1_checked_after": "translate_stage1"}


def callgrind_counts(dpia, kernels, directory):
    """Instructions of one `dpia batch --no-verify` translating kernels
    (name, source): {"total": n, stage function: its inclusive n, with the
    code inlined into it from headers, which callgrind lists apart}."""
    out = os.path.join(directory, "callgrind.out")
    dpia = os.path.abspath(dpia)
    requests = "".join(json.dumps({"source": src, "name": name + ".dpia", "id": i}) + "\n"
                       for i, (name, src) in enumerate(kernels))
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, dpia, "batch", "--no-verify"],
                   input=requests, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    # run where no source file is found: from the source tree, a function
    # whose file resolves is listed once more, in part
    report = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", out],
                            capture_output=True, text=True, check=True, cwd=directory).stdout
    wanted = {f for _, f in STAGES} | set(COUNTED_AS)
    counts = {}
    for line in report.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*?)(?:\s+\[.*\])?$", line)
        if not m:
            continue
        n, what = int(m.group(1).replace(",", "")), m.group(2)
        if what == "PROGRAM TOTALS":
            counts["total"] = n
        elif what.rsplit(":", 1)[-1] in wanted:
            f = what.rsplit(":", 1)[-1]
            f = COUNTED_AS.get(f, f)
            counts[f] = counts.get(f, 0) + n
    if "total" not in counts:
        raise SystemExit("callgrind_annotate printed no total")
    return counts


def callgrind(dpia):
    """Instructions per translation, by stage, as BENCHMARKS.md counts them:
    the one-line kernel from 11 requests less 1, a variant's from the one-line
    kernel and the variants less the one-line kernel alone (startup and the
    first request's reading of the primitives' signatures left out)."""
    for tool in ("valgrind", "callgrind_annotate"):
        if not shutil.which(tool):
            raise SystemExit("--callgrind needs %s (valgrind's package)" % tool)
    one = ("one_line", ONE_LINE)
    space = variants()
    chunk16 = [v for v in space if unrolled(v[0])]
    with tempfile.TemporaryDirectory() as d:
        base = callgrind_counts(dpia, [one], d)
        runs = [("one-line", callgrind_counts(dpia, [one] * 11, d), 10),
                ("mean (%d)" % len(space), callgrind_counts(dpia, [one] + space, d), len(space)),
                ("chunk 16 (%d)" % len(chunk16), callgrind_counts(dpia, [one] + chunk16, d), len(chunk16))]
    keys = [f for _, f in STAGES] + ["total"]
    per = [(label, {k: (c.get(k, 0) - base.get(k, 0)) / n for k in keys}) for label, c, n in runs]
    # the variants whose reduceSeq is a loop, from the two means
    others = len(space) - len(chunk16)
    per.append(("others (%d)" % others,
                {k: (per[1][1][k] * len(space) - per[2][1][k] * len(chunk16)) / others for k in keys}))
    print("instructions per translation (callgrind, %s batch --no-verify)" % dpia)
    print("%-18s" % "stage" + "".join("%15s" % label for label, _ in per))
    for name, f in STAGES + [("other", None), ("total", "total")]:
        cells = [v["total"] - sum(v[g] for _, g in STAGES) if f is None else v[f] for _, v in per]
        print("%-18s" % name + "".join("%15s" % format(round(x), ",") for x in cells))
    print("%-18s" % "ratio" + "".join("%14.2fx" % (v["total"] / per[0][1]["total"]) for _, v in per))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dpia", default=os.path.join(HERE, "..", "build", "dpia"))
    ap.add_argument("--rounds", type=int, default=3, help="rounds through the space (a kernel's median counts)")
    ap.add_argument("--repeat", type=int, default=10, help="requests per kernel in a group")
    ap.add_argument("--dump", metavar="DIR", help="write every output of every variant to DIR instead")
    ap.add_argument("--callgrind", action="store_true",
                    help="count instructions per translation by stage (valgrind) instead")
    args = ap.parse_args()
    if args.dump:
        dump(args.dpia, args.dump)
        return 0
    if args.callgrind:
        return callgrind(args.dpia)
    kernels = [("one-line kernel", ONE_LINE)] + variants()
    groups = [[{"source": src, "name": name + ".dpia"}] * args.repeat for name, src in kernels]
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    b = Batch(args.dpia)
    b.run(groups[0])  # warm-up: the first requests pay for loading and first touches
    # seconds per request of each group, by kernel; the one-line kernel
    # runs before each variant, in the same state of the machine
    times = [[] for _ in kernels]
    for _ in range(args.rounds):
        for k in range(1, len(kernels)):
            for g in (0, k):
                _, seconds = b.run(groups[g])
                times[g].append(seconds / args.repeat)
    cpu = b.cpu_seconds() is not None
    b.close()
    best = [statistics.median(t) for t in times]
    wall = time.perf_counter() - t0
    load_after = os.getloadavg()
    one, space = best[0], best[1:]
    mean = sum(space) / len(space)
    slowest = max(range(len(space)), key=lambda k: space[k])
    fastest = min(range(len(space)), key=lambda k: space[k])
    print("%d requests to one `%s batch --no-verify` in %.1f s; load average %.2f %.2f %.2f before, "
          "%.2f %.2f %.2f after" % (b.sent, args.dpia, wall, *load_before, *load_after))
    print("times: %s of dpia batch per request, the median of a kernel's %d groups of %d (the one-line "
          "kernel's: of %d)" % ("CPU time" if cpu else "wall time", args.rounds, args.repeat, len(times[0])))
    print("%-28s %14s %10s" % ("kernel", "per second", "time ratio"))
    print("%-28s %14.0f %10s" % ("one-line kernel", 1 / one, "1.00x"))
    print("%-28s %14.0f %9.2fx" % ("mean of %d variants" % len(space), 1 / mean, mean / one))
    for label, k in (("slowest", slowest), ("fastest", fastest)):
        print("%-28s %14.0f %9.2fx" % (label + ": " + kernels[k + 1][0], 1 / space[k], space[k] / one))
    # the chunk-16 variants (reduceSeq unrolled) apart from the others
    for label, of_chunk16 in (("of chunk 16", True), ("others", False)):
        group = [k for k in range(len(space)) if unrolled(kernels[k + 1][0]) == of_chunk16]
        worst = max(group, key=lambda k: space[k])
        print("%-28s %14.0f %9.2fx   slowest %s %.2fx" % (
            "mean of %d %s" % (len(group), label), len(group) / sum(space[k] for k in group),
            sum(space[k] for k in group) / len(group) / one, kernels[worst + 1][0], space[worst] / one))
    ok = mean / one <= TARGET_MEAN and space[slowest] / one <= TARGET_SLOWEST
    print("targets (mean <= %.1fx, slowest <= %.1fx): %s" % (TARGET_MEAN, TARGET_SLOWEST, "met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
