#!/usr/bin/env python3
"""tune_cli.py: `dpia tune` and the tuning cache (docs/tune.md), on the device.

Usage: tune_cli.py DPIA ROOT

- `dpia tune` of tests/tune/scal_tune.dpia (one parameter, three values)
  with a temporary cache: exit 0, the JSON's best checked against the
  reference, the cache written in its documented form with that value,
  keyed by the device, a hash of the source, the kernel and the sizes;
- the cache's value is used without the user naming it: the test sets the
  entry to C=16 (not the default, 8), then `dpia translate -k` gives the
  kernel of `--set C=16` and says so (the note on stderr, the header's
  comment naming the device), `dpia run` reports it ("tuned") and its
  check passes; `--set C=4` wins over the cache; with the cache off, or for
  another source text, the default is used;
- an entry whose values break a precondition at the run's sizes is passed
  over (issue 39): with C=16 tuned at N=64 (nearest) and C=4 at N=4096,
  `dpia run` at N=24 (24 % 16 != 0) takes C=4 and notes (E1110) which
  entry it passed over and why; with C=16 alone it runs with the default
  and says so; `--set C=16` still fails with the precondition (E0805);
- `dpia tune --valid-at N=24` skips C=16 (E0805 at N=24) before running
  it, keeps the sizes in the entry ("valid_at") and in --json, and a run
  at N=24 takes that entry; bad --valid-at sizes are E1107;
- a corrupt cache (not JSON, or not a cache, or a bad valid_at) is E0811,
  exit 1;
- no point runs at the sizes: E1108; a missing size: E1107;
- points that launch nothing at the sizes (tests/tune/whole_tune.dpia:
  floor(4/C) work-items and an empty output for C > 4) are "not timed",
  in the table and the JSON, never ranked nor the best; E1108 when no
  other point is timed;
- a source whose length is a multiple of 16 bytes tunes (every point
  runs), as any other;
- the pipeline samples/gemm.dpia tuned on its register tile (the others
  --set), its entry used by `dpia run -k gemm`; samples/gemm_any.dpia's
  gemmAny tuned on CP at sizes that divide nothing, likewise;
- samples/adi.dpia's adiRows, which updates two inputs in place, tuned
  (its inputs restored on the device before each timed launch) and run
  with --repeat 7 --check."""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def run(dpia, args, cache, timeout=300):
    env = dict(os.environ, DPIA_TUNE_CACHE=cache)
    return subprocess.run([dpia] + args, capture_output=True, text=True, timeout=timeout, env=env)


def expect(cond, what, p=None):
    if not cond:
        failures.append(what + ('' if p is None else f'\nstdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}'))


def codes(p):
    try:
        return [d.get('code') for d in json.loads(p.stdout) if d.get('level') == 'error']
    except ValueError:
        return None


def notes(p):
    """the E1110 notes of --diagnostics=json on stderr (a run that succeeds)"""
    try:
        return [d['message'] for d in json.loads(p.stderr) if d.get('code') == 'E1110' and d['level'] == 'note']
    except ValueError:
        return None


