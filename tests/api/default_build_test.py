#!/usr/bin/env python3
"""A default configuration (meson setup with no options, as a user does
before meson install) defines no benchmark and no fuzz target, so that
meson install, which builds every target first, does not build them; with
-Dbench=true the benchmarks are there (so the first check cannot pass
because the targets were not listed at all).

usage: default_build_test.py SOURCE_ROOT
Configures two temporary build directories (no compilation) and reads
their targets with meson introspect.  Prints what it found and exits 1 on
a failure.
"""
import json
import os
import subprocess
import sys
import tempfile


def targets(source, build, options):
    p = subprocess.run(["meson", "setup", build, source] + options, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print("$ meson setup %s\n%s" % (" ".join(options), p.stdout))
        sys.exit(1)
    p = subprocess.run(["meson", "introspect", build, "--targets"], stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(p.stdout)


def under(target, source, directory):
    return os.path.relpath(target["defined_in"], source).split(os.sep)[0] == directory


def main():
    source = os.path.abspath(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        default = targets(source, os.path.join(tmp, "default"), [])
        dev = [t["name"] for t in default if under(t, source, "bench") or under(t, source, "fuzz")]
        print("default configuration: %d targets" % len(default))
        if dev:
            failures.append("a default build (and so meson install) builds %s" % ", ".join(sorted(dev)))
        if not any(t["name"] == "dpia" and t["installed"] for t in default):
            failures.append("a default build has no installed dpia target: the listing is not what it seems")
        bench = targets(source, os.path.join(tmp, "bench"), ["-Dbench=true"])
        names = {t["name"] for t in bench if under(t, source, "bench")}
        print("-Dbench=true: %s" % ", ".join(sorted(names)))
        for name in ("blas_bench", "throughput", "stage_bench", "check_bench", "size_bench", "launch_bench"):
            if name not in names:
                failures.append("-Dbench=true does not build %s" % name)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
