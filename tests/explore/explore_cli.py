#!/usr/bin/env python3
"""explore_cli.py: `dpia explore` from the command line (docs/explore.md).

Usage: explore_cli.py DPIA ROOT

- scal (a map) and dot (a whole reduction: a pipeline) with a small
  budget: exit 0, a best strategy checked against the reference, and -o
  writes a program that `dpia check` accepts and `dpia run --check` runs
  and agrees with the reference; its derivation is its comment;
- gesummv: the best is a vectoriseSums strategy (reduceLanes), checked;
  rowSums after it (its rows a zip of a's and b's) in the space, one
  replayed by `dpia rewrite` runs and agrees;
- gemv: accumulators after vectoriseSums (gemvVec2's loop) and rowSums
  after it (gemvVecRows') in the space, derived, one of each replayed by
  `dpia rewrite` runs and agrees; where no sum
  of vectors is left after vectoriseSums (scal, nbody) the step adds
  nothing to the space;
- mriq: vectoriseLoop strategies derived and timed, one replayed by
  `dpia rewrite` runs and agrees; where the rule applies nowhere, the
  step adds nothing to the space;
- at a prime length, the any-length steps (workgroupAny, chunkAny) give
  candidates that check and run; at a power of two they add none;
- dot and asum at a prime length: partialSumsAny's pipelines, the best
  checked, its partial sums' loop with no test of each read;
- the seed's draw is deterministic: the same --seed gives the same
  sample, another seed another (a space larger than the exhaustive limit);
- the JSON's shape: its keys and each candidate's;
- strategies that launch nothing (an empty result: every NDRange empty)
  are not timed, never 0 ms nor the best: E1106 says so;
- inputs outside the kernel's domain (sqrt of the seed's signed inputs):
  the reference is not finite, so the check of the fastest says E0006
  (exit 3, as `dpia run --check`), the candidate is "not checkable", not
  "differs", and no other is checked; with --inputs=positive the best is
  found and checked;
- errors: no strategy found E1106 (the JSON still given), a
  size the kernel does not have E1107, a missing size E1107, usage errors
  exit 2.

Where a check is of the search's logic (what it derives, times, checks
and reports), the search ends at a count of strategies tried, --tries,
not at seconds: a budget of seconds reaches fewer strategies the busier
the machine (CI runs this under the sanitizers on a shared machine), so
that a check that a strategy was timed failed under load for the load
alone.  Their --budget is HANG_BUDGET, which no search of these sizes
reaches (each tries its count in a few seconds on an idle machine).  The
checks whose point is the budget keep seconds: a budget of 1 ms ends
the search after its first batch (sample_of)."""
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []

TOP_KEYS = {'kernel', 'sizes', 'seed', 'budget_s', 'search', 'space', 'tried', 'timed', 'elapsed_s',
            'pipeline', 'retiming', 'sample', 'best', 'candidates'}
CAND_KEYS = {'id', 'strategy', 'steps', 'derivation', 'rules', 'status', 'reason', 'min_ms', 'median_ms',
             'found_s', 'order', 'retimed_ms', 'rounds_ms', 'check', 'probe_cut'}
RETIME, RETIME_ROUNDS = 4, 3  # app/explore.c: the fastest re-timed at the end, in rounds
PROBE_CUT = 3  # app/explore.c: first launches this many times the best so far are the only ones
STATES = {'pending', 'not_derived', 'rejected', 'precondition', 'failed', 'not_timed', 'timed'}


HANG_BUDGET = '600'  # seconds: only a hang reaches it (the docstring)


def run(dpia, args, timeout=900):
    return subprocess.run([dpia] + args, capture_output=True, text=True, timeout=timeout)


def expect(cond, what, p=None):
    """cond, a failure (what) when false"""
    if not cond:
        failures.append(what + ('' if p is None else f'\nstdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}'))
    return cond


def shape(d, what):
    expect(set(d) == TOP_KEYS, f'{what}: keys {sorted(d)}')
    for c in d.get('candidates', []) + ([d['best']] if d.get('best') else []):
        expect(set(c) == CAND_KEYS, f'{what}: candidate keys {sorted(c)}')
        expect(c['status'] in STATES, f'{what}: status {c["status"]}')
        expect((c['min_ms'] is None) == (c['status'] != 'timed'), f'{what}: a time without a run, or none')
        expect((c['order'] is None) == (c['status'] == 'pending'), f'{what}: order {c["order"]} of {c["status"]}')
    retimed(d, what)
    probed(d, what)


