#!/usr/bin/env python3
"""Every required sample kernel (spec section 10) runs on PoCL and matches
the reference interpreter, at two sizes each (one not a power of two where
the preconditions allow it); and a generated kernel with one index patched
is caught by --check."""
import os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import cfd_inputs  # noqa: E402
import pocl_cache  # noqa: E402

dpia, samples = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
env = pocl_cache.env()  # built once per test (tests/pocl_cache.py)

RUNS = [  # file, kernel, sizes at two points
    ('dot_partial.dpia', 'dotPartial', [{'N': 262144}, {'N': 786432}]),
    ('dot_global.dpia', 'dotProducts', [{'N': 1000}, {'N': 4096}]),
    ('dot_global.dpia', 'sumPartial', [{'N': 1024}, {'N': 3072}]),
    ('dot_vec.dpia', 'dotVec', [{'N': 524288}, {'N': 1572864}]),
    ('scal.dpia', 'scal', [{'N': 1000}, {'N': 4096}]),
    ('scal.dpia', 'scalVec', [{'N': 1000}, {'N': 4096}]),
    ('scal.dpia', 'scalInPlace', [{'N': 1000}, {'N': 4096}]),
    ('scal.dpia', 'scalInPlaceVec', [{'N': 4096}, {'N': 12288}]),
    ('asum.dpia', 'asumPartial', [{'N': 262144}, {'N': 786432}]),
    ('gemv.dpia', 'gemv', [{'M': 100, 'N': 640}, {'M': 64, 'N': 1024}]),
    ('mm_tiled.dpia', 'mmTiled', [{'M': 32, 'N': 48, 'K': 40}, {'M': 64, 'N': 64, 'K': 64}]),
    ('stencil1d.dpia', 'stencil', [{'N': 1000}, {'N': 1024}]),
    ('stencil1d.dpia', 'stencilTiled', [{'N': 640}, {'N': 1024}]),
    ('stencil1d.dpia', 'stencilChunk', [{'N': 64}, {'N': 128}, {'N': 640}]),
    # beyond the paper and the strategies of bench/blas_bench
    ('jacobi2d.dpia', 'jacobi2d', [{'M': 100, 'N': 77}, {'M': 64, 'N': 128}]),
    ('jacobi2d.dpia', 'jacobi2dTiled', [{'M': 4, 'N': 64}, {'M': 100, 'N': 192}]),
    ('jacobi2d.dpia', 'jacobi2dIdx', [{'M': 100, 'N': 77}, {'M': 64, 'N': 128}]),
    ('jacobi2d.dpia', 'jacobi2dChunk', [{'M': 1, 'N': 64}, {'M': 100, 'N': 192}]),
    ('jacobi2d.dpia', 'jacobi2dStrips', [{'M': 4, 'N': 1024}, {'M': 12, 'N': 3072}]),
    ('jacobi2d.dpia', 'jacobi2dCopyBack', [{'M': 100, 'N': 77}, {'M': 64, 'N': 128}]),
    ('heat3d.dpia', 'heat3d', [{'P': 9, 'M': 31, 'N': 50}, {'P': 32, 'M': 32, 'N': 64}]),
    ('heat3d.dpia', 'heat3dChunk', [{'P': 3, 'M': 5, 'N': 64}, {'P': 9, 'M': 31, 'N': 192}]),
    ('heat3d.dpia', 'heat3dWindow', [{'P': 1, 'M': 31, 'N': 50}, {'P': 32, 'M': 32, 'N': 64}]),
    ('sum_tree.dpia', 'sumTree', [{'N': 100}, {'N': 4096}]),
    ('md.dpia', 'md', [{'N': 1000, 'M': 12}, {'N': 4096, 'M': 32}]),
    ('asum_reorder.dpia', 'asumReorder', [{'N': 262144}, {'N': 786432}]),
    ('asum_vec.dpia', 'asumVec16', [{'N': 4096}, {'N': 12288}]),
    ('asum_vec.dpia', 'asumVec16x2', [{'N': 4096}, {'N': 12288}]),
    ('asum_vec.dpia', 'asumVec16Groups', [{'N': 524288}, {'N': 1572864}]),
    ('dot_vec16.dpia', 'dotVec16', [{'N': 4096}, {'N': 12288}]),
    ('dot_vec16.dpia', 'dotVec16x2', [{'N': 4096}, {'N': 12288}]),
    ('dot_any.dpia', 'dotAny', [{'N': 1000003}, {'N': 1}, {'N': 4097}, {'N': 0}]),
    ('dot_any.dpia', 'asumAny', [{'N': 1000003}, {'N': 1}, {'N': 4095}, {'N': 0}]),
    ('dot_any.dpia', 'scalAny', [{'N': 1000003}, {'N': 1}, {'N': 65}, {'N': 0}]),
    ('dot_any.dpia', 'sumAny', [{'M': 15680}, {'M': 1}]),  # M = 0 sums nothing to 0.0: a vacuous check
    ('blas2_any.dpia', 'gemvAny', [{'M': 3, 'N': 1000003}, {'M': 1, 'N': 1}, {'M': 67, 'N': 1001}, {'M': 3, 'N': 0}]),
    ('blas2_any.dpia', 'gesummvAny', [{'N': 1001}, {'N': 1}, {'N': 67}]),
    # the packing alone at awkward sizes against the reference interpreter:
    # one column, a panel of 32 less one column and plus one, a block of 8
    # panels plus one column (the second block's first panel one column of
    # b and 31 of zeros, its other seven zeros); K = 1 and 3
    ('gemm_any.dpia', 'gemmAnyPackB', [{'N': 1001, 'K': 3}, {'N': 1, 'K': 1}, {'N': 40, 'K': 9}, {'N': 1, 'K': 3},
                                       {'N': 31, 'K': 1}, {'N': 33, 'K': 3}, {'N': 257, 'K': 1}, {'N': 257, 'K': 3}]),
    # K: one short slice (37, 1), a remainder of 88 and of 256 = 512/2
    # merged into the slice before (600, 768; the slice it would have been
    # empty), one of 257 a slice of its own (769); the panel where N falls
    # narrow (1, 4 and 16 of b's columns: N = 33, 100, 48) or full (17,
    # 31: N = 49, 383); two blocks of rows, the first of 44 (M = 300)
    ('gemm_any.dpia', 'gemmAnyBlocks', [{'M': 67, 'N': 100, 'K': 37}, {'M': 1, 'N': 1, 'K': 1}, {'M': 9, 'N': 33, 'K': 600},
                                        {'M': 9, 'N': 33, 'K': 768}, {'M': 9, 'N': 33, 'K': 769},
                                        {'M': 300, 'N': 48, 'K': 5}, {'M': 9, 'N': 49, 'K': 37}, {'M': 17, 'N': 383, 'K': 3}]),
    ('scal_vec.dpia', 'scalVec16', [{'N': 1008}, {'N': 4096}]),
    ('scal_vec.dpia', 'scalChunk', [{'N': 1024}, {'N': 3072}]),
    ('gemv_vec.dpia', 'gemvVec', [{'M': 100, 'N': 640}, {'M': 64, 'N': 1024}]),
    ('gemv_vec.dpia', 'gemvVec2', [{'M': 100, 'N': 640}, {'M': 64, 'N': 1024}]),
    ('gemv_vec.dpia', 'gemvVecRows', [{'M': 104, 'N': 640}, {'M': 64, 'N': 1024}]),
    ('gemv_vec.dpia', 'gemvVecRowsGroups', [{'M': 192, 'N': 640}, {'M': 64, 'N': 1024}]),
    ('mm_vec.dpia', 'mmVec', [{'M': 32, 'N': 48, 'K': 40}, {'M': 64, 'N': 64, 'K': 64}]),
    ('mm_vec.dpia', 'mmBlock', [{'M': 32, 'N': 48, 'K': 40}, {'M': 64, 'N': 64, 'K': 64}]),
    ('mm_vec.dpia', 'packB', [{'N': 48, 'K': 40}, {'N': 64, 'K': 64}]),
    ('mm_vec.dpia', 'mmBlockPacked', [{'M': 32, 'N': 48, 'K': 40}, {'M': 64, 'N': 64, 'K': 64}]),
    ('gemm.dpia', 'gemmPackB', [{'N': 96, 'K': 37}, {'N': 64, 'K': 64}]),
    ('gemm.dpia', 'gemmBlocks', [{'M': 128, 'N': 256, 'K': 512}, {'M': 256, 'N': 512, 'K': 1024}]),
    # the reference's time grows with N*N (N = 4096: 9 s for nbody, 16 s
    # for nbodyVec, CPU, normal build): second points where the loops over the bodies, the
    # global loop and the tiles take the paths N = 4096 and 3072 took (the
    # tiles: 5 of WG = 256, not a power of two)
    ('nbody.dpia', 'nbody', [{'N': 1000}, {'N': 2048}]),
    ('nbody.dpia', 'nbodyLocal', [{'N': 1024, 'WG': 64}, {'N': 1280, 'WG': 256}]),
    ('nbody.dpia', 'nbodyVec', [{'N': 1000}, {'N': 2048}]),
    ('gesummv.dpia', 'gesummv', [{'N': 100}, {'N': 512}]),
    ('gesummv.dpia', 'gesummvVec', [{'N': 104}, {'N': 512}]),
    ('nn.dpia', 'nn', [{'N': 1000}, {'N': 4096}]),
    ('mriq.dpia', 'mriq', [{'X': 1000, 'K': 77}, {'X': 2048, 'K': 256}]),
    ('mriq.dpia', 'mriqTwo', [{'X': 1000, 'K': 77}, {'X': 2048, 'K': 256}]),  # two outputs from one map
    ('mriq.dpia', 'mriqVec', [{'X': 1000, 'K': 77}, {'X': 2048, 'K': 256}]),
    ('kmeans.dpia', 'kmeans', [{'N': 1000, 'K': 5, 'F': 34}, {'N': 4096, 'K': 16, 'F': 8}]),
    ('kmeans.dpia', 'kmeansVec', [{'N': 1000, 'K': 5, 'F': 34}, {'N': 4096, 'K': 16, 'F': 8}]),
    # array literals and foreign functions (docs/language.md sections 13, 14)
    ('gaussian_blur.dpia', 'gaussian5', [{'N': 1000}, {'N': 4096}]),
    ('gaussian_blur.dpia', 'gaussian3x3', [{'M': 100, 'N': 77}, {'M': 64, 'N': 128}]),
    ('gaussian_blur.dpia', 'gaussian3x3Prelude', [{'M': 100, 'N': 77}, {'M': 64, 'N': 128}]),
    ('gaussian_blur.dpia', 'gaussian3x3Rows', [{'M': 100, 'N': 77}, {'M': 64, 'N': 128}]),
    ('gaussian_blur.dpia', 'gaussian3x3Chunk', [{'M': 1, 'N': 64}, {'M': 100, 'N': 192}]),
    ('mandelbrot.dpia', 'mandelbrot', [{'N': 1000}, {'N': 4096}]),
    ('mandelbrot.dpia', 'mandelbrotTiled', [{'N': 1024}, {'N': 4096}]),
    # the index as a value (docs/language.md section 22); the pipeline runs
    # the other kernels of the sample (each is run alone by cli-launch-sizes
    # and oclgrind-samples)
    ('correlation.dpia', 'corr', [{'M': 100, 'N': 77}, {'M': 128, 'N': 64}]),
    # corr_kernel's triangle (docs/language.md section 28), and corr_kernel
    # itself, each sum stored twice by mirror (section 29.1)
    ('correlation.dpia', 'corrUpper', [{'M': 100, 'N': 77}, {'M': 128, 'N': 64}]),
    ('correlation.dpia', 'corrMirror', [{'M': 100, 'N': 77}, {'M': 128, 'N': 64}, {'M': 1, 'N': 3}]),
    # small sizes: the pipeline's reference check grows with N*N (12 s at M=64, N=48)
    ('correlation.dpia', 'correlation', [{'M': 33, 'N': 17}, {'M': 64, 'N': 24}]),
    # the centred data in rows of M+1 (PolyBench's own layout): the pad
    # written through, the rows read through map (take M)
    ('correlation.dpia', 'centrePad', [{'M': 100, 'N': 77}, {'M': 1, 'N': 3}]),
    ('correlation.dpia', 'corrMirrorPad', [{'M': 100, 'N': 77}, {'M': 128, 'N': 64}, {'M': 1, 'N': 3}]),
    ('correlation.dpia', 'correlationPad', [{'M': 33, 'N': 17}, {'M': 64, 'N': 24}]),
    # corrMirrorPad's work-items each a work-group of one (local size 1)
    ('correlation.dpia', 'corrMirrorPadGroups', [{'M': 100, 'N': 77}, {'M': 1, 'N': 3}]),
    ('correlation.dpia', 'correlationPadGroups', [{'M': 33, 'N': 17}]),
    # a select whose sum runs only on the side it chooses: the upper
    # triangle (docs/language.md section 28)
    ('covariance.dpia', 'covar', [{'M': 100, 'N': 77}, {'M': 128, 'N': 64}]),
    ('covariance.dpia', 'covarDep', [{'M': 100, 'N': 77}, {'M': 128, 'N': 64}, {'M': 1, 'N': 3}]),
    # covar_kernel in one kernel: the triangle mirrored (section 29.1)
    ('covariance.dpia', 'covarMirror', [{'M': 100, 'N': 77}, {'M': 128, 'N': 64}, {'M': 1, 'N': 3}]),
    ('covariance.dpia', 'covarPacked', [{'M': 100, 'N': 77}, {'M': 128, 'N': 64}, {'M': 1, 'N': 3}, {'M': 2, 'N': 1}]),
    ('covariance.dpia', 'covarSquare', [{'M': 100, 'N': 77}, {'M': 128, 'N': 64}]),
    ('covariance.dpia', 'covariance', [{'M': 33, 'N': 17}, {'M': 64, 'N': 24}]),
    # covarMirror's work-items each a work-group of one (local size 1)
    ('covariance.dpia', 'covarMirrorGroups', [{'M': 100, 'N': 77}, {'M': 1, 'N': 3}]),
    ('covariance.dpia', 'covarianceGroups', [{'M': 33, 'N': 17}]),
    # scans (docs/language.md section 23)
    ('adi.dpia', 'adiKernel1', [{'N': 100}, {'N': 512}]),
    ('adi.dpia', 'adiRows', [{'N': 100}, {'N': 512}]),
    ('scan_bottom.dpia', 'bottomScan', [{'G': 3}, {'G': 64}]),
    # Rodinia's compute_flux, its neighbours' codes made indices by clampIdx
    # (docs/language.md section 22), on inputs of its physical domain
    # (INPUTS): valid neighbours, wing and far-field faces, other codes
    ('cfd_flux.dpia', 'computeFlux', [{'N': 5}, {'N': 1000}]),
    # trip counts read from data (docs/language.md section 25): the kernels
    # alone on random row bounds in [-8, 8] (empty rows, bounds out of
    # range at both ends: NNZ=7 is fewer than a row may hold), and in the
    # pipelines on a CSR matrix of empty rows and rows of up to 40 elements
    ('spmv.dpia', 'csrScalar', [{'R': 5, 'C': 3, 'NNZ': 7}, {'R': 1000, 'C': 77, 'NNZ': 3000}]),
    ('spmv.dpia', 'csrVector', [{'R': 4, 'C': 3, 'NNZ': 7}, {'R': 1000, 'C': 77, 'NNZ': 3000}]),
    ('spmv.dpia', 'spmvScalar', [{'R': 100, 'C': 50}, {'R': 1001, 'C': 300}]),
    ('spmv.dpia', 'spmvVector', [{'R': 100, 'C': 50}, {'R': 1000, 'C': 300}]),
    # a scatter through a permutation (docs/language.md section 29):
    # Parboil's JDS, its results written to dst[perm[ix]]; random trip
    # counts in [-8, 8] (empty rows: about half), a random permutation
    ('spmv_jds.dpia', 'spmvJds', [{'D': 5, 'L': 7, 'K': 3, 'S': 1, 'X': 3},
                                  {'D': 1000, 'L': 5000, 'K': 40, 'S': 32, 'X': 300}]),
    # a sliding window with value rotation (docs/language.md section 26): one
    # layer (the whole window clamped), and a chip of Rodinia's shape
    ('hotspot3d.dpia', 'hotspotOpt1', [{'NZ': 1, 'NY': 3, 'NX': 5}, {'NZ': 8, 'NY': 64, 'NX': 96}]),
    ('hotspot3d.dpia', 'hotspotSlide', [{'NZ': 1, 'NY': 3, 'NX': 5}, {'NZ': 8, 'NY': 64, 'NX': 96}]),
    # an accumulator updated by nested mapLocals, kept in private memory
    # (docs/language.md section 2.1)
    ('sgemm_shoc.dpia', 'sgemmNN', [{'M': 64, 'N': 16, 'K': 32}, {'M': 192, 'N': 48, 'K': 80}]),
    ('sgemm_parboil.dpia', 'sgemmNT', [{'M': 128, 'N': 16, 'K': 16}, {'M': 256, 'N': 48, 'K': 40}]),
    # Rodinia's blocked LU (docs/language.md section 31): the diagonal block
    # by a work-group's two phases a step (a local array shared into a later
    # mapLocal), the perimeter's triangular solves, the trailing update;
    # random matrices, factored without pivoting as Rodinia's are
    ('lud.dpia', 'ludDiagonal', [{'N': 16, 'O': 0}, {'N': 48, 'O': 16}]),
    ('lud.dpia', 'ludPerimeter', [{'N': 48, 'O': 0, 'B': 2}, {'N': 100, 'O': 20, 'B': 3}]),
    ('lud.dpia', 'ludInternal', [{'N': 48, 'O': 0, 'B': 2}, {'N': 100, 'O': 20, 'B': 3}]),
]