def passed_over(dpia, src, tmp, c, e):
    """the nearest entry breaks a precondition at the run's sizes"""
    cache = os.path.join(tmp, 'passed_over.json')
    near = dict(e, sizes={'N': 64}, values={'C': 16})    # 24 % 16 != 0
    far = dict(e, sizes={'N': 4096}, values={'C': 4})    # 24 % 4 == 0
    json.dump(dict(c, entries=[far, near]), open(cache, 'w'))
    p = run(dpia, ['run', src, '-k', 'scalTune', '--size', 'N=24', '--check'], cache)
    expect(p.returncode == 0 and '  tuned: C=4, tuned by dpia tune on ' in p.stdout and
           'at N=4096\n' in p.stdout, 'run at N=24: not the next valid entry (C=4)', p)
    expect('note[E1110]' in p.stderr and 'C=16' in p.stderr and 'tuned at N=64' in p.stderr and
           'N % 16 == 0' in p.stderr and 'split C' in p.stderr, 'run at N=24: no note on the entry passed over', p)
    p = run(dpia, ['run', src, '-k', 'scalTune', '--size', 'N=24', '--json', '--diagnostics=json'], cache)
    r = json.loads(p.stdout) if p.returncode == 0 else {}
    expect(r.get('global_size') == [6] and r.get('tuned', '').startswith('C=4,'), f'run --json at N=24: {r}', p)
    expect(len(notes(p) or []) == 1, 'run --json at N=24: not one E1110 note in the diagnostics', p)
    # the nearest entry that holds is taken as before, without a note
    p = run(dpia, ['run', src, '-k', 'scalTune', '--size', 'N=64'], cache)
    expect(p.returncode == 0 and '  tuned: C=16, tuned by' in p.stdout and 'E1110' not in p.stderr,
           'run at N=64: not the entry tuned there', p)
    # explicit values still win, and still fail with the precondition
    p = run(dpia, ['run', src, '-k', 'scalTune', '--size', 'N=24', '--set', 'C=16', '--diagnostics=json'], cache)
    expect(p.returncode == 1 and codes(p) == ['E0805'], '--set C=16 at N=24: not E0805', p)
    # no entry fits: the defaults (C=8: 3 work-items), said so
    json.dump(dict(c, entries=[near]), open(cache, 'w'))
    p = run(dpia, ['run', src, '-k', 'scalTune', '--size', 'N=24', '--json', '--diagnostics=json'], cache)
    r = json.loads(p.stdout) if p.returncode == 0 else {}
    got = notes(p) or []
    expect(r.get('global_size') == [3] and 'tuned' not in r and len(got) == 2 and
           'the declared defaults are used' in got[1], f'run at N=24, no entry fits: {r}, notes {got}', p)
    # a translation has no sizes: the entry written last, as before
    p = run(dpia, ['translate', src, '-k', 'scalTune'], cache)
    expect(p.returncode == 0 and 'tuning cache: C=16' in p.stderr and 'E1110' not in p.stderr,
           'translate without sizes: not the entry', p)


def valid_at(dpia, src, tmp):
    """dpia tune --valid-at: points that break a precondition there are skipped"""
    cache = os.path.join(tmp, 'valid_at.json')
    p = run(dpia, ['tune', src, '-k', 'scalTune', '--size', 'N=4096', '--valid-at', 'N=24', '--budget', '120',
                   '--seed', '3', '--repeat', '1', '--json'], cache)
    d = json.loads(p.stdout) if p.returncode == 0 else {}
    status = {pt['values']['C']: (pt['status'], pt.get('reason'), pt.get('at')) for pt in d.get('points', [])}
    expect(p.returncode == 0 and d.get('valid_at') == [{'N': 24}] and d.get('timed') == 2 and
           status.get(16) == ('skipped', 'E0805', {'N': 24}) and d.get('best', {}).get('C') in (4, 8),
           f'tune --valid-at N=24: {d}', p)
    if p.returncode != 0:
        return
    entry = json.load(open(cache))['entries'][0]
    expect(entry.get('valid_at') == [{'N': 24}] and entry['sizes'] == {'N': 4096}, f'--valid-at: entry {entry}')
    p = run(dpia, ['run', src, '-k', 'scalTune', '--size', 'N=24', '--check'], cache)
    expect(p.returncode == 0 and f'  tuned: C={d["best"]["C"]}, tuned by' in p.stdout and
           'at N=4096, valid at N=24\n' in p.stdout and 'E1110' not in p.stderr, 'run at the --valid-at size', p)
    p = run(dpia, ['tune', src, '-k', 'scalTune', '--size', 'N=4096', '--valid-at', 'N=24', '--repeat', '1'], 'off')
    expect(p.returncode == 0 and 'tune scalTune: N=4096, valid at N=24;' in p.stdout and
           '(1 skipped: a precondition fails at the sizes of --valid-at)' in p.stdout, 'tune --valid-at: the table', p)
    for bad in ('M=24', 'N=24,M=2'):
        p = run(dpia, ['tune', src, '-k', 'scalTune', '--size', 'N=4096', '--valid-at', bad, '--diagnostics=json'], 'off')
        expect(p.returncode == 1 and codes(p) == ['E1107'], f'--valid-at {bad}: not E1107', p)
    p = run(dpia, ['tune', src, '-k', 'scalTune', '--size', 'N=4096', '--valid-at', 'N=0'], 'off')
    expect(p.returncode == 2, '--valid-at N=0: not a usage error', p)