def probed(d, what):
    """the probe (docs/explore.md "The search"): once one candidate has
    been timed, a candidate whose first two launches (the untimed one
    included) each took more than PROBE_CUT times the best so far (the
    fastest of those timed before it, in the order tried) keeps their
    time and is launched no more ("probe_cut"): so a cut one's time is
    over that limit, and one within it was not cut.  A cut one is ranked
    by that time, unless the re-timing ran it again; the best is a cut
    one only when re-timed.  Returns the candidates cut."""
    timed = sorted((c for c in d.get('candidates', []) if c['status'] == 'timed'), key=lambda c: c['order'])
    best, cut = None, []
    for c in timed:
        limit = PROBE_CUT * best if best is not None else None
        if c['probe_cut']:
            cut.append(c)
            # the times are printed to 6 digits
            expect(limit is not None and c['min_ms'] >= limit * (1 - 1e-5),
                   f'{what}: {c["strategy"]} cut at {c["min_ms"]} ms, the best so far {best} ms')
        best = c['min_ms'] if best is None else min(best, c['min_ms'])
    expect(all(not c['probe_cut'] for c in d.get('candidates', []) if c['status'] != 'timed'),
           f'{what}: an untimed candidate cut')
    expect(not d.get('best') or not d['best']['probe_cut'] or d['best']['retimed_ms'] is not None,
           f'{what}: the best was cut and not re-timed')
    return cut


def retimed(d, what):
    """the re-timing (docs/explore.md "The re-timing"): the RETIME fastest
    of the search (all of them when fewer, none when one) run again in
    RETIME_ROUNDS rounds; each one's time is the fastest of its rounds;
    they head the ranking, in that time's order, then the others timed by
    the search's time; the best is the first of the ranking that agrees
    with the reference"""
    r, cands = d.get('retiming'), d.get('candidates', [])
    timed = [c for c in cands if c['status'] == 'timed']
    want = min(RETIME, len(timed)) if len(timed) >= 2 else 0
    # (fewer rounds when the budget ended the re-timing)
    rounds = r and r['rounds']
    if not expect(r == {'candidates': want, 'rounds': rounds, 'elapsed_s': r and r['elapsed_s'],
                        'ended_s': r and r['ended_s']} and (1 <= rounds <= RETIME_ROUNDS if want else rounds == 0),
                  f'{what}: retiming {r} with {len(timed)} timed'):
        return
    again = [c for c in cands if c['retimed_ms'] is not None]
    expect(len(again) <= want and all(1 <= len(c['rounds_ms']) <= rounds and c['status'] == 'timed' and
                                      c['retimed_ms'] == min(c['rounds_ms']) for c in again),
           f'{what}: re-timed {[(c["strategy"], c["retimed_ms"], c["rounds_ms"]) for c in again]}')
    expect(all(c['rounds_ms'] == [] for c in cands if c['retimed_ms'] is None), f'{what}: rounds without a time')
    expect(cands[:len(again)] == again and [c['retimed_ms'] for c in again] == sorted(c['retimed_ms'] for c in again),
           f'{what}: the re-timed do not head the ranking in order')
    rest = [c['min_ms'] for c in timed if c['retimed_ms'] is None]
    expect(rest == sorted(rest), f'{what}: the others are not ranked by their times')
    # the search's fastest are the ones re-timed (min_ms: the search's times)
    if want and len(again) == want:
        slowest = max(c['min_ms'] for c in again)
        expect(all(c['min_ms'] >= slowest for c in timed if c['retimed_ms'] is None),
               f'{what}: a faster one of the search was not re-timed')
    if d.get('best') and again:
        ok = [c for c in cands if c['check'] == 'ok']
        expect(ok and ok[0]['id'] == d['best']['id'] and d['best']['retimed_ms'] is not None,
               f'{what}: the best {d["best"]["strategy"]} is not the first re-timed that agrees')


def found(dpia, root, tmp, sample, kernel, sizes, declared, partial, tries=12):
    """the exploration's JSON, None if it failed"""
    out = os.path.join(tmp, kernel + '_best.dpia')
    p = run(dpia, ['explore', os.path.join(root, 'samples', 'explore', sample), '-k', kernel, '--size', sizes,
                   '--tries', str(tries), '--budget', HANG_BUDGET, '--seed', '7', '--jobs', '2', '--repeat', '2',
                   '--json', '-o', out])
    expect(p.returncode == 0, f'explore {kernel}: exit {p.returncode}', p)
    if p.returncode != 0:
        return None
    d = json.loads(p.stdout)
    shape(d, kernel)
    expect(d['pipeline'] == partial, f'{kernel}: pipeline {d["pipeline"]}')
    best = d['best']
    expect(best and best['status'] == 'timed' and best['check'] == 'ok', f'{kernel}: best {best}')
    expect(d['timed'] >= 1 and d['tried'] >= d['timed'] and d['tried'] == min(tries, d['space']),
           f'{kernel}: tried {d["tried"]} of {d["space"]} (--tries {tries}) timed {d["timed"]}')
    with open(out) as f:
        text = f.read()
    expect('-- derivation: ' + best['derivation'] in text, f'{kernel}: -o lacks the derivation:\n{text}')
    expect(declared + ' ' in text, f'{kernel}: -o lacks {declared}:\n{text}')
    p = run(dpia, ['check', out])
    expect(p.returncode == 0, f'{kernel}: check of the best: exit {p.returncode}', p)
    p = run(dpia, ['run', out, '-k', kernel, '--size', sizes, '--check'])
    expect(p.returncode == 0 and 'ok' in p.stdout, f'{kernel}: run --check of the best: exit {p.returncode}', p)
    return d