# kernels run on inputs of their domain, not random ones (--input)
INPUTS = cfd_inputs.RUN_INPUTS

passed = failed = 0
def report(ok, what, detail=''):
    global passed, failed
    if ok:
        passed += 1
        print(f'PASS {what}')
    else:
        failed += 1
        print(f'FAIL {what}\n  {detail}')

for f, k, points in RUNS:
    path = os.path.join(samples, f)
    if not os.path.exists(path):
        report(False, f'{k}: {f} is missing', path)
        continue
    # under the sanitizers (tools/test.sh) one point each: the same code
    # paths, in half the time of a build that runs several times slower
    for sizes in points[:1] if os.environ.get('DPIA_SAMPLES_ONE_POINT') else points:
        args = [dpia, 'run', path, '-k', k, '--check', '--seed', '7']
        for n, v in sizes.items():
            args += ['--size', f'{n}={v}']
        with tempfile.TemporaryDirectory() as tmp:
            if k in INPUTS:
                args += INPUTS[k](tmp, sizes)
            p = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)
        report(p.returncode == 0 and ': ok' in p.stdout, f'{k} {sizes}', p.stdout + p.stderr)

# an injected bug: one index of the generated dot product patched
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(samples, 'dot_partial.dpia')
    src = subprocess.run([dpia, 'translate', path], capture_output=True, text=True).stdout
    patched, n = re.subn(r'ys\[\(([^]]*)\)\*2048 \+ i\]', r'ys[(\1)*2048]', src, count=1)
    bad = os.path.join(tmp, 'bad.cl')
    with open(bad, 'w') as fh:
        fh.write(patched)
    p = subprocess.run([dpia, 'run', path, '--size', 'N=262144', '--check', '--seed', '7',
                        '--opencl-source=' + bad], capture_output=True, text=True, timeout=300, env=env)
    report(n == 1 and p.returncode == 3 and 'differs from the reference' in p.stderr,
           'a patched index in the generated dot product is caught by --check',
           f'patched {n} site(s); exit {p.returncode}\n{p.stdout}{p.stderr}')

