#!/usr/bin/env python3
"""C names of generated kernels (spec section 8) end to end:

  names_cli.py DPIA NAMES_DPIA CC

For every kernel of NAMES_DPIA (tests/translate/names/names.dpia: parameters
named output or tmp, reserved name families, primes, struct typedef names),
`dpia translate -k K` succeeds (the kernel compiles: translate verifies with
libclang) in well under a second, and `dpia run -k K --check` passes on the
first OpenCL device (PoCL).  A program with many parameters in reserved
families translates quickly (the renaming used to loop until "program too
large", ~10 s).  The header of a kernel whose parameters are q and q_ (the
launcher renames q) compiles as C11."""
import os, re, subprocess, sys, tempfile, time

dpia, names, cc = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
passed = failed = 0

def report(what, problems):
    global passed, failed
    if problems:
        failed += 1
        print(f'FAIL {what}: ' + '\n  '.join(problems))
    else:
        passed += 1
        print(f'PASS {what}')

def run(args, timeout=120):
    t = time.monotonic()
    p = subprocess.run([dpia] + args, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode(), time.monotonic() - t

# the size parameter each kernel's run needs
sizes = {'outputNat': 'output', 'pairNat': 'pair_float_float'}
kernels = re.findall(r'^kernel (\w+)', open(names).read(), re.M)
if len(kernels) < 9:
    report('kernels of ' + names, [f'only {len(kernels)} kernels found'])
for k in kernels:
    rc, out, err, secs = run(['translate', '-k', k, names], timeout=30)
    problems = []
    if rc != 0:
        problems.append(f'translate: exit {rc}: {err[:600]}')
    if secs > 2:
        problems.append(f'translate took {secs:.1f} s')
    if "'" in out:
        problems.append('a prime in the OpenCL C')
    report(f'translate -k {k}', problems)
    rc, out, err, _ = run(['run', names, '-k', k, '--size', f'{sizes.get(k, "N")}=4096', '--check'])
    ok = rc == 0 and 'ok' in out
    report(f'run -k {k} --check', [] if ok else [f'exit {rc}: {(out + err)[:600]}'])

with tempfile.TemporaryDirectory() as tmp:
    # 60 data parameters in reserved families, and their uses
    families = ['__', '_X', 'CL_', 'CLK_', 'cl_', 'atomic_', 'atom_', 'work_group_', 'sub_group_', 'pair_']
    params = [f'{f}{i}' if f != '_X' else f'_X{i}' for f in families for i in range(6)]
    src = os.path.join(tmp, 'families.dpia')
    with open(src, 'w') as f:
        f.write(f'kernel families (N: nat) ({" ".join(params)}: [N]float) =\n  ')
        expr = params[0]
        for p in params[1:]:
            expr = f'zip {p} ({expr})'
        f.write(f'{expr}\n  |> mapGlobal (\\p -> fst p)\n')
    rc, out, err, secs = run(['translate', src], timeout=60)
    problems = []
    if rc != 0:
        problems.append(f'exit {rc}: {err[:600]}')
    if secs > 2:
        problems.append(f'took {secs:.1f} s')
    for want in ('restrict v_CL_0,', 'restrict v_pair_5,', 'restrict X0,', 'restrict v_2,'):
        if want not in out:
            problems.append(f'{want!r} not in the kernel')
    report('translate 60 parameters in reserved families', problems)

    # the launcher renames q (its queue) to q_: a parameter q_ becomes q__
    src = os.path.join(tmp, 'hostnames.dpia')
    with open(src, 'w') as f:
        f.write('kernel hostNames (N: nat) (q q_ dpia_x dpia_x_: [N]float) =\n'
                '  zip (zip q q_) (zip dpia_x dpia_x_)\n'
                '  |> mapGlobal (\\p -> fst (fst p) + snd (fst p) + fst (snd p) + snd (snd p))\n')
    header = os.path.join(tmp, 'hostnames.h')
    rc, out, err, _ = run(['translate', '--emit=header', '-o', header, src])
    problems = [] if rc == 0 else [f'translate: exit {rc}: {err[:600]}']
    if rc == 0:
        unit = os.path.join(tmp, 'unit.c')
        with open(unit, 'w') as f:
            f.write('#include "hostnames.h"\n')
        p = subprocess.run([cc, '-std=c11', '-Wall', '-Wextra', '-Werror', '-fsyntax-only', unit],
                           capture_output=True, cwd=tmp, timeout=120)
        if p.returncode != 0:
            problems.append('the header does not compile: ' + p.stderr.decode()[:600])
    report('header with parameters q and q_', problems)

print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