def vector_sums(dpia, root, tmp):
    """gesummv (samples/explore/gesummv.dpia): a map of rows, each the sum
    of a map over three arrays zipped.  vectoriseSums (vectorise of the
    zip of zips, then reduceLanes: W sums side by side in one vector, its
    lanes added at the end: the strategy of samples/gesummv.dpia's
    gesummvVec) is derived and timed (seed 7 tries one in its first
    batch); the derivation of one, replayed rule by rule with `dpia
    rewrite --apply`, gives a program that runs and agrees with the
    reference; the best found checks and agrees (found).  Seed 7's
    first 24 (its sample) have vectoriseSums and rowSums strategies that
    run."""
    src = os.path.join(root, 'samples', 'explore', 'gesummv.dpia')
    d = found(dpia, root, tmp, 'gesummv.dpia', 'gesummvHL', 'N=64', 'kernel gesummvHL', False, tries=24)
    if d is None:
        return
    sums = [c for c in d['candidates'] if c['strategy'].startswith('vectoriseSums W=')]
    timed = [c for c in sums if c['status'] == 'timed']
    # (precondition: rowSums R then workgroup L where L does not divide N/R)
    expect(timed and all(c['status'] in ('timed', 'pending', 'precondition') for c in sums) and
           all(re.match(r'vectorise@0\.1\.0\.1 n=(\d+), reduceLanes@0\.1\.0 n=\1, ', c['derivation']) for c in sums),
           f'gesummv: vectoriseSums candidates {[(c["strategy"], c["status"], c["derivation"]) for c in sums]}')
    if timed:
        replay(dpia, tmp, src, 'gesummvHL', timed[0], 'N=64', 'gesummv')
    # rowSums after vectoriseSums: gesummv's rows are a zip of a's and b's
    # (rowTile's rows a zip of views).  The space at N=64: 67 strategies
    # without it, then W in 4, 8, 16, R in 2, 4, 8 and global or
    # workgroup L=32 or 64: 27 more
    expect(d['space'] == 67 + 27, f'gesummv: space {d["space"]}')
    row_sums(dpia, tmp, src, 'gesummvHL', d, 'N=64', r'vectorise@0\.1\.0\.1 n=(\d+), reduceLanes@0\.1\.0 n=\1, ',
             'zip (zip (fst (snd p)) (snd (snd p))) acc')


def row_sums(dpia, tmp, src, kernel, d, sizes, sums, update):
    """the rowSums candidates of d: derived after vectoriseSums (sums, its
    derivation), one timed, replayed rule by rule it runs and agrees (its
    accumulators' update); the rows side by side stay views (rows |> map
    fst |> map (asVector W)): no fuseMaps makes them a map of a lambda,
    which would copy the rows into memory before the sums"""
    rows = [c for c in d['candidates'] if ', rowSums R=' in c['strategy']]
    timed = [c for c in rows if c['status'] == 'timed']
    expect(timed and all(c['status'] in ('timed', 'pending', 'precondition') for c in rows) and
           all(re.match(sums + r'rowTile@\. n=(\d+), ', c['derivation']) and 'fuseMaps' not in c['derivation']
               for c in rows if c['status'] != 'pending'),
           f'{kernel}: rowSums candidates {[(c["strategy"], c["status"], c["derivation"]) for c in rows]}')
    if timed:
        replay(dpia, tmp, src, kernel, timed[0], sizes, kernel + ' rows',
               marks=('|> split ', 'padCst ', update, 'transpose', '|> map fst |> map (asVector '))


def replay(dpia, tmp, src, kernel, cand, sizes, what, marks=('(vec ', 'asVector ')):
    """the candidate's derivation replayed rule by rule with `dpia rewrite
    --apply` from src: a program that runs and agrees with the reference
    (its text, or None)"""
    text = open(src).read()
    path = os.path.join(tmp, 'step.dpia')
    for move in cand['derivation'].split(', '):
        rule, *param = move.split(' ')
        with open(path, 'w') as f:
            f.write(text)
        p = run(dpia, ['rewrite', path, '-k', kernel, '--apply', rule] +
                (['--param', param[0]] if param else []))
        expect(p.returncode == 0, f'{what}: replaying {move}: exit {p.returncode}', p)
        if p.returncode != 0:
            return None
        text = p.stdout
    expect(all(m in text for m in marks), f'{what}: the replayed derivation:\n{text}')
    with open(path, 'w') as f:
        f.write(text)
    p = run(dpia, ['run', path, '-k', kernel, '--size', sizes, '--check'])
    expect(p.returncode == 0 and 'ok' in p.stdout, f'{what}: run --check of {cand["strategy"]}', p)
    return text


