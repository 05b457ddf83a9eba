#!/usr/bin/env python3
"""gen_features.py: the generator draws what it says it draws.

A count of features over the programs of a seed (gen.py's feature names,
Program.features) for the constructs whose presence the diff suites
depend on, and programs that dpia check once refused although the
generator meant them to be accepted, checked again.  Cheap: no OpenCL.

- nested accumulators (gen_streams.py, nested_acc_stage; issue 40 item
  10): at seed 1, of the first 300 programs, at least 10 with a work-group
  accumulator updated by two nested mapLocal levels, of both orders, with
  a work-item's several elements, read after the loop by the same levels
  (private memory) and through join (local memory), and at least one that
  check must refuse (both levels of one dimension, E0602);
- names bound by let to an integer literal (gen_scalar.py,
  let_literal_value; gen_streams.py, slide_stage): at seed 1 #0-299, at
  least 10 used at two types (an int and a float, or a vector's
  broadcast) and one a window's index and a value (`idx w l` and `* l`,
  refused with E0301 before docs/language.md section 11 covered indices);
- at seed 1 #0-299, at least one 2-D kernel scanning adjacent rows in
  place (gen_streams.py, row_scan_update) and three looping over a
  private array (gen_kernel.py, private_loop_stage);
- rows padded at both ends (a stream of their own): at seed 1 #0-299, at
  least three reductions over padCst's rows (gen_stages.py, padded_rows),
  one of them over an array that is one row itself, whose loop the
  partition cuts into three with a constant middle step
  (regress/pad_guard_constant_row_warning.dpia), and kernels padding the
  rows of a local and of a private temporary by padClamp (gen_kernel.py,
  padded_rows_stage: a row pointer whose offset subtracts,
  regress/row_pointer_past_local_end.dpia);
- seed 11 #793: a mapLocal over fewer elements than another of its
  dimension, whose body wrote a stage its nested mapLocal1 read: a
  barrier no work-item outside the guard reached, E0604 (gen_stages.py,
  map_stage; regress/nested_local_after_stage_guarded.dpia);
- seed 2 #307 --with depmaps: each 1-element chunk's triangle, its rows
  after `drop 1` packed by depJoin into no elements, then a mapLocal over
  them, E0404 (gen_depresults.py, res_dep_join: the packed rows at least
  one element, as every array the generator makes);
- seed 101 #472 --with vectors: a helper `def h (y: double)` whose body
  read only a name a lambda bound to literals, a float (literals with no
  context are floats, docs/reference.md section 4.5), E0302 where h was
  used (gen_scalar.py, _sx: such a name is no use of a variable);
- seed 110 #149: a mapLocal over N/8 whose body holds a barrier, and a
  later mapLocal over 8 of its dimension, which dpia makes the local size
  (a constant before a symbolic size): the mapLocal over N/8 a loop whose
  last round leaves work-items out of the barrier, E0604 (gen_sizes.py,
  solve);
- seed 121 #381: split (ceil((N - 3)/3)/8) of ceil(N/3) - 1 rows, whose
  row count check could not solve, E0303 (dpia/size.c, quotient_term;
  tests/check/accept_v/split_sum_size.dpia);
- seed 1207 #883 (gen53's check sweep): a let of a constant expression,
  `let t = cos (...) in t * max (vec 2 (exp t)) (t - v)`, whose one type
  the first operator beside a float2 made float2, and `vec 2` of it an
  error, E0301 (gen_scalar.py, _sx: the value typed `(... : float)` in a
  vector context);
- seed 1216 #183 (gen53's check sweep): a nested mapLocal1 after a
  sequential stage in a mapLocal0 over 4 whose local size was 8, that of
  the copy of a work-group accumulator of 8 updated by `split 2 |>
  mapLocal`: the barrier in the guarded mapLocal0, E0604 (gen_stages.py,
  wg_array_acc: the accumulator's m elements among the local sizes);
- --with shared (Gen.odds): at seed 1 #0-299, at least twice as many
  programs with a toLocal stage as without the option (105 and 24), more
  with a work-group's array accumulator, asVector 16 and transpose, the
  programs without it unchanged by the option's existence (their count
  the same), and the first 100 with it accepted by check (or refused as
  their `-- expect:` line says);
- high-level seed 101 #52 (gen.py --high-level, checked with --high-level):
  a matrix product's row zipped with a column, its function written for
  the zip of a zip of a nested program, E0301 (gen_high.py, fn).
- derived seed 1119 #43 (gen_derived.py, run_diff.py --derived): a
  product of each row's float2 vectors at N = 84, 42 factors a lane, whose
  reference (in double, spec section 11) was 1.96e-52 where the device's
  float is 0, E0005: a row of a product has at most PRODUCT_FACTORS
  vectors (gen_derived.py, choose_sizes), so that the product stays in
  float's normal range.
- high-level programs --with neighbours (gen_high.py, neighbours_kernel;
  run_diff.py --derived --with neighbours): at seed 1 #0-299, at least 15
  of each shape (a stencil over a chunk's mapped elements, those elements
  zipped with themselves shifted, permuted, and a tile of rows reduced by
  columns), every one accepted by `dpia check --high-level`, and the
  programs without the option what they were (none of those shapes).

Usage: gen_features.py --dpia build/dpia"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import gen_derived  # noqa: E402


def shared_odds(dpia, tmp, plain):
    """--with shared: more of the stages other work-items read, the same
    generator otherwise; plain: seed 1 #0-299 without it."""
    failures = []
    shared = [gen.generate(1, i, extra=('shared',)) for i in range(300)]

    def count(progs, has):
        return sum(any(has(f) for f in p.features) for p in progs)
    for what, has, factor in (('a toLocal stage', lambda f: f.startswith('mem:toLocal'), 2),
                              ('a work-group\'s array accumulator', lambda f: f.startswith('wg-array-acc'), 1.5),
                              ('asVector 16', lambda f: f == 'asVector16', 1.5),
                              ('a transpose', lambda f: f == 'view:transpose', 1.5)):
        got, base = count(shared, has), count(plain, has)
        print(f'--with shared, {what}: {got} (without: {base})')
        if got < factor * base or not base:
            failures.append(f'--with shared, {what}: {got} programs of seed 1 #0-299, without the option {base}')
    for i, p in enumerate(shared[:100]):
        path = os.path.join(tmp, f'shared{i}.dpia')
        with open(path, 'w') as fh:
            fh.write(p.text)
        r = subprocess.run([dpia, 'check', path], capture_output=True, text=True)
        if (r.returncode == 0) != (p.expect == 'ok'):
            failures.append(f'--with shared, seed 1 #{i}: dpia check exits {r.returncode}, the program expects '
                            f'{p.expect}:\n{p.text}\n{r.stdout}{r.stderr}')
    return failures


