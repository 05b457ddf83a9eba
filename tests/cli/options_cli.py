#!/usr/bin/env python3
"""Command-line details: -o files get the mode '>' gives (umask,
or an existing file's mode) and an identical -o file is not rewritten;
--diagnostics=json goes to stdout; hints for '--emit header', '-k' without
a value and unknown or missing kernels (the file's kernel names); --size
takes M=10,N=128 and several NAME=VALUE words; failing preconditions of
dpia run at their construct with the nearest valid sizes; run --check
catches an all-NaN result and a reference outside the domain
(--inputs=positive).

usage: options_cli.py DPIA SAMPLES_DIR"""
import json, os, stat, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import pocl_cache  # noqa: E402

dpia, samples = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
env = pocl_cache.env()  # built once per test (tests/pocl_cache.py)
passed = failed = 0

def report(ok, what, detail=''):
    global passed, failed
    if ok:
        passed += 1
        print(f'PASS {what}')
    else:
        failed += 1
        print(f'FAIL {what}\n  {detail}')

def at(path, line_has, token):
    """'LINE:COL' of token in the first line of path holding line_has (the
    samples' lines move as they are edited: the expected places are
    derived from the files, not written down)"""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line_has in line:
                return f'{n}:{line.index(token, line.index(line_has)) + 1}'
    raise SystemExit(f'options_cli.py: no line of {path} holds {line_has!r}')

def run(args, **kw):
    return subprocess.run([dpia] + args, capture_output=True, text=True, timeout=300, env=env, **kw)

dot = os.path.join(samples, 'dot_partial.dpia')
gemv = os.path.join(samples, 'gemv.dpia')
two = os.path.join(samples, 'dot_global.dpia')

with tempfile.TemporaryDirectory() as tmp:
    # -o: mode from the umask, like '>'
    for mask in (0o022, 0o077, 0o002):
        out = os.path.join(tmp, f'k{mask:o}.cl')
        p = subprocess.run([dpia, 'translate', '--no-verify', dot, '-o', out], capture_output=True, text=True,
                           preexec_fn=lambda m=mask: os.umask(m))
        mode = stat.S_IMODE(os.stat(out).st_mode) if os.path.exists(out) else None
        report(p.returncode == 0 and mode == 0o666 & ~mask, f'-o under umask {mask:03o} gives mode {0o666 & ~mask:03o}',
               f'exit {p.returncode}, mode {mode if mode is None else oct(mode)}\n{p.stderr}')
    # an existing file keeps its mode
    out = os.path.join(tmp, 'keep.cl')
    with open(out, 'w') as f:
        f.write('old\n')
    os.chmod(out, 0o640)
    p = run(['translate', '--no-verify', dot, '-o', out])
    report(p.returncode == 0 and stat.S_IMODE(os.stat(out).st_mode) == 0o640 and 'kernel' in open(out).read(),
           '-o over an existing file keeps its mode 640', oct(os.stat(out).st_mode))
    # an identical file is not rewritten (mtime and inode kept)
    old = time.time() - 3600
    os.utime(out, (old, old))
    before = os.stat(out)
    p = run(['translate', '--no-verify', dot, '-o', out])
    after = os.stat(out)
    report(p.returncode == 0 and after.st_mtime == before.st_mtime and after.st_ino == before.st_ino,
           '-o leaves an identical file untouched (mtime kept)',
           f'exit {p.returncode}, mtime {before.st_mtime} -> {after.st_mtime}')
    # a different result is written
    p = run(['translate', '--no-verify', dot, '--emit=json', '-o', out])
    report(p.returncode == 0 and os.stat(out).st_mtime != before.st_mtime and open(out).read().startswith('['),
           '-o with a different result replaces the file')
    report(not [f for f in os.listdir(tmp) if '.tmp' in f], 'no temporary file left', str(os.listdir(tmp)))

    # --diagnostics=json on stdout, parseable from a pipe; text stays on stderr
    bad = os.path.join(tmp, 'bad.dpia')
    with open(bad, 'w') as f:
        f.write('kernel k (N: nat) (xs: [N]float) =\n  xs |> map (\\x -> x + 1.0)\n')
    for cmd in (['check'], ['translate'], ['verify']):
        p = run(cmd + ['--diagnostics=json', bad])
        try:
            diags = json.loads(p.stdout)
        except ValueError:
            diags = None
        report(p.returncode == 1 and isinstance(diags, list) and diags and diags[0]['level'] == 'error'
               and p.stderr == '', f'dpia {cmd[0]} --diagnostics=json: a JSON array on stdout, stderr empty',
               f'exit {p.returncode}\nstdout: {p.stdout[:300]}\nstderr: {p.stderr[:300]}')
    shell = f"'{dpia}' check --diagnostics=json '{bad}' | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'"
    p = subprocess.run(shell, shell=True, capture_output=True, text=True)
    report(p.stdout.strip().isdigit() and int(p.stdout) >= 1, 'dpia check --diagnostics=json | json.load',
           p.stdout + p.stderr)
    p = run(['check', bad])
    report(p.returncode == 1 and p.stdout == '' and ': error[E' in p.stderr, 'text diagnostics stay on stderr')
    p = run(['check', '--diagnostics=json', dot])
    report(p.returncode == 0 and json.loads(p.stdout) == [], 'dpia check --diagnostics=json of a good file: []',
           p.stdout + p.stderr)
    p = run(['translate', '--no-verify', '--diagnostics=json', dot])
    report(p.returncode == 0 and p.stdout.lstrip().startswith('/*') and '[]' not in p.stdout,
           'a successful translate keeps stdout for the kernel', p.stdout[:200])
    p = run(['translate', '--no-verify', '--diagnostics=json', '-k', 'nope', dot])
    try:
        diags = json.loads(p.stdout)
    except ValueError:
        diags = []
    report(p.returncode == 2 and diags and 'dotPartial' in diags[0]['message'],
           'translate -k nope --diagnostics=json: JSON on stdout naming the kernels', p.stdout + p.stderr)