def vector_loops(dpia, root, tmp):
    """mriq (samples/explore/mriq.dpia): a map whose function is a loop
    over the samples every voxel reads.  vectoriseLoop (the loop on
    vectors of W voxels, its accumulator a pair of vectors, the samples'
    scalars broadcast: mriqVec's strategy) is derived and timed; replayed
    rule by rule it runs and agrees with the reference.  Where the rule
    applies nowhere (scal), the step adds nothing to the space; at
    n-body's map (its bodies float4: structures of arrays, nbodyVec's
    strategy) it adds its strategies (9 at N=64: widths and work-group
    sizes that divide it)."""
    src = os.path.join(root, 'samples', 'explore', 'mriq.dpia')
    d = found(dpia, root, tmp, 'mriq.dpia', 'mriqHL', 'X=4096,K=16', 'kernel mriqHL', False)
    if d is None:
        return
    loops = [c for c in d['candidates'] if c['strategy'].startswith('vectoriseLoop W=')]
    timed = [c for c in loops if c['status'] == 'timed']
    # (a vector of W voxels a work-item, L work-items a group: X/W need not be a multiple of L)
    expect(timed and all(c['status'] in ('timed', 'pending', 'precondition') for c in loops) and
           all(re.match(r'vectoriseLoop@\. n=(\d+), (lowerGlobal@1|splitJoin@1 n=\d+), ', c['derivation'])
               for c in loops), f'mriq: vectoriseLoop candidates {[(c["strategy"], c["status"], c["derivation"]) for c in loops]}')
    if timed:
        text = replay(dpia, tmp, src, 'mriqHL', timed[0], 'X=4096,K=16', 'mriq')
        expect(text is None or 'zip [(fst r).x, ' in text, f'mriq: the pairs cut back into lanes:\n{text}')
    # the spaces these had before the step was added (its strategies only
    # in the spaces of kernels where vectoriseLoop applies)
    for sample, kernel, sizes, space in (('scal.dpia', 'scalHL', 'N=64', 49), ('nbody.dpia', 'nbodyHL', 'N=64', 58)):
        p = run(dpia, ['explore', os.path.join(root, 'samples', 'explore', sample), '-k', kernel, '--size', sizes,
                       '--budget', '0.001', '--json'])
        d = json.loads(p.stdout) if p.stdout.startswith('{') else {}
        expect(d.get('space') == space and (space > 49 or not any(c['strategy'].startswith('vectoriseLoop')
                                                                  for c in d['candidates'])),
               f'{kernel}: the space with vectoriseLoop: {d.get("space")} strategies, not {space}', p)


def accumulators(dpia, root, tmp):
    """gemv (samples/explore/gemv.dpia): vectoriseSums then accumulators
    (the sum of the W-lane vectors folded into A accumulators side by
    side: gemvVec2's loop) is in the space, derived and timed; replayed
    rule by rule it runs and agrees with the reference; the same for
    rowSums (R rows a work-item, their sums in one loop: gemvVecRows').
    The space at M=N=64: 49 strategies without the steps, then W in 4, 8,
    16, A in 2, 4 and global or workgroup L=32 or 64: 18 more; R in 2, 4,
    8: 27 more.  Seed 7's draw tries strategies of both steps first (the
    first 12 tried)."""
    src = os.path.join(root, 'samples', 'explore', 'gemv.dpia')
    p = run(dpia, ['explore', src, '-k', 'gemvHL', '--size', 'M=64,N=64', '--tries', '12', '--budget', HANG_BUDGET,
                   '--json', '--seed', '7'])
    d = json.loads(p.stdout) if p.stdout.startswith('{') else None
    expect(d is not None and p.returncode == 0, f'gemv: explore exit {p.returncode}', p)
    if d is None:
        return
    accs = [c for c in d['candidates'] if ', accumulators A=' in c['strategy']]
    timed = [c for c in accs if c['status'] == 'timed']
    expect(d['space'] == 49 + 18 + 27 and timed and
           all(c['status'] in ('timed', 'pending') for c in accs) and
           all(re.match(r'vectorise@0\.1\.0\.0\.1\.1 n=(\d+), reduceLanes@0\.1\.0\.0\.1 n=\1, '
                        r'accumulators@0\.1\.0\.0\.1\.1 n=(\d+), ', c['derivation'])
               for c in accs if c['status'] != 'pending'),
           f'gemv: accumulators candidates {d["space"]} {[(c["strategy"], c["status"], c["derivation"]) for c in accs]}')
    if timed:
        text = replay(dpia, tmp, src, 'gemvHL', timed[0], 'M=64,N=64', 'gemv',
                      marks=('|> split ', 'padCst ', 'zip p acc', '(vec '))
        expect(text is None or 'asVector' in text, f'gemv: the replayed derivation:\n{text}')
    row_sums(dpia, tmp, src, 'gemvHL', d, 'M=64,N=64',
             r'vectorise@0\.1\.0\.0\.1\.1 n=(\d+), reduceLanes@0\.1\.0\.0\.1 n=\1, ', 'zip (snd p) acc')


