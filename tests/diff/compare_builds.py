#!/usr/bin/env python3
"""compare_builds.py: two builds of dpia must answer random programs alike.

A change that is not meant to change any output (a faster path, a
refactoring) is checked by the goldens and the variant kernels' dump; this
checks it on random programs as well.  The programs are those of
tests/check/shortcuts.py: tests/diff/gen.py's (no flag, --with depmaps,
--with vectors, --high-level) and gen_derived.py's (no flag, --with
neighbours), each also mutated once (a number changed, a view swapped, a
stage dropped: most are refused, so that the diagnostics are compared too).
Each goes to both builds' `dpia batch --no-verify` as the requests `check`,
`check` with high_level, `rewrite` (the positions of kernel k) and
`translate` with every emit kind for each target (opencl, c, cuda:
docs/targets.md), and the answers must be the same byte for byte.  With
--no-shortcuts the new build also answers with DPIA_DEBUG_NO_SHORTCUTS=1
(the checker's and code generation's general paths), which must be the
same again.

  tests/diff/compare_builds.py --old OLD/dpia --new build/dpia [--seed 1] [--count 150] [--no-shortcuts]

Prints `compare_builds: seed S: P programs, R requests, D differ` and the
first differences; exit 1 if any differ or an answer is an internal error.
"""
import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "check"))
import shortcuts  # noqa: E402  (its generators and mutator)

TARGETS = ["opencl", "c", "cuda"]


def programs(dpia, seed, count):
    rng = random.Random(seed)
    randoms = []
    for flags in ([], ["--with", "depmaps"], ["--with", "vectors"], ["--high-level"]):
        randoms += shortcuts.generated(None, "gen.py", ["--seed", str(seed), "--count", str(count)] + flags)
    for flags in ([], ["--with", "neighbours"]):
        randoms += shortcuts.generated(None, "gen_derived.py", ["--dpia", dpia, "--seed", str(seed), "--count",
                                                                str(max(1, count // 3))] + flags)
    out = []
    for i, text in enumerate(randoms):
        out.append(("random%d.dpia" % i, text))
        out.append(("mutated%d.dpia" % i, shortcuts.mutated(text, rng)))
    return out


def requests(progs):
    lines = []
    for i, (name, text) in enumerate(progs):
        lines.append({"id": [i, "check"], "source": text, "name": name, "action": "check"})
        lines.append({"id": [i, "high"], "source": text, "name": name, "action": "check", "high_level": True})
        lines.append({"id": [i, "rewrite"], "source": text, "name": name, "action": "rewrite", "kernel": "k"})
        for target in TARGETS:
            lines.append({"id": [i, "translate", target], "source": text, "name": name, "target": target,
                          "emit": shortcuts.EMITS})
    return "".join(json.dumps(r) + "\n" for r in lines)


def around(a, b):
    """where a and b first differ, and a's text there (JSON-escaped)"""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return at, a[max(0, at - 200):at + 200]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", required=True, help="the dpia before the change")
    ap.add_argument("--new", required=True, help="the dpia after it (also runs gen_derived.py's walks)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=150, help="random programs per generator and flag set")
    ap.add_argument("--no-shortcuts", action="store_true",
                    help="also compare the new build with DPIA_DEBUG_NO_SHORTCUTS=1")
    args = ap.parse_args()
    progs = programs(args.new, args.seed, args.count)
    text = requests(progs)
    answers = {"old": shortcuts.batch(args.old, text, False), "new": shortcuts.batch(args.new, text, False)}
    if args.no_shortcuts:
        answers["new without shortcuts"] = shortcuts.batch(args.new, text, True)
    nreq = text.count("\n")
    differ = []
    for label, lines in answers.items():
        if len(lines) != nreq:
            differ.append("%s: %d answers to %d requests" % (label, len(lines), nreq))
    for label in answers:
        if label == "new":
            continue
        for a, b in zip(answers["new"], answers[label]):
            if a != b:
                differ.append("%s, at character %d:\n  new:  %s\n  %s: %s" % (json.loads(a).get("id"), *around(a, b), label,
                                                                                 around(b, a)[1]))
    for line in answers["new"]:
        if json.loads(line).get("status") == "internal_error":
            differ.append("internal error: %s" % line[:800])
    print("compare_builds: seed %d: %d programs, %d requests, %d differ" % (args.seed, len(progs), nreq, len(differ)))
    for d in differ[:10]:
        print(d)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
