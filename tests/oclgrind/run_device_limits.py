#!/usr/bin/env python3
"""A kernel that needs more of the device than it has is refused before the
launch with E0007 DEVICE_LIMIT (docs/errors.md), exit 4, saying what the
kernel needs and what the device has, instead of the launch failing with
CL_OUT_OF_RESOURCES or CL_INVALID_WORK_GROUP_SIZE.  Oclgrind is a device
whose limits are options (--local-mem-size, --max-wgsize): each case runs
`dpia run --diagnostics=json` on such a device.

Usage: run_device_limits.py DPIA SAMPLES_DIR
Prints `N passed, M failed`; exit 1 if anything failed.  Without Oclgrind
the test is skipped (77), and fails in CI (CI=true)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oclgrind_log  # noqa: E402

GEMM = ['gemm.dpia', '-k', 'gemmBlocks', '--size', 'M=128,N=256,K=512']

# name, Oclgrind's options, dpia run's arguments (file first), the messages'
# expected parts (None: the run must succeed)
CASES = [
    ('gemmBlocks: its local array (128 KiB) on a device of 32 KiB (Oclgrind\'s default)',
     [], GEMM,
     ['kernel gemmBlocks needs 131072 bytes of local memory a work-group (acc: 2048 float16, 131072 bytes), '
      "more than the device's 32768 (CL_DEVICE_LOCAL_MEM_SIZE)"]),
    ('gemmBlocks: the same from its source (--opencl-source): the built kernel\'s own figure',
     [], GEMM + ['--opencl-source=@GEMM_CL@'],
     ["kernel gemmBlocks needs 131072 bytes of local memory a work-group (CL_KERNEL_LOCAL_MEM_SIZE), more than "
      "the device's 32768 (CL_DEVICE_LOCAL_MEM_SIZE)"]),
    ('gemmBlocks: runs on a device with exactly the 128 KiB it needs',
     ['--local-mem-size', '131072'], GEMM, None),
    ('gemv: a local array of 256 bytes on a device of 200',
     ['--local-mem-size', '200'], ['gemv.dpia', '-k', 'gemv', '--size', 'M=3,N=64'],
     ["kernel gemv needs 256 bytes of local memory a work-group (loc: 64 float, 256 bytes), more than the "
      "device's 200 (CL_DEVICE_LOCAL_MEM_SIZE)"]),
    ('nbodyLocal: local temporaries sized by a tune parameter (2 x 64 float4) on a device of 2000 bytes',
     ['--local-mem-size', '2000'], ['nbody.dpia', '-k', 'nbodyLocal', '--size', 'N=128,WG=64'],
     ['kernel nbodyLocal needs 2048 bytes of local memory a work-group (acc: a local temporary of 1024 bytes, '
      "loc: a local temporary of 1024 bytes), more than the device's 2000 (CL_DEVICE_LOCAL_MEM_SIZE)"]),
    ('dotPartial: work-groups of 128 on a device of 32',
     ['--max-wgsize', '32'], ['dot_partial.dpia', '-k', 'dotPartial', '--size', 'N=262144'],
     ["kernel dotPartial is launched with work-groups of 128 work-items, more than the device's 32 "
      '(CL_DEVICE_MAX_WORK_GROUP_SIZE)']),
    ('mmTiled: work-groups of 16x16 on a device of 128',
     ['--max-wgsize', '128'], ['mm_tiled.dpia', '-k', 'mmTiled', '--size', 'M=32,N=32,K=5'],
     ["kernel mmTiled is launched with work-groups of 16x16 = 256 work-items, more than the device's 128 "
      '(CL_DEVICE_MAX_WORK_GROUP_SIZE)']),
    ('mmTiled: --local-size=8,8 fits that device',
     ['--max-wgsize', '128'], ['mm_tiled.dpia', '-k', 'mmTiled', '--size', 'M=32,N=32,K=5', '--local-size=8,8'],
     None),
    ('the pipeline dot: its first kernel\'s work-groups of 128 on a device of 16 (checked as built)',
     ['--max-wgsize', '16'], ['dot_full.dpia', '-k', 'dot', '--size', 'N=262144'],
     ['kernel dotParts is launched with work-groups of 128 work-items; the device runs it in work-groups of at '
      'most 16 (CL_KERNEL_WORK_GROUP_SIZE)']),
]

# a host program launching gemmBlocks through the header, on the first
# device (Oclgrind's under oclgrind)
LAUNCH_C = r"""
#include "gemm.h"
int main(void) {
  cl_platform_id p;
  cl_device_id d;
  cl_int e;
  int M = 128, N = 256, K = 512, rc;
  if (clGetPlatformIDs(1, &p, NULL) != CL_SUCCESS || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL) != CL_SUCCESS)
    return 2;
  cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
  cl_command_queue q = clCreateCommandQueue(ctx, d, 0, &e);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(float) * M * N, NULL, &e);
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(float) * M * K, NULL, &e);
  cl_mem bp = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(float) * K * N, NULL, &e);
  rc = dpia_gemmBlocks_launch(q, out, a, bp, M, N, K);
  if (rc == DPIA_SUCCESS) clFinish(q);
  printf("rc %d %s\n", rc, dpia_error_string(rc));
  return 0;
}
"""


def main():
    dpia, samples = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    why = oclgrind_log.available()
    if why:
        print(f'SKIP: {why}')
        return oclgrind_log.missing_status()
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        gemm_cl = os.path.join(tmp, 'gemmBlocks.cl')
        with open(gemm_cl, 'w') as fh:
            fh.write(subprocess.run([dpia, 'translate', os.path.join(samples, 'gemm.dpia'), '-k', 'gemmBlocks'],
                                    capture_output=True, text=True).stdout)
        for name, options, args, expected in CASES:
            args = [a.replace('@GEMM_CL@', gemm_cl) for a in args]
            cmd = ['oclgrind', *options, dpia, 'run', os.path.join(samples, args[0]), *args[1:],
                   '--diagnostics=json']
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            problems = []
            if expected is None:
                if p.returncode != 0:
                    problems.append(f'exit {p.returncode}, expected 0')
            else:
                try:
                    diags = json.loads(p.stdout) if p.stdout.strip() else []
                except ValueError:
                    diags = None
                errors = [d for d in diags or [] if d.get('level') == 'error']
                if p.returncode != 4:
                    problems.append(f'exit {p.returncode}, expected 4')
                if diags is None or [d.get('code') for d in errors] != ['E0007']:
                    problems.append('expected one error, E0007 DEVICE_LIMIT')
                text = '\n'.join(d.get('message', '') for d in errors)
                problems += [f'the message lacks: {e}' for e in expected if e not in text]
            if problems:
                failed += 1
                print(f'FAIL {name}\n  $ {" ".join(cmd)}\n' + ''.join(f'  {x}\n' for x in problems)
                      + ''.join(f'  | {x}\n' for x in (p.stdout + p.stderr).rstrip().splitlines()), end='')
            else:
                passed += 1
                print(f'PASS {name}')
        # the launcher of the C header (--emit=header) checks the same before
        # it enqueues, and returns DPIA_ERROR_DEVICE_LIMIT (-9004), not the
        # launch's CL_OUT_OF_RESOURCES; on a device with the 128 KiB it runs
        header = os.path.join(tmp, 'gemm.h')
        subprocess.run([dpia, 'translate', os.path.join(samples, 'gemm.dpia'), '-k', 'gemmBlocks',
                        '--emit=header', '-o', header], check=True)
        prog = os.path.join(tmp, 'launch.c')
        with open(prog, 'w') as fh:
            fh.write(LAUNCH_C)
        exe = os.path.join(tmp, 'launch')
        c = subprocess.run([os.environ.get('CC', 'cc'), '-std=c11', '-I', tmp, prog, '-o', exe, '-lOpenCL'],
                           capture_output=True, text=True)
        for options, want in (([], 'rc -9004 DPIA_ERROR_DEVICE_LIMIT: the kernel needs more local memory'),
                              (['--local-mem-size', '131072'], 'rc 0 DPIA_SUCCESS')):
            p = subprocess.run(['oclgrind', *options, exe], capture_output=True, text=True, timeout=300) \
                if c.returncode == 0 else None
            out = p.stdout + p.stderr if p else c.stdout + c.stderr
            name = f'the header\'s launcher of gemmBlocks on a device of {options[1] if options else 32768} bytes'
            if p and want in p.stdout:
                passed += 1
                print(f'PASS {name}: {p.stdout.strip()[:60]}')
            else:
                failed += 1
                print(f'FAIL {name}: expected {want!r}\n' + ''.join(f'  | {x}\n' for x in out.splitlines()), end='')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
