#!/usr/bin/env python3
"""The CMake package: `meson install` puts dpiaConfig.cmake in
place; samples/cmake, configured against the installation with
-DCMAKE_PREFIX_PATH, builds with dpia_add_kernels, runs scal on PoCL and
checks the result; editing scal.dpia regenerates scal.h on the next build.

usage: cmake_test.py BUILD_DIR SOURCE_ROOT

Steps: install into a temporary DESTDIR; copy samples/cmake there; cmake
-G Ninja; build; run scal_app (exit 0); a second build does nothing; a
comment appended to scal.dpia reruns dpia (the header is the same); a new
kernel in scal.dpia appears in scal.h and the app rebuilds and runs; the
header names no absolute path; SET WG=64 specialises a tuned kernel; a
malformed SET and two KERNELS are refused at configure time; two targets of
one directory using scal.dpia, a/k.dpia and b/k.dpia in two targets and a
kernel library linked by two targets configure, build and run, and a/k.dpia
with b/k.dpia in one target is refused at configure time.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd, cwd=None, ok=True):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    if ok and p.returncode != 0:
        print("$ %s\n%s" % (" ".join(cmd), p.stdout))
        sys.exit(1)
    return p


def layouts(tmp, src, prefix, check):
    """several targets and kernels: two targets of one directory using
    scal.dpia (one of them specialised to one kernel), a/k.dpia and b/k.dpia
    in two targets, a kernel library shared by two targets (generated once);
    a/k.dpia and b/k.dpia in one target are refused at configure time"""
    proj = os.path.join(tmp, "layouts")
    shutil.copytree(src, proj)
    for d, kernel in (("a", "kA"), ("b", "kB")):
        os.makedirs(os.path.join(proj, d))
        with open(os.path.join(proj, d, "k.dpia"), "w") as f:
            f.write("kernel %s (N: nat) (xs: [N]float) =\n  xs |> mapGlobal (\\x -> x + 1.0)\n" % kernel)
        with open(os.path.join(proj, "use_%s.cpp" % d), "w") as f:
            f.write('#include "k.h"\nint main() { return dpia_%s_launch == nullptr; }\n' % kernel)
    with open(os.path.join(proj, "CMakeLists.txt"), "a") as f:
        f.write("add_executable(scal_again main.cpp)\n"
                "dpia_add_kernels(scal_again SOURCES scal.dpia KERNELS scal)\n"
                "add_executable(use_a use_a.cpp)\ndpia_add_kernels(use_a SOURCES a/k.dpia)\n"
                "add_executable(use_b use_b.cpp)\ndpia_add_kernels(use_b SOURCES b/k.dpia)\n"
                "dpia_add_kernel_library(scal_kernels SOURCES scal.dpia)\n"
                "add_executable(lib_one main.cpp)\ntarget_link_libraries(lib_one PRIVATE scal_kernels)\n"
                "add_executable(lib_two main.cpp)\ntarget_link_libraries(lib_two PRIVATE scal_kernels)\n")
    pb = os.path.join(proj, "b")
    p = run(["cmake", "-S", proj, "-B", pb, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + prefix], ok=False)
    if not check(p.returncode == 0, "two targets sharing scal.dpia, a/k.dpia and b/k.dpia: configure failed:\n"
                 + p.stdout):
        return
    p = run(["cmake", "--build", pb], ok=False)
    if not check(p.returncode == 0, "the layouts do not build:\n" + p.stdout):
        return
    check(p.stdout.count("dpia: scal.dpia -> scal.h") == 3,
          "scal.h is not generated once per target and once for the library:\n" + p.stdout)
    for app in ("scal_app", "scal_again", "lib_one", "lib_two", "use_a", "use_b"):
        r = run([os.path.join(pb, app)], ok=False)
        check(r.returncode == 0, "%s: exit %d %s" % (app, r.returncode, r.stdout))
    check("dpia_scalTwice_launch" not in open(os.path.join(pb, "dpia", "scal_again", "scal.h")).read()
          and "dpia_scalTwice_launch" in open(os.path.join(pb, "dpia", "scal_app", "scal.h")).read(),
          "scal_again's scal.h (KERNELS scal) is scal_app's (every kernel)")
    with open(os.path.join(proj, "CMakeLists.txt"), "a") as f:
        f.write("add_executable(use_both use_a.cpp)\ndpia_add_kernels(use_both SOURCES a/k.dpia b/k.dpia)\n")
    p = run(["cmake", "-S", proj, "-B", pb, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + prefix], ok=False)
    check(p.returncode != 0 and "would both generate k.h" in p.stdout,
          "a/k.dpia and b/k.dpia in one target are not refused:\n" + p.stdout)


def main():
    build, root = sys.argv[1:3]
    if not shutil.which("cmake"):
        print("cmake not found (tools/setup.sh installs it)")
        return 1
    failures = []

    def check(cond, msg):
        if not cond:
            failures.append(msg)
            print("FAIL:", msg)
        return cond

    with tempfile.TemporaryDirectory() as tmp:
        dest = os.path.join(tmp, "dest")
        run(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", dest])
        configs = glob.glob(os.path.join(dest, "**", "cmake", "dpia", "dpiaConfig.cmake"), recursive=True)
        versions = glob.glob(os.path.join(dest, "**", "cmake", "dpia", "dpiaConfigVersion.cmake"), recursive=True)
        if not configs or not versions:
            print("meson install did not install dpiaConfig.cmake and dpiaConfigVersion.cmake")
            return 1
        # <prefix>/<libdir>/cmake/dpia/dpiaConfig.cmake: the prefix holds bin/dpia
        prefix = os.path.dirname(configs[0])
        while not os.path.isfile(os.path.join(prefix, "bin", "dpia")) and prefix != dest:
            prefix = os.path.dirname(prefix)
        print("installed:", os.path.relpath(configs[0], dest), "prefix", os.path.relpath(prefix, dest))
        src = os.path.join(tmp, "sample")
        shutil.copytree(os.path.join(root, "samples", "cmake"), src)
        bld = os.path.join(tmp, "build")
        run(["cmake", "-S", src, "-B", bld, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + prefix])
        out = run(["cmake", "--build", bld]).stdout
        check("dpia: scal.dpia -> scal.h" in out, "the first build does not run dpia")
        header = os.path.join(bld, "dpia", "scal_app", "scal.h")
        check(os.path.isfile(header), "no dpia/scal_app/scal.h in the target's binary directory")
        app = os.path.join(bld, "scal_app")
        p = run([app], ok=False)
        print(p.stdout.strip())
        check(p.returncode == 0 and "0 of 4096 elements wrong" in p.stdout, "scal_app failed: %s" % p.stdout)
        text = open(header).read()
        check(tmp not in text and "from scal.dpia" in text, "scal.h names an absolute path")

        out = run(["cmake", "--build", bld]).stdout
        check("no work to do" in out, "a second build does something:\n" + out)

        dpia_src = os.path.join(src, "scal.dpia")
        with open(dpia_src, "a") as f:
            f.write("-- a comment changes nothing\n")
        out = run(["cmake", "--build", bld]).stdout
        check("dpia: scal.dpia -> scal.h" in out, "editing scal.dpia does not rerun dpia:\n" + out)
        check(open(header).read() == text, "a comment changed scal.h")

        with open(dpia_src, "a") as f:
            f.write("kernel scalTwice (N: nat) (xs: [N]float) =\n  xs |> mapGlobal (\\x -> 2.0 * x)\n")
        out = run(["cmake", "--build", bld]).stdout
        check("dpia: scal.dpia -> scal.h" in out and "dpia_scalTwice_launch" in open(header).read(),
              "a new kernel in scal.dpia is not in scal.h after the rebuild:\n" + out)
        check("Linking CXX executable scal_app" in out, "the app is not rebuilt with the new header:\n" + out)
        p = run([app], ok=False)
        check(p.returncode == 0, "scal_app after the edit: %s" % p.stdout)

        # SET the tuning parameter of a kernel: the header is specialised
        tuned = os.path.join(tmp, "tuned")
        shutil.copytree(src, tuned)
        with open(os.path.join(tuned, "scalT.dpia"), "w") as f:
            f.write("kernel scalT (N: nat) (WG: tune [32, 64]) (xs: [N]float) =\n"
                    "  xs |> split WG |> mapWorkgroup (\\c -> c |> mapLocal (\\x -> 2.0 * x)) |> join\n")
        with open(os.path.join(tuned, "tuned.cpp"), "w") as f:
            f.write('#include "scalT.h"\nint main() { return 0; }\n')
        with open(os.path.join(tuned, "CMakeLists.txt"), "a") as f:
            f.write("add_executable(tuned tuned.cpp)\ndpia_add_kernels(tuned SOURCES scalT.dpia SET WG=64)\n")
        tb = os.path.join(tuned, "b")
        run(["cmake", "-S", tuned, "-B", tb, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + prefix])
        run(["cmake", "--build", tb])
        theader = os.path.join(tb, "dpia", "tuned", "scalT.h")
        check(os.path.isfile(theader) and "reqd_work_group_size(64, 1, 1)" in open(theader).read(),
              "SET WG=64 does not specialise scalT.h")

        # a malformed SET and several KERNELS are refused at configure time
        for extra, what in (("SET WG", "SET"), ("KERNELS scal scalTwice", "KERNELS")):
            bad = os.path.join(tmp, "bad_" + what)
            shutil.copytree(src, bad)
            with open(os.path.join(bad, "CMakeLists.txt"), "a") as f:
                f.write("add_executable(other main.cpp)\ndpia_add_kernels(other SOURCES scal.dpia %s)\n" % extra)
            p = run(["cmake", "-S", bad, "-B", os.path.join(bad, "b"), "-G", "Ninja",
                     "-DCMAKE_PREFIX_PATH=" + prefix], ok=False)
            check(p.returncode != 0 and what in p.stdout, "%s is not refused:\n%s" % (extra, p.stdout))

        layouts(tmp, src, prefix, check)

    print("%s: %d failures" % ("FAIL" if failures else "PASS", len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
