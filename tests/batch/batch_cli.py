#!/usr/bin/env python3
"""`dpia batch` on the command line: responses come back one per request
and are flushed at once (a request is answered before the next is sent),
--no-verify changes the default, bad arguments are refused.

usage: batch_cli.py DPIA SAMPLES_DIR
"""
import json
import os
import subprocess
import sys


def rewrite_requests(dpia, samples, failures):
    """"action": "rewrite": the listing's positions are those of `dpia
    rewrite --list --json`; a derivation by rule names and paths alone,
    each response's program the source of the next request, ends in a
    program `dpia check` accepts and is the same as `dpia rewrite
    --apply`'s; refusals carry their codes; "high_level" with check"""
    path = os.path.join(samples, "explore", "dot.dpia")
    dot = open(path).read()
    cli = subprocess.run([dpia, "rewrite", path, "-k", "dotHL", "--list", "--json"], capture_output=True, text=True)

    def ask(reqs):
        out = subprocess.run([dpia, "batch"], input="".join(json.dumps(r) + "\n" for r in reqs),
                             capture_output=True, text=True)
        return [json.loads(l) for l in out.stdout.splitlines()]

    got = ask([{"id": "list", "action": "rewrite", "source": dot, "kernel": "dotHL", "name": path}])
    if len(got) != 1 or got[0]["status"] != "ok" or got[0]["outputs"]["positions"] != json.loads(cli.stdout)["positions"]:
        failures.append("rewrite listing: %s vs %s" % (got, cli.stdout))
    src = dot
    for rule, params in (("fuseReduceMap@0.1.0", {}), ("splitJoin@.", {"n": 128}), ("lowerWorkgroup@1", {}),
                         ("lowerLocal@1.0.1", {}), ("lowerReduceSeq@1.0.1.1.0", {})):
        req = {"id": rule, "action": "rewrite", "source": src, "kernel": "dotParts", "apply": rule}
        if params:
            req["params"] = params
        got = ask([req])
        if len(got) != 1 or got[0]["status"] != "ok" or not got[0]["outputs"]["program"]:
            failures.append("rewrite %s: %s" % (rule, got))
            return
        src = got[0]["outputs"]["program"]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rewrite",
                           "dot_parts_derived.dpia")) as f:
        if src != f.read():
            failures.append("the batch derivation differs from dot_parts_derived.dpia:\n%s" % src)
    # the derived dotParts translates: dotHL alone is left high-level
    got = ask([{"id": 1, "action": "check", "source": src, "high_level": True},
               {"id": 2, "action": "check", "source": dot, "high_level": True},
               {"id": 3, "action": "check", "source": dot},
               {"id": 4, "action": "rewrite", "source": dot, "kernel": "dotHL", "apply": "lowerLocal@1"},
               {"id": 5, "action": "rewrite", "source": dot, "kernel": "dotHL", "apply": "vectorise@1",
                "params": {"n": 5}},
               {"id": 6, "action": "rewrite", "source": dot, "apply": "lowerSeq@1"},
               {"id": 7, "action": "translate", "source": dot, "apply": "lowerSeq@1"},
               {"id": 8, "action": "rewrite", "source": dot, "kernel": "dotHL", "params": {"n": 4}},
               {"id": 9, "action": "rewrite", "source": dot, "kernel": "dotHL", "apply": "vectorise@1",
                "params": {"n": -4}}])
    codes = [(g["status"], [d["code"] for d in g["diagnostics"]]) for g in got]
    want = [("ok", ["E0607"]), ("ok", ["E0607", "E0607"]), ("error", ["E0601"] * 3), ("error", ["E1104"]),
            ("error", ["E1103"])] + [("bad_request", ["E0001"])] * 4
    if codes != want:
        failures.append("rewrite and check requests: %s, want %s" % (codes, want))


def main():
    dpia, samples = sys.argv[1:3]
    source = open(os.path.join(samples, "dot_vec.dpia")).read()
    failures = []
    p = subprocess.Popen([dpia, "batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    # one request at a time: the answer must arrive before the next request
    for i, req in enumerate([{"id": i, "source": source, "emit": ["json"]} for i in range(3)] +
                            [{"id": "last", "source": source, "kernel": "dotVec", "emit": "opencl",
                              "verify": False}]):
        p.stdin.write(json.dumps(req) + "\n")
        p.stdin.flush()
        line = p.stdout.readline()
        resp = json.loads(line)
        if resp["id"] != req["id"] or resp["status"] != "ok":
            failures.append("request %r: %s" % (req["id"], line))
        elif "json" in req["emit"] and resp["outputs"]["json"][0]["local_size"] != ["64"]:
            failures.append("metadata of request %r" % req["id"])
    p.stdin.close()
    if p.stdout.read() != "" or p.wait() != 0:
        failures.append("dpia batch did not end cleanly")
    # --no-verify and its default
    out = subprocess.run([dpia, "batch", "--no-verify"], input=json.dumps({"source": source}) + "\n",
                         capture_output=True, text=True)
    if out.returncode != 0 or json.loads(out.stdout)["status"] != "ok":
        failures.append("--no-verify: %s %s" % (out.stdout, out.stderr))
    # "set": the values of tune parameters, as --set
    tuned = ("kernel k (N: nat) (WG: tune [32, 64]) (xs: [N]float) =\n"
             "  xs |> split WG |> mapWorkgroup (\\v -> v |> mapLocal (\\x -> x + 1.0)) |> join\n")
    lines = [{"id": 1, "source": tuned, "set": {"WG": 64}, "emit": "json", "verify": False},
             {"id": 2, "source": tuned, "set": {"WG": 48}},
             {"id": 3, "source": tuned, "set": {"WG": "x"}}]
    out = subprocess.run([dpia, "batch"], input="".join(json.dumps(l) + "\n" for l in lines),
                         capture_output=True, text=True)
    got = [json.loads(l) for l in out.stdout.splitlines()]
    if len(got) != 3 or got[0]["status"] != "ok" or got[0]["outputs"]["json"][0]["local_size"] != ["64"]:
        failures.append("set WG=64: %s" % out.stdout)
    elif (got[1]["exit_code"] != 2 or "48 is not a value of the tune parameter WG" not in got[1]["diagnostics"][0]["message"]
          or got[1]["diagnostics"][0]["code"] != "E0804"):
        failures.append("set WG=48: %s" % got[1])
    elif got[2]["status"] != "bad_request" or got[2]["diagnostics"][0]["code"] != "E0001":
        failures.append("set WG=\"x\": %s" % got[2])
    rewrite_requests(dpia, samples, failures)
    out = subprocess.run([dpia, "batch", "FILE"], input="", capture_output=True, text=True)
    if out.returncode != 2 or "unknown argument 'FILE'" not in out.stderr:
        failures.append("dpia batch FILE must be refused: %s" % out.stderr)
    out = subprocess.run([dpia, "batch", "--help"], capture_output=True, text=True)
    if out.returncode != 0 or "usage: dpia batch" not in out.stdout:
        failures.append("dpia batch --help")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
