#!/usr/bin/env python3
"""rewrite_cli.py: `dpia rewrite` and `dpia check --high-level` from the
command line (docs/language.md section 21).

Usage: rewrite_cli.py DPIA ROOT [--update]

- the --list --json of samples/explore/dot.dpia, kernel dotHL, is the
  golden dot_list.json (paths are stable: a change of it is a change of
  the interface drivers use);
- the derivation of docs/language.md section 21, from the high-level
  dotParts to the strategy of samples/dot_partial.dpia, applied step by
  step, gives dot_parts_derived.dpia, which `dpia check` accepts;
- errors carry their codes: an unknown rule E1101, a bad path E1102, a
  missing or bad parameter E1103, a rule that does not apply E1104, a
  result that does not check E1105; usage errors exit 2;
- the derivation of section 21.3 from the high-level partial sums of
  dotVec (samples/explore/dot_vec.dpia) gives dot_vec_derived.dpia, which
  translates to the OpenCL C of samples/dot_vec.dpia byte for byte;
- check --high-level exits 0 with the note E0607; plain check exits 1
  with E0601.
--update rewrites the goldens."""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def run(dpia, args):
    return subprocess.run([dpia] + args, capture_output=True, text=True, timeout=120)


def golden(path, text, update):
    if update:
        with open(path, 'w') as f:
            f.write(text)
        return
    with open(path) as f:
        want = f.read()
    if want != text:
        failures.append(f'{os.path.basename(path)} differs:\n{text}')


# docs/language.md section 21: dotParts to dot_partial's strategy
DERIVATION = [
    ('fuseReduceMap@0.1.0', []),
    ('splitJoin@.', ['--param', 'n=128']),
    ('lowerWorkgroup@1', []),
    ('lowerLocal@1.0.1', []),
    ('lowerReduceSeq@1.0.1.1.0', []),
]

# docs/language.md section 21.3: the high-level partial sums of dotVec to
# the paper's strategy (samples/dot_vec.dpia)
DERIVATION_VEC = [
    ('fuseReduceMap@1.0.1.0', []),
    ('splitJoin@1', ['--param', 'n=64']),
    ('lowerWorkgroup@1.1', []),
    ('lowerLocal@1.1.0.1', []),
    ('lowerReduceSeq@1.1.0.1.1.0', []),
]


def derive(dpia, tmp, source, kernel, steps):
    """the text of source after the steps of dpia rewrite --apply on
    kernel, and the path of a file holding it; None after a failure"""
    cur = os.path.join(tmp, os.path.basename(source))
    with open(source) as f:
        text = f.read()
    for step, extra in steps:
        with open(cur, 'w') as f:
            f.write(text)
        r = run(dpia, ['rewrite', cur, '-k', kernel, '--apply', step] + extra)
        if r.returncode != 0:
            failures.append(f'{kernel}: derivation step {step} exits {r.returncode}: {r.stderr}')
            return None, cur
        text = r.stdout
    with open(cur, 'w') as f:
        f.write(text)
    return text, cur

# gemv's sum of float16 vectors folded into two accumulators
# (docs/language.md section 21.1, accumulators): the loop of
# samples/gemv_vec.dpia's gemvVec2
DERIVATION_ACCS = [
    ('vectorise@0.1.0.0.1.1', ['--param', 'n=16']),
    ('reduceLanes@0.1.0.0.1', ['--param', 'n=16']),
    ('accumulators@0.1.0.0.1.1', ['--param', 'n=2']),
    ('lowerGlobal@.', []),
    ('lowerReduceSeq@0.1.0.0.1.1', []),
    ('lowerReduceSeq@0.1.0.0.1.1.1', []),
    ('lowerSeq@0.1.0.0.1.1.1.0.0.1.0.0', []),
]

# gemv's rows eight a work-item, their sums of float16 vectors in one
# loop (docs/language.md section 21.1, rowTile): the kernel of
# samples/gemv_vec.dpia's gemvVecRows, its body line for line
DERIVATION_ROWS = [
    ('vectorise@0.1.0.0.1.1', ['--param', 'n=16']),
    ('reduceLanes@0.1.0.0.1', ['--param', 'n=16']),
    ('rowTile@.', ['--param', 'n=8']),
    ('lowerGlobal@1', []),
    ('lowerReduceSeq@1.0.1.0.1.1', []),
    ('lowerSeq@1.0.1.0.1.1.0.0.1.0.0', []),
    ('lowerSeq@1.0.1.0', []),
]

