#!/usr/bin/env python3
"""Valgrind memcheck of the command line: every sample through
`dpia check`, `dpia translate` (verified, written with -o) and `dpia
verify`, plus the error paths (a program with errors, a bad option), each
under

    valgrind --error-exitcode=1 --leak-check=full

A run fails on any memcheck error or leak (exit 1 from valgrind, or any
valgrind report on stderr) or on an unexpected exit code.  No suppressions
are needed: libclang (LLVM 15) and the OpenCL ICD loader, which dpia loads
for every command, are clean under memcheck; `dpia run` (PoCL) is not
covered.  The samples are found at test time; the runs go on in parallel.

Usage: run_valgrind.py VALGRIND DPIA SAMPLES"""
import concurrent.futures, os, re, subprocess, sys, tempfile

valgrind, dpia, samples = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
VALGRIND = [valgrind, '-q', '--error-exitcode=1', '--leak-check=full', '--num-callers=30']
report = re.compile(r'^==\d+== ', re.M)

def run(args, code, tmp):
    cmd = VALGRIND + [dpia] + args
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=900, cwd=tmp)
    except subprocess.TimeoutExpired:
        return f'FAIL dpia {" ".join(args)}: no answer within 900 s'
    err = p.stderr.decode(errors='replace')
    found = report.findall(err)
    if p.returncode != code or found:
        return (f'FAIL dpia {" ".join(args)}: exit {p.returncode}, expected {code}'
                + ('; valgrind reports:\n' + err[-3000:] if found else '\n' + err[-1000:]))
    return f'PASS dpia {" ".join(args)}'

# four samples that between them use every stage (vectors, local memory and
# barriers, pairs, views); memcheck is slow, so not all of them
files = [os.path.join(samples, f) for f in ('dot_vec.dpia', 'gemv.dpia', 'mm_tiled.dpia', 'stencil1d.dpia')]
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, 'bad.dpia')
    with open(bad, 'w') as f:
        f.write('kernel k (N: nat) (xs: [N]float) =\n  xs |> map (\\x -> x)\n'
                'kernel j (N: nat) (xs: [N]float) = xs |> split 0 |> mapGlobal (\\x -> x)\n')
    jobs = []
    for path in files:
        name = os.path.basename(path)
        # libclang under memcheck takes about a minute a call: the verified
        # paths run on one sample (below), the rest without libclang
        jobs += [(['check', '-v', path], 0),
                 (['translate', '--no-verify', path, '-o', os.path.join(tmp, name + '.cl')], 0)]
    jobs += [(['verify', os.path.join(samples, 'dot_partial.dpia')], 0)]
    jobs += [(['check', bad], 1), (['translate', '--emit=json', bad], 1),
             (['translate', '--emit=json', '--emit=opencl', files[0]], 2),
             (['run', files[0], '--size', 'N=1', '--bogus'], 2)]
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda job: run(job[0], job[1], tmp), jobs))
failed = [r for r in results if r.startswith('FAIL')]
for r in results:
    print(r)
print(f'{len(results) - len(failed)} passed, {len(failed)} failed')
sys.exit(1 if failed or not files else 0)