def stage_points(dpia, root):
    """every point of a pipeline stage's --emit=space translates with -k
    STAGE (issue: gemmAnyPackB at BP=2 was refused, the pipeline gemmAny
    seeing gemmAnyBlocks' default BP, then 8, beside it): each value of each
    parameter with the others at their first, and the values in step; a
    point that breaks a constraint of tune parameters alone is no point of
    the space.  One such point verified, run and checked, and one tuned."""
    import itertools
    import re
    for name in ('gemm.dpia', 'gemm_any.dpia'):
        path = os.path.join(root, 'samples', name)
        for k in re.findall(r'^kernel (\w+)', open(path).read(), re.M):
            p = run(dpia, ['translate', path, '-k', k, '--emit=space'], 'off')
            expect(p.returncode == 0, f'{name} {k}: no space', p)
            if p.returncode != 0:
                continue
            space = json.loads(p.stdout)
            tune = [(t['name'], t['values']) for t in space['tune']]
            points = [{n: v[min(j, len(v) - 1)] for n, v in tune} for j in range(max(len(v) for _, v in tune))]
            for i, (n, values) in enumerate(tune):
                points += [dict({m: w[0] for m, w in tune}, **{n: v}) for v in values]
            for point in points:
                def holds(c):
                    try:
                        return eval(c, {}, dict(point))
                    except NameError:  # a size: decided at the run
                        return True
                if not all(holds(c) for c in space['constraints']):
                    continue
                sets = list(itertools.chain(*(['--set', f'{n}={v}'] for n, v in point.items())))
                p = run(dpia, ['translate', path, '-k', k, '--no-verify'] + sets, 'off')
                expect(p.returncode == 0, f'translate {name} -k {k} {" ".join(sets)}: exit {p.returncode}', p)
    gemm_any = os.path.join(root, 'samples', 'gemm_any.dpia')
    p = run(dpia, ['run', gemm_any, '-k', 'gemmAnyPackB', '--set', 'BP=2', '--size', 'N=100,K=37', '--check'], 'off')
    expect(p.returncode == 0 and 'check (seed' in p.stdout, 'run gemmAnyPackB --set BP=2', p)
    p = run(dpia, ['tune', gemm_any, '-k', 'gemmAnyPackB', '--size', 'N=100,K=37', '--set', 'V=16', '--set', 'CP=2',
                   '--repeat', '1', '--json'], 'off')
    d = json.loads(p.stdout) if p.returncode == 0 else {}
    expect(d.get('space') == 4 and d.get('timed') == 4, f'tune gemmAnyPackB: each BP timed: {d}', p)


