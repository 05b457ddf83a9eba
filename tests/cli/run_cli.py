#!/usr/bin/env python3
"""Command-line behaviour of dpia (spec section 9): exit codes,
messages for bad invocations, --help for each command, and output files
written atomically (an error leaves no partial -o file and never truncates
an existing one); the verification in the helper process or in process
gives the same output.  Expectations are inline: (arguments, exit code, text that
must appear in stdout+stderr)."""
import os, subprocess, sys, tempfile

dpia = os.path.abspath(sys.argv[1])
samples = os.path.abspath(sys.argv[2])
passed = failed = 0

def run(args, cwd=None):
    p = subprocess.run([dpia] + args, capture_output=True, timeout=60, cwd=cwd)
    return p.returncode, p.stdout.decode(), p.stderr.decode()

def expect(args, code, text='', cwd=None, absent=None):
    global passed, failed
    rc, out, err = run(args, cwd)
    both = out + err
    problems = []
    if rc != code:
        problems.append(f'exit {rc}, expected {code}')
    if text and text not in both:
        problems.append(f'{text!r} not in output')
    if absent and absent in both:
        problems.append(f'{absent!r} should not be in output')
    if problems:
        failed += 1
        print(f'FAIL dpia {" ".join(args)}: {"; ".join(problems)}\n  output: {both[:600]}')
    else:
        passed += 1
        print(f'PASS dpia {" ".join(args)}')
    return out

dot = os.path.join(samples, 'dot_partial.dpia')
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, 'bad.dpia')
    with open(bad, 'w') as f:
        f.write('kernel k (N: nat) (xs: [N]float) =\n  xs |> map (\\x -> x + 1.0)\n')
    # usage
    expect([], 2, 'usage: dpia COMMAND')
    expect(['--help'], 0, 'commands:')
    expect(['--version'], 0, 'dpia ')
    expect(['frobnicate'], 2, "unknown command 'frobnicate'")
    for cmd in ('check', 'translate', 'verify'):
        expect([cmd, '--help'], 0, f'usage: dpia {cmd}')
        expect([cmd], 2, 'needs an input FILE')
        expect([cmd, '--bogus', dot], 2, "unknown option '--bogus'")
        expect([cmd, dot, dot], 2, 'more than one input file')
        expect([cmd, os.path.join(tmp, 'missing.dpia')], 2, 'No such file or directory')
        expect([cmd, tmp], 2, 'is a directory')
    expect(['check', '-k', 'dotPartial', dot], 2, "unknown option '-k'")
    expect(['translate', '-k'], 2, '-k needs a kernel name')
    expect(['translate', '--emit=pdf', dot], 2, "unknown --emit kind 'pdf'")
    expect(['translate', '--local-size=0', dot], 2, 'bad --local-size')
    expect(['translate', '--local-size=1,2,3,4', dot], 2, 'bad --local-size')
    expect(['translate', '-k', 'nope', dot], 2, "no kernel named 'nope'")
    expect(['translate', '-o'], 2, '-o needs a file name')
    # results
    expect(['check', dot], 0)
    expect(['check', '-v', dot], 0, 'kernel dotPartial : [N/2048]float')
    # text diagnostics carry the error's code as rustc's do; the note
    # explains that error and has none of its own
    expect(['check', bad], 1, "bad.dpia:2:9: error[E0601]: this 'map' computes")
    expect(['check', bad], 1, 'bad.dpia:2:20: note: it computes here\n', absent='note[')
    expect(['check', '--help'], 0, 'error[E0301]: message (docs/errors.md explains each code)')
    expect(['check', '--diagnostics=json', bad], 1, '"line": 2, "column": 9')
    expect(['translate', '--emit=imperative', '-k', 'dotPartial', dot], 0, 'parforWorkgroup')
    expect(['verify', dot], 0)
    # atomic output: success writes the file; failure leaves an existing file alone
    out = os.path.join(tmp, 'out.dpia')
    expect(['translate', '--emit=imperative', '-o', out, dot], 0)
    ok = os.path.exists(out) and 'parforLocal' in open(out).read()
    with open(out, 'w') as f:
        f.write('precious\n')
    expect(['translate', '--emit=imperative', '-o', out, bad], 1, 'error[E0601]:')
    ok = ok and open(out).read() == 'precious\n'
    fresh = os.path.join(tmp, 'fresh.dpia')
    expect(['translate', '--emit=imperative', '-o', fresh, bad], 1)
    ok = ok and not os.path.exists(fresh)
    ok = ok and not [f for f in os.listdir(tmp) if '.tmp' in f]
    expect(['translate', '--emit=imperative', '-o', os.path.join(tmp, 'no', 'such', 'dir', 'x'), dot], 2,
           'cannot write')
    if ok:
        passed += 1
        print('PASS atomic -o: written on success, untouched on error, no temporary left behind')
    else:
        failed += 1
        print('FAIL atomic -o')

    # -o that cannot be written, and options given twice (an
    # error, never silently the last one)
    outdir = os.path.join(tmp, 'outdir')
    os.mkdir(outdir)
    expect(['translate', '-o', outdir, dot], 2, f"cannot write '{outdir}': Is a directory")
    expect(['translate', '-o', '/dev/full', dot], 2, "cannot write '/dev/full': No space left on device")
    # an unwritable directory: sysfs refuses new files even to root; a
    # read-only directory refuses them to anyone else
    expect(['translate', '-o', '/sys/dpia-test.cl', dot], 2, "cannot write '/sys/dpia-test.cl'")
    if os.geteuid() != 0:
        locked = os.path.join(tmp, 'locked')
        os.mkdir(locked, 0o555)
        expect(['translate', '-o', os.path.join(locked, 'k.cl'), dot], 2, 'Permission denied')
        os.chmod(locked, 0o755)
    leftovers = [f for f in os.listdir(tmp) if '.tmp' in f] + os.listdir(outdir)
    if leftovers:
        failed += 1
        print(f'FAIL unwritable -o left {leftovers}')
    else:
        passed += 1
        print('PASS unwritable -o leaves nothing behind')
    for args, option in ((['--emit=json', '--emit=opencl'], '--emit'),
                         (['--emit=json', '--emit=json'], '--emit'),
                         (['-k', 'dotPartial', '--kernel=dotPartial'], '-k'),
                         (['-o', os.path.join(tmp, 'a.cl'), '-o', os.path.join(tmp, 'b.cl')], '-o'),
                         (['--local-size=64', '--local-size=128'], '--local-size'),
                         (['--global-size=64', '--global-size=128'], '--global-size')):
        expect(['translate'] + args + [dot], 2, f'dpia: error: {option} given twice')
    expect(['verify', '-k', 'a', '-k', 'b', dot], 2, 'dpia: error: -k given twice')
    ok = not os.path.exists(os.path.join(tmp, 'a.cl')) and not os.path.exists(os.path.join(tmp, 'b.cl'))
    if ok:
        passed += 1
        print('PASS options given twice write nothing')
    else:
        failed += 1
        print('FAIL options given twice wrote a file')

