#!/usr/bin/env python3
"""random_rules.py: the rewrite rules on random high-level programs.

Usage: random_rules.py TEST_REWRITE GEN_PY SEED COUNT DEPTH

Writes COUNT programs of `gen.py --high-level --seed SEED` (plain map,
reduce, zip, split, transpose; no strategy) to a temporary directory and
runs `test_rewrite --random DEPTH` on them: every rule application to
DEPTH, at every position the listing gives, computes what the original
program does in the reference interpreter or is refused by a side
condition (E1104, E1105), every fully lowered result passes `dpia check`,
and every rule of the table is applied soundly at least once."""
import os
import subprocess
import sys
import tempfile


def main():
    test_rewrite, gen, seed, count, depth = sys.argv[1:6]
    with tempfile.TemporaryDirectory(prefix='dpia-rules-') as tmp:
        files = []
        for i in range(int(count)):
            r = subprocess.run([sys.executable, gen, '--high-level', '--seed', seed, '--index', str(i)],
                               capture_output=True, text=True, check=True)
            path = os.path.join(tmp, f'hl{i:03}.dpia')
            with open(path, 'w') as f:
                f.write(r.stdout)
            files.append(path)
        # one stream, so that each failure follows the name of its program
        r = subprocess.run([test_rewrite, '--random', depth] + files, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            # hlI.dpia is gen.py --high-level --seed SEED --index I
            sys.stderr.write(f'(the programs: {gen} --high-level --seed {seed} --index I --count 1)\n')
        return r.returncode


if __name__ == '__main__':
    sys.exit(main())