def derived_product_sizes(dpia):
    """derived seed 1119 #43, a product of each row's vectors: at most
    126 / 8 factors a lane (each at least 2^-8, float's normal range down
    to 2^-126), written here apart from gen_derived.py's own cap (the
    failures, [] when so)"""
    batch = gen_derived.Batch(dpia)
    try:
        p = gen_derived.derive(batch, 1119, 43)
    finally:
        batch.close()
    product = re.search(r'reduce \(\\x a -> x \* a\) \(vec (\d+) 1\.0\)', p.text)
    if not product:
        return [f'derived seed 1119 #43 is no longer a product of vectors (the rules changed its walk?):\n{p.text}']
    factors, most = p.sizes['N'] // int(product.group(1)), 126 // 8
    print(f'derived seed 1119 #43: a product of {factors} vectors a row (at most {most})')
    if factors > most:
        return [f'derived seed 1119 #43: a product of {factors} vectors a row, which may leave float\'s range:\n{p.text}']
    return []


# the shapes of gen_high.py's neighbours_kernel, told apart by their text
NEIGHBOUR_SHAPES = {
    'a stencil over a chunk\'s mapped elements': re.compile(r'\|> slide \d+ 1 \|>'),
    'a chunk\'s mapped elements zipped with themselves shifted': re.compile(r'\(\\t -> zip t \(t \|> pad'),
    'a chunk\'s mapped elements permuted': re.compile(r'\|> split \d \|> transpose \|> join \|> map'),
    'a tile of rows reduced by columns': re.compile(r'\|> map \(map .*\) \|> transpose \|> map'),
}