# The one verification of a call runs in the helper process
# dpia-clang-check; with DPIA_CLANG_HELPER empty, or naming a
# helper that is missing or stops at once, in process with libclang: the
# same output every way.
def run_env(args, env):
    p = subprocess.run([dpia] + args, capture_output=True, timeout=60, env=dict(os.environ, **env))
    return p.returncode, p.stdout.decode(), p.stderr.decode()

ways = {'helper': {}, 'in process': {'DPIA_CLANG_HELPER': ''},
        'missing helper': {'DPIA_CLANG_HELPER': '/nonexistent/dpia-clang-check'},
        'helper that stops': {'DPIA_CLANG_HELPER': '/bin/true'}}
for sample in ('dot_partial', 'gemv', 'mm_tiled'):
    path = os.path.join(samples, sample + '.dpia')
    results = {way: run_env(['translate', path], env) for way, env in ways.items()}
    if all(r == results['helper'] for r in results.values()) and results['helper'][0] == 0:
        passed += 1
        print(f'PASS translate {sample}: same output with the helper, in process, without a helper')
    else:
        failed += 1
        print(f'FAIL translate {sample}: outputs differ: ' +
              '; '.join(f'{w}: exit {r[0]}, {len(r[1])} bytes, {r[2][:200]!r}' for w, r in results.items()))
rc, _, err = run_env(['verify', dot], {})
if rc == 0 and not err:
    passed += 1
    print('PASS verify with the helper')
