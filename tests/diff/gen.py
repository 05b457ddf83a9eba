#!/usr/bin/env python3
"""gen.py: a generator of random well-typed DPIA strategy programs.

A small typed program synthesiser: one kernel per program, built from the
primitives of spec section 4, tracking the type of every phrase it writes
(array shapes as symbolic sizes over the kernel's nat parameters, element
types), so that every program type checks.

Coverage:
- layout views: split (constant and symbolic `split (N/4)`), join,
  transpose, asVector 2/3/4/8/16 and asScalar, reorderStride, take, drop,
  padClamp, padCst, slide, splitPad k c over an array of symbolic length
  (a size ceil(n/k), an atom whose value the solver computes from n, and
  n chosen without k dividing it: docs/reference.md, "Sizes that do not
  divide"), zip (of two inputs, of an array with a view or a
  map of itself, with an enclosing array, with an input of another size or
  scalar type), pairs (fst/snd, pair results, arrays of pairs, nested);
- maps: mapGlobal and mapWorkgroup at the top (dimensions 0 and 1, nested
  2-D grids), mapLocal (0 and 1, nested 2-D) inside mapWorkgroup bodies,
  mapSeq anywhere sequential code may run (also redundantly in a group);
- scanSeq over scalars and vectors (a stream of choices of its own) as
  the last stage of a sequential or work-item body, its steps
  non-commutative as reduceSeq's;
- reduceRange (a stream of choices of its own) in place of some of those
  reduceSeq: a step of 1 to 3, bounds in range, empty, or out of range at
  either end (clamped to the array: docs/language.md section 25);
- slideSeq (a window of 2 to 5 elements rotated in private memory) over
  scalars and vectors, from a stream of its own, where a scan was not
  chosen: its step reads the window's elements in an order that matters;
- reduceSeq with non-commutative bodies (a*0.5 + x, x - a*0.5, fma,
  (a*3 + x) % 1009 for int) over scalars, vectors, pairs (pair
  accumulators), rows (nested reductions) and with an array accumulator;
- a scalar reduceSeq of a work-item's or sequential body as the side of a
  select chosen by the row's first element (a stream of choices of its
  own): only the chosen side runs (docs/language.md section 28);
- compound accumulators whose new components read each other: pairs
  (`(snd a + x, fst a)`, linear mixes) and nested pairs `((p, q), r)`,
  projected to a scalar by `|> (\s -> ...)` when the context wants one;
- array accumulators updated by a mapSeq (also over the rows of a split)
  that reads other elements of the old accumulator: `reorderStride`,
  `split k |> transpose |> join`, a shift `padClamp 1 0 |> take m`;
- a work-group's reduceSeq over rows whose array accumulator is updated by
  a mapLocal (it lives in local memory): `zip row acc |> mapLocal f`, with
  acc permuted, `zip row acc |> split 2 |> mapLocal (mapSeq f) |> join`,
  and `row |> mapLocal f` (acc not read), maybe followed by a map;
- a work-group's reduceSeq whose accumulator [m1][m0] (or [m1][m0][k]) is
  updated by two nested mapLocal levels of distinct dimensions, each
  work-item its own element (a stream of its own: nested_acc_stage;
  docs/language.md section 2.1, SHOC's sgemmNN): zips in either order,
  the accumulator not read or read at a neighbour's element, read after
  the loop by the same levels (private memory), through join or not at
  all; now and then both levels of one dimension, which check must
  refuse (`-- expect: reject E0602`);
- gathers through idx-typed kernel inputs: `[N]idx[L]` into a data input
  (`idx ds j`) or into the rows of a 2-D input (`idx rows j`, then a
  pipeline over the row), neighbour lists `[N][K]idx[N]` (K constant or
  M; maybe zipped with the data they index), and scalar `idx[N]` inputs
  (`idx ts col`, and `idx row col` for the arrays of length N in scope);
- memory: toPrivate, toLocal, toGlobal and the implicit global temporary
  of a map read by a later stage; stages of one work-group that read what
  other work-items wrote (barriers), and views after the last map of a body;
- kernels: one parallel stage (plus acceptor views: join, split, asScalar,
  asVector, transpose), a pair of stages (two outputs), a zip of two
  stages, sequential kernels; float, double and int programs; a scalar
  parameter (alpha); a `def` helper; lets and applied lambdas whose
  value is used two or three times (sharing); untyped (template) defs (`def twice
  x = x + x`, `halfSum`, `lerp`, `inc`) used at the program's type, at a
  vector type and at a second scalar type through conversions, and as a
  function argument (`mapSeq twice`); defs with nat parameters (`firstN K
  L v` as a reduction, passed `firstN 3 v` or `firstN 3 N v`; `tile T` as
  a split); `let`; integer and `1.5f` literals;
- defs whose argument a later view drops: `toPrivate (\\c -> c |> mapSeq
  (\\x -> twice (...)) |> take 3)`, and drop, slide with a step beyond its
  window (then join), padCst over an empty array (take 0, drop n), the
  unused component of a pair (map fst/snd): the argument is bound for
  every element, and the bindings of the dropped ones are read by nothing
  (a stream of random choices of their own, like array literals);
  conversions (toFloat/toInt/toDouble); math built-ins (sin cos exp log
  sqrt rsqrt fabs floor pow fma min max select) on scalars and vectors;
- zips with `indices n` (a stream of random choices of its own): each
  position read as the element of an input there and compared, converted
  (docs/language.md section 22); about half of them (a stream of their
  own) offset and made an index again by clampIdx, a neighbour read at
  the clamped position or the clamped position compared with the
  element's own (at the ends, the clamp's);
- unzip (a stream of its own): a kernel whose one parallel stage makes an
  array of pairs returns it unzipped, two outputs written by the one loop
  (docs/language.md section 24);
- scatter (a stream of its own): a kernel's array written through an
  input declared a permutation, element i to position p[i] (`|> scatter
  p`, docs/language.md section 29; dpia run generates the permutation).
- names bound by let to an integer literal (a stream of its own), used
  at two types: added to a value of the program's type (maybe a vector's
  broadcast) and converted from the other (`let c = 3 in e + c +
  toFloat (c % 3 * c)`), and a slideSeq window's last position as an
  index and a value (`let l = 2 in ... idx w (l - 1) * l`;
  docs/language.md section 11);
- kernels that update part of an input in place (a stream of its own, in
  place of about one kernel in thirteen): `updates xs [a .. N-1-b]`, in 2-D
  with a range of the rows too, or the whole of xs; each element of the
  region computed from itself (and maybe another input's element at the
  same place) by mapGlobal, mapGlobal1 of mapGlobal or mapWorkgroup of
  mapLocal (docs/language.md section 27); run --check compares the whole
  buffer, the part outside the region never written.
  Some 2-D ones (a stream of their own) scan K adjacent rows side by
  side in place (`transpose |> drop 1 |> scanSeq ... |> padCst 1 0 |>
  transpose`), the read and the store of an element different sums of
  the same terms, one element for codegen/in_place.c's polynomial
  comparison (tests/structure/in_place_rows.dpia);
- work-items that copy a chunk of 5 to 16 elements to a private array
  and loop over it, element by element or as a window of three (a
  stream of its own): constant loops over a private array, which
  codegen unrolls whole (`#pragma unroll K`, codegen/kir.c);
- rows padded at both ends (a stream of its own): reductions over
  padCst's rows into an array accumulator, the padding whole rows or
  shifted, the rows mostly of 2 to 4 elements and often the data one row
  (the partition's constant middle step, codegen/partition.c), and
  kernels padding a local or private temporary's rows by padClamp before
  a map, a reduction or the copy out (a row pointer whose offset
  subtracts the padding);
- dependent maps (--with depmaps, a stream of its own: gen_depmaps.py):
  `triangle xs` mapped by depMapGlobal, depMapWorkgroup (dimension 0 or 1)
  or depMapSeq at a kernel's top, and depMapSeq as the last stage of a
  work-item's or sequential body; each row (n - k pairs) reduced, maybe
  after drop 1 (the last row empty), take 1 or map fst/snd, or mapped and
  placed in the square by padCst k 0; the row's name k read as a value
  (docs/language.md section 30);
- kernels written through mirror and depJoin (--with depmaps, a stream
  of its own: gen_depresults.py), about one in ten: the symmetric square
  of an upper triangle (section 29.1) over a dependent map's rows placed
  in the square, over a square of positions whose lower half a select
  leaves out, over a square input mapped element by element (mapGlobal1
  of mapGlobal, mapGlobal of mapSeq, mapWorkgroup of mapLocal) and over a
  batch of squares, each mirrored in its work-item or work-group, sides 1
  and 2 among them; mirrors the checker must refuse with E0505 (into a
  toLocal, toPrivate or toGlobal temporary read after, in a kernel that
  updates its input: `-- expect: reject E0505`); a dependent map's rows
  of a + b*k elements stored packed by depJoin (section 30.2), as the
  kernel's result or a toGlobal, toLocal or toPrivate function's read by
  the rest of a work-item's or work-group's body.

The hierarchy rules of spec section 5 hold by construction: mapLocal only
inside a mapWorkgroup body (and inside a mapLocal of the other dimension
only as its last stage), no mapGlobal/mapWorkgroup inside local or
sequential code, toLocal only inside a mapWorkgroup body, no plain map, a
grid-level map's result read by nothing but acceptor views, and no
temporary other than a private one in the body of a grid-level map that
holds another one.  Every split, asVector, slide, reorderStride, take and
drop records the divisibility or range requirement it needs; the sizes (N,
and M for 2-D programs) are then chosen as random values satisfying all of
them (often not powers of two), within a work budget so that the reference
interpreter stays fast, and within 256 work-items per group.

Usage:  gen.py --seed S [--index I] [--count K] [--avoid P,...]   prints
programs with their `-- run:` line.  run_diff.py imports generate().
        gen.py --high-level --seed S [--index I] [--count K]   prints
high-level programs (no strategy: plain map and reduce) for the rewrite
rules (generate_high_level; tests/rewrite/random_rules.py).

The generator is split by responsibility: gen_types.py (sizes, types,
limits), gen_sizes.py (size requirements and their solution),
gen_scalar.py (scalar expressions), gen_views.py (layout views),
gen_stages.py (bodies, maps, reductions), gen_streams.py (constructs
drawn from streams of their own), gen_depmaps.py (dependent maps, --with
depmaps), gen_depresults.py (mirror and depJoin, --with depmaps),
gen_kernel.py (kernels); class Gen
combines them with the random streams of one program.  gen_derived.py
(run_diff.py --derived) lowers the high-level programs by random walks
of the rewrite rules instead; it leaves this module's programs as they are.
"""
import argparse
import random
import sys

