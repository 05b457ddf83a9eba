#!/usr/bin/env python3
"""Every sample pipeline (docs/language.md section 8) runs on PoCL through
`dpia run --check` and matches the reference interpreter of the composed
program, at two sizes each; the report has one time line; a wrong second
kernel (patched in the generated program) is caught by --check, and so
is a wrong second output of a pipeline whose result is a pair of arrays
(tests/pipeline/pair_outputs.dpia); sizes
that violate a precondition are refused before anything runs; `dpia
batch` takes a pipeline like a kernel; a launch with no work-item (N = 0)
is left out when what it writes is empty, and refused, naming the launch
and the output, when it is not."""
import json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import pocl_cache  # noqa: E402

dpia, samples = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
env = pocl_cache.env()  # built once per test (tests/pocl_cache.py)

RUNS = [  # file, pipeline, sizes at two points
    ('dot_full.dpia', 'dot', [{'N': 262144}, {'N': 786432}]),
    ('asum_full.dpia', 'asum', [{'N': 262144}, {'N': 524288}]),
    ('atax.dpia', 'atax', [{'M': 100, 'N': 77}, {'M': 64, 'N': 128}]),
    ('atax.dpia', 'ataxVec', [{'M': 100, 'N': 72}, {'M': 64, 'N': 128}]),
    ('mm_packed.dpia', 'mm', [{'M': 32, 'N': 48, 'K': 40}, {'M': 64, 'N': 64, 'K': 64}]),
    ('gemm.dpia', 'gemm', [{'M': 128, 'N': 256, 'K': 512}, {'M': 256, 'N': 512, 'K': 1024}]),
    ('gemm_any.dpia', 'gemmAny', [{'M': 129, 'N': 257, 'K': 513}, {'M': 1, 'N': 1, 'K': 1}]),
]

passed = failed = 0
def report(ok, what, detail=''):
    global passed, failed
    if ok:
        passed += 1
        print(f'PASS {what}')
    else:
        failed += 1
        print(f'FAIL {what}\n  {detail}')

def run(path, name, sizes, *more):
    args = [dpia, 'run', path, '-k', name, '--check', '--seed', '7', *more]
    for n, v in sizes.items():
        args += ['--size', f'{n}={v}']
    return subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)

for f, k, points in RUNS:
    path = os.path.join(samples, f)
    for sizes in points:
        p = run(path, k, sizes, '--repeat', '2')
        ok = (p.returncode == 0 and ': ok' in p.stdout and p.stdout.startswith(f'pipeline {k} on ')
              and len(re.findall(r'^  time: min [0-9.]+ ms, median [0-9.]+ ms over 2 runs', p.stdout, re.M)) == 1)
        report(ok, f'{k} {sizes}', p.stdout + p.stderr)