def neighbour_shapes(dpia, tmp):
    """gen_high.py's neighbours_kernel: each shape drawn at seed 1 #0-299
    with --with neighbours, each program accepted by dpia check
    --high-level, and none of them without the option (the failures)"""
    failures = []
    texts = [gen.generate_high_level(1, i, ('neighbours',)) for i in range(300)]
    plain = [gen.generate_high_level(1, i) for i in range(300)]
    for what, shape in NEIGHBOUR_SHAPES.items():
        got = [t for t in texts if shape.search(t)]
        print(f"--with neighbours, {what}: {len(got)} (at least 15)")
        if len(got) < 15:
            failures.append(f'--with neighbours, {what}: {len(got)} high-level programs of seed 1 #0-299, '
                            'expected at least 15')
        if any(shape.search(t) for t in plain):
            failures.append(f'{what} in a high-level program of seed 1 #0-299 without --with neighbours')
        for i, text in enumerate(got):
            path = os.path.join(tmp, f'n{i}.dpia')
            with open(path, 'w') as fh:
                fh.write(text)
            r = subprocess.run([dpia, 'check', '--high-level', path], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f'--with neighbours: dpia check --high-level refuses it:\n{text}\n{r.stdout}{r.stderr}')
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--dpia', required=True)
    a = ap.parse_args()
    failures = []

    progs = [gen.generate(1, i) for i in range(300)]
    # the variants of the programs check must accept
    feats = [f for p in progs if p.expect == 'ok' for f in p.features]
    nested = [p for p in progs if p.expect == 'ok' and any(f.startswith('nested-acc-') for f in p.features)]
    wants = {
        'accepted nested accumulators': (len(nested), 10),
        'rows outer (mapLocal1 of mapLocal0)': (sum(f.startswith('nested-acc-10-') for f in feats), 1),
        'columns outer (mapLocal0 of mapLocal1)': (sum(f.startswith('nested-acc-01-') for f in feats), 1),
        'several elements a work-item': (sum('-k2-' in f or '-k4-' in f for f in feats if f.startswith('nested-acc-')), 1),
        'read after by the same levels': (sum(f.startswith('nested-acc-') and f.endswith('-own') for f in feats), 1),
        'read after through join': (sum(f.startswith('nested-acc-') and f.endswith('-join') for f in feats), 1),
        # a name bound by let to a literal used at two types, and as an index
        # of a window and a value (docs/language.md section 11)
        'a let-bound literal at two types': (sum(f.startswith('let-literal-two-types') for f in feats), 10),
        'a let-bound literal as an index and a value': (sum(f == 'let-literal-index' for f in feats), 1),
        'an in-place scan of adjacent rows': (sum(f.startswith('updates-row-scan-') for f in feats), 1),
        'a loop over a private array': (sum(f.startswith('private-loop-') for f in feats), 3),
        # rows padded at both ends: a reduction over padCst's rows, the
        # data one row of them, and padClamp over a temporary's rows
        'a reduction over padCst\'s rows': (sum(f.startswith('padded-rows-reduce') for f in feats), 3),
        'a reduction over padCst\'s rows, the data one row': (
            sum(f.startswith('padded-rows-reduce-one') for f in feats), 1),
        'padClamp over a local temporary\'s rows': (sum(f.startswith('padded-rows-local-') for f in feats), 1),
        'padClamp over a private temporary\'s rows': (sum(f.startswith('padded-rows-private-') for f in feats), 1),
        'refused with E0602': (sum(p.expect == 'reject E0602' and 'nested-acc-reject-same-dim' in p.features
                                  for p in progs), 1),
    }
    for what, (got, least) in wants.items():
        print(f'{what}: {got} (at least {least})')
        if got < least:
            failures.append(f'{what}: {got} programs of seed 1 #0-299, expected at least {least}')

    with tempfile.TemporaryDirectory() as tmp:
        for seed, index, extra in ((11, 793, ()), (2, 307, ('depmaps',)), (101, 472, ('vectors',)),
                                    (110, 149, ()), (121, 381, ()), (1207, 883, ()), (1216, 183, ())):
            p = gen.generate(seed, index, extra=extra)
            path = os.path.join(tmp, f'p{seed}_{index}.dpia')
            with open(path, 'w') as fh:
                fh.write(p.text)
            r = subprocess.run([a.dpia, 'check', path], capture_output=True, text=True)
            print(f'seed {seed} #{index}: dpia check exits {r.returncode}')
            if r.returncode != 0 and p.expect == 'ok':
                failures.append(f'seed {seed} #{index}: dpia check refuses it:\n{p.text}\n{r.stdout}{r.stderr}')
        for seed, index in ((101, 52),):
            text = gen.generate_high_level(seed, index)
            path = os.path.join(tmp, f'h{seed}_{index}.dpia')
            with open(path, 'w') as fh:
                fh.write(text)
            r = subprocess.run([a.dpia, 'check', '--high-level', path], capture_output=True, text=True)
            print(f'high-level seed {seed} #{index}: dpia check --high-level exits {r.returncode}')
            if r.returncode != 0:
                failures.append(f'high-level seed {seed} #{index}: dpia check refuses it:\n{text}\n{r.stdout}{r.stderr}')
        failures += shared_odds(a.dpia, tmp, progs)
        failures += derived_product_sizes(a.dpia)
        failures += neighbour_shapes(a.dpia, tmp)
    for f in failures:
        print('FAIL ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