from gen_high import OPTIONAL as HIGH_LEVEL_OPTIONAL, generate_high_level
from gen_depmaps import DepMaps
from gen_depresults import DepResults
from gen_kernel import Kernels
from gen_scalar import ScalarExprs
from gen_sizes import SizeRules
from gen_stages import Stages
from gen_streams import Streams
from gen_types import MAX_ELEMS, GenFail, Program, flat, tstr
from gen_views import Views


# Patterns that once hit bugs, all fixed now (their programs are in
# regress/); --avoid leaves them out, to tell a new bug from an old one
# coming back while hunting.
AVOIDABLE = {
    'own-tmp': 'temporaries read back by the same work-item inside parallel/sequential bodies '
               '(regress/barrier_own_tmp_rejected.dpia)',
    'nested-wg': 'mapWorkgroup nested in another (regress/nested_workgroup_symbolic_local.dpia, '
                 'regress/local_mem_cross_group_check.dpia)',
    'mixed-types': 'inputs of another scalar type than the program\'s (regress/float_input_double_result.dpia)',
    'literal-types': '1.5f literals, conversions of constants (regress/infer_size_as_scalar_typed_literal.dpia, '
                     'regress/conversion_of_literal_compared.dpia)',
    'array-literals': 'leaves read through array literals (docs/language.md section 13)',
    'dropped-args': 'defs whose argument a later view drops (regress/dead_def_argument.dpia)',
    'indices': 'zips with indices n, the positions compared and converted (docs/language.md section 22)',
    'select-sides': 'a reduction as the side of a select, computed only when chosen (docs/language.md section 28)',
    'unzip': 'an array of pairs returned unzipped, two outputs from one map (docs/language.md section 24)',
    'scatter': 'a result written through an input declared a permutation (docs/language.md section 29)',
}