# gesummv's rows four a work-item, each row's sum reading a zip of the rows
# of a and b (docs/language.md section 21.1, rowTile: a zip of views):
# the rows read in place, one vector of a, b and x a step, four float16
# accumulators, no copy of the rows
DERIVATION_GESUMMV_ROWS = [
    ('vectorise@0.1.0.1', ['--param', 'n=16']),
    ('reduceLanes@0.1.0', ['--param', 'n=16']),
    ('rowTile@.', ['--param', 'n=4']),
    ('lowerGlobal@1', []),
    ('lowerReduceSeq@1.0.1.0.1.1', []),
    ('lowerSeq@1.0.1.0.1.1.0.0.1.0.0', []),
    ('lowerSeq@1.0.1.0', []),
]


def body_of(cl):
    """the kernel's body, from its first statement (its signature names it)"""
    lines = cl.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('  int gid')), None)
    return None if start is None else '\n'.join(lines[start:])


def loop_of(cl):
    """the accumulators' declaration to the end of the loop over the row"""
    lines = cl.splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip().startswith('float16 acc[')), None)
    if start is None:
        return None
    end = next((i for i in range(start, len(lines)) if lines[i] == '  }'), None)
    return None if end is None else '\n'.join(lines[start:end + 1])


ERRORS = [
    (['--apply', 'fuseAll@.'], 'E1101'),
    (['--apply', 'lowerSeq@1.9'], 'E1102'),
    (['--apply', 'lowerSeq@x'], 'E1102'),
    (['--apply', 'lowerSeq'], 'E1102'),
    (['--apply', 'splitJoin@1'], 'E1103'),
    (['--apply', 'splitJoin@1', '--param', 'n=0'], 'E1103'),
    (['--apply', 'vectorise@1', '--param', 'n=5'], 'E1103'),
    (['--apply', 'lowerSeq@1', '--param', 'n=4'], 'E1103'),
    (['--apply', 'lowerLocal@1'], 'E1104'),
    (['--apply', 'partialReduce@1', '--param', 'n=4'], 'E1104'),
    (['--apply', 'toPrivate@1'], 'E1105'),
]


