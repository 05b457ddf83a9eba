#!/usr/bin/env python3
"""Under --local-size / --global-size the metadata, the header's
launcher, `dpia batch` and `dpia run` describe the launch the kernel was
generated for.  Every kernel of every sample (samples/*.dpia) is translated
with a user local size (half the natural one, or a divisor of the global
size when the strategy leaves it open); its metadata must match the
kernel's reqd_work_group_size, its preconditions must hold at the sizes
chosen, and `dpia run --check` with the same options must launch exactly
the NDRange the metadata gives and match the reference.  A kernel whose
strategy leaves the local size open is also run with a user global size
(not under DPIA_SAMPLES_ONE_POINT, set for the sanitized build).

usage: launch_sizes_cli.py DPIA SAMPLES_DIR"""
import glob, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'samples'))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import cfd_inputs  # noqa: E402
import pocl_cache  # noqa: E402

dpia, samples = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
env = pocl_cache.env()  # built once per test (tests/pocl_cache.py)
# DPIA_SAMPLES_ONE_POINT (tools/test.sh's sanitized stage, as for
# run_samples.py): one launch option a kernel, the user local size; the
# normal build's run checks the user global sizes as well
one_option = bool(os.environ.get('DPIA_SAMPLES_ONE_POINT'))

# sizes valid for each kernel's preconditions (a kernel not listed fails)
SIZES = {
    'dotPartial': {'N': 262144}, 'dotProducts': {'N': 4096}, 'sumPartial': {'N': 1024},
    'mean': {'M': 64, 'N': 48}, 'stddev': {'M': 64, 'N': 48}, 'centre': {'M': 64, 'N': 48},
    'corr': {'M': 64, 'N': 48}, 'corrUpper': {'M': 64, 'N': 48}, 'corrMirror': {'M': 64, 'N': 48},
    'centrePad': {'M': 64, 'N': 48}, 'corrMirrorPad': {'M': 64, 'N': 48},
    'corrMirrorPadGroups': {'M': 64, 'N': 48},
    'covarMean': {'M': 64, 'N': 48}, 'covarCentre': {'M': 64, 'N': 48}, 'covar': {'M': 64, 'N': 48},
    'covarMirror': {'M': 64, 'N': 48}, 'covarSquare': {'M': 64, 'N': 48}, 'covarDep': {'M': 64, 'N': 48},
    'covarPacked': {'M': 64, 'N': 48}, 'covarMirrorGroups': {'M': 64, 'N': 48},
    'dotVec': {'N': 524288}, 'scal': {'N': 4096}, 'scalVec': {'N': 4096}, 'scalInPlace': {'N': 4096},
    'scalInPlaceVec': {'N': 8192},
    'asumPartial': {'N': 262144}, 'gemv': {'M': 64, 'N': 1024}, 'mmTiled': {'M': 64, 'N': 64, 'K': 64},
    'stencil': {'N': 1024}, 'stencilTiled': {'N': 1024}, 'stencilChunk': {'N': 1024}, 'jacobi2d': {'M': 64, 'N': 128},
    'jacobi2dTiled': {'M': 64, 'N': 128}, 'jacobi2dIdx': {'M': 64, 'N': 128}, 'jacobi2dChunk': {'M': 64, 'N': 128},
    'jacobi2dStrips': {'M': 16, 'N': 2048}, 'jacobi2dCopyBack': {'M': 64, 'N': 128},
    'heat3d': {'P': 16, 'M': 16, 'N': 32}, 'heat3dWindow': {'P': 16, 'M': 16, 'N': 32}, 'heat3dChunk': {'P': 16, 'M': 16, 'N': 128},
    'sumTree': {'N': 64}, 'md': {'N': 256, 'M': 8},
    'asumReorder': {'N': 262144}, 'asumVec16': {'N': 4096},
    'asumVec16x2': {'N': 4096}, 'asumVec16Groups': {'N': 524288}, 'dotVec16': {'N': 4096}, 'dotVec16x2': {'N': 4096},
    'scalVec16': {'N': 4096}, 'scalChunk': {'N': 3072}, 'gemvVec': {'M': 64, 'N': 1024},
    'gemvVec2': {'M': 64, 'N': 1024}, 'gemvVecRows': {'M': 64, 'N': 1024},
    'gemvVecRowsGroups': {'M': 128, 'N': 1024},
    'mmVec': {'M': 64, 'N': 64, 'K': 64},
    'mmBlock': {'M': 64, 'N': 64, 'K': 64}, 'packB': {'N': 64, 'K': 64},
    'mmBlockPacked': {'M': 64, 'N': 64, 'K': 64}, 'nbody': {'N': 1024},
    'nbodyLocal': {'N': 1024, 'WG': 64},
    'gaussian5': {'N': 1024}, 'gaussian3x3': {'M': 64, 'N': 128},
    'gaussian3x3Prelude': {'M': 64, 'N': 128}, 'gaussian3x3Rows': {'M': 64, 'N': 128},
    'gaussian3x3Chunk': {'M': 64, 'N': 128},
    'mandelbrot': {'N': 4096}, 'mandelbrotTiled': {'N': 4096},
    'gesummv': {'N': 256}, 'nn': {'N': 4096}, 'mriq': {'X': 1024, 'K': 64},
    'mriqTwo': {'X': 1024, 'K': 64},
    'nbodyVec': {'N': 1024}, 'mriqVec': {'X': 1024, 'K': 64}, 'gesummvVec': {'N': 256},
    'kmeans': {'N': 1024, 'K': 5, 'F': 34}, 'kmeansVec': {'N': 1024, 'K': 5, 'F': 34},
    'adiKernel1': {'N': 100}, 'adiRows': {'N': 100}, 'bottomScan': {'G': 4}, 'computeFlux': {'N': 1000},
    'csrScalar': {'R': 1000, 'C': 77, 'NNZ': 3000},
    'spmvJds': {'D': 1000, 'L': 5000, 'K': 40, 'S': 32, 'X': 300}, 'csrVector': {'R': 1000, 'C': 77, 'NNZ': 3000},
    'hotspotOpt1': {'NZ': 8, 'NY': 16, 'NX': 32}, 'hotspotSlide': {'NZ': 8, 'NY': 16, 'NX': 32},
    'sgemmNN': {'M': 128, 'N': 64, 'K': 64}, 'sgemmNT': {'M': 256, 'N': 32, 'K': 16},
    'ludDiagonal': {'N': 48, 'O': 16}, 'ludPerimeter': {'N': 48, 'O': 0, 'B': 2},
    'ludInternal': {'N': 48, 'O': 0, 'B': 2},
    # any size (samples/dot_any.dpia): a size that is a multiple of nothing
    'dotAny': {'N': 100003}, 'asumAny': {'N': 100003}, 'scalAny': {'N': 100003}, 'sumAny': {'M': 1000},
    'gemvAny': {'M': 66, 'N': 1001}, 'gesummvAny': {'N': 101},
    'gemmAnyPackB': {'N': 65, 'K': 37}, 'gemmAnyBlocks': {'M': 66, 'N': 65, 'K': 37},
    # the kernels of the sample pipelines (docs/language.md section 8)
    'dotParts': {'N': 262144}, 'dotSum': {'M': 1000}, 'asumParts': {'N': 262144}, 'asumSum': {'M': 1000},
    'ax': {'M': 64, 'N': 96}, 'atv': {'M': 64, 'N': 96}, 'axVec': {'M': 64, 'N': 96}, 'atvVec': {'M': 64, 'N': 96},
    'mmPackB': {'N': 64, 'K': 64},
    'mmPackedBlock': {'M': 64, 'N': 64, 'K': 64},
    'gemmPackB': {'N': 64, 'K': 64}, 'gemmBlocks': {'M': 128, 'N': 256, 'K': 512},
    'rowStarts': {'R': 100},
}

