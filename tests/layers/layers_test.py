#!/usr/bin/env python3
"""The layers of the library (the top-level meson.build): a source of a layer sees
its own headers, the one header of each layer below it
(LAYER/include/dpia_LAYER.h) and dpia.h; no header of a layer above it and
none of the other headers of a layer below.  The dpia command (app/main.c)
sees only dpia.h.  Each check preprocesses a one-line file with the include
flags the build really uses for a source of that layer
(compile_commands.json), so such an include in the sources fails the build
the same way.  An include by path escapes those flags (#include
"../codegen/kir.h" is found next to the including file whatever -I says),
so every source of a layer is also read: a quoted include that names
another layer's file must name the one header of a layer below (its
include/dpia_LAYER.h), never a file of a layer above nor another header of
a layer below.

usage: layers_test.py BUILD_DIR SOURCE_DIR
"""
import glob
import json
import re
import os
import shlex
import subprocess
import sys
import tempfile

# lowest first; a layer may include the headers of itself and those before it
LAYERS = ["dpia", "translate", "codegen", "verify", "app"]
# a source whose compile command stands for the whole layer
REPRESENTATIVE = {"dpia": "util.c", "translate": "build.c", "codegen": "index.c", "verify": "numeric.c",
                  "app": "driver.c"}


def include_flags(command):
    """the -I and -D options of a compile command (and -std), in order"""
    args = shlex.split(command)
    keep = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-I", "-D", "-isystem"):
            keep += [a, args[i + 1]]
            i += 2
            continue
        if a.startswith(("-I", "-D", "-std=")):
            keep.append(a)
        i += 1
    return [args[0]] + keep


def preprocess(flags, directory, header):
    """(ok, stderr) of preprocessing #include "header" with flags"""
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write('#include "%s"\n' % header)
        name = f.name
    try:
        p = subprocess.run(flags + ["-E", "-o", os.devnull, name], cwd=directory, capture_output=True, text=True)
        return p.returncode == 0, p.stderr
    finally:
        os.unlink(name)


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layer_of(path, source):
    """the layer a file of the source tree belongs to, or None"""
    rel = os.path.relpath(os.path.normpath(path), source)
    top = rel.split(os.sep)[0]
    return top if top in LAYERS else None


def reaching_includes(source, umbrella):
    """quoted includes of a layer's sources that reach a file of another
    layer by path, other than the one header of a layer below: (file,
    line, what) for each"""
    found = []
    for layer in LAYERS:
        files = glob.glob(os.path.join(source, layer, "**", "*.[ch]"), recursive=True)
        for f in sorted(files):
            text = open(f, encoding="utf-8", errors="replace").read()
            for m in INCLUDE.finditer(text):
                name = m.group(1)
                # where the compiler looks first: next to the file, then
                # the root (the tests' include path has it)
                for base in (os.path.dirname(f), source):
                    target = os.path.normpath(os.path.join(base, name))
                    if os.path.isfile(target):
                        break
                else:
                    continue
                other = layer_of(target, source)
                if other is None or other == layer:
                    continue
                below = LAYERS.index(other) < LAYERS.index(layer)
                if below and os.path.basename(target) == umbrella.get(other) and \
                        os.path.dirname(target) == os.path.join(source, other, "include"):
                    continue
                line = text.count("\n", 0, m.start()) + 1
                found.append((os.path.relpath(f, source), line, "%s reaches %s %s (%s)" % (
                    name, "up to" if not below else "into", other,
                    "a layer above" if not below else "not its one header")))
    return found


def self_test():
    """reaching_includes finds an include up a layer and one into a lower
    layer's own header, and passes the one header of a layer below"""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for d in ("dpia", "codegen", "codegen/include", "verify"):
            os.makedirs(os.path.join(root, d))
        for f in ("codegen/kir.h", "codegen/include/dpia_codegen.h", "verify/x.c", "dpia/a.c"):
            open(os.path.join(root, f), "w").close()
        with open(os.path.join(root, "dpia", "a.c"), "w") as f:
            f.write('#include "../codegen/kir.h"\n')
        with open(os.path.join(root, "verify", "x.c"), "w") as f:
            f.write('#include "../codegen/include/dpia_codegen.h"\n#include "codegen/kir.h"\n')
        got = reaching_includes(root, {"codegen": "dpia_codegen.h"})
        want = [("dpia/a.c", 1, "up to"), ("verify/x.c", 2, "into")]
        return [(f, l) for f, l, _ in got] == [(f, l) for f, l, _ in want] and \
            all(w in g[2] for g, (_, _, w) in zip(got, want))


def main():
    build, source = sys.argv[1:3]
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)

    def command_of(path):
        for e in commands:
            if os.path.normpath(os.path.join(e["directory"], e["file"])) == os.path.normpath(path):
                return e
        return None

    headers = {l: sorted(os.path.basename(h) for h in glob.glob(os.path.join(source, l, "*.h"))) for l in LAYERS}
    # the one header each layer shows the layers above it (none for app: its
    # interface is dpia.h)
    umbrella = {l: os.path.basename(h) for l in LAYERS for h in glob.glob(os.path.join(source, l, "include", "*.h"))}
    failures = []
    checks = 0

    def expect(flags, directory, header, visible, what):
        nonlocal checks
        ok, err = preprocess(flags, directory, header)
        checks += 1
        if visible and not ok:
            failures.append("%s cannot include %s:\n%s" % (what, header, err))
        elif not visible and (ok or "No such file" not in err):
            failures.append("%s can include %s" % (what, header))

    for i, layer in enumerate(LAYERS):
        e = command_of(os.path.join(source, layer, REPRESENTATIVE[layer]))
        if not e:
            failures.append("no compile command for %s/%s" % (layer, REPRESENTATIVE[layer]))
            continue
        flags = include_flags(e["command"])
        expect(flags, e["directory"], "dpia.h", True, layer)
        for h in headers[layer]:
            expect(flags, e["directory"], h, True, layer + " (its own header)")
        for below in LAYERS[:i]:
            if below in umbrella:
                expect(flags, e["directory"], umbrella[below], True, layer + " (the header of %s below it)" % below)
            for h in headers[below]:
                expect(flags, e["directory"], h, False, layer + " (a header of %s below it, not its one header)" % below)
        for above in LAYERS[i + 1:]:
            for h in headers[above] + ([umbrella[above]] if above in umbrella else []):
                expect(flags, e["directory"], h, False, layer + " (a header of %s above it)" % above)
    # the command: only dpia.h
    e = command_of(os.path.join(source, "app", "main.c"))
    if not e:
        failures.append("no compile command for app/main.c")
    else:
        flags = include_flags(e["command"])
        for layer in LAYERS:
            for h in headers[layer] + ([umbrella[layer]] if layer in umbrella else []):
                expect(flags, e["directory"], h, False, "app/main.c (it should see only dpia.h)")
        expect(flags, e["directory"], "dpia.h", True, "app/main.c")
    # includes by path, which no -I flag governs
    if not self_test():
        failures.append("the check of includes by path does not find the includes it should")
    for f, line, what in reaching_includes(source, umbrella):
        checks += 1
        failures.append("%s:%d: %s" % (f, line, what))
    for f in failures:
        print("FAIL", f)
    print("layers: %d includes checked, %d failures" % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