else:
    failed += 1
    print(f'FAIL verify with the helper: exit {rc}, {err[:300]!r}')
# a failed write to stdout is an error, not a silent loss
p = subprocess.run([dpia, 'translate', dot], stdout=open('/dev/full', 'w'), stderr=subprocess.PIPE, timeout=60)
if p.returncode == 2 and b'cannot write the output' in p.stderr:
    passed += 1
    print('PASS translate > /dev/full fails')
else:
    failed += 1
    print(f'FAIL translate > /dev/full: exit {p.returncode}, {p.stderr[:300]!r}')

# the OpenCL implementation aborting (PoCL 3.1's compiler on a valid
# kernel, tests/diff/known/pocl_cannot_select.cl) ends `dpia run` with exit 4
# and a message, not with the signal
known = os.path.join(os.path.dirname(samples), 'tests', 'diff', 'known')
rc, out, err = run(['run', os.path.join(known, '..', 'regress', 'pocl_cannot_select.dpia'), '--size', 'N=55',
                    '--opencl-source=' + os.path.join(known, 'pocl_cannot_select.cl')])
if rc == 4 and 'failure of the OpenCL implementation' in err and 'signal 6' in err:
    passed += 1
    print('PASS run: PoCL aborting is exit 4 with a message')
else:
    failed += 1
    print(f'FAIL run of known/pocl_cannot_select.cl: exit {rc} (4 expected; if PoCL now builds it, '
          f'this test needs another kernel that aborts it), {err[-400:]!r}')

# --json: the report as one JSON object, also when the check fails
import json
def json_report(args, code, check):
    global passed, failed
    rc, out, err = run(args)
    try:
        d = json.loads(out)
        ok = (rc == code and (d.get('kernel') or d['pipeline']) and d['device'] and d['sizes'] and d['global_size']
              and d['min_ms'] >= 0 and d['runs'] >= 1 and check(d))
    except (ValueError, KeyError, TypeError) as e:
        ok, d = False, repr(e)
    if ok:
        passed += 1
        print(f'PASS dpia {" ".join(args)}')
    else:
        failed += 1
        print(f'FAIL dpia {" ".join(args)}: exit {rc} (expected {code}), report {out[:500]!r} {err[-300:]!r}')
scal = os.path.join(samples, 'scal.dpia')
json_report(['run', scal, '-k', 'scal', '--size', 'N=1024', '--json'], 0,
            lambda d: d['check'] is None and d['sizes'] == {'N': 1024} and d['local_size'] is None)
json_report(['run', scal, '-k', 'scal', '--size', 'N=1024', '--json', '--check', '--seed', '5'], 0,
            lambda d: d['check']['ok'] is True and d['check']['seed'] == 5 and d['check']['relative_error'] < 1e-4)
# "race_check" (docs/reference.md section 8.5): done at the run's sizes,
# not done past the check's budget (dotPartial at N=262144: a work-group
# of 128 summing 2048 elements each), null when none is attempted, and a
# pipeline's one entry a launch at the sizes the launch passes its kernel
json_report(['run', scal, '-k', 'scal', '--size', 'N=1024', '--json'], 0,
            lambda d: d['race_check']['done'] is True and d['race_check']['sizes'] == {'N': 1024}
            and d['race_check']['report'].startswith('race check passed: ') and 'at N=1024' in d['race_check']['report'])
json_report(['run', os.path.join(samples, 'dot_partial.dpia'), '-k', 'dotPartial', '--size', 'N=262144', '--json'], 0,
            lambda d: d['race_check']['done'] is False and d['race_check']['sizes'] == {'N': 262144}
            and d['race_check']['report'].startswith('race check not done: '))
json_report(['run', scal, '-k', 'scal', '--size', 'N=1024', '--json', '--no-verify'], 0,
            lambda d: d['race_check'] is None)
json_report(['run', os.path.join(samples, 'atax.dpia'), '-k', 'atax', '--size', 'M=64,N=128', '--json'], 0,
            lambda d: [(r['launch'], r['kernel'], r['race_check']['done'], r['race_check']['sizes'])
                       for r in d['race_check']] == [(1, 'ax', True, {'M': 64, 'N': 128}), (2, 'atv', True, {'M': 64, 'N': 128})])
