#!/usr/bin/env python3
"""`meson install` puts dpia.h, libdpia and dpia.pc in place, and a small
program builds against them with `pkg-config --cflags --libs dpia` and
translates a kernel; the installed library exports exactly the dpia_*
functions the installed dpia.h declares (`nm -D --defined-only`).

usage: install_test.py BUILD_DIR CC [SANITIZE]
(SANITIZE: meson's b_sanitize, e.g. address,undefined; the program is then
built with the same -fsanitize, as a sanitized libdpia needs)
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

PROGRAM = r'''
#include <dpia.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  const char *text = "kernel scal (N: nat) (alpha: float) (xs: [N]float) =\n"
                     "  xs |> mapGlobal (\\x -> alpha * x)\n";
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.emit = DPIA_EMIT_OPENCL;
  opt.emit_also = DPIA_EMIT_BIT(DPIA_EMIT_JSON);
  DpiaResult *r;
  int status = dpia_process("scal.dpia", text, strlen(text), &opt, &r);
  const char *json = dpia_result_emitted(r, DPIA_EMIT_JSON, NULL);
  int ok = status == DPIA_OK && strstr(dpia_result_output(r, NULL), "kernel void scal(") &&
           json && strstr(json, "\"role\": \"scalar\"");
  printf("%s%s", ok ? "translated\n" : "failed\n", dpia_result_diagnostics(r));
  dpia_result_free(r);
  return ok ? 0 : 1;
}
'''


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if p.returncode != 0:
        print("$ %s\n%s" % (" ".join(cmd), p.stdout))
        sys.exit(1)
    return p.stdout


def main():
    build, cc = sys.argv[1:3]
    sanitize = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] not in ("", "none") else None
    with tempfile.TemporaryDirectory() as dest:
        run(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", dest])
        found = {}
        for pattern in ("dpia.h", "libdpia.so*", "dpia.pc", "dpia"):
            hits = [p for p in glob.glob(os.path.join(dest, "**", pattern), recursive=True) if os.path.isfile(p)]
            hits.sort(key=lambda p: "/bin/" not in p)  # the dpia of bin/
            if not hits:
                print("meson install did not install", pattern)
                return 1
            found[pattern] = hits[0]
        print("installed:", ", ".join(os.path.relpath(p, dest) for p in found.values()))
        # the documentation: the language reference and the rest of docs/
        for doc in ("reference.md", "language.md", "errors.md", "README.md"):
            if not glob.glob(os.path.join(dest, "**", "share", "doc", "dpia", doc), recursive=True):
                print("meson install did not install", doc, "in share/doc/dpia")
                return 1
        env = dict(os.environ)
        env["PKG_CONFIG_PATH"] = os.path.dirname(found["dpia.pc"])
        env["PKG_CONFIG_SYSROOT_DIR"] = dest
        flags = run(["pkg-config", "--cflags", "--libs", "dpia"], env).split()
        print("pkg-config --cflags --libs dpia:", " ".join(flags))
        if not any(f.startswith("-I" + dest) for f in flags) or "-ldpia" not in flags:
            print("pkg-config flags do not point into the installation")
            return 1
        src = os.path.join(dest, "prog.c")
        exe = os.path.join(dest, "prog")
        with open(src, "w") as f:
            f.write(PROGRAM)
        extra = ["-fsanitize=" + sanitize] if sanitize else []
        run([cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", src, "-o", exe] + extra + flags)
        # the installed dpia starts with a clean environment (its RPATH finds
        # libdpia) and libdpia carries a versioned SONAME
        clean = {"PATH": "/usr/bin:/bin"}
        p = subprocess.run([found["dpia"], "--version"], capture_output=True, text=True, env=clean)
        print("installed dpia --version:", p.returncode, p.stdout.strip(), p.stderr.strip())
        if p.returncode != 0 or not p.stdout.startswith("dpia "):
            print("the installed dpia does not start without LD_LIBRARY_PATH")
            return 1
        sample = os.path.join(dest, "scal.dpia")
        with open(sample, "w") as f:
            f.write("kernel scal (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> 2.0 * x)\n")
        p = subprocess.run([found["dpia"], "translate", "--no-verify", sample], capture_output=True, text=True,
                           env=clean)
        if p.returncode != 0 or "kernel void scal(" not in p.stdout:
            print("the installed dpia does not translate:", p.returncode, p.stdout, p.stderr)
            return 1
        # dpia test and dpia-filecheck come with dpia
        with open(sample, "a") as f:
            f.write("-- ARGS: --no-verify\n-- CHECK: kernel void scal(\n-- CHECK-SAME: output\n")
        p = subprocess.run([found["dpia"], "test", sample], capture_output=True, text=True, env=clean)
        if p.returncode != 0 or "1 passed, 0 failed" not in p.stdout:
            print("the installed dpia test fails:", p.returncode, p.stdout, p.stderr)
            return 1
        filecheck = [p for p in glob.glob(os.path.join(dest, "**", "bin", "dpia-filecheck"), recursive=True)]
        if not filecheck:
            print("meson install did not install dpia-filecheck")
            return 1
        p = subprocess.run([filecheck[0], sample], input="kernel void scal(global float *restrict output,\n",
                           capture_output=True, text=True, env=clean)
        if p.returncode != 0:
            print("the installed dpia-filecheck fails:", p.returncode, p.stdout, p.stderr)
            return 1
        print("installed dpia test and dpia-filecheck run")
        libs = [p for p in glob.glob(os.path.join(dest, "**", "libdpia.so*"), recursive=True)]
        names = sorted(os.path.basename(p) for p in libs)
        print("installed libraries:", ", ".join(names))
        if "libdpia.so.0" not in names or "libdpia.so" not in names:
            print("libdpia is not installed as libdpia.so.0 with a libdpia.so link")
            return 1
        dyn = run(["readelf", "-d", [p for p in libs if os.path.basename(p) == "libdpia.so.0"][0]])
        if "Library soname: [libdpia.so.0]" not in dyn:
            print("libdpia has no SONAME libdpia.so.0:\n" + dyn)
            return 1
        # the library exports the dpia_* functions of dpia.h and
        # nothing else (hidden visibility, DPIA_API)
        exported = set()
        for line in run(["nm", "-D", "--defined-only", os.path.realpath(found["libdpia.so*"])]).splitlines():
            fields = line.split()
            if fields:
                exported.add(fields[-1].split("@")[0])
        with open(found["dpia.h"]) as f:
            declared = set(re.findall(r"^DPIA_API [^;]*?\b(dpia_\w+)\(", f.read(), re.M))
        print("exported: %d symbols, dpia.h declares %d functions" % (len(exported), len(declared)))
        if exported - declared:
            print("libdpia exports what dpia.h does not declare:", " ".join(sorted(exported - declared)))
            return 1
        if declared - exported:
            print("libdpia does not export:", " ".join(sorted(declared - exported)))
            return 1
        needed = run(["readelf", "-d", found["dpia"]])
        if "Shared library: [libdpia.so.0]" not in needed:
            print("dpia does not depend on libdpia.so.0:\n" + needed)
            return 1
        env["LD_LIBRARY_PATH"] = os.path.dirname(found["libdpia.so*"])
        out = run([exe], env)
        print(out, end="")
        if "translated" not in out:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