# Generator features that are off unless asked for (--with): they add random
# choices, so the programs of a seed without them stay the same.
OPTIONAL = {
    'vectors': 'vector lanes (v.x, v.s7) and vectors built from their lanes (float4 a b c d), '
               'docs/language.md section 11',
    'depmaps': 'triangle and the dependent maps depMapSeq, depMapGlobal, depMapWorkgroup over its rows, '
               'docs/language.md section 30; results written through mirror (section 29.1, and mirrors refused '
               'with E0505) and depJoin (section 30.2)',
    'shared': 'more of what other work-items read and what the barrier pass places: toLocal and toGlobal '
              'stages, work-group bodies, reductions at the group level, array accumulators in local memory, '
              'small constant rows (unrolled steps), asVector of every width, views nesting maps over '
              'split, join and transpose (the same random draws, other odds: gen.py, Gen.odds)',
}


class Gen(Kernels, DepResults, DepMaps, Stages, Streams, Views, ScalarExprs, SizeRules):
    """The generator of one program: its random streams and what it has
    written so far (inputs, defs, size requirements, features)."""

    def __init__(self, rng, avoid=(), extra=(), lit_rng=None, drop_rng=None, ix_rng=None, scan_rng=None, range_rng=None,
                 select_rng=None, slide_rng=None, unzip_rng=None, scatter_rng=None, dep_rng=None,
                 res_rng=None, clamp_rng=None, upd_rng=None, nest_rng=None, letlit_rng=None,
                 inplace_rng=None, unroll_rng=None, padrow_rng=None):
        self.r = rng
        # array literals (docs/language.md section 13) are decided by a
        # stream of their own, so the programs of a seed are the ones they
        # were before, some of their leaves read through a literal
        self.lit_r = lit_rng
        # so are the stages whose def arguments a view drops (dropping_stage)
        self.drop_r = drop_rng
        # so are the zips with indices n (same_length_partner)
        self.ix_r = ix_rng
        # and the scans that end a body (scan_stage)
        self.scan_r = scan_rng
        # and the reductions over a range read from data (reducer)
        self.range_r = range_rng
        # and the reductions that are the side of a select (select_sides)
        self.select_r = select_rng
        # and the sliding windows that end a body (slide_stage)
        self.slide_r = slide_rng
        # and the results returned unzipped (unzip_result)
        self.unzip_r = unzip_rng
        # and the results written through a permutation (scatter_result)
        self.scatter_r = scatter_rng
        # and the dependent maps of --with depmaps (gen_depmaps.py)
        self.dep_r = dep_rng
        # and the kernels written through mirror or depJoin (gen_depresults.py)
        self.res_r = res_rng
        # and the positions made clamped neighbours by clampIdx (components)
        self.clamp_r = clamp_rng
        # and the kernels that update part of an input in place (updates_stage)
        self.upd_r = upd_rng
        # and the accumulators updated by nested mapLocal levels (nested_acc_stage)
        self.nest_r = nest_rng
        # and the names bound to a number literal used at two types
        # (let_literal_value, slide_stage; docs/language.md section 11)
        self.letlit_r = letlit_rng
        # and the in-place row scans among the updates kernels (row_scan_update)
        self.inplace_r = inplace_rng
        # and the kernels looping over a private array (private_loop_stage)
        self.unroll_r = unroll_rng
        # and the rows padded at both ends: a reduction over padCst's rows
        # (reduce_stage) and rows of a local or private temporary padded
        # before a map reads them (padded_rows_stage)
        self.padrow_r = padrow_rng
        self.expect = 'ok'  # or 'reject E0505': a program the checker must refuse
        self.updates = None  # the input the kernel updates in place
        self.n_cap = None  # a bound on N for the solver (gen_depresults.py)
        self.perms = []  # the inputs declared permutations
        self.avoid = set(avoid)
        self.extra = set(extra)
        self.implicit_symbolic = []  # stages materialised implicitly, of symbolic size
        self.params = []          # (name, text) in declaration order
        self.input_names = ['xs', 'ys', 'zs', 'ws', 'us', 'vs']
        self.ninputs = 0
        self.constraints = set()  # ('div', Size, c) | ('ge', Size, c) | ('le', Size, c)
        self.ceilings = {}  # the ceil atoms of splitPad: name -> (Size n, k)
        self.costs = []
        self.counter = 0
        self.features = set()
        self.nested_grid = []
        self.helper = None  # (name, scalar type) of a def'd scalar function
        self.helper_body = ''  # and its body
        self.local_sizes = {0: [], 1: []}  # trip counts of the mapLocal of each dimension
        self.fill_local = []  # (dim, n): mapLocals that must run once per work-item (the largest of dim)
        self.scalar_idx = []  # (name, Size) of the idx[n] kernel inputs
        self.defs = {}        # name -> text of the defs a program may use
        self.used_defs = []   # the ones it does use, in order
        self.template = None  # (name, arity) of an untyped (template) def
        self.nat_defs = set() # defs with nat parameters: firstN, tile
        self.constant_names = set()  # let/apply names bound to literals alone (_sx)

    # ---- helpers ---------------------------------------------------------

    def chance(self, p):
        return self.r.random() < p

    def odds(self, usual, shared):
        """usual, or with --with shared the value that makes shared stages
        more likely (a probability, weights, a list of options): the same
        draws are made either way, so that a seed's programs without the
        option are the ones they were."""
        return shared if 'shared' in self.extra else usual

    def pick(self, xs, weights=None):
        return self.r.choices(xs, weights=weights)[0] if weights else self.r.choice(xs)

    def fresh(self, base):
        self.counter += 1
        return f'{base}{self.counter}'

    def feat(self, name):
        self.features.add(name)

    def new_input(self, t):
        if self.ninputs < len(self.input_names):
            name = self.input_names[self.ninputs]
        else:
            name = f'in{self.ninputs}'
        self.ninputs += 1
        self.params.append((name, f'({name}: {tstr(t)})'))
        self.need_le(flat(t), MAX_ELEMS)
        return name