with tempfile.TemporaryDirectory() as tmp:
    wrong = os.path.join(tmp, 'wrong.cl')
    text = run(['translate', scal, '-k', 'scal'])[1]
    with open(wrong, 'w') as f:
        f.write(text.replace('alpha * xs[gid]', '2.0f * alpha * xs[gid]'))
    json_report(['run', scal, '-k', 'scal', '--size', 'N=1024', '--json', '--check', '--opencl-source=' + wrong], 3,
                lambda d: d['check']['ok'] is False and 'exceeds the bound' in d['check']['report'])

# --json when a precondition refuses the sizes: the report says so on
# stdout (it printed nothing there), exit 1 as without --json
def json_refused(args, what, name, sizes, text):
    global passed, failed
    rc, out, err = run(args)
    try:
        d = json.loads(out)
        ok = (rc == 1 and d[what] == name and d['sizes'] == sizes and d['status'] == 'precondition_failed'
              and d['diagnostics'][0]['code'] == 'E0805' and text in d['diagnostics'][0]['message']
              and len(out.splitlines()) == 1)
    except (ValueError, KeyError, TypeError, IndexError) as e:
        ok = False
    if ok:
        passed += 1
        print(f'PASS dpia {" ".join(args)}')
    else:
        failed += 1
        print(f'FAIL dpia {" ".join(args)}: exit {rc} (expected 1), report {out[:500]!r} {err[-300:]!r}')
json_refused(['run', scal, '-k', 'scalVec', '--size', 'N=1023', '--json'], 'kernel', 'scalVec', {'N': 1023},
             'N = 1023 does not satisfy N % 4 == 0; nearest valid: 1020 or 1024')
json_refused(['run', os.path.join(samples, 'dot_full.dpia'), '-k', 'dot', '--size', 'N=1023', '--json'], 'pipeline',
             'dot', {'N': 1023}, 'does not satisfy N >= 2048')

# --no-verify, as translate and batch take it: the run happens without the
# checks of dpia verify (--check still compares with the reference)
expect(['run', scal, '-k', 'scal', '--size', 'N=1024', '--check', '--no-verify'], 0, 'relative error')

# an NDRange with no work-item (ceil(N/64) groups at N = 0): nothing to
# compute when every output is empty; refused, naming the output, when one
# is not (no work-item would write it)
any_size = os.path.join(samples, 'dot_any.dpia')
for k in ('scalAny', 'dotAny'):
    expect(['run', any_size, '-k', k, '--size', 'N=0', '--check'], 0, 'the result is empty, as the reference')
# --json with nothing launched: no run, so no time (null, not 0 ms), and
# the check still said (the empty result is the reference's)
for k, extra in (('scalAny', []), ('scalAny', ['--check']), ('dotAny', ['--check', '--repeat', '3'])):
    rc, out, err = run(['run', any_size, '-k', k, '--size', 'N=0', '--json'] + extra)
    try:
        d = json.loads(out)
        ok = (rc == 0 and d['runs'] == 0 and d['min_ms'] is None and d['median_ms'] is None and
              d['gb_per_s'] is None and (d['check']['ok'] is True if extra else d['check'] is None))
    except (ValueError, KeyError, TypeError) as e:
        ok = False
    if ok:
        passed += 1
        print(f'PASS dpia run {k} --size N=0 --json {" ".join(extra)}')
    else:
        failed += 1
        print(f'FAIL dpia run {k} --size N=0 --json {" ".join(extra)}: exit {rc}, report {out[:500]!r} {err[-300:]!r}')
with tempfile.TemporaryDirectory() as tmp:
    half = os.path.join(tmp, 'half.dpia')
    with open(half, 'w') as f:
        f.write('kernel k (N: nat) (xs: [N]float) (ys: [4]float) =\n'
                '  pair (xs |> mapGlobal (\\x -> x)) (ys |> mapSeq (\\y -> y))\n')
    expect(['run', half, '-k', 'k', '--size', 'N=0'], 2, 'but output output_2 has 4 elements')
    # a fault of the sizes with its own code (E0413), located at the
    # kernel, not the OpenCL runtime's E0004
    expect(['run', half, '-k', 'k', '--size', 'N=0'], 2, 'error[E0413]: the NDRange has no work-item',
           absent='E0004')
    expect(['run', half, '-k', 'k', '--size', 'N=0'], 2, 'half.dpia:1:8')
    expect(['run', half, '-k', 'k', '--size', 'N=3', '--check'], 0, 'relative error 0')