# command-line hints
def expect(args, code, texts, absent=None):
    p = run(args)
    both = p.stdout + p.stderr
    miss = [t for t in texts if t not in both]
    report(p.returncode == code and not miss and not (absent and absent in both), f'dpia {" ".join(args)}',
           f'exit {p.returncode} (want {code}); missing {miss}\n{both[:500]}')

expect(['translate', '--emit', 'header', dot], 2, ['--emit=header', "Run 'dpia translate --help'"])
expect(['translate', dot, '--emit'], 2, ['--emit=VALUE'])
expect(['translate', '--local-size', '64', dot], 2, ['--local-size=64'])
expect(['translate', dot, '-k'], 2, ['-k needs a kernel name', "Run 'dpia translate --help'"],
       absent="Run 'dpia --help'")
expect(['run', dot, '-k'], 2, ['-k needs a kernel name', "Run 'dpia run --help'"])
expect(['verify', '-k', '--diagnostics=text', dot], 2, ['-k needs a kernel name', "Run 'dpia verify --help'"])
expect(['translate', '-k', 'nope', two], 2, ["no kernel named 'nope'", 'dotProducts, sumPartial'])
expect(['run', two, '--size', 'N=1024'], 2, ['choose it with -k', 'dotProducts, sumPartial'])
expect(['run', '-k', 'nope', two, '--size', 'N=1024'], 2, ["no kernel named 'nope'", 'dotProducts, sumPartial'])