# injected bugs in the SpMV kernels: csrVector's work-items striding by 16
# (rows longer than 16 elements summed twice) and csrScalar's rows all
# starting at 0, each caught by --check on the CSR matrix of the pipelines
for kernel, pattern, repl in [('spmvVector', r'i_behind \+= 32', 'i_behind += 16'),
                              ('spmvScalar', r'max\(rowDelimiters\[gid\], 0\)', '0')]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(samples, 'spmv.dpia')
        src = subprocess.run([dpia, 'translate', path, '-k', kernel], capture_output=True, text=True).stdout
        patched, n = re.subn(pattern, repl, src)
        bad = os.path.join(tmp, 'bad.cl')
        with open(bad, 'w') as fh:
            fh.write(patched)
        p = subprocess.run([dpia, 'run', path, '-k', kernel, '--size', 'R=100', '--size', 'C=50', '--check',
                            '--seed', '7', '--opencl-source=' + bad], capture_output=True, text=True, timeout=300,
                           env=env)
        report(n == 1 and p.returncode == 3 and 'differs from the reference' in p.stderr,
               f'a patched loop of {kernel} is caught by --check',
               f'patched {n} site(s); exit {p.returncode}\n{p.stdout}{p.stderr}')

# an injected bug in cfd's flux: the wing's pressure added at the far
# field's faces, caught by --check on the inputs of its domain
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(samples, 'cfd_flux.dpia')
    src = subprocess.run([dpia, 'translate', path], capture_output=True, text=True).stdout
    patched, n = re.subn(r'== -1 \? pI', '== -2 ? pI', src)
    bad = os.path.join(tmp, 'bad.cl')
    with open(bad, 'w') as fh:
        fh.write(patched)
    p = subprocess.run([dpia, 'run', path, '--size', 'N=1000', '--check', '--seed', '7', '--opencl-source=' + bad]
                       + cfd_inputs.input_args(tmp, 1000), capture_output=True, text=True, timeout=300, env=env)
    report(n == 1 and p.returncode == 3 and 'differs from the reference' in p.stderr,
           'the wing pressure at the far field in the generated cfd flux is caught by --check',
           f'patched {n} site(s); exit {p.returncode}\n{p.stdout}{p.stderr}')

