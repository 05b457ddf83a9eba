#!/usr/bin/env python3
"""The headers of `dpia translate --emit=header` compile without warnings.

For every sample: its header (all kernels), compiled as C11 and as C++17
with -Wall -Wextra -Wpedantic -Werror, both alone and all samples' headers
in one translation unit (the shared part is defined once); two translation
units including the same header link into one program (everything in it
has internal linkage); a header for one kernel (-k) with user launch sizes.

usage: compile_headers.py DPIA SAMPLES_DIR CC CXX [MORE.dpia...]
"""
import glob
import os
import subprocess
import sys
import tempfile

CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Wshadow", "-Wstrict-prototypes",
          "-Wmissing-prototypes", "-Wconversion", "-Wcast-qual"]
CXXFLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Wshadow", "-Wconversion",
            "-Wcast-qual", "-Wold-style-cast", "-Wzero-as-null-pointer-constant"]

failures = []


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        failures.append(what)
        print("FAIL %s\n$ %s\n%s" % (what, " ".join(cmd), p.stdout))
    return p.returncode == 0


def compile_unit(cc, flags, source, obj, what):
    return run([cc] + flags + ["-c", source, "-o", obj], what)


def main():
    dpia, samples, cc, cxx = sys.argv[1:5]
    files = sorted(glob.glob(os.path.join(samples, "*.dpia"))) + sys.argv[5:]
    if not files:
        print("no samples in", samples)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        headers = []
        for f in files:
            name = os.path.splitext(os.path.basename(f))[0]
            h = os.path.join(tmp, name + ".h")
            if not run([dpia, "translate", f, "--emit=header", "-o", h], "dpia translate --emit=header " + f):
                continue
            text = open(h).read()
            guard = "DPIA_GENERATED_" + name.upper() + "_H"
            if "#ifndef " + guard not in text:
                failures.append("include guard %s in %s" % (guard, h))
            if 'extern "C"' not in text:
                failures.append('extern "C" in ' + h)
            headers.append(h)
            for lang, comp, flags, ext in (("C11", cc, CFLAGS, ".c"), ("C++17", cxx, CXXFLAGS, ".cpp")):
                src = os.path.join(tmp, "use_" + name + ext)
                with open(src, "w") as out:
                    out.write('#include "%s"\n#include "%s" /* guarded */\nint main(void) { return 0; }\n' % (h, h))
                compile_unit(comp, flags, src, src + ".o", "%s: %s" % (lang, os.path.basename(h)))
        # every header in one translation unit
        for lang, comp, flags, ext in (("C11", cc, CFLAGS, ".c"), ("C++17", cxx, CXXFLAGS, ".cpp")):
            src = os.path.join(tmp, "all" + ext)
            with open(src, "w") as out:
                for h in headers:
                    out.write('#include "%s"\n' % h)
                out.write("int main(void) { return 0; }\n")
            compile_unit(comp, flags, src, src + ".o", "%s: all headers in one unit" % lang)
        # two units with the same header link together (C and C++ mixed)
        gemv = os.path.join(tmp, "gemv.h")
        a = os.path.join(tmp, "a.c")
        b = os.path.join(tmp, "b.cpp")
        with open(a, "w") as out:
            out.write('#include "%s"\nint use_a(cl_command_queue q);\n'
                      'int use_a(cl_command_queue q) { return dpia_gemv_launch(q, 0, 1.0f, 0.0f, 0, 0, 0, 0, 64); }\n'
                      % gemv)
        with open(b, "w") as out:
            out.write('#include "%s"\nextern "C" int use_a(cl_command_queue q);\n'
                      'int main() { return use_a(nullptr) == dpia_gemv_launch(nullptr, nullptr, 1.0f, 0.0f, '
                      'nullptr, nullptr, nullptr, 0, 64) ? 0 : 1; }\n' % gemv)
        if compile_unit(cc, CFLAGS, a, a + ".o", "two units: C") and \
                compile_unit(cxx, CXXFLAGS, b, b + ".o", "two units: C++"):
            exe = os.path.join(tmp, "two")
            if run([cxx, a + ".o", b + ".o", "-o", exe, "-lOpenCL"], "two units link"):
                # no queue: both launches fail the same way, inside OpenCL
                run([exe], "two units run")
        # one kernel, user launch sizes
        h = os.path.join(tmp, "scal_local.h")
        if run([dpia, "translate", os.path.join(samples, "scal.dpia"), "-k", "scal", "--local-size=64",
                "--emit=header", "-o", h], "header with -k and --local-size"):
            text = open(h).read()
            if "dpia_scalVec_launch" in text or "dpia_scal_launch" not in text:
                failures.append("-k scal: only scal's launcher")
            if "dpia_local[0] = dpia_size_(64LL" not in text or "dpia_global, dpia_local," not in text:
                failures.append("--local-size=64: the launcher uses local size 64")
            src = os.path.join(tmp, "scal_local.c")
            with open(src, "w") as out:
                out.write('#include "%s"\nint main(void) { return 0; }\n' % h)
            compile_unit(cc, CFLAGS, src, src + ".o", "C11: header with --local-size")
    for f in failures:
        print("failed:", f)
    print("%d header(s), %d failure(s)" % (len(headers), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