def main():
    dpia, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    update = '--update' in sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    dot = os.path.join(root, 'samples', 'explore', 'dot.dpia')
    os.chdir(root)
    rel = os.path.relpath(dot, root)

    r = run(dpia, ['rewrite', rel, '-k', 'dotHL', '--list', '--json'])
    if r.returncode != 0:
        failures.append(f'--list --json exits {r.returncode}: {r.stderr}')
    else:
        json.loads(r.stdout)
        golden(os.path.join(here, 'dot_list.json'), r.stdout, update)

    with tempfile.TemporaryDirectory() as tmp:
        text, cur = derive(dpia, tmp, dot, 'dotParts', DERIVATION)
        if text is not None:
            golden(os.path.join(here, 'dot_parts_derived.dpia'), text, update)
            r = run(dpia, ['check', cur, '--diagnostics=json'])
            codes = [d.get('code') for d in json.loads(r.stdout or '[]')]
            # dotHL of the same file is still high-level: E0601 for it only
            if r.returncode != 1 or set(codes) != {'E0601'}:
                failures.append(f'the derived program: check exits {r.returncode} with {codes}')
            r = run(dpia, ['check', '--high-level', cur])
            if r.returncode != 0:
                failures.append(f'the derived program: check --high-level exits {r.returncode}: {r.stderr}')

        # dotVec: the derived program translates to the paper's kernel, the
        # OpenCL C of samples/dot_vec.dpia byte for byte
        text, cur = derive(dpia, tmp, os.path.join('samples', 'explore', 'dot_vec.dpia'), 'dotVec', DERIVATION_VEC)
        if text is not None:
            golden(os.path.join(here, 'dot_vec_derived.dpia'), text, update)
            name = ['--source-name', 'dot_vec.dpia', '-k', 'dotVec']
            got = run(dpia, ['translate', cur] + name)
            want = run(dpia, ['translate', os.path.join('samples', 'dot_vec.dpia')] + name)
            if got.returncode != 0 or want.returncode != 0 or got.stdout != want.stdout:
                failures.append(f'the derived dotVec does not translate to samples/dot_vec.dpia\'s OpenCL C:\n'
                                f'{got.stdout}{got.stderr}')

        text, cur = derive(dpia, tmp, os.path.join('samples', 'explore', 'gemv.dpia'), 'gemvHL', DERIVATION_ACCS)
        if text is not None:
            got = run(dpia, ['translate', cur, '-k', 'gemvHL'])
            want = run(dpia, ['translate', os.path.join('samples', 'gemv_vec.dpia'), '-k', 'gemvVec2'])
            if got.returncode != 0 or loop_of(got.stdout) is None or loop_of(got.stdout) != loop_of(want.stdout):
                failures.append(f'accumulators: the derived gemv\'s loop is not gemvVec2\'s:\n{got.stdout}{got.stderr}')
            r = run(dpia, ['run', cur, '-k', 'gemvHL', '--size', 'M=32,N=64', '--check'])
            if r.returncode != 0 or 'ok' not in r.stdout:
                failures.append(f'accumulators: run --check of the derived gemv: exit {r.returncode}\n{r.stdout}{r.stderr}')
        text, cur = derive(dpia, tmp, os.path.join('samples', 'explore', 'gemv.dpia'), 'gemvHL', DERIVATION_ROWS)
        if text is not None:
            got = run(dpia, ['translate', cur, '-k', 'gemvHL'])
            want = run(dpia, ['translate', os.path.join('samples', 'gemv_vec.dpia'), '-k', 'gemvVecRows'])
            if got.returncode != 0 or body_of(got.stdout) is None or body_of(got.stdout) != body_of(want.stdout):
                failures.append(f'rowTile: the derived gemv is not gemvVecRows:\n{got.stdout}{got.stderr}')
            r = run(dpia, ['run', cur, '-k', 'gemvHL', '--size', 'M=32,N=64', '--check'])
            if r.returncode != 0 or 'ok' not in r.stdout:
                failures.append(f'rowTile: run --check of the derived gemv: exit {r.returncode}\n{r.stdout}{r.stderr}')
        text, cur = derive(dpia, tmp, os.path.join('samples', 'explore', 'gesummv.dpia'), 'gesummvHL',
                           DERIVATION_GESUMMV_ROWS)
        if text is not None:
            got = run(dpia, ['translate', cur, '-k', 'gesummvHL'])
            loop = loop_of(got.stdout) or ''
            want = ['float16 acc[4];',
                    'acc[1] = (alpha * vload16((gid*4 + 1)*(N/16) + i, a) + beta * vload16((gid*4 + 1)*(N/16) + i, b)) '
                    '* vload16(i, x) + acc[1];']
            if got.returncode != 0 or not all(w in loop for w in want) or ' *tmp' in got.stdout:
                failures.append(f'rowTile: the derived gesummv does not read its rows in place:\n{got.stdout}{got.stderr}')
            for size in ('N=64', 'N=1024'):
                r = run(dpia, ['run', cur, '-k', 'gesummvHL', '--size', size, '--check'])
                if r.returncode != 0 or 'ok' not in r.stdout:
                    failures.append(f'rowTile: run --check of the derived gesummv at {size}: exit {r.returncode}\n'
                                    f'{r.stdout}{r.stderr}')
        # rowTile refused (E1104): no sum in the element's function, the
        # array beside the rows computed (the accumulators' initial array is
        # made from it), the element read in that array
        head = 'kernel k (M N: nat) (m: [M][N]float) (xs: [N]float) =\n'
        for name, body, why in (
                ('nosum', '  m |> map (\\r -> r |> map (\\v -> v * 2.0))\n', 'has no plain reduce'),
                ('computed', '  m |> map (\\r -> zip r (xs |> map (\\x -> x * 2.0)) |> map (\\p -> fst p * snd p) '
                 '|> reduce (\\x a -> x + a) 0.0)\n', 'computes'),
                ('mixed', '  m |> map (\\r -> zip r r |> map (\\p -> fst p * snd p) '
                 '|> reduce (\\x a -> x + a) 0.0)\n', 'view of the element')):
            path = os.path.join(tmp, 'rows_' + name + '.dpia')
            with open(path, 'w') as f:
                f.write(head + body)
            r = run(dpia, ['rewrite', path, '-k', 'k', '--diagnostics=json', '--apply', 'rowTile@.', '--param', 'n=2'])
            got = [d for d in json.loads(r.stdout or '[]') if d.get('level') == 'error']
            if r.returncode != 1 or [d.get('code') for d in got][:1] != ['E1104'] or why not in got[0].get('message', ''):
                failures.append(f'rowTile {name}: exit {r.returncode}, {got}, expected E1104 ({why})\n{r.stderr}')
        # accumulators refused: an operator that does not regroup (max), the
        # first array computed (the initial array is made from it) with
        # E1104; an array whose elements are not the initial value's type
        # (ints summed from 0.0) does not check, E1105
        head = 'kernel k (N: nat) (xs ys: [N]float) (is: [N]int) =\n'
        for name, body, code, why in (
                ('max', '  zip xs ys |> map (\\p -> fst p * snd p) |> reduce (\\x a -> max x a) 0.0\n', 'E1104',
                 'associative and commutative'),
                ('computed', '  zip (xs |> map (\\x -> x * 2.0)) ys |> map (\\p -> fst p * snd p) |> reduce (\\x a -> x + a) 0.0\n',
                 'E1104', 'is computed'),
                ('types', '  zip is xs |> map (\\p -> snd p) |> reduce (\\x a -> x + a) 0.0\n', 'E1105', '')):
            path = os.path.join(tmp, name + '.dpia')
            with open(path, 'w') as f:
                f.write(head + body)
            r = run(dpia, ['rewrite', path, '-k', 'k', '--diagnostics=json', '--apply', 'accumulators@.', '--param', 'n=2'])
            got = [d for d in json.loads(r.stdout or '[]') if d.get('level') == 'error']
            if r.returncode != 1 or [d.get('code') for d in got][:1] != [code] or why not in got[0].get('message', ''):
                failures.append(f'accumulators {name}: exit {r.returncode}, {got}, expected {code} ({why})\n{r.stderr}')

        for args, code in ERRORS:
            r = run(dpia, ['rewrite', rel, '-k', 'dotHL', '--diagnostics=json'] + args)
            try:
                got = [d.get('code') for d in json.loads(r.stdout) if d.get('level') == 'error']
            except ValueError:
                got = None
            if r.returncode != 1 or got != [code]:
                failures.append(f'rewrite {" ".join(args)}: exit {r.returncode}, codes {got}, expected {code}\n'
                                f'{r.stdout}{r.stderr}')

        # partialReduceAny: the tiles read the array beneath the map, so an
        # array that computes (a second map) is refused, not computed again by
        # every tile
        computed = os.path.join(tmp, 'computed.dpia')
        with open(computed, 'w') as f:
            f.write('kernel twice (N: nat) (xs: [N]float) =\n'
                    '  xs |> map (\\x -> x * 2.0) |> map (\\x -> x + 1.0) |> reduce (\\x a -> x + a) 0.0\n')
        for kernel_args, code in ((['--apply', 'partialReduceAny@.', '--param', 'n=64'], 'E1104'),
                                  (['--apply', 'fuseMaps@1'], None)):
            r = run(dpia, ['rewrite', computed, '-k', 'twice', '--diagnostics=json'] + kernel_args)
            got = [d.get('code') for d in json.loads(r.stdout or '[]') if d.get('level') == 'error'] \
                if code else None
            if (code and (r.returncode != 1 or got != [code])) or (not code and r.returncode != 0):
                failures.append(f'twice: rewrite {" ".join(kernel_args)}: exit {r.returncode}, codes {got}, '
                                f'expected {code or "success"}\n{r.stdout}{r.stderr}')

    # vectoriseLoop: listed at mriq's map (a loop over the samples every
    # voxel reads); refused with its reason where the function has no loop
    # (scal)
    r = run(dpia, ['rewrite', os.path.join('samples', 'explore', 'mriq.dpia'), '-k', 'mriqHL', '--list', '--json'])
    listed = [] if r.returncode else [(p['path'], q['rule']) for p in json.loads(r.stdout)['positions'] for q in p['rules']]
    if [p for p, q in listed if q == 'vectoriseLoop'] != ['.']:
        failures.append(f'mriq: vectoriseLoop listed at {[p for p, q in listed if q == "vectoriseLoop"]}')
    for sample, kernel, why in (('scal.dpia', 'scalHL', 'has no loop'),):
        r = run(dpia, ['rewrite', os.path.join('samples', 'explore', sample), '-k', kernel, '--diagnostics=json',
                       '--apply', 'vectoriseLoop@.', '--param', 'n=8'])
        got = [d for d in json.loads(r.stdout or '[]') if d.get('level') == 'error']
        if r.returncode != 1 or [d.get('code') for d in got] != ['E1104'] or why not in got[0].get('message', ''):
            failures.append(f'{kernel}: vectoriseLoop@. exit {r.returncode}, {got}, expected E1104 ({why})')
    # n-body's bodies are float4, read lane by lane: each becomes a
    # structure of arrays (nbodyVec's px, py, pz gathered from 8 bodies),
    # the loop's result cut back into lanes; lowered, it runs and agrees
    # with the reference interpreter
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join('samples', 'explore', 'nbody.dpia')
        for step, (rule, param) in enumerate((('vectoriseLoop@.', 'n=8'), ('lowerGlobal@1', None),
                                              ('lowerReduceSeq@1.0.1.0.1.1.1.0', None),
                                              ('lowerSeq@1.0.1.0.1.1.1.1.1.1.1.1', None))):
            r = run(dpia, ['rewrite', prog, '-k', 'nbodyHL', '--apply', rule] + (['--param', param] if param else []))
            if r.returncode != 0:
                failures.append(f'nbody: {rule}: exit {r.returncode}\n{r.stderr}')
                break
            if step == 0:
                for want in ('let px = float8 (fst (idx pvs 0)).x (fst (idx pvs 1)).x', 'let s = vec 8 q.w * invDist',
                             'let accx = fst acc in', 'zip pvs (zip [accx.x, accx.y'):
                    if want not in r.stdout:
                        failures.append(f'nbody: vectoriseLoop@.: no {want!r} in\n{r.stdout}')
            prog = os.path.join(tmp, f'nbody{step}.dpia')
            with open(prog, 'w') as f:
                f.write(r.stdout)
        else:
            r = run(dpia, ['run', prog, '-k', 'nbodyHL', '--size', 'N=64', '--check', '--seed', '1'])
            if r.returncode != 0 or 'ok' not in r.stdout + r.stderr:
                failures.append(f'nbody: vectoriseLoop n=8, lowered: run --check exit {r.returncode}\n{r.stdout}{r.stderr}')
        # a float4 element of no kernel parameter (a map's result) is refused
        part = os.path.join(tmp, 'computed.dpia')
        with open(part, 'w') as f:
            f.write('kernel k (N: nat) (ps qs: [N]float4) =\n'
                    '  zip ps qs |> map (\\pq -> fst pq) |> map (\\p -> qs |> reduce (\\q a -> a + (q - p).x) 0.0)\n')
        r = run(dpia, ['rewrite', part, '-k', 'k', '--diagnostics=json', '--apply', 'vectoriseLoop@.', '--param', 'n=4'])
        got = [d.get('code') for d in json.loads(r.stdout or '[]') if d.get('level') == 'error']
        if r.returncode != 1 or got != ['E1104']:
            failures.append(f'computed: vectoriseLoop@. exit {r.returncode}, {got}, expected E1104\n{r.stdout}{r.stderr}')
    # a result with a part that does not depend on the element has no
    # lanes to cut it into: refused (it was a crash)
    with tempfile.TemporaryDirectory() as tmp:
        part = os.path.join(tmp, 'part.dpia')
        with open(part, 'w') as f:
            f.write('kernel k (N M: nat) (xs: [N]float) (ws: [M]float) =\n'
                    '  xs |> map (\\x -> (ws |> reduce (\\w a -> a + x * w) 0.0, 1.0))\n')
        r = run(dpia, ['rewrite', part, '-k', 'k', '--diagnostics=json', '--apply', 'vectoriseLoop@.', '--param', 'n=4'])
        got = [d.get('code') for d in json.loads(r.stdout or '[]') if d.get('level') == 'error']
        if r.returncode != 1 or got != ['E1104']:
            failures.append(f'part: vectoriseLoop@. exit {r.returncode}, {got}, expected E1104\n{r.stderr}')

    # registerTile, vectoriseTile: refused with their reasons where the
    # row appears outside zip x y, where a lambda binds the columns'
    # array's name (its row length would not be the parameter's), and
    # where the update does not compute lane by lane
    with tempfile.TemporaryDirectory() as tmp:
        head = 'kernel k (M N K: nat) (a: [M][K]float) (b: [K][N]float) =\n'
        tile = ('  a |> split 2 |> map (\\rows -> {cols} |> map (\\c -> zip (transpose rows) c\n'
                '    |> reduce (\\p acc -> zip (fst p) acc |> map (\\q -> {u})) (c |> take 0 |> padCst 2 0 0.0))\n'
                '    |> transpose) |> join\n')
        for name, body, spec, why in (
                ('row', '  a |> map (\\r -> b |> transpose |> map (\\c -> zip r c |> reduce (\\p s -> s + fst p) (r |> reduce (\\x t -> x + t) 0.0)))\n',
                 ['registerTile@.', '--param', 'n=2'], 'x or y appears outside zip x y'),
                ('shadow', '  b |> (\\b -> ' + tile.format(cols='b |> transpose', u='fst q * snd p + snd q').strip() + ')\n',
                 ['vectoriseTile@0.0', '--param', 'n=4'], 'binds the columns'),
                ('select', tile.format(cols='b |> transpose', u='select (fst q < 0.0) (snd q) (snd p)'),
                 ['vectoriseTile@.', '--param', 'n=4'], 'lane by lane')):
            path = os.path.join(tmp, name + '.dpia')
            with open(path, 'w') as f:
                f.write(head + body)
            r = run(dpia, ['rewrite', path, '-k', 'k', '--diagnostics=json', '--apply'] + spec)
            got = [d for d in json.loads(r.stdout or '[]') if d.get('level') == 'error']
            if r.returncode != 1 or [d.get('code') for d in got] != ['E1104'] or why not in got[0].get('message', ''):
                failures.append(f'{name}: {spec[0]} exit {r.returncode}, {got}, expected E1104 ({why})\n{r.stderr}')

    for args in (['--list'], ['--apply', 'lowerSeq@1'], ['-k', 'dotHL'], ['-k', 'dotHL', '--list', '--apply', 'x@.'],
                 ['-k', 'dotHL', '--apply', 'lowerSeq@1', '--json'], ['-k', 'dotHL', '--list', '--bogus']):
        r = run(dpia, ['rewrite', rel] + args)
        if r.returncode != 2:
            failures.append(f'rewrite {" ".join(args)}: exit {r.returncode}, expected 2 (usage)')
    r = run(dpia, ['rewrite', rel, '-k', 'nope', '--list', '--diagnostics=json'])
    if r.returncode != 2 or 'E0806' not in r.stdout:  # as translate -k nope
        failures.append(f'rewrite -k nope: exit {r.returncode}: {r.stdout}{r.stderr}')

    r = run(dpia, ['check', '--high-level', '--diagnostics=json', rel])
    notes = json.loads(r.stdout or '[]')
    if r.returncode != 0 or [(d['level'], d.get('code')) for d in notes] != [('note', 'E0607')] * 2:
        failures.append(f'check --high-level: exit {r.returncode}, {notes}')
    r = run(dpia, ['check', '--high-level', rel])
    if r.returncode != 0 or r.stderr.count(': note[E0607]: kernel ') != 2 or 'error' in r.stderr:
        failures.append(f'check --high-level (text): the notes print their code: exit {r.returncode}, {r.stderr}')
    r = run(dpia, ['check', '--diagnostics=json', rel])
    codes = [d.get('code') for d in json.loads(r.stdout or '[]')]
    if r.returncode != 1 or set(codes) != {'E0601'}:
        failures.append(f'check: exit {r.returncode}, codes {codes}')

    for f in failures:
        print('FAIL', f)
    print(f'rewrite-cli: {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