def main():
    dpia, root = sys.argv[1], sys.argv[2]
    src = os.path.join(root, 'tests', 'tune', 'scal_tune.dpia')
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, 'sub', 'tune.json')  # its directory is made
        p = run(dpia, ['tune', src, '-k', 'scalTune', '--size', 'N=4096', '--budget', '120', '--seed', '3',
                       '--repeat', '2', '--json'], cache)
        expect(p.returncode == 0, f'tune: exit {p.returncode}', p)
        if p.returncode != 0:
            return
        d = json.loads(p.stdout)
        expect(d['space'] == 3 and d['tried'] == 3 and d['timed'] == 3, f'tune: space {d["space"]} tried {d["tried"]}')
        best = d['best']
        checked = [pt for pt in d['points'] if pt['check'] == 'ok']
        expect(best and best['C'] in (4, 8, 16) and len(checked) == 1 and checked[0]['values'] == best,
               f'tune: best {best}, checked {checked}')
        expect(d['points'][0]['values'] == best, 'tune: the ranking starts with the best')
        c = json.load(open(cache))
        expect(c['format'] == 'dpia-tune-cache' and c['version'] == 1 and len(c['entries']) == 1, f'cache: {c}')
        e = c['entries'][0]
        expect(e['kernel'] == 'scalTune' and e['sizes'] == {'N': 4096} and e['values'] == best and
               e['device'] == d['device'] and e['source_hash'].startswith('fnv1a64:'), f'cache entry: {e}')

        # the cached value chosen without the user naming it: C=16 is not the default
        e['values'] = {'C': 16}
        json.dump(c, open(cache, 'w'))
        want16 = run(dpia, ['translate', src, '-k', 'scalTune', '--set', 'C=16'], 'off').stdout
        want8 = run(dpia, ['translate', src, '-k', 'scalTune', '--set', 'C=8'], 'off').stdout
        want4 = run(dpia, ['translate', src, '-k', 'scalTune', '--set', 'C=4'], 'off').stdout
        expect(want16 != want8 and want16 and want8, 'translate: the values give different kernels')
        p = run(dpia, ['translate', src, '-k', 'scalTune'], cache)
        expect(p.returncode == 0 and p.stdout == want16, 'translate with the cache: not the kernel of C=16', p)
        expect('tuning cache: C=16, tuned by dpia tune on ' + e['device'] in p.stderr, 'translate: no note', p)
        p = run(dpia, ['translate', src, '-k', 'scalTune', '--emit=header'], cache)
        expect(' * Tuned values from the tuning cache: C=16, tuned by dpia tune on ' + e['device'] in p.stdout,
               'header: no comment naming the device', p)
        p = run(dpia, ['translate', src, '-k', 'scalTune', '--set', 'C=4'], cache)
        expect(p.returncode == 0 and p.stdout == want4 and 'tuning cache' not in p.stderr, '--set does not win', p)
        p = run(dpia, ['translate', src, '-k', 'scalTune'], 'off')
        expect(p.returncode == 0 and p.stdout == want8, 'cache off: not the default', p)
        other = os.path.join(tmp, 'other.dpia')
        open(other, 'w').write(open(src).read() + '\n')  # another text: another hash
        p = run(dpia, ['translate', other, '-k', 'scalTune'], cache)
        body = lambda text: text.split('\n', 1)[1]  # after the comment's line naming the file
        expect(p.returncode == 0 and body(p.stdout) == body(want8) and 'tuning cache' not in p.stderr,
               'another source used the entry', p)
        p = run(dpia, ['run', src, '-k', 'scalTune', '--size', 'N=1024', '--check'], cache)
        expect(p.returncode == 0 and '  tuned: C=16, tuned by dpia tune on' in p.stdout, 'run: not tuned', p)
        # the race check of the run's own launch is of the launch C=16 gives
        # (1024/16 work-items), not the default's (docs/language.md 20.1)
        p = run(dpia, ['run', src, '-k', 'scalTune', '--size', 'N=1024', '-v'], cache)
        expect(p.returncode == 0 and 'race check passed: ' in p.stdout and
               'at N=1024 in launch global 64 local 1 (' in p.stdout, 'run -v: not the tuned launch checked', p)
        p = run(dpia, ['run', src, '-k', 'scalTune', '--size', 'N=1024', '--json'], cache)
        r = json.loads(p.stdout) if p.returncode == 0 else {}
        expect(r.get('tuned', '').startswith('C=16, tuned by dpia tune on '), 'run --json: no "tuned"', p)
        expect(r.get('global_size') == [64], f'run: the launch of C=16 is 1024/16 work-items: {r.get("global_size")}')

        stage_points(dpia, root)
        passed_over(dpia, src, tmp, c, e)
        valid_at(dpia, src, tmp)

        # a corrupt cache: a clear error
        bad_valid_at = json.dumps(dict(c, entries=[dict(e, valid_at={'N': 24})]))  # not a list
        for text in ('{not json', '{"format": "dpia-tune-cache", "version": 1, "entries": [{"device": 3}]}', '[]',
                     bad_valid_at):
            open(cache, 'w').write(text)
            p = run(dpia, ['translate', src, '-k', 'scalTune', '--diagnostics=json'], cache)
            expect(p.returncode == 1 and codes(p) == ['E0811'], f'corrupt cache {text!r}: exit {p.returncode}', p)

        # errors of dpia tune
        p = run(dpia, ['tune', src, '-k', 'scalTune', '--size', 'N=6', '--diagnostics=json'], cache)
        expect(p.returncode == 1 and codes(p) == ['E1108'], 'no point runs: not E1108', p)
        # points that launch nothing (floor(4/C) = 0 work-items, an empty
        # output) are not timed: never 0 ms, never the best
        whole = os.path.join(root, 'tests', 'tune', 'whole_tune.dpia')
        p = run(dpia, ['tune', whole, '-k', 'wholeTune', '--size', 'N=4', '--repeat', '1', '--json'], 'off')
        d = json.loads(p.stdout) if p.returncode == 0 else {}
        status = {pt['values']['C']: pt['status'] for pt in d.get('points', [])}
        expect(d.get('best') == {'C': 4} and d.get('timed') == 1 and
               status == {4: 'timed', 8: 'not_timed', 16: 'not_timed'} and
               all('min_ms' not in pt and pt['reason'] == 'no launch' for pt in d['points'][1:]),
               f'tune: points that launch nothing were ranked: {d}', p)
        p = run(dpia, ['tune', whole, '-k', 'wholeTune', '--size', 'N=4', '--repeat', '1'], 'off')
        expect(p.returncode == 0 and '   --     not timed  C=8\n' in p.stdout and ' 0.0000 ms' not in p.stdout and
               'best: C=4 (' in p.stdout, 'tune: the table ranks a point that launches nothing', p)
        p = run(dpia, ['tune', whole, '-k', 'wholeTune', '--size', 'N=4', '--set', 'C=16', '--diagnostics=json'], 'off')
        expect(p.returncode == 1 and codes(p) == ['E1108'] and '1 not timed' in p.stdout,
               'tune: a single point that launches nothing is not E1108', p)
        # every tune parameter given by --set: one point, nothing to search;
        # the report names the values timed (it said "best:  (0.0020 ms)")
        p = run(dpia, ['tune', src, '-k', 'scalTune', '--size', 'N=64', '--set', 'C=16', '--repeat', '1'], 'off')
        expect(p.returncode == 0 and '; nothing to search: --set gives every tune parameter\n' in p.stdout and
               ' ms  C=16  [checked: ok]\n' in p.stdout and '\nbest: C=16 (' in p.stdout and 'best:  (' not in p.stdout,
               'tune with every value --set: the report does not say what was timed', p)
        p = run(dpia, ['tune', src, '-k', 'scalTune', '--size', 'M=64', '--diagnostics=json'], cache)
        expect(p.returncode == 1 and codes(p) == ['E1107'], 'a missing size: not E1107', p)
        p = run(dpia, ['tune', src, '--size', 'N=64'], cache)
        expect(p.returncode == 2, 'no -k: not a usage error', p)
        # a tune parameter with no default is the search's to give, not a
        # size the user must (samples/tune/gemv_tune.dpia's WG was refused
        # with E1107, at --size and at --valid-at)
        nodefault = os.path.join(root, 'samples', 'tune', 'gemv_tune.dpia')
        p = run(dpia, ['tune', nodefault, '-k', 'gemv', '--size', 'M=64,N=256', '--valid-at', 'M=64,N=64',
                       '--repeat', '1', '--json'], 'off')
        d = json.loads(p.stdout) if p.returncode == 0 else {}
        expect(p.returncode == 0 and len(d.get('points', [])) == 5 and 'WG' in (d.get('best') or {}),
               f'tune: a tune parameter with no default was taken for a size: {d}', p)

        # a source of a multiple of 16 bytes: its copy in the arena had no
        # room left for a NUL, and the points, run on it as a C string,
        # read past its end (every point failed, E1108: samples/asum_vec.dpia
        # at 4192 bytes); padded with a comment to 4096 bytes
        text = open(src).read().rstrip('\n') + '\n'
        text += '-- ' + 'p' * (4096 - len(text) - 4) + '\n'
        padded = os.path.join(tmp, 'padded.dpia')
        open(padded, 'w').write(text)
        expect(os.path.getsize(padded) == 4096, f'padded source: {os.path.getsize(padded)} bytes, not 4096')
        p = run(dpia, ['tune', padded, '-k', 'scalTune', '--size', 'N=4096', '--budget', '60', '--seed', '3',
                       '--repeat', '1', '--json'], os.path.join(tmp, 'padded.json'))
        d = json.loads(p.stdout) if p.returncode == 0 else {}
        expect(p.returncode == 0 and d.get('timed') == 3, f'a source of 4096 bytes: exit {p.returncode}', p)

        # a pipeline: samples/gemm.dpia's register tile tuned (the others
        # fixed); CP is a tune parameter of both of its kernels, which share
        # its value (a packing of another width than the blocks read would
        # fail the check)
        os.remove(cache)
        gemm = os.path.join(root, 'samples', 'gemm.dpia')
        p = run(dpia, ['tune', gemm, '-k', 'gemm', '--size', 'M=128,N=256,K=512', '--set', 'KS=512', '--set', 'AP=16',
                       '--set', 'BP=8', '--set', 'V=16', '--budget', '120', '--repeat', '1', '--json'], cache)
        expect(p.returncode == 0, f'tune gemm: exit {p.returncode}', p)
        if p.returncode == 0:
            d = json.loads(p.stdout)
            # CP=4 is 8 panels of 64 columns: more than N, a precondition skips it
            expect(d['space'] == 6 and d['timed'] == 4 and set(d['best']) == {'RT', 'CP'}, f'tune gemm: {d}')
            # the entry is the whole point: the --set values with those found
            p = run(dpia, ['run', gemm, '-k', 'gemm', '--size', 'M=128,N=256,K=512', '--check'], cache)
            tuned = [l for l in p.stdout.splitlines() if l.startswith('  tuned: ') and ', tuned by' in l]
            got = dict(w.split('=') for w in tuned[0][len('  tuned: '):].split(', tuned by')[0].split()) if tuned else {}
            want = {'KS': '512', 'AP': '16', 'BP': '8', 'V': '16', 'RT': str(d['best']['RT']), 'CP': str(d['best']['CP'])}
            expect(p.returncode == 0 and got == want, f'run gemm: tuned {got}, not {want}', p)

        # samples/gemm_any.dpia has gemm's tune parameters: at sizes that are
        # no multiple of anything no point is skipped (CP=4 runs, with one
        # panel of 64 columns past N), and its two kernels share CP (a
        # packing of another width than the blocks read would fail the
        # check)
        os.remove(cache)
        gemm_any = os.path.join(root, 'samples', 'gemm_any.dpia')
        sizes = 'M=67,N=100,K=37'
        p = run(dpia, ['tune', gemm_any, '-k', 'gemmAny', '--size', sizes, '--set', 'KS=128', '--set', 'AP=4',
                       '--set', 'BP=2', '--set', 'V=16', '--set', 'RT=8', '--budget', '120', '--repeat', '1',
                       '--json'], cache)
        expect(p.returncode == 0, f'tune gemmAny: exit {p.returncode}', p)
        if p.returncode == 0:
            d = json.loads(p.stdout)
            expect(d['space'] == 3 and d['timed'] == 3 and set(d['best']) == {'CP'}, f'tune gemmAny: {d}')
            p = run(dpia, ['run', gemm_any, '-k', 'gemmAny', '--size', sizes, '--check'], cache)
            tuned = [l for l in p.stdout.splitlines() if l.startswith('  tuned: ') and ', tuned by' in l]
            got = dict(w.split('=') for w in tuned[0][len('  tuned: '):].split(', tuned by')[0].split()) if tuned else {}
            want = {'KS': '128', 'AP': '4', 'BP': '2', 'V': '16', 'RT': '8', 'CP': str(d['best']['CP'])}
            expect(p.returncode == 0 and got == want, f'run gemmAny: tuned {got}, not {want}', p)

        # samples/adi.dpia's adiRows updates X and B in place: every timed
        # launch of a point starts from the inputs, restored on the device
        # (clEnqueueCopyBuffer) before it, and the best, run again, agrees
        # with the reference; so does a run whose result is that of the
        # last of its timed launches
        os.remove(cache)
        adi = os.path.join(root, 'samples', 'adi.dpia')
        p = run(dpia, ['tune', adi, '-k', 'adiRows', '--size', 'N=64', '--repeat', '4', '--budget', '120', '--json'],
                cache)
        expect(p.returncode == 0, f'tune adiRows: exit {p.returncode}', p)
        if p.returncode == 0:
            d = json.loads(p.stdout)
            checked = [pt for pt in d['points'] if pt['check'] == 'ok']
            expect(d['timed'] == 4 and len(checked) == 1 and checked[0]['values'] == d['best'], f'tune adiRows: {d}')
        p = run(dpia, ['run', adi, '-k', 'adiRows', '--size', 'N=64', '--repeat', '7', '--check'], 'off')
        expect(p.returncode == 0 and 'over 7 runs' in p.stdout and ': ok' in p.stdout, 'run adiRows --repeat 7', p)

main()
for f in failures:
    print('FAIL:', f)
print(f'tune_cli: {len(failures)} failure(s)')
sys.exit(1 if failures else 0)