def register_tiles(dpia, root, tmp):
    """mm (samples/explore/mm.dpia): registerTile (each work-item RT rows
    by a vector of CT columns, the RT vector accumulators in registers:
    mmBlock's strategy) is in the space, derived and timed; replayed rule
    by rule it runs and agrees with the reference.  Where the rule applies
    nowhere the step adds nothing to the space (scal's and nbody's spaces
    in vector_loops stay 49)."""
    src = os.path.join(root, 'samples', 'explore', 'mm.dpia')
    d = found(dpia, root, tmp, 'mm.dpia', 'mmHL', 'M=64,N=64,K=64', 'kernel mmHL', False)
    if d is None:
        return
    tiles = [c for c in d['candidates'] if c['strategy'].startswith('registerTile RT=')]
    timed = [c for c in tiles if c['status'] == 'timed']
    # 58 strategies without the step; RT in 2, 4, 8, CT in 4, 8, 16, then
    # global, or workgroup L=32 or 64: 27 more; vectoriseSums, accumulators
    # (W in 4, 8, 16, A in 2, 4, the same three): 18 more; vectoriseSums,
    # rowSums (R columns of a row a work-item, R in 2, 4, 8): 27 more (the
    # JSON lists those tried)
    expect(d['space'] == 58 + 9 * 3 + 18 + 27 and timed and
           all(c['status'] in ('timed', 'pending', 'precondition') for c in tiles) and
           all(re.match(r'registerTile@\. n=(\d+), vectoriseTile@\. n=(\d+), lowerGlobal@[0-9.]+ dim=1, ', c['derivation'])
               for c in tiles if c['status'] != 'pending') and
           all(s['param2'] == 'CT' for c in tiles for s in c['steps'][:1]),
           f'mm: registerTile candidates {[(c["strategy"], c["status"], c["derivation"]) for c in tiles]}')
    if timed:
        replay(dpia, tmp, src, 'mmHL', timed[0], 'M=64,N=64,K=64', 'mm',
               marks=('padCst ', 'map (asVector ', 'asScalar', 'mapGlobal1 '))


def any_size(dpia, root, tmp):
    """At a length no tile divides (a prime), the plain steps find only one
    work-item per element; the any-length steps (padSplitJoin: the
    prelude's mapPadClamp) give a candidate for every tile, each of which
    checks and runs.  At a power of two they add nothing."""
    scal = os.path.join(root, 'samples', 'explore', 'scal.dpia')
    p = run(dpia, ['explore', scal, '-k', 'scalHL', '--size', 'N=100003', '--budget', HANG_BUDGET, '--seed', '7',
                   '--repeat', '1', '--json'])
    expect(p.returncode == 0, f'any size: exit {p.returncode}', p)
    if p.returncode != 0:
        return
    d = json.loads(p.stdout)
    shape(d, 'any size')
    expect(not probed(d, 'any size'), 'any size: cut with --repeat 1 (no probe)')
    steps = {}
    for c in d['candidates']:
        steps.setdefault(c['strategy'].split(' ')[0], []).append(c)
    # L: 32 .. 256, C: 16 .. 8192, none dividing 100003
    expect(len(steps.get('workgroupAny', [])) == 4 and len(steps.get('chunkAny', [])) == 10,
           f'any size: candidates {sorted((k, len(v)) for k, v in steps.items())}')
    anys = steps.get('workgroupAny', []) + steps.get('chunkAny', [])
    expect(all(c['status'] in ('timed', 'pending') for c in anys) and any(c['status'] == 'timed' for c in anys),
           f'any size: {[(c["strategy"], c["status"], c["reason"]) for c in anys]}')
    expect(all('padSplitJoin@. n=' in c['derivation'] for c in anys), f'any size: derivations {anys}')
    expect(d['best'] and d['best']['check'] == 'ok', f'any size: best {d["best"]}')
    p = run(dpia, ['explore', scal, '-k', 'scalHL', '--size', 'N=4096', '--budget', '0.001', '--json'])
    if p.returncode in (0, 1):
        d = json.loads(p.stdout)
        expect(not any(c['strategy'].endswith('Any') or 'Any ' in c['strategy'] for c in d['candidates']),
               'a power of two: any-length candidates in the space')


def probe_cut(dpia, root):
    """At a length no tile divides, `global` leaves the work-group size
    to the device (PoCL: 1), tens of times slower than the tiled
    strategies (docs/explore.md): tried after one of them, its first two
    launches are its only ones, its time theirs (probe_cut)."""
    scal = os.path.join(root, 'samples', 'explore', 'scal.dpia')
    p = run(dpia, ['explore', scal, '-k', 'scalHL', '--size', 'N=100003', '--budget', HANG_BUDGET, '--seed', '7',
                   '--repeat', '3', '--json'])
    expect(p.returncode == 0, f'probe: exit {p.returncode}', p)
    if p.returncode != 0:
        return
    d = json.loads(p.stdout)
    shape(d, 'probe')
    cut = probed(d, 'probe')
    glob = [c for c in d['candidates'] if c['strategy'] == 'global' and c['status'] == 'timed']
    if glob and glob[0]['order'] > min(c['order'] for c in d['candidates'] if c['status'] == 'timed'):
        expect(glob[0] in cut, f'probe: global after a faster one not cut: {glob[0]}')
    expect(cut, f'probe: none cut: {[(c["strategy"], c["min_ms"], c["order"]) for c in d["candidates"]]}')