# the race check of the launch the run makes (docs/language.md section
# 20.1): at the run's sizes and NDRange, whatever gave it, not only at the
# smallest sizes (where the work-group loop of
# tests/diff/regress/group_loop_select_local_no_back_barrier.dpia ran once,
# and its missing barrier, before 8df3669, showed only to dpia verify: with
# this check, run at N=120 reported it, E0008, exit 3); -v says what it
# covered, or why it was not done
regress = os.path.join(os.path.dirname(samples), 'tests', 'diff', 'regress',
                       'group_loop_select_local_no_back_barrier.dpia')
expect(['run', regress, '-k', 'k', '--size', 'N=120', '--local-size=4', '--global-size=4', '--check', '-v'], 0,
       'race check passed: no race, no access out of bounds, no barrier divergence: at N=120 in launch global 4 local 4 (')
expect(['run', regress, '-k', 'k', '--size', 'N=120', '--local-size=26', '--global-size=26', '-v'], 0,
       'at N=120 in launch global 26 local 26 (')
expect(['run', regress, '-k', 'k', '--size', 'N=120', '-v'], 0, 'at N=120 in launch global 40 local 10 (')
expect(['run', scal, '-k', 'scal', '--size', 'N=131072', '-v'], 0,
       'race check not done: kernel \'scal\' at N=131072, launch global 131072 local 1 (the code emitted): launch '
       'global 131072 local 1 has 131072 work-items')
expect(['run', regress, '-k', 'k', '--size', 'N=120', '-v', '--no-verify'], 0, 'NDRange', absent='race check')
# a pipeline: each launch at its own sizes (dotSum's M is dotParts'
# groups; dotParts, 2048 * 128 elements a group, is past the budget)
out = expect(['run', os.path.join(samples, 'atax.dpia'), '-k', 'atax', '--size', 'M=64,N=64', '-v'], 0,
             '  launch 1, ax: race check passed: no race, no access out of bounds, no barrier divergence: at M=64, N=64 in '
             'launch global 64 local 1 (')
expect(['run', os.path.join(samples, 'dot_full.dpia'), '-k', 'dot', '--size', 'N=262144', '-v'], 0,
       '  launch 2, dotSum: race check passed: no race, no access out of bounds, no barrier divergence: at M=128 in '
       'launch global 1 local 1 (')
expect(['run', os.path.join(samples, 'dot_full.dpia'), '-k', 'dot', '--size', 'N=262144', '-v'], 0,
       "  launch 1, dotParts: race check not done: kernel 'dotParts' at N=262144, launch global 128 local 128")
if '  launch 2, atv: race check passed: ' not in out:
    failed += 1
    print(f'FAIL run -k atax -v: launch 2 not checked: {out[-600:]!r}')
expect(['run', regress, '-k', 'k', '--size', 'N=120'], 0, 'NDRange', absent='race check')
# a tune parameter with no default and no cache entry is --set's to give
# (docs/tune.md), not --size's (no machine's cache gives it one here)
os.environ['DPIA_TUNE_CACHE'] = 'off'
gemv_tune = os.path.join(samples, 'tune', 'gemv_tune.dpia')
for way in ([], ['--diagnostics=json']):
    expect(['run', gemv_tune, '-k', 'gemv', '--size', 'M=64,N=256'] + way, 2, 'add --set WG=VALUE', absent='--size WG')
expect(['run', gemv_tune, '-k', 'gemv', '--size', 'M=64,N=256'], 2,
       "needs a value for its tune parameter WG, which has no default and no entry in the tuning cache: add --set "
       "WG=VALUE, a value of tune [16, 32, 64, 128, 256], or find one with 'dpia tune'")
expect(['run', gemv_tune, '-k', 'gemv', '--size', 'M=64,N=256', '--set', 'WG=32', '--check', '-v'], 0,
       'at M=64, N=256 in launch global 2048 local 32 (')

# batch --help names every action and member a request may have
for text in ('translate|check|verify|run|rewrite', '"set"', '"sizes"', '"repeat"', '"seed"', 'precondition_failed',
             '"apply"', '"params"', '"high_level"'):
    expect(['batch', '--help'], 0, text)

print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