# the foreign function of the Mandelbrot sample is evaluated for real by the
# reference interpreter (compiled as C on the host): a patched escape bound
# in the generated function is caught, and without a C compiler the check
# stops with a clear error (exit 1), not a crash or a pass
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(samples, 'mandelbrot.dpia')
    src = subprocess.run([dpia, 'translate', path, '-k', 'mandelbrot'], capture_output=True, text=True).stdout
    patched, n = re.subn(r'> 4\.0f', '> 3.0f', src)
    bad = os.path.join(tmp, 'bad.cl')
    with open(bad, 'w') as fh:
        fh.write(patched)
    p = subprocess.run([dpia, 'run', path, '-k', 'mandelbrot', '--size', 'N=1024', '--check', '--seed', '7',
                        '--opencl-source=' + bad], capture_output=True, text=True, timeout=300, env=env)
    report(n == 1 and p.returncode == 3 and 'differs from the reference' in p.stderr,
           'a patched escape bound in the generated foreign function is caught by --check',
           f'patched {n} site(s); exit {p.returncode}\n{p.stdout}{p.stderr}')
    p = subprocess.run([dpia, 'run', path, '-k', 'mandelbrot', '--size', 'N=64', '--check'],
                       capture_output=True, text=True, timeout=300, env=dict(env, CC=os.path.join(tmp, 'no-cc')))
    report(p.returncode == 1 and 'no C compiler' in p.stderr and 'E0327' not in p.stdout,
           'a foreign function without a C compiler on the host: a clear error',
           f'exit {p.returncode}\n{p.stdout}{p.stderr}')

print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
