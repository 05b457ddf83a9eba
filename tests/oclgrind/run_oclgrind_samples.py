#!/usr/bin/env python3
"""Every sample kernel that tests/samples/run_samples.py runs, run again on
Oclgrind's simulated device with --data-races --uniform-writes
(oclgrind_log.py): no two work-items may touch the same byte of local or
global memory between barriers with at least one write (same-value writes
included), no access may fall outside a buffer, and `dpia run --check`
must still match the reference interpreter.  Any message in Oclgrind's log
fails the kernel, and the report names the kernel, the buffer and the two
accesses (work-items and source lines).

Oclgrind interprets every instruction and records every access, a few
thousand times slower than PoCL, so the sizes here are the smallest that
satisfy each kernel's preconditions (dpia translate F -k K --emit=json)
while still giving every parallel dimension at least two work-items, and
two work-groups where the kernel fixes its local size and a second group
costs at most a few seconds: a race needs two work-items, and one between
groups (global memory) two groups.  Sizes that are not a power of two
where the preconditions allow it, as in run_samples.py.

Usage: run_oclgrind_samples.py DPIA SAMPLES_DIR [KERNEL...]
Prints `N passed, M failed`; exit 1 if anything failed.  Without Oclgrind
the test is skipped (77), and fails in CI (CI=true), where tools/setup.sh
has installed it."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'samples'))
import oclgrind_log  # noqa: E402
import cfd_inputs  # noqa: E402

# Oclgrind's device has 32 KiB of local memory, as many GPUs do; a kernel
# that needs more runs on a simulated device with this much (bytes), not
# skipped: gemmBlocks and gemmAnyBlocks keep a 128x256 block of float
# accumulators (128 KiB) in local memory, sized for CPUs' caches
# (samples/gemm.dpia, samples/gemm_any.dpia).
LOCAL_MEM = {'gemmBlocks': 131072, 'gemmAnyBlocks': 131072}

RUNS = [  # file, kernel, sizes: the kernels of run_samples.py, in its order
    ('dot_partial.dpia', 'dotPartial', {'N': 524288}),           # 2 groups of 128
    ('dot_global.dpia', 'dotProducts', {'N': 67}),
    ('dot_global.dpia', 'sumPartial', {'N': 2048}),
    ('dot_vec.dpia', 'dotVec', {'N': 524288}),                   # 1 group of 64: 2 take 10 s, 2.6 GB
    ('scal.dpia', 'scal', {'N': 67}),
    ('scal.dpia', 'scalVec', {'N': 68}),
    ('scal.dpia', 'scalInPlace', {'N': 67}),
    ('scal.dpia', 'scalInPlaceVec', {'N': 8192}),                # 2 groups of 64, 4 float16 a work-item
    ('asum.dpia', 'asumPartial', {'N': 524288}),                 # 2 groups of 128
    ('gemv.dpia', 'gemv', {'M': 3, 'N': 64}),
    ('mm_tiled.dpia', 'mmTiled', {'M': 32, 'N': 32, 'K': 5}),    # 2x2 groups of 16x16
    ('stencil1d.dpia', 'stencil', {'N': 67}),
    ('stencil1d.dpia', 'stencilTiled', {'N': 128}),
    ('stencil1d.dpia', 'stencilChunk', {'N': 192}),             # first, middle and last chunk
    ('jacobi2d.dpia', 'jacobi2d', {'M': 5, 'N': 7}),
    ('jacobi2d.dpia', 'jacobi2dTiled', {'M': 8, 'N': 128}),      # 2x2 groups of 64x4
    ('jacobi2d.dpia', 'jacobi2dIdx', {'M': 5, 'N': 7}),
    ('jacobi2d.dpia', 'jacobi2dChunk', {'M': 5, 'N': 192}),
    ('jacobi2d.dpia', 'jacobi2dStrips', {'M': 8, 'N': 2048}),   # 2x2 groups of one work-item
    ('jacobi2d.dpia', 'jacobi2dCopyBack', {'M': 5, 'N': 7}),
    ('heat3d.dpia', 'heat3d', {'P': 3, 'M': 4, 'N': 5}),
    ('heat3d.dpia', 'heat3dWindow', {'P': 3, 'M': 4, 'N': 5}),
    ('heat3d.dpia', 'heat3dChunk', {'P': 3, 'M': 4, 'N': 192}),
    ('sum_tree.dpia', 'sumTree', {'N': 3}),
    ('md.dpia', 'md', {'N': 67, 'M': 5}),
    ('asum_reorder.dpia', 'asumReorder', {'N': 524288}),
    ('asum_vec.dpia', 'asumVec16', {'N': 8192}),
    ('asum_vec.dpia', 'asumVec16x2', {'N': 8192}),
    ('asum_vec.dpia', 'asumVec16Groups', {'N': 131072}),            # 2 groups of 16
    ('dot_vec16.dpia', 'dotVec16', {'N': 8192}),
    ('dot_vec16.dpia', 'dotVec16x2', {'N': 8192}),
    ('dot_any.dpia', 'dotAny', {'N': 4099}),                     # 2 groups, the last partial
    ('dot_any.dpia', 'scalAny', {'N': 67}),
    ('dot_any.dpia', 'asumAny', {'N': 4095}),                    # the last group partial
    ('dot_any.dpia', 'sumAny', {'M': 67}),
    ('blas2_any.dpia', 'gemvAny', {'M': 3, 'N': 67}),              # chunks of 2, the last 3 padded
    ('blas2_any.dpia', 'gesummvAny', {'N': 11}),                 # the second vector 3 lanes of 8
    ('gemm_any.dpia', 'gemmAnyPackB', {'N': 33, 'K': 3}),         # 4 panels, the second of 1 column of b and zeros, 2 of zeros
    ('gemm_any.dpia', 'gemmAnyBlocks', {'M': 9, 'N': 161, 'K': 515}),  # 2 groups; 2 x 6 tiles computed, rows clamped, the last panel narrow; 3 steps past the slice merged into it, the second slice empty
    ('gemm_any.dpia', 'gemmAnyBlocks', {'M': 9, 'N': 33, 'K': 3}),    # written at 9 x 33: 247 rows of P dropped, the second panel narrow, of 1 column
    ('scal_vec.dpia', 'scalVec16', {'N': 48}),
    ('scal_vec.dpia', 'scalChunk', {'N': 2048}),
    ('gemv_vec.dpia', 'gemvVec', {'M': 3, 'N': 48}),
    ('gemv_vec.dpia', 'gemvVec2', {'M': 3, 'N': 64}),
    ('gemv_vec.dpia', 'gemvVecRows', {'M': 8, 'N': 48}),
    ('gemv_vec.dpia', 'gemvVecRowsGroups', {'M': 128, 'N': 48}),  # 2 groups of 8 work-items
    ('mm_vec.dpia', 'mmVec', {'M': 3, 'N': 32, 'K': 5}),
    ('mm_vec.dpia', 'mmBlock', {'M': 8, 'N': 32, 'K': 5}),
    ('mm_vec.dpia', 'packB', {'N': 32, 'K': 5}),
    ('mm_vec.dpia', 'mmBlockPacked', {'M': 8, 'N': 32, 'K': 5}),
    ('gemm.dpia', 'gemmPackB', {'N': 64, 'K': 5}),
    ('gemm.dpia', 'gemmBlocks', {'M': 128, 'N': 256, 'K': 512}),  # 1 group: 2 take 7 s, 1 GB
    ('nbody.dpia', 'nbody', {'N': 67}),
    ('nbody.dpia', 'nbodyLocal', {'N': 128, 'WG': 64}),           # 2 groups of 64 (WG: tune [64, 128, 256])
    ('nbody.dpia', 'nbodyVec', {'N': 64}),
    ('gesummv.dpia', 'gesummv', {'N': 67}),
    ('gesummv.dpia', 'gesummvVec', {'N': 64}),
    ('nn.dpia', 'nn', {'N': 67}),
    ('mriq.dpia', 'mriq', {'X': 67, 'K': 5}),
    ('mriq.dpia', 'mriqTwo', {'X': 67, 'K': 5}),
    ('mriq.dpia', 'mriqVec', {'X': 64, 'K': 5}),
    ('kmeans.dpia', 'kmeans', {'N': 67, 'K': 3, 'F': 5}),
    ('kmeans.dpia', 'kmeansVec', {'N': 64, 'K': 3, 'F': 5}),
    ('gaussian_blur.dpia', 'gaussian5', {'N': 67}),
    ('gaussian_blur.dpia', 'gaussian3x3', {'M': 5, 'N': 7}),
    ('gaussian_blur.dpia', 'gaussian3x3Prelude', {'M': 5, 'N': 7}),
    ('gaussian_blur.dpia', 'gaussian3x3Rows', {'M': 5, 'N': 7}),
    ('gaussian_blur.dpia', 'gaussian3x3Chunk', {'M': 5, 'N': 192}),  # 3 chunks a row: both clamped ends and one without
    ('mandelbrot.dpia', 'mandelbrot', {'N': 67}),
    ('mandelbrot.dpia', 'mandelbrotTiled', {'N': 128}),             # 2 groups of 64
    ('correlation.dpia', 'mean', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'stddev', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'centre', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'corr', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'corrUpper', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'corrMirror', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'correlation', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'centrePad', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'corrMirrorPad', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'correlationPad', {'M': 7, 'N': 5}),
    ('correlation.dpia', 'corrMirrorPadGroups', {'M': 7, 'N': 5}),  # 7 groups of one
    ('correlation.dpia', 'correlationPadGroups', {'M': 7, 'N': 5}),
    ('covariance.dpia', 'covarMean', {'M': 7, 'N': 5}),
    ('covariance.dpia', 'covarCentre', {'M': 7, 'N': 5}),
    ('covariance.dpia', 'covar', {'M': 7, 'N': 5}),
    ('covariance.dpia', 'covarMirror', {'M': 7, 'N': 5}),
    ('covariance.dpia', 'covarDep', {'M': 7, 'N': 5}),
    ('covariance.dpia', 'covarPacked', {'M': 7, 'N': 5}),
    ('covariance.dpia', 'covarSquare', {'M': 7, 'N': 5}),
    ('covariance.dpia', 'covariance', {'M': 7, 'N': 5}),
    ('covariance.dpia', 'covarMirrorGroups', {'M': 7, 'N': 5}),     # 7 groups of one
    ('covariance.dpia', 'covarianceGroups', {'M': 7, 'N': 5}),
    ('adi.dpia', 'adiKernel1', {'N': 37}),
    ('adi.dpia', 'adiRows', {'N': 12}),                             # 3 work-items of 4 rows, 3 apart
    ('scan_bottom.dpia', 'bottomScan', {'G': 2}),                   # 2 groups of 256
    ('cfd_flux.dpia', 'computeFlux', {'N': 5}),                     # every kind of face (INPUTS)
    ('spmv.dpia', 'csrScalar', {'R': 5, 'C': 3, 'NNZ': 7}),          # row bounds out of range at both ends
    ('spmv.dpia', 'csrVector', {'R': 8, 'C': 3, 'NNZ': 7}),          # 2 groups of 4 rows
    ('spmv.dpia', 'spmvScalar', {'R': 13, 'C': 5}),                 # rows of up to 40 elements, empty ones
    ('spmv.dpia', 'spmvVector', {'R': 8, 'C': 5}),                  # 2 groups; rows longer than 32
    ('spmv_jds.dpia', 'spmvJds', {'D': 70, 'L': 90, 'K': 9, 'S': 3, 'X': 5}),  # scatter through a permutation
    ('hotspot3d.dpia', 'hotspotOpt1', {'NZ': 4, 'NY': 3, 'NX': 5}),
    ('hotspot3d.dpia', 'hotspotSlide', {'NZ': 4, 'NY': 3, 'NX': 5}),
    ('sgemm_shoc.dpia', 'sgemmNN', {'M': 128, 'N': 32, 'K': 32}),   # 2x2 groups of 16x4, 2 K-tiles
    ('sgemm_parboil.dpia', 'sgemmNT', {'M': 256, 'N': 32, 'K': 16}),  # 2x2 groups of 16x8, 2 K-tiles
    ('lud.dpia', 'ludDiagonal', {'N': 19, 'O': 3}),                   # one group of 16, 15 steps
    ('lud.dpia', 'ludPerimeter', {'N': 51, 'O': 3, 'B': 2}),          # 2 groups of 16, two regions in place
    ('lud.dpia', 'ludInternal', {'N': 51, 'O': 3, 'B': 2}),           # 2x2 groups of 16x16
    # not samples: accumulators in local memory whose initial value and
    # loop have no barrier between them (the pointwise rule before a
    # command, codegen/barrier_pass.c), 2 groups each
    ('../tests/structure/in_place_local.dpia', 'colSums', {'N': 512}),
    ('../tests/structure/in_place_local.dpia', 'tileSums', {'N': 4096}),
    ('../tests/structure/in_place_nested.dpia', 'nestedJoined', {'N': 1024}),
]

TIMEOUT = 300
HERE = os.path.dirname(os.path.abspath(__file__))


def sample_kernels():
    """(file, kernel) of every run of tests/samples/run_samples.py: each must
    be in RUNS too, so that a sample added there is run here."""
    with open(os.path.join(HERE, '..', 'samples', 'run_samples.py')) as fh:
        text = fh.read()
    runs = text[text.index('RUNS = ['):text.index('\n]\n', text.index('RUNS = ['))]
    return re.findall(r"\('(\w+\.dpia)', '(\w+)'", runs)


# kernels run on inputs of their domain, as in run_samples.py
INPUTS = cfd_inputs.RUN_INPUTS


def run(cmd):
    """(exit status, stdout and stderr, seconds)"""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        return p.returncode, p.stdout + p.stderr, time.time() - t0
    except subprocess.TimeoutExpired:
        return 'timeout', f'(timed out after {TIMEOUT} s)', time.time() - t0


def main():
    dpia, samples = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    only = set(sys.argv[3:])
    why = oclgrind_log.available()
    if why:
        print(f'SKIP: {why}')
        return oclgrind_log.missing_status()
    passed = failed = 0

    def report(ok, what, detail=''):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f'PASS {what}', flush=True)
        else:
            failed += 1
            print(f'FAIL {what}\n' + ''.join(f'  {x}\n' for x in detail.rstrip().splitlines()), end='', flush=True)

    start = time.time()
    if not only:
        missing = [f'{k} ({f})' for f, k in sample_kernels() if (f, k) not in {(f, k) for f, k, _ in RUNS}]
        report(not missing, 'every kernel of tests/samples/run_samples.py is run here',
               'not in RUNS: ' + ', '.join(missing))
    with tempfile.TemporaryDirectory() as tmp:
        for f, k, sizes in RUNS:
            if only and k not in only:
                continue
            path = os.path.join(samples, f)
            what = f'{k} {sizes}' + (f' (local memory {LOCAL_MEM[k]} bytes)' if k in LOCAL_MEM else '')
            log = os.path.join(tmp, f'{k}.log')
            args = [dpia, 'run', path, '-k', k, '--check', '--seed', '7',
                    '--size', ','.join(f'{n}={v}' for n, v in sizes.items())]
            if k in INPUTS:
                args += INPUTS[k](tmp, sizes)
            cmd = oclgrind_log.command(args, log, LOCAL_MEM.get(k))
            rc, out, secs = run(cmd)
            text = oclgrind_log.read_log(log)
            ok = rc == 0 and ': ok' in out and 'Oclgrind' in out and not text.strip()
            if ok:
                report(True, f'{what} ({secs:.1f} s)')
                continue
            src = subprocess.run([dpia, 'translate', path, '-k', k], capture_output=True, text=True).stdout
            findings = oclgrind_log.summarize(text, src) or 'Oclgrind: no message'
            report(False, f'{what} ({secs:.1f} s)', f'$ {" ".join(cmd)}\ndpia run: exit {rc}\n{out}{findings}')

        # the test can fail: sumTree with its first barrier dropped (between
        # the work-items' writes of loc_2 and their neighbours' reads) runs
        # from the edited source and its race is reported, naming loc_2
        if not only:
            path = os.path.join(samples, 'sum_tree.dpia')
            src = subprocess.run([dpia, 'translate', path, '-k', 'sumTree'], capture_output=True, text=True).stdout
            edited, n = re.subn(r'(loc_2\[lid\] = acc;\n)\s*barrier\(CLK_LOCAL_MEM_FENCE\);\n', r'\1', src, count=1)
            bad = os.path.join(tmp, 'sumTree_no_barrier.cl')
            with open(bad, 'w') as fh:
                fh.write(edited)
            log = os.path.join(tmp, 'sumTree_no_barrier.log')
            rc, out, secs = run(oclgrind_log.command([dpia, 'run', path, '-k', 'sumTree', '--size', 'N=3',
                                                      '--seed', '7', '--opencl-source=' + bad], log))
            findings = oclgrind_log.summarize(oclgrind_log.read_log(log), edited)
            report(n == 1 and 'data race, buffer loc_2 in local memory' in findings,
                   'sumTree without its first barrier: the race on loc_2 is reported',
                   f'removed {n} barrier(s); dpia run exit {rc}\n{out}{findings or "Oclgrind: no message"}')
        # and the global fence that the in-place proof puts in ludDiagonal's
        # barrier matters: without it (a barrier of local memory alone) the
        # group's reads of m and its writes back are a race on m
        if not only or 'ludDiagonal' in only:
            path = os.path.join(samples, 'lud.dpia')
            src = subprocess.run([dpia, 'translate', path, '-k', 'ludDiagonal'], capture_output=True, text=True).stdout
            edited, n = re.subn(r'barrier\(CLK_LOCAL_MEM_FENCE \| CLK_GLOBAL_MEM_FENCE\);',
                                'barrier(CLK_LOCAL_MEM_FENCE);', src)
            bad = os.path.join(tmp, 'ludDiagonal_local_fence.cl')
            with open(bad, 'w') as fh:
                fh.write(edited)
            log = os.path.join(tmp, 'ludDiagonal_local_fence.log')
            rc, out, secs = run(oclgrind_log.command([dpia, 'run', path, '-k', 'ludDiagonal', '--size', 'N=19,O=3',
                                                      '--seed', '7', '--opencl-source=' + bad], log))
            findings = oclgrind_log.summarize(oclgrind_log.read_log(log), edited)
            report(n == 1 and 'data race, buffer m in global memory' in findings,
                   'ludDiagonal with a barrier of local memory alone: the race on m is reported',
                   f'edited {n} barrier(s); dpia run exit {rc}\n{out}{findings or "Oclgrind: no message"}')
    print(f'({time.time() - start:.0f} s)')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