def any_size_reductions(dpia, root, tmp):
    """A whole reduction at a prime length: no chunk divides it, so
    partialSums has no values, and the space is partialSumsAny's alone
    (partialReduceAny: tile t folds the elements from t*C that exist with
    reduceRange, the map fused into it), lowered by global or
    workgroupAny; the best is a pipeline that checks and agrees with the
    reference (found above), and its partial sums' loop reads xs without
    a test: the last tile's end is its bound."""
    for sample, kernel in (('dot.dpia', 'dotHL'), ('asum.dpia', 'asumHL')):
        d = found(dpia, root, tmp, sample, kernel, 'N=1000003', 'pipeline ' + kernel, True, tries=8)
        if d is None:
            continue
        # C: 16 .. 8192 (10 values), then global or workgroupAny L = 32 .. 256
        expect(d['space'] == 50 and all(c['strategy'].startswith('partialSumsAny C=') for c in d['candidates']),
               f'{kernel} any size: space {d["space"]}, {[c["strategy"] for c in d["candidates"]]}')
        best = d['best']
        if not best:
            continue
        expect(best['derivation'].startswith('partialReduceAny@. n=') and 'stage boundary at 1' in best['derivation'],
               f'{kernel} any size: derivation {best["derivation"]}')
        p = run(dpia, ['translate', os.path.join(tmp, kernel + '_best.dpia'), '-k', kernel + 'Parts'])
        loop = [line for line in p.stdout.splitlines() if '/* reduceRange */' in line]
        body = p.stdout.split('/* reduceRange */', 1)[-1].split('}', 1)[0]
        # the end min(t*C, N - C) + C (min(t*C + C, N), computed without leaving int)
        expect(p.returncode == 0 and len(loop) == 1 and re.search(r', N - (\d+)\) \+ \1; i \+= 1\)', loop[0])
               and '?' not in body,
               f'{kernel} any size: the partial sums\' loop:\n{p.stdout}', p)


def sample_of(dpia, root, seed):
    p = run(dpia, ['explore', os.path.join(root, 'samples', 'explore', 'scal.dpia'), '-k', 'scalHL',
                   '--size', 'N=65536', '--budget', '0.001', '--seed', str(seed), '--json'])
    # the budget ends the search after the first batch at most
    expect(p.returncode in (0, 1), f'seed {seed}: a budget of 1 ms: exit {p.returncode}', p)
    try:
        d = json.loads(p.stdout)
    except ValueError:
        failures.append(f'seed {seed}: no JSON: {p.stdout!r}')
        return None
    shape(d, f'seed {seed}')
    expect(d['search'] == 'sampled' and d['space'] > 64, f'seed {seed}: search {d["search"]} space {d["space"]}')
    expect(d['tried'] <= 8, f'seed {seed}: {d["tried"]} tried in a budget of 1 ms')
    return d['sample']


def other_last_step(a, b):
    """is b a's strategy with its last step replaced, the steps before it
    and their values kept (app/explore.c, other_last_step)?"""
    sa, sb = a['steps'], b['steps']
    return (len(sa) == len(sb) and sa[:-1] == sb[:-1] and sa[-1]['step'] != sb[-1]['step'])