# --size forms: repeated, comma-separated, several words after one --size
for sizes in (['--size', 'M=64', '--size', 'N=128'], ['--size', 'M=64,N=128'], ['--size', 'M=64', 'N=128'],
              ['--size=M=64,N=128'], ['--size', 'N=128', 'M=64', '--check']):
    p = run(['run', gemv, '-k', 'gemv', '--seed', '1'] + sizes)
    report(p.returncode == 0 and 'sizes: ' in p.stdout and 'M=64' in p.stdout and 'N=128' in p.stdout,
           f'dpia run gemv {" ".join(sizes)}', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
expect(['run', gemv, '--size', 'M=64,N='], 2, ["bad --size 'M=64,N='"])
expect(['run', gemv, '--size', 'M=64', 'N=128', gemv], 2, ['more than one input file'])

# dpia run: failing preconditions at the construct requiring them, with the
# nearest valid sizes, every line an error:, exit 1
p = run(['run', gemv, '--size', 'M=10,N=1000'])
lines = p.stderr.splitlines()
report(p.returncode == 1 and f'gemv.dpia:{at(gemv, "|> split (N / 64)", "N / 64")}: error[E0805]: N = 1000 does not satisfy N % 64 == 0; nearest valid: 960 or 1024'
       in p.stderr and '|> split (N / 64)' in p.stderr and '^~~~~~' in p.stderr,
       'dpia run gemv N=1000: the error at the split, nearest valid 960 or 1024', p.stderr)
mm = os.path.join(samples, 'mm_tiled.dpia')
p = run(['run', mm, '--size', 'M=30', 'N=50', 'K=64'])
errs = [l for l in p.stderr.splitlines() if 'does not satisfy' in l]
report(p.returncode == 1 and len(errs) >= 2 and all(': error[E0805]: ' in l for l in errs)
       and 'M = 30 does not satisfy M % 16 == 0; nearest valid: 16 or 32' in p.stderr
       and 'N = 50 does not satisfy N % 16 == 0; nearest valid: 48 or 64' in p.stderr
       and 'mmTiled' not in ''.join(errs),
       'dpia run mm_tiled M=30 N=50: one error: line per failing precondition, at the split', p.stderr)
scal = os.path.join(samples, 'scal.dpia')
p = run(['run', scal, '-k', 'scal', '--size', 'N=1000', '--local-size=64'])
report(p.returncode == 1 and 'error[E0805]: N = 1000 does not satisfy N % 64 == 0 (required by the launch size); '
       'nearest valid: 960 or 1024' in p.stderr, 'a launch size precondition names itself', p.stderr)
p = run(['run', scal, '-k', 'scal', '--size', 'N=100', '--global-size=96', '--local-size=64'])
report(p.returncode == 1 and f'scal.dpia:{at(scal, "kernel scal (", "scal")}: error[E0805]: 96 % 64 == 0 does not hold (required by the launch size)'
       in p.stderr, 'a launch precondition between constants says what fails (no empty name before it)', p.stderr)

# run --check: an all-NaN result is caught; a reference that is not finite
# is reported as inputs outside the domain; --inputs=positive checks sqrt
with tempfile.TemporaryDirectory() as tmp:
    neg = os.path.join(tmp, 'sqrtneg.dpia')
    with open(neg, 'w') as f:
        f.write('kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> sqrt (0.0 - fabs x - 1.0))\n')
    sq = os.path.join(tmp, 'sqrt.dpia')
    with open(sq, 'w') as f:
        f.write('kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> sqrt x)\n')
    p = run(['run', neg, '--size', 'N=1024', '--check', '--seed', '1'])
    report(p.returncode == 3 and 'the reference is not finite at element 0: the inputs are outside the program\'s '
           'domain; try --inputs=positive' in p.stderr and ': ok' not in p.stdout,
           'an all-NaN kernel does not pass --check', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
    p = run(['run', sq, '--size', 'N=1024', '--check', '--seed', '1'])
    report(p.returncode == 3 and 'the reference is not finite' in p.stderr,
           'sqrt on signed inputs: the reference is not finite', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
    # a reference that is 0 everywhere (a cutoff no random input reaches:
    # SHOC MD with a negative cutsq) verifies nothing: not "ok", exit 3, with
    # inputs to try; a result that differs from it is still a difference
    zero = os.path.join(tmp, 'zero.dpia')
    with open(zero, 'w') as f:
        f.write('kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> select (x * x > 4.0) x 0.0)\n')
    p = run(['run', zero, '--size', 'N=1024', '--check', '--seed', '1'])
    report(p.returncode == 3 and "kernel 'k' cannot be checked: the reference is 0 at all 1024 elements" in p.stderr
           and '--inputs=positive' in p.stderr and '--seed' in p.stderr and ': ok' not in p.stdout,
           'an all-zero reference is not a pass', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
    p = run(['run', zero, '--size', 'N=1024', '--check', '--seed', '1', '--json'])
    report(p.returncode == 3 and '"ok": false' in p.stdout and 'the reference is 0 at all 1024 elements' in p.stdout,
           'an all-zero reference: "ok": false in the JSON report', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
    wrong = os.path.join(tmp, 'wrong.cl')
    with open(wrong, 'w') as f:
        f.write('kernel void k(global float *restrict output, const global float *restrict xs, int N) {\n'
                '  output[get_global_id(0)] = xs[get_global_id(0)];\n}\n')
    p = run(['run', zero, '--size', 'N=1024', '--check', '--seed', '1', '--opencl-source=' + wrong])
    report(p.returncode == 3 and "kernel 'k' differs from the reference interpreter" in p.stderr
           and 'cannot be checked' not in p.stderr,
           'a result that differs from an all-zero reference is a difference', f'exit {p.returncode}\n{p.stderr}')
    for kind in ('positive', 'unit'):
        p = run(['run', sq, '--size', 'N=1024', '--check', '--seed', '1', '--inputs=' + kind])
        report(p.returncode == 0 and ': ok' in p.stdout, f'sqrt passes --check with --inputs={kind}',
               f'exit {p.returncode}\n{p.stdout}{p.stderr}')
    # an int result beyond 32 bits: the device's value is undefined (OpenCL
    # C), so the check names the overflowing operation instead of a wrong
    # kernel, and the translation's semantic check is skipped, not failed
    ovf = os.path.join(tmp, 'overflow.dpia')
    with open(ovf, 'w') as f:
        f.write('kernel k (N: nat) (xs: [N]int) = xs |> mapGlobal (\\x -> x * 3 + 1 + x * 100000 * 100000)\n')
    p = run(['run', ovf, '--size', 'N=1024', '--check', '--seed', '1'])
    report(p.returncode == 3 and 'overflow.dpia:1:' in p.stderr and 'cannot be checked' in p.stderr
           and 'leaves the 32-bit range' in p.stderr and 'differs from the reference' not in p.stderr,
           'an int overflow is reported at the operation, not as a wrong kernel', f'exit {p.returncode}\n{p.stderr}')
    p = run(['verify', '-v', ovf])
    report(p.returncode == 0 and 'leaves the 32-bit range' in p.stdout and 'wrong translation' not in p.stderr,
           'an int overflow skips the semantic check', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
    p = run(['run', sq, '--size', 'N=1024', '--inputs=negative'])
    report(p.returncode == 2 and "unknown --inputs kind 'negative'" in p.stderr, '--inputs=negative is refused',
           p.stderr)
    # --input NAME=FILE: sqrt on inputs given, all in its domain, passes;
    # the file read is what the kernel sees (a wrong kernel still differs);
    # a wrong count, a word, a fraction for an int, an index out of range,
    # an unknown or repeated name are refused with their codes
    def given(name, text):
        path = os.path.join(tmp, f'{name}{len(os.listdir(tmp))}.txt')  # a file of its own
        with open(path, 'w') as f:
            f.write(text)
        return ['--input', f'{name}={path}']
    p = run(['run', sq, '--size', 'N=4', '--check', '--seed', '1'] + given('xs', '0.25, 4\n9 16\n'))
    report(p.returncode == 0 and ': ok' in p.stdout, 'sqrt passes --check on inputs given (--input)',
           f'exit {p.returncode}\n{p.stdout}{p.stderr}')
    half = os.path.join(tmp, 'half.cl')
    with open(half, 'w') as f:
        f.write('kernel void k(global float *restrict output, const global float *restrict xs, int N) {\n'
                '  output[get_global_id(0)] = xs[get_global_id(0)] * 0.5f;\n}\n')
    p = run(['run', sq, '--size', 'N=4', '--check', '--seed', '1', '--opencl-source=' + half]
            + given('xs', '0.25 4 9 16'))
    report(p.returncode == 3 and 'expected 4' in p.stderr, 'a kernel wrong on inputs given differs (x/2 at x = 16)',
           f'exit {p.returncode}\n{p.stdout}{p.stderr}')
    idxk = os.path.join(tmp, 'gather.dpia')
    with open(idxk, 'w') as f:
        f.write('kernel k (N: nat) (xs: [N]float) (is: [N]idx[N]) = is |> mapGlobal (\\i -> idx xs i)\n')
    for args, code, says, what in [
            (given('xs', '1 2 3'), 'E0340', '--input xs: 3 numbers, where it has 4', 'a wrong count'),
            (given('xs', '1 2 three 4'), 'E0340', 'number 3 is not a finite number', 'a word'),
            (given('is', '0 1.5 2 3'), 'E0340', 'number 2 (1.5) is not an index of 4 elements', 'a fraction'),
            (given('is', '0 1 2 4'), 'E0340', 'number 4 (4) is not an index of 4 elements', 'an index out of range'),
            (given('ys', '1 2 3 4'), 'E0341', '--input ys: the kernel has no data parameter of that name',
             'an unknown name'),
            (given('xs', '1 2 3 4') + given('xs', '1 2 3 4'), 'E0341', '--input xs: given twice', 'a name twice')]:
        p = run(['run', idxk, '--size', 'N=4', '--check'] + args)
        report(p.returncode == 1 and f'error[{code}]' in p.stderr and says in p.stderr,
               f'--input with {what} is refused ({code})', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
    p = run(['run', sq, '--size', 'N=4', '--input', 'xs'])
    report(p.returncode == 2 and '--input needs NAME=FILE' in p.stderr, '--input without =FILE is a usage error',
           f'exit {p.returncode}\n{p.stderr}')

# run --check of a foreign function whose body is OpenCL C only (a work-item
# query): the program's fault (exit 1, E-coded), not an internal error
with tempfile.TemporaryDirectory() as tmp:
    fn = os.path.join(tmp, 'foreign.dpia')
    with open(fn, 'w') as f:
        f.write('foreign lid (x: float) : float = "{ return (float)get_local_id(0) + x; }"\n'
                'kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> lid x)\n')
    p = run(['run', fn, '-k', 'k', '--size', 'N=64', '--check', '--diagnostics=json'])
    report(p.returncode == 1 and '"code": "E' in p.stderr + p.stdout and
           "the reference interpreter cannot run foreign function 'lid' on the host" in p.stderr + p.stdout
           and 'internal' not in p.stderr + p.stdout,
           'a foreign body the host cannot run is the program\'s error', f'exit {p.returncode}\n{p.stdout}{p.stderr}')

print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
