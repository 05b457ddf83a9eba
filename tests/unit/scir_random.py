#!/usr/bin/env python3
"""scir_random.py: the interference check's look against its walk
(test_scir) on random programs.

Usage: scir_random.py TEST_SCIR GEN_PY SEED COUNT

Writes COUNT programs of `gen.py --seed SEED` for each of its flag sets
(none, --with depmaps, --with vectors, --high-level) to a temporary
directory and runs test_scir on them together with nothing else: the
random programs alone must take both paths and agree."""
import os
import subprocess
import sys
import tempfile

FLAG_SETS = [[], ['--with', 'depmaps'], ['--with', 'vectors'], ['--high-level']]


def main():
    test_scir, gen, seed, count = sys.argv[1:5]
    with tempfile.TemporaryDirectory(prefix='dpia-scir-') as tmp:
        files = []
        for k, flags in enumerate(FLAG_SETS):
            for i in range(int(count)):
                r = subprocess.run([sys.executable, gen, '--seed', seed, '--index', str(i)] + flags,
                                   capture_output=True, text=True, check=True)
                path = os.path.join(tmp, f'r{k}_{i:03}.dpia')
                with open(path, 'w') as f:
                    f.write(r.stdout)
                files.append(path)
        r = subprocess.run([test_scir, '--random'] + files, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            # rK_I.dpia is gen.py --seed SEED --index I with flag set K
            sys.stderr.write(f'(the programs: {gen} --seed {seed} --index I, flag sets {FLAG_SETS})\n')
        return r.returncode


if __name__ == '__main__':
    sys.exit(main())