passed = failed = 0
def report(ok, what, detail=''):
    global passed, failed
    if ok:
        passed += 1
        print(f'PASS {what}')
    else:
        failed += 1
        print(f'FAIL {what}\n  {detail}')

def c_eval(expr, sizes):
    """a size or precondition of the metadata (C integer arithmetic on naturals)"""
    return eval(expr.replace('/', '//'), {'__builtins__': {}}, dict(sizes))

def translate_json(path, kernel, opts):
    p = subprocess.run([dpia, 'translate', path, '-k', kernel, '--emit=json'] + opts,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return None, p.stderr
    return json.loads(p.stdout), ''

def user_local(meta, sizes):
    """a local size other than the natural one, valid at these sizes"""
    g = [c_eval(e, sizes) for e in meta['global_size']]
    if meta['local_size'] is not None:
        nat = [c_eval(e, sizes) for e in meta['local_size']]
        return [l // 2 if l % 2 == 0 and l > 1 else l for l in nat]
    for l in (32, 16, 8, 4, 2):
        if g[0] % l == 0:
            return [l] + [1] * (len(g) - 1)
    return [1] * len(g)

def check_launch(path, kernel, sizes, opts, what):
    meta, err = translate_json(path, kernel, opts)
    if meta is None:
        report(False, what, err)
        return
    gs = [c_eval(e, sizes) for e in meta['global_size']]
    ls = None if meta['local_size'] is None else [c_eval(e, sizes) for e in meta['local_size']]
    m = re.search(r'reqd_work_group_size\((\d+), (\d+), (\d+)\)', meta['source'])
    reqd = [int(x) for x in m.groups()] if m else None
    if reqd is not None:
        padded = (ls or []) + [1] * (3 - len(ls or []))
        if padded != reqd:
            report(False, what, f'metadata local_size {ls} but reqd_work_group_size{tuple(reqd)}')
            return
    pre = [c for c in meta['preconditions'] if not c_eval(c, sizes)]
    if pre:
        report(False, what, f'preconditions {pre} fail at {sizes} (test sizes invalid)')
        return
    if ls and any(g % l for g, l in zip(gs, ls)):
        report(False, what, f'global {gs} is not a multiple of local {ls}')
        return
    args = [dpia, 'run', path, '-k', kernel, '--check', '--seed', '3'] + opts
    for n, v in sizes.items():
        args += ['--size', f'{n}={v}']
    with tempfile.TemporaryDirectory() as tmp:  # inputs of the kernel's domain (--input)
        if kernel in cfd_inputs.RUN_INPUTS:
            args += cfd_inputs.RUN_INPUTS[kernel](tmp, sizes)
        p = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)
    want = 'NDRange: global ' + ','.join(map(str, gs)) + ('' if ls is None else ', local ' + ','.join(map(str, ls)))
    report(p.returncode == 0 and ': ok' in p.stdout and want + '\n' in p.stdout, what,
           f'metadata says "{want}"; exit {p.returncode}\n{p.stdout}{p.stderr}')

kernels_seen = 0
for path in sorted(glob.glob(os.path.join(samples, '*.dpia'))):
    p = subprocess.run([dpia, 'translate', path, '--emit=json'], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        report(False, f'{path} translates', p.stderr)
        continue
    for natural in json.loads(p.stdout):
        k = natural['kernel']
        kernels_seen += 1
        # spec section 9's roles only: a local temporary is a temp in local memory
        roles = [(q['role'], q.get('space')) for q in natural['params']]
        bad = [r for r in roles if r[0] not in ('output', 'input', 'scalar', 'nat', 'temp')
               or (r[0] in ('output', 'input', 'temp')) != (r[1] is not None)]
        if bad:
            report(False, f'{k}: parameter roles of spec section 9', str(bad))
        if k not in SIZES:
            report(False, f'{k}: sizes for this test', 'add the kernel to SIZES')
            continue
        sizes = SIZES[k]
        loc = user_local(natural, sizes)
        opt = '--local-size=' + ','.join(map(str, loc))
        check_launch(path, k, sizes, [opt], f'{os.path.basename(path)} {k} {opt}')
        if natural['local_size'] is None and not one_option:
            # a user global size too: twice the natural one's first dimension
            g = [c_eval(e, sizes) for e in natural['global_size']]
            gopt = '--global-size=' + ','.join(map(str, [g[0] * 2] + g[1:]))
            check_launch(path, k, sizes, [gopt], f'{os.path.basename(path)} {k} {gopt}')

# dpia batch gives the same metadata as dpia translate
path = os.path.join(samples, 'dot_partial.dpia')
req = {'id': 1, 'source': open(path).read(), 'name': path, 'kernel': 'dotPartial', 'emit': 'json',
       'local_size': [64], 'verify': False}
p = subprocess.run([dpia, 'batch'], input=json.dumps(req) + '\n', capture_output=True, text=True, timeout=120)
resp = json.loads(p.stdout)
meta = resp.get('outputs', {}).get('json') or {}
report(meta.get('local_size') == ['64'] and 'reqd_work_group_size(64, 1, 1)' in meta.get('source', ''),
       'dpia batch "local_size": [64]: metadata local_size ["64"] with reqd_work_group_size(64, 1, 1)', p.stdout)

report(kernels_seen >= 20, f'{kernels_seen} sample kernels seen')
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