# launches with no work-item (docs/reference.md, "Sizes that do not
# divide"): the sample pipelines whose sizes may be 0, each left-out launch
# named in the report, against the reference (an empty result, or one the
# later launches compute from empty temporaries); and at N = 1
EMPTY = [  # file, pipeline, sizes, the launches left out
    ('atax.dpia', 'atax', {'M': 4, 'N': 0}, ['atv']),
    ('atax.dpia', 'atax', {'M': 0, 'N': 0}, ['ax', 'atv']),
    ('atax.dpia', 'atax', {'M': 1, 'N': 1}, []),
    ('atax.dpia', 'ataxVec', {'M': 3, 'N': 0}, ['atvVec']),
    ('mm_packed.dpia', 'mm', {'M': 0, 'N': 16, 'K': 5}, ['mmPackedBlock']),
    ('gemm_any.dpia', 'gemmAny', {'M': 0, 'N': 3, 'K': 2}, ['gemmAnyBlocks']),
    ('dot_any.dpia', 'dotAnyFull', {'N': 1}, []),
    ('dot_any.dpia', 'asumAnyFull', {'N': 1}, []),
]
for f, k, sizes, left_out in EMPTY:
    p = run(os.path.join(samples, f), k, sizes)
    launches = re.search(r'^  launches: (.*)$', p.stdout, re.M)
    said = [l.split(' ')[0] for l in launches.group(1).split(', ') if l.endswith(' (left out: no work-item and nothing to write)')] if launches else None
    report(p.returncode == 0 and said == left_out and
           ('the result is empty, as the reference' in p.stdout or 'relative error' in p.stdout),
           f'{k} {sizes}: {", ".join(left_out) or "nothing"} left out', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
# the sum of nothing is 0.0, which the reference gives too (a check that
# shows only that: exit 3, E0006, the values agreeing)
for k in ('dotAnyFull', 'asumAnyFull'):
    p = run(os.path.join(samples, 'dot_any.dpia'), k, {'N': 0})
    report(p.returncode == 3 and 'error[E0006]' in p.stderr and 'so the check shows only that the result is 0 too'
           in p.stderr,
           f'{k} at N = 0 writes 0.0', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
empty = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'empty.dpia')
p = run(empty, 'halfPipe', {'N': 0})
report(p.returncode == 2 and not p.stdout and 'error[E0413]: pipeline halfPipe, launch 0 (kernel halfEmpty): the '
       'NDRange has no '
       'work-item at these sizes (global size 0 in dimension 0) but output output_2 (buffer tmp1) has 4 elements, '
       'which no work-item would write' in p.stderr and 'empty.dpia:41:74: error[E0413]' in p.stderr,
       'a launch with no work-item and an output that is not empty is refused', f'exit {p.returncode}\n{p.stderr}')

path = os.path.join(samples, 'dot_full.dpia')
with tempfile.TemporaryDirectory() as tmp:
    # sumAll made to skip the first partial sum: only the whole pipeline's
    # result against the reference can see it
    src = subprocess.run([dpia, 'translate', path, '-k', 'dot'], capture_output=True, text=True).stdout
    patched, n = re.subn(r'for \(int i = 0; i < M;', 'for (int i = 1; i < M;', src)
    bad = os.path.join(tmp, 'bad.cl')
    with open(bad, 'w') as fh:
        fh.write(patched)
    p = run(path, 'dot', {'N': 262144}, '--opencl-source=' + bad)
    report(n == 1 and p.returncode == 3 and "pipeline 'dot' differs from the reference" in p.stderr,
           'a patched second kernel is caught by --check', f'patched {n} site(s); exit {p.returncode}\n{p.stderr}')

# a pipeline with two outputs (pair_outputs.dpia): --check compares both,
# so a wrong second array alone is caught
pair = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pair_outputs.dpia')
with tempfile.TemporaryDirectory() as tmp:
    src = subprocess.run([dpia, 'translate', pair, '-k', 'pairOut'], capture_output=True, text=True).stdout
    patched, n = re.subn(r'output_2\[gid\] = xs\[gid\] \+ 1\.0f;', 'output_2[gid] = xs[gid] + 1.5f;', src)
    bad = os.path.join(tmp, 'bad.cl')
    with open(bad, 'w') as fh:
        fh.write(patched)
    p = run(pair, 'pairOut', {'N': 37}, '--opencl-source=' + bad)
    report(n == 1 and p.returncode == 3 and "pipeline 'pairOut' differs from the reference" in p.stderr,
           'a wrong second output of a pipeline is caught by --check',
           f'patched {n} site(s); exit {p.returncode}\n{p.stderr}')
    p = run(pair, 'pairOut', {'N': 37}, '--json')
    try:
        r = json.loads(p.stdout)
        ok = p.returncode == 0 and r['pipeline'] == 'pairOut' and r['check']['ok'] is True
    except (ValueError, KeyError, TypeError):
        ok = False
    report(ok, 'dpia run --json of a pipeline with two outputs', p.stdout + p.stderr)

p = run(path, 'dot', {'N': 1000})
report(p.returncode == 1 and 'N = 1000 does not satisfy N % 262144 == 0' in p.stderr and not p.stdout,
       'a violated precondition stops the run', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
p = run(path, 'dot', {})
report(p.returncode == 2 and "pipeline 'dot' needs a value for its size N" in p.stderr,
       'a missing size is a usage error', f'exit {p.returncode}\n{p.stderr}')

# dpia batch takes a pipeline as it takes a kernel
req = json.dumps({'id': 1, 'source': open(path).read(), 'kernel': 'dot', 'emit': ['json', 'header']})
p = subprocess.run([dpia, 'batch'], input=req + '\n', capture_output=True, text=True, timeout=300)
try:
    r = json.loads(p.stdout)
    ok = (r['status'] == 'ok' and r['outputs']['json']['pipeline'] == 'dot'
          and [l['kernel'] for l in r['outputs']['json']['launches']] == ['dotParts', 'dotSum']
          and 'dpia_dot_launch' in r['outputs']['header'])
except (ValueError, KeyError, TypeError):
    ok = False
report(ok, 'dpia batch translates a pipeline', p.stdout + p.stderr)

# dpia run --json of a pipeline: one report object naming it
p = run(path, 'dot', {'N': 262144}, '--json')
try:
    r = json.loads(p.stdout)
    ok = p.returncode == 0 and r['pipeline'] == 'dot' and r['check']['ok'] is True and r['min_ms'] > 0
except (ValueError, KeyError, TypeError):
    ok = False
report(ok, 'dpia run --json of a pipeline', p.stdout + p.stderr)

# --emit=space of a pipeline: its kernels' search spaces, as a JSON array
p = subprocess.run([dpia, 'translate', path, '-k', 'dot', '--emit=space'], capture_output=True, text=True, timeout=120)
try:
    ok = p.returncode == 0 and [o['kernel'] for o in json.loads(p.stdout)] == ['dotParts', 'dotSum']
except (ValueError, KeyError, TypeError):
    ok = False
report(ok, '--emit=space -k dot is the array of its kernels\' spaces', p.stdout + p.stderr)

print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