def local_search(dpia, root):
    """after the sample (the first 24 tried of a space of more than 64),
    the local search tries the neighbours of the fastest so far: the
    candidates tried next are those neighbours in the order of their ids,
    among them, for scal, its strategy with another last step (a chunk of
    vectors -> vectors each a work-item ...)"""
    p = run(dpia, ['explore', os.path.join(root, 'samples', 'explore', 'scal.dpia'), '-k', 'scalHL',
                   '--size', 'N=65536', '--tries', '40', '--budget', HANG_BUDGET, '--seed', '7', '--jobs', '2',
                   '--repeat', '2', '--json'])
    expect(p.returncode == 0, f'local search: exit {p.returncode}', p)
    if p.returncode != 0:
        return
    d = json.loads(p.stdout)
    shape(d, 'local search')
    cands = {c['id']: c for c in d['candidates']}
    first = [c for c in cands.values() if c['order'] is not None and c['order'] < 24]
    if not expect(d['search'] == 'sampled' and len(first) == 24 and d['tried'] > 24,
                  f'local search: {d["search"]}, {d["tried"]} tried'):
        return
    best = min((c for c in first if c['status'] == 'timed'), key=lambda c: (c['min_ms'], c['order']))
    # the values of N=65536's slots are every power of two of their ranges:
    # one value up or down is twice or half
    values = lambda c: [s.get('value') for s in c['steps']]
    step_up = lambda a, b: (a['steps'] and [s['step'] for s in a['steps']] == [s['step'] for s in b['steps']] and
                            sorted(max(x, y) // min(x, y) for x, y in zip(values(a), values(b)) if x != y) == [2])
    later = sorted((c for c in cands.values() if c['order'] is not None and c['order'] >= 24),
                   key=lambda c: c['order'])
    run_ = []
    for c in later:
        if not (step_up(best, c) or other_last_step(best, c)):
            break
        run_.append(c)
    expect(run_ and any(other_last_step(best, c) for c in run_),
           f'local search: after {best["strategy"]} tried {[c["strategy"] for c in later[:8]]}')


def retiming_text(dpia, root):
    """the ranking says what was re-timed and each round's time"""
    p = run(dpia, ['explore', os.path.join(root, 'samples', 'explore', 'scal.dpia'), '-k', 'scalHL',
                   '--size', 'N=4096', '--tries', '12', '--budget', HANG_BUDGET, '--seed', '7', '--repeat', '2'])
    m = re.search(r'the (\d) fastest re-timed: 3 rounds of each in turn', p.stdout)
    rounds = re.findall(r'\n +re-timed:((?: \d+\.\d+){1,3}) ms; in the search \d+\.\d+ ms\n', p.stdout)
    best = re.search(r'\n  1\. +(\d+\.\d+) ms .*\n +re-timed:((?: \d+\.\d+)+) ms', p.stdout)
    expect(p.returncode == 0 and m and len(rounds) == int(m.group(1)) and best and
           float(best.group(1)) == min(map(float, best.group(2).split())) and
           f'({best.group(1)} ms), agrees' in p.stdout, f'the re-timing in the ranking', p)
    expect(re.match(r'explore scalHL: N=4096; \d+ strategies, 12 tried \(sampled, then local search, seed 7; '
                    r'--tries ended it\)', p.stdout), 'the report: what ended the search', p)


def budget_used(dpia, root):
    """A search its budget ends (mm at 256^3: 206 strategies, about 60
    tried in 10 s on this 2-core machine) uses it and stays within it: the re-timing ends
    (retiming.ended_s) at most one candidate's time (the longest time
    between two candidates timed in this search) and one round of the
    re-timing after the budget (a round that would end after it is left
    out, but the first was foreseen before a load that may have grown
    since), so that the bounds scale with the machine's speed and load,
    and at most three candidates' times before it (the last step of the search,
    the next run foreseen, and the re-timing foreseen with each run's
    OpenCL build, which it finds in the driver's cache).  The re-timing's
    share was once foreseen as 12 runs of the mean run, at most a quarter
    of the budget (app/explore.c retime_reserve): the mean counts the
    slow strategies' launches, and a search of a large space ended up to
    15 s before a budget of 120 s; the quarter, when it bound, let the
    re-timing end after the budget.  The check of the best comes after
    (docs/explore.md "The search")."""
    budget = 10
    p = run(dpia, ['explore', os.path.join(root, 'samples', 'explore', 'mm.dpia'), '-k', 'mmHL', '--size',
                   'M=256,N=256,K=256', '--budget', str(budget), '--seed', '7', '--jobs', '2', '--repeat', '2', '--json'])
    if not expect(p.returncode == 0, f'budget: exit {p.returncode}', p):
        return
    d = json.loads(p.stdout)
    shape(d, 'budget')
    found = sorted(c['found_s'] for c in d['candidates'] if c['status'] == 'timed')
    if not expect(len(found) >= 2, f'budget: {len(found)} timed'):
        return
    one = max(b - a for a, b in zip([0] + found, found))
    r = d['retiming']
    ended, round_s = r['ended_s'], r['elapsed_s'] / max(r['rounds'], 1)
    expect(ended <= budget + one + round_s, f'budget: the re-timing ended at {ended} s, more than one candidate\'s '
           f'{one:.3f} s and a round\'s {round_s:.3f} s after the budget of {budget} s')
    if d['tried'] < d['space']:
        expect(ended >= budget - 3 * one, f'budget: the re-timing ended at {ended} s, more than three candidates\' '
               f'{one:.3f} s before the budget of {budget} s ({d["tried"]} of {d["space"]} tried)')


def outside_domain(dpia, tmp):
    roots = os.path.join(tmp, 'roots.dpia')
    with open(roots, 'w') as f:
        f.write('kernel rootsHL (N: nat) (xs: [N]float) = xs |> map (\\x -> sqrt x)\n')
    args = ['explore', roots, '-k', 'rootsHL', '--size', 'N=64', '--tries', '12', '--budget', HANG_BUDGET, '--seed',
            '7', '--repeat', '1']
    p = run(dpia, args + ['--json'])
    expect(p.returncode == 3 and 'E0006' in p.stderr and 'outside the program\'s domain' in p.stderr and
           'E1106' not in p.stderr, f'outside the domain: exit {p.returncode}', p)
    # the reason is the check's own (app/run.c's, as data), which names the
    # element, not the generic text of an evaluator's E0006
    expect('so none is chosen: the reference is not finite at element ' in p.stderr,
           'outside the domain: the run\'s reason', p)
    if p.returncode == 3:
        d = json.loads(p.stdout)
        shape(d, 'outside the domain')
        checks = [c['check'] for c in d['candidates'] if c['check'] is not None]
        expect(d['best'] is None and checks == ['not checkable'], f'outside the domain: checks {checks}')
    p = run(dpia, args)
    expect(p.returncode == 3 and '[not checkable: the inputs are outside the program\'s domain, E0006]' in p.stdout
           and 'DIFFERS' not in p.stdout, 'outside the domain: the table', p)
    p = run(dpia, args + ['--inputs=positive', '--json'])
    expect(p.returncode == 0, f'--inputs=positive: exit {p.returncode}', p)
    if p.returncode == 0:
        d = json.loads(p.stdout)
        expect(d['best'] and d['best']['check'] == 'ok', f'--inputs=positive: best {d["best"]}')
    p = run(dpia, args + ['--inputs=odd'])
    expect(p.returncode == 2, f'--inputs=odd: exit {p.returncode}', p)


def main():
    dpia, root = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        found(dpia, root, tmp, 'scal.dpia', 'scalHL', 'N=4096', 'kernel scalHL', False)
        retiming_text(dpia, root)
        local_search(dpia, root)
        found(dpia, root, tmp, 'dot.dpia', 'dotHL', 'N=4096', 'pipeline dotHL', True)
        vector_sums(dpia, root, tmp)
        vector_loops(dpia, root, tmp)
        register_tiles(dpia, root, tmp)
        accumulators(dpia, root, tmp)
        any_size(dpia, root, tmp)
        probe_cut(dpia, root)
        any_size_reductions(dpia, root, tmp)
        outside_domain(dpia, tmp)
        budget_used(dpia, root)
        a, b, c = sample_of(dpia, root, 11), sample_of(dpia, root, 11), sample_of(dpia, root, 12)
        expect(a is not None and len(a) == 24 and a == b, f'the same seed, another sample: {a} {b}')
        expect(a != c, 'another seed, the same sample')
        scal = os.path.join(root, 'samples', 'explore', 'scal.dpia')
        # a kernel with a strategy already: no step finds a position, E1106
        # (the report still given), and no device needed
        lowered = os.path.join(tmp, 'lowered.dpia')
        with open(lowered, 'w') as f:
            f.write('kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> x * 2.0)\n')
        p = run(dpia, ['explore', lowered, '-k', 'k', '--size', 'N=64', '--budget', HANG_BUDGET, '--json'])
        expect(p.returncode == 1 and 'E1106' in p.stderr, f'nothing found: exit {p.returncode}', p)
        if p.returncode == 1:
            d = json.loads(p.stdout)
            shape(d, 'nothing found')
            expect(d['best'] is None and d['timed'] == 0 and d['tried'] == d['space'] and
                   all(c['status'] == 'not_derived' for c in d['candidates']), f'nothing found: {d}')
        # a result of floor(N/8) elements at N = 4: every strategy computes it
        # launching nothing, so none is timed (never 0 ms), none is the best
        empty = os.path.join(tmp, 'empty.dpia')
        with open(empty, 'w') as f:
            f.write('kernel wholeHL (N: nat) (alpha: float) (xs: [N]float) : [floor(N/8)]float =\n'
                    '  xs |> take (floor(N/8)) |> map (\\x -> alpha * x)\n')
        p = run(dpia, ['explore', empty, '-k', 'wholeHL', '--size', 'N=4', '--tries', '8', '--budget', HANG_BUDGET,
                       '--repeat', '1', '--json'])
        expect(p.returncode == 1 and 'E1106' in p.stderr and 'not timed: every launch has no work-item' in p.stderr,
               f'launching nothing: exit {p.returncode}', p)
        if p.returncode == 1:
            d = json.loads(p.stdout)
            shape(d, 'launching nothing')
            untimed = [c for c in d['candidates'] if c['status'] == 'not_timed']
            # E1106 names what ended the search: --tries where the count did
            expect(('within --tries 8 (' in p.stderr) == (d['tried'] >= 8), f'launching nothing: {p.stderr}')
            expect(d['best'] is None and d['timed'] == 0 and untimed and
                   all(c['min_ms'] is None and c['reason'] == 'no launch' for c in untimed) and
                   all(c['status'] in ('not_timed', 'not_derived') for c in d['candidates']),
                   f'launching nothing: {d}')
        p = run(dpia, ['explore', empty, '-k', 'wholeHL', '--size', 'N=4', '--tries', '8', '--budget', HANG_BUDGET,
                       '--repeat', '1'])
        expect(p.returncode == 1 and re.search(r', not timed [1-9][0-9]*\n', p.stdout) and ' ms ' not in p.stdout,
               'launching nothing: the table', p)
        p = run(dpia, ['explore', scal, '-k', 'scalHL', '--size', 'M=64', '--budget', '1'])
        expect(p.returncode == 1 and 'E1107' in p.stderr, f'an unknown size: exit {p.returncode}', p)
        p = run(dpia, ['explore', os.path.join(root, 'samples', 'explore', 'gemv.dpia'), '-k', 'gemvHL',
                       '--size', 'N=64', '--budget', '1'])
        expect(p.returncode == 1 and 'E1107' in p.stderr and 'size M' in p.stderr, f'a missing size', p)
        for args in (['--size', 'N=0'], ['--size', 'N=x'], ['--budget', '0'], ['--jobs', '0'], ['--tries', '0'],
                     ['--tries', '2.5'], ['--frob'], []):
            p = run(dpia, ['explore', scal, '-k', 'scalHL'] + (args if args[:1] == ['--size'] else
                                                                  ['--size', 'N=64'] + args)
                    if args else ['explore', scal, '-k', 'scalHL'])
            expect(p.returncode == 2, f'usage {args}: exit {p.returncode}', p)
        p = run(dpia, ['explore', scal, '-k', 'nope', '--size', 'N=64'])
        expect(p.returncode == 2 and 'E0806' in p.stderr, f'an unknown kernel: exit {p.returncode}', p)
    for f in failures:
        print('FAIL:', f)
    print(f'explore_cli: {len(failures)} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