def generate(seed, index, avoid=(), extra=()):
    """Program number index of the stream seed: a Program (deterministic)."""
    for retry in range(200):
        rng = random.Random(f'{seed}:{index}:{retry}')
        g = Gen(rng, avoid, extra, random.Random(f'{seed}:{index}:{retry}:literals'),
                random.Random(f'{seed}:{index}:{retry}:drops'), random.Random(f'{seed}:{index}:{retry}:indices'),
                random.Random(f'{seed}:{index}:{retry}:scans'), random.Random(f'{seed}:{index}:{retry}:ranges'),
                random.Random(f'{seed}:{index}:{retry}:selects'), random.Random(f'{seed}:{index}:{retry}:slides'),
                random.Random(f'{seed}:{index}:{retry}:unzips'), random.Random(f'{seed}:{index}:{retry}:scatters'),
                random.Random(f'{seed}:{index}:{retry}:depmaps'), random.Random(f'{seed}:{index}:{retry}:depresults'),
                random.Random(f'{seed}:{index}:{retry}:clamps'), random.Random(f'{seed}:{index}:{retry}:updates'),
                random.Random(f'{seed}:{index}:{retry}:nestaccs'), random.Random(f'{seed}:{index}:{retry}:letlits'),
                random.Random(f'{seed}:{index}:{retry}:rowscans'), random.Random(f'{seed}:{index}:{retry}:unrolls'),
                random.Random(f'{seed}:{index}:{retry}:padrows'))
        try:
            text, nats = g.kernel()
            sizes = g.solve(nats)
        except GenFail:
            continue
        with_ = ''.join(f' --with {x}' for x in sorted(extra))
        header = f'-- generated by tests/diff/gen.py --seed {seed} --index {index}{with_}\n'
        prog = Program(None, 'k', sizes, sorted(g.features), g.expect)
        expect = f'-- expect: {g.expect}\n' if g.expect != 'ok' else ''
        prog.text = header + prog.run_line() + '\n' + expect + text
        return prog
    raise RuntimeError(f'no program for seed {seed} index {index}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--index', type=int, default=0)
    ap.add_argument('--count', type=int, default=1)
    ap.add_argument('--avoid', default='', help='comma-separated patterns to leave out: ' +
                    '; '.join(f'{k}: {v}' for k, v in AVOIDABLE.items()))
    ap.add_argument('--with', dest='extra', action='append', default=[],
                    choices=sorted({**OPTIONAL, **HIGH_LEVEL_OPTIONAL}),
                    help='a feature that is off by default: ' + '; '.join(f'{k}: {v}' for k, v in OPTIONAL.items())
                    + '; with --high-level: ' + '; '.join(f'{k}: {v}' for k, v in HIGH_LEVEL_OPTIONAL.items()))
    ap.add_argument('--high-level', action='store_true',
                    help='high-level programs (plain map, reduce: no strategy) for the rewrite rules')
    a = ap.parse_args()
    wrong = [x for x in a.extra if (x in HIGH_LEVEL_OPTIONAL) != a.high_level]
    if wrong:
        ap.error(f'--with {wrong[0]} is a feature of ' + ('strategy' if a.high_level else '--high-level') + ' programs')
    if a.high_level:
        for i in range(a.index, a.index + a.count):
            sys.stdout.write(generate_high_level(a.seed, i, a.extra) + '\n')
        return
    avoid = [x for x in a.avoid.split(',') if x]
    for i in range(a.index, a.index + a.count):
        p = generate(a.seed, i, avoid, a.extra)
        sys.stdout.write(p.text + '\n')


if __name__ == '__main__':
    main()
