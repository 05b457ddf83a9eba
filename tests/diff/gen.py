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
  (docs/language.md section 22);
- unzip (a stream of its own): a kernel whose one parallel stage makes an
  array of pairs returns it unzipped, two outputs written by the one loop
  (docs/language.md section 24);
- scatter (a stream of its own): a kernel's array written through an
  input declared a permutation, element i to position p[i] (`|> scatter
  p`, docs/language.md section 29; dpia run generates the permutation).

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
"""
import argparse
import math
import random
import re
import sys
from fractions import Fraction

from gen_high import generate_high_level

# --------------------------------------------------------------------------
# Sizes: polynomials over the nat parameters with rational coefficients,
# the canonical form of spec section 3 (so equal sizes compare equal).


class Size:
    __slots__ = ('terms',)

    def __init__(self, terms):
        self.terms = {m: Fraction(c) for m, c in terms.items() if c != 0}

    @staticmethod
    def const(k):
        return Size({(): Fraction(k)})

    @staticmethod
    def var(v):
        return Size({((v, 1),): Fraction(1)})

    @staticmethod
    def ceil(n, k):
        """ceil(n/k), an atom of its own (a variable named as dpia writes
        it, its value computed from n's by with_ceilings)"""
        return Size.var(f'ceil({n.arg()}/{k})')

    def has_ceil(self):
        return any(x.startswith('ceil(') for m in self.terms for x, _ in m)

    def __add__(self, o):
        o = o if isinstance(o, Size) else Size.const(o)
        t = dict(self.terms)
        for m, c in o.terms.items():
            t[m] = t.get(m, 0) + c
        return Size(t)

    def __sub__(self, o):
        o = o if isinstance(o, Size) else Size.const(o)
        return self + Size({m: -c for m, c in o.terms.items()})

    def __mul__(self, o):
        o = o if isinstance(o, Size) else Size.const(o)
        t = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in o.terms.items():
                e = dict(m1)
                for v, k in m2:
                    e[v] = e.get(v, 0) + k
                m = tuple(sorted((v, k) for v, k in e.items() if k != 0))
                t[m] = t.get(m, 0) + c1 * c2
        return Size(t)

    def divc(self, c):
        return Size({m: v / c for m, v in self.terms.items()})

    def is_const(self):
        return all(m == () for m in self.terms)

    def const_value(self):
        assert self.is_const()
        return self.terms.get((), Fraction(0))

    def single_term(self):
        return len(self.terms) == 1 and () not in self.terms

    def key(self):
        return tuple(sorted(self.terms.items()))

    def __eq__(self, o):
        return isinstance(o, Size) and self.key() == o.key()

    def __hash__(self):
        return hash(self.key())

    def value(self, env):
        v = Fraction(0)
        for m, c in self.terms.items():
            p = c
            for x, k in m:
                p *= Fraction(env[x]) ** k
            v += p
        return v

    def compile(self):
        """(f, D): value(env) == f(env) / D with f integer-valued."""
        d = 1
        for c in self.terms.values():
            d = d * c.denominator // math.gcd(d, c.denominator)
        parts = []
        for m, c in self.terms.items():
            k = int(c * d)
            parts.append(str(k) + ''.join(f'*e[{x!r}]**{p}' for x, p in m))
        src = 'lambda e: ' + (' + '.join(parts) if parts else '0')
        return eval(src), d  # noqa: S307 (our own generated arithmetic)

    def __str__(self):
        if not self.terms:
            return '0'
        d = 1
        for c in self.terms.values():
            d = d * c.denominator // math.gcd(d, c.denominator)

        def order(item):
            m, c = item
            return (c < 0, -sum(k for _, k in m), m)
        out = ''
        for i, (m, c) in enumerate(sorted(self.terms.items(), key=order)):
            k = int(c * d)
            vs = []
            for x, p in m:
                vs += [x] * p
            mag = abs(k)
            body = '*'.join(([str(mag)] if mag != 1 or not vs else []) + vs)
            if i == 0:
                out = ('-' if k < 0 else '') + body
            else:
                out += (' - ' if k < 0 else ' + ') + body
        if d != 1:
            out = (f'({out})' if len(self.terms) > 1 else out) + f'/{d}'
        return out

    def arg(self):
        s = str(self)
        return s if re.fullmatch(r'[0-9]+|[A-Za-z_]\w*', s) else f'({s})'


def S(k):
    return Size.const(k)


# --------------------------------------------------------------------------
# Data types: ('num', scalar, width) | ('arr', Size, elem) | ('pair', a, b)
# | ('idx', Size, array, elem): an index into the kernel input `array` (of
# that length, elements elem); the generator reads it only as `idx array j`.


def num(s, w=1):
    return ('num', s, w)


def arr(n, e):
    return ('arr', n, e)


def pair(a, b):
    return ('pair', a, b)


def idx_t(n, array, el):
    return ('idx', n, array, el)


def tstr(t):
    if t[0] == 'idx':
        return f'idx[{t[1]}]'
    if t[0] == 'num':
        return t[1] if t[2] == 1 else f'{t[1]}{t[2]}'
    if t[0] == 'arr':
        return f'[{t[1]}]{tstr(t[2])}'
    return f'({tstr(t[1])}, {tstr(t[2])})'


def has_arrays(t):
    if t[0] in ('num', 'idx'):
        return False
    if t[0] == 'arr':
        return True
    return has_arrays(t[1]) or has_arrays(t[2])


def leaves(t):
    """The numeric leaf types of t (of an index: of what it gathers)."""
    if t[0] == 'num':
        return [t]
    if t[0] == 'idx':
        return leaves(t[3])
    if t[0] == 'arr':
        return leaves(t[2])
    return leaves(t[1]) + leaves(t[2])


def can_make(t, target):
    """A value of numeric type target can be computed from a t (same scalar,
    a leaf of the same width or a scalar leaf to broadcast)."""
    return any(l[1] == target[1] and l[2] in (1, target[2]) for l in leaves(t))


def has_idx(t):
    if t[0] == 'num':
        return False
    if t[0] == 'idx':
        return True
    if t[0] == 'arr':
        return has_idx(t[2])
    return has_idx(t[1]) or has_idx(t[2])


def flat(t):
    if t[0] in ('num', 'idx'):
        return S(1)
    if t[0] == 'arr':
        return t[1] * flat(t[2])
    return flat(t[1]) + flat(t[2])


def pair_with_array(t):
    """t holds a pair with an array component (not a kernel output)."""
    if t[0] in ('num', 'idx'):
        return False
    if t[0] == 'arr':
        return pair_with_array(t[2])
    return has_arrays(t)


def const_sized(t):
    if t[0] in ('num', 'idx'):
        return True
    if t[0] == 'arr':
        return t[1].is_const() and const_sized(t[2])
    return const_sized(t[1]) and const_sized(t[2])


def par(t):
    return t if re.fullmatch(r'[A-Za-z_]\w*|[0-9]+(\.[0-9]+)?', t) else f'({t})'


# --------------------------------------------------------------------------


class Ctx:
    """Where a phrase is generated.

    level: top | global | wg | local | seq (the innermost construct kind)
    in_wg: inside some mapWorkgroup body (toLocal allowed)
    grid: dims of the enclosing mapGlobal/mapWorkgroup
    local: dims of the enclosing mapLocal
    loops: trip counts of the enclosing maps/reductions (work estimate)
    local_loops: trip counts of enclosing mapLocal (local memory widening)
    scalars: numeric phrases in scope [(text, type)]
    arrays: array phrases in scope [(text, type)]
    depth: nesting budget; ind: indentation of a new pipeline line
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def but(self, **kw):
        c = Ctx(**self.__dict__)
        c.__dict__.update(kw)
        return c


class GenFail(Exception):
    pass


class Program:
    def __init__(self, text, kernel, sizes, features):
        self.text = text
        self.kernel = kernel
        self.sizes = sizes
        self.features = features

    def size_args(self):
        out = []
        for k, v in self.sizes.items():
            out += ['--size', f'{k}={v}']
        return out

    def run_line(self):
        return '-- run: -k ' + self.kernel + ''.join(f' --size {k}={v}' for k, v in self.sizes.items())


MAX_LOCAL = 256        # work-items per group
MAX_LOCAL_MEM = 8192   # elements of local memory per group
MAX_PRIVATE = 64       # elements of a private array
MAX_ELEMS = 1 << 16    # elements of one buffer
WORK_BUDGET = 150000   # sum over loops of their total trip counts
NMAX = 6000

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
}


def lane_name(k, width):
    """the spelling of lane k of a vector of width lanes, as dpia prints it"""
    return '.' + 'xyzw'[k] if width <= 4 else '.s' + '0123456789abcdef'[k]


class Gen:
    def __init__(self, rng, avoid=(), extra=(), lit_rng=None, drop_rng=None, ix_rng=None, scan_rng=None, range_rng=None,
                 select_rng=None, slide_rng=None, unzip_rng=None, scatter_rng=None):
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
        self.local_sizes = {0: [], 1: []}  # trip counts of the mapLocal of each dimension
        self.scalar_idx = []  # (name, Size) of the idx[n] kernel inputs
        self.defs = {}        # name -> text of the defs a program may use
        self.used_defs = []   # the ones it does use, in order
        self.template = None  # (name, arity) of an untyped (template) def
        self.nat_defs = set() # defs with nat parameters: firstN, tile

    # ---- helpers ---------------------------------------------------------

    def chance(self, p):
        return self.r.random() < p

    def pick(self, xs, weights=None):
        return self.r.choices(xs, weights=weights)[0] if weights else self.r.choice(xs)

    def fresh(self, base):
        self.counter += 1
        return f'{base}{self.counter}'

    def feat(self, name):
        self.features.add(name)

    def need_div(self, n, c):
        if c == 1:
            return
        if n.is_const():
            if n.const_value() % c != 0:
                raise GenFail(f'{n} not divisible by {c}')
            return
        self.constraints.add(('div', n, c))

    def need_ge(self, n, c):
        if n.is_const():
            if n.const_value() < c:
                raise GenFail(f'{n} < {c}')
            return
        self.constraints.add(('ge', n, c))

    def need_le(self, n, c):
        if n.is_const():
            if n.const_value() > c:
                raise GenFail(f'{n} > {c}')
            return
        self.constraints.add(('le', n, c))

    def mk_arr(self, n, e):
        self.need_ge(n, 1)
        return arr(n, e)

    def cost(self, ctx, n):
        p = n
        for l in ctx.loops:
            p = p * l
        self.costs.append(p)

    def new_input(self, t):
        if self.ninputs < len(self.input_names):
            name = self.input_names[self.ninputs]
        else:
            name = f'in{self.ninputs}'
        self.ninputs += 1
        self.params.append((name, f'({name}: {tstr(t)})'))
        self.need_le(flat(t), MAX_ELEMS)
        return name

    # ---- literals and scalar expressions -----------------------------

    def lit(self, s, scalar_only=True):
        """A literal of scalar type s (integer literals in float contexts
        too; 1.5f only where a scalar float is meant: it does not take a
        vector type, and in a function typed before its argument it fixes
        the argument's type, see regress/infer_broadcast_in_to_private.dpia)."""
        if s == 'int':
            return self.pick(['1', '2', '3', '0', '5'])
        if self.chance(0.08):
            self.feat('int-literal-as-' + s)
            return self.pick(['2', '3', '1'])
        if s == 'float' and scalar_only and 'literal-types' not in self.avoid and self.chance(0.1):
            self.feat('literal-1.5f')
            return '1.5f'
        return self.pick(['0.5', '1.5', '2.0', '0.25', '3.0', '0.75'])

    def scalar_expr(self, vars_, out, depth):
        """An expression of numeric type out from the numeric phrases vars_
        (broadcasting scalars to vectors).  Uses at least one variable when
        one fits."""
        s, w = out[1], out[2]
        conv = {'float': 'toFloat', 'double': 'toDouble', 'int': 'toInt'}[s]
        # other scalar types converted (toFloat x), when nothing else fits
        others = [(f'{conv} {par(t)}', num(s)) for t, ty in vars_
                  if ty[0] == 'num' and ty[1] != s and ty[1] != 'bool' and ty[2] == 1]
        usable = [(t, ty) for t, ty in vars_ if ty[0] == 'num' and ty[1] == s and ty[2] in (1, w)]
        if others and (not usable or self.chance(0.3)):
            usable += others
            self.feat('conversion')
        text, tw, used = self._sx(usable, s, w, depth)
        if not used and usable:
            v, vt = self.pick(usable)
            text, tw = f'{par(text)} + {par(v)}', max(tw, vt[2])
        if tw != w:
            text = f'vec {w} {par(text)}'
        return text

    def _unify(self, parts, w):
        return [t if pw == w or w == 1 else f'vec {w} {par(t)}' for t, pw in parts]

    def literal_leaf(self, text, s, w):
        """A leaf read through an array literal, now and then: a constant
        array indexed by a constant ((x) * idx [0.5, 1.5, 2.0] 2), or a
        literal of computed scalars ([x, 0.5] |> reduceSeq (+)), a private
        array."""
        r = self.lit_r
        if r is None or 'array-literals' in self.avoid or r.random() >= 0.06:
            return text
        consts = ['1', '2', '3', '-1'] if s == 'int' else ['0.5', '1.5', '2.0', '-0.25', '0.75']
        n = r.choice([2, 3, 5])
        elems = [r.choice(consts) for _ in range(n)]
        if w == 1 and r.random() < 0.4:
            self.feat('array-literal-computed')
            zero = '0' if s == 'int' else '0.0'
            return f'([{text}, {elems[0]}] |> reduceSeq (\\e a -> e + a) {zero})'
        if r.random() < 0.3:
            self.feat('array-literal-nested')
            k, j = r.randrange(2), r.randrange(n)
            rows = ', '.join('[' + ', '.join(r.choice(consts) for _ in range(n)) + ']' for _ in range(2))
            return f'{par(text)} * idx (idx [{rows}] {k}) {j}'
        self.feat('array-literal')
        return f'{par(text)} * idx [{", ".join(elems)}] {r.randrange(n)}'

    def _sx(self, usable, s, w, depth):
        if depth <= 0 or self.chance(0.25):
            if usable and self.chance(0.85):
                t, ty = self.pick(usable)
                return self.literal_leaf(t, s, ty[2]), ty[2], True
            return self.lit(s, w == 1), 1, False
        if s == 'int':
            ops = ['add', 'sub', 'mulc', 'modc', 'divc', 'neg', 'sel', 'add', 'sub']
        else:
            ops = ['add', 'sub', 'mul', 'mulc', 'neg', 'fabs', 'sin', 'cos', 'sqrt1', 'rsqrt1', 'log1', 'expn',
                   'min', 'max', 'fma', 'div1', 'divc', 'pow', 'leaky', 'floor', 'conv', 'add', 'mulc']
        op = self.pick(ops)
        if op in ('leaky', 'sel', 'conv') and w != 1:
            op = 'add'
        if self.helper and self.helper[1] == s and self.chance(0.15):
            op = 'helper'
        if self.template and self.chance(0.2):
            op = 'template'
        if depth >= 2 and self.chance(0.12):
            op = self.pick(['let', 'apply'])  # sharing (docs/language.md)
        self.feat('math:' + op)

        def sub(d=depth - 1):
            return self._sx(usable, s, w, d)
        if 'vectors' in self.extra and self.chance(0.3):
            got = self._vector_op(sub, s, w)
            if got:
                return got
        if op in ('add', 'sub', 'mul'):
            (a, wa, ua), (b, wb, ub) = sub(), sub()
            if op == 'sub' and a == b:  # x - x: a zero that a long reduction would underflow
                b, wb = self.lit(s), 1
            sym = {'add': '+', 'sub': '-', 'mul': '*'}[op]
            return f'{par(a)} {sym} {par(b)}', max(wa, wb), ua or ub
        if op == 'template':
            name, arity = self.template
            args = [sub() for _ in range(min(arity, 2))]
            ww = max(w for _, w, _ in args)
            texts = self._unify([(x, wx) for x, wx, _ in args], ww)
            used = any(u for _, _, u in args)
            self.use_def(name)
            self.feat('def-template' + ('-vector' if ww > 1 else ''))

            def call(xs, lit_s):
                extra = [] if arity < 3 else ['1' if lit_s == 'int' else '0.25']
                return f'{name} ' + ' '.join(par(x) for x in xs + extra)
            text = call(texts, s)
            if ww == 1 and self.chance(0.7):
                # the same def at a second type, converted back
                if s == 'int':
                    other = self.pick(['float', 'double'])
                    to = {'float': 'toFloat', 'double': 'toDouble'}[other]
                    text = f'{par(text)} + toInt ({call([f"{to} {par(x)}" for x in texts], other)})'
                else:
                    back = 'toDouble' if s == 'double' else 'toFloat'
                    ints = [f'toInt ({par(x)} * 4.0)' for x in texts]
                    text = f'{par(text)} + {back} ({call(ints, "int")}) * 0.25'
                self.feat('def-template-two-types')
            return text, ww, used
        if op in ('let', 'apply'):
            # a value used two or three times: a let, or a lambda the
            # program applies itself, both computed once (sharing)
            a, wa, ua = sub()
            name = self.fresh('t')
            inner = usable + [(name, num(s, wa))]
            b, wb, ub = self._sx(inner, s, w, depth - 1)
            ww = max(wa, wb)
            body = f'{name} * {par(b)} + {name}'
            if self.chance(0.4):
                body = f'{body} - {name} * {"2" if s == "int" else "0.5"}'
            self.feat('share-' + op)
            if op == 'let':
                return f'(let {name} = {a} in {body})', ww, ua or ub
            return f'({par(a)} |> (\\{name} -> {body}))', ww, ua or ub
        if op == 'helper':
            a, wa, ua = sub()
            if wa != 1:
                return f'{par(a)} * {"2" if s == "int" else "0.5"}', wa, ua
            return f'{self.helper[0]} {par(a)}', 1, ua
        if op == 'mulc':
            a, wa, ua = sub()
            c = self.pick(['2', '3', '-2']) if s == 'int' else self.pick(['0.5', '1.5', '-0.75', '2.0'])
            return f'{par(a)} * {par(c)}', wa, ua
        if op == 'modc':
            a, wa, ua = sub()
            return f'{par(a)} % {self.pick(["3", "7", "16"])}', wa, ua
        if op == 'divc':
            a, wa, ua = sub()
            c = self.pick(['2', '3', '4']) if s == 'int' else self.pick(['2.0', '4.0', '3.0'])
            return f'{par(a)} / {c}', wa, ua
        if op == 'neg':
            a, wa, ua = sub()
            return f'-{par(a)}', wa, ua
        if op == 'sel':
            (a, _, ua), (b, _, ub) = sub(), sub()
            if a == b:  # x > x: libclang warns (see regress/tautological_int_compare.dpia)
                b, ub = self.lit(s), False
            return f'select ({par(a)} > {par(b)}) {par(a)} {par(b)}', 1, ua or ub
        if op == 'floor':
            # floor is not continuous: a value the device computes in float
            # and the reference in double may fall on either side of an
            # integer (seed 31 #892): a jump of 1 is damped to a change below
            # the comparison's bound (the translation of floor itself, a
            # call by name, is covered by the golden and structure tests)
            a, wa, ua = sub()
            return f'floor {par(a)} * 0.001 + {par(a)}', wa, ua
        if op == 'fabs':
            a, wa, ua = sub()
            return f'{op} {par(a)}', wa, ua
        if op in ('sin', 'cos'):
            # of an argument below 1: cos of a large value (cos (fma x x x)
            # after two squarings) is ill-conditioned, so float and double
            # disagree beyond any bound (seed 42 #643)
            a, wa, ua = sub()
            return f'{op} ({par(a)} / (1.0 + fabs {par(a)}))', wa, ua
        if op == 'sqrt1':
            a, wa, ua = sub()
            return f'sqrt (1.0 + fabs {par(a)})', wa, ua
        if op == 'rsqrt1':
            a, wa, ua = sub()
            return f'rsqrt (1.0 + fabs {par(a)})', wa, ua
        if op == 'log1':
            a, wa, ua = sub()
            return f'log (1.0 + fabs {par(a)})', wa, ua
        if op == 'expn':
            a, wa, ua = sub()
            return f'exp (-(fabs {par(a)}))', wa, ua
        if op in ('min', 'max'):
            (a, wa, ua), (b, wb, ub) = sub(), sub()
            ww = max(wa, wb)
            a, b = self._unify([(a, wa), (b, wb)], ww)
            return f'{op} {par(a)} {par(b)}', ww, ua or ub
        if op == 'fma':
            (a, wa, ua), (b, wb, ub), (c, wc, uc) = sub(), sub(), sub()
            ww = max(wa, wb, wc)
            a, b, c = self._unify([(a, wa), (b, wb), (c, wc)], ww)
            return f'fma {par(a)} {par(b)} {par(c)}', ww, ua or ub or uc
        if op == 'div1':
            (a, wa, ua), (b, wb, ub) = sub(), sub()
            return f'{par(a)} / (1.0 + fabs {par(b)})', max(wa, wb), ua or ub
        if op == 'pow':
            a, wa, ua = sub()
            e = self.pick(['2.0', '0.5', '1.5'])
            if wa != 1:
                e = f'(vec {wa} {e})'
            return f'pow (1.0 + fabs {par(a)}) {e}', wa, ua
        if op == 'leaky':
            a, _, ua = sub()
            return f'select ({par(a)} > 0.0) {par(a)} ({par(a)} * 0.25)', 1, ua
        if op == 'conv':
            a, _, ua = sub()
            if not ua and 'literal-types' in self.avoid:
                return a, 1, ua
            back = 'toDouble' if s == 'double' else 'toFloat'
            # plus a: toInt alone is 0 on most small values, and a long
            # reduction of zeros underflows in float (a false mismatch)
            # (and damped as floor is: toInt flips as floor does, seed 31 #598)
            return f'{back} (toInt ({par(a)} * 4.0)) * 0.001 + {par(a)}', 1, ua
        raise AssertionError(op)

    def _vector_op(self, sub, s, w):
        """With --with vectors: a vector of the width w built from its lanes
        (each a scalar, or a lane of a vector), or a lane of a vector
        sub-expression; None when the sub-expression drawn is a scalar."""
        if w in (2, 3, 4, 8) and self.chance(0.5):
            lanes, used = [], False
            for _ in range(w):
                a, wa, ua = sub()
                if wa > 1:
                    a = par(a) + lane_name(self.r.randrange(wa), wa)
                lanes.append(par(a))
                used = used or ua
            self.feat(f'vector-build{w}')
            return f'{s}{w} ' + ' '.join(lanes), w, used
        a, wa, ua = sub()
        if wa == 1:
            return None
        self.feat('vector-lane')
        return par(a) + lane_name(self.r.randrange(wa), wa), 1, ua

    # ---- phrase components -------------------------------------------

    def components(self, e, t):
        if t[0] == 'idx' and t[-1] == 'position':
            # an element of indices n (docs/language.md section 22): the
            # element of the input at that position, and the position as a
            # value, compared with a constant and with the last index
            s = t[3][1]
            conv = {'float': 'toFloat', 'double': 'toDouble', 'int': 'toInt'}[s]
            k = self.ix_r.choice([1, 2, 3])
            value = (f'select ({par(e)} < {k} || {par(e)} == {t[1].arg()} - 1) '
                     f'({conv} ({par(e)} % 5)) {"0" if s == "int" else "0.0"}')
            self.feat('indices-compare')
            return self.components(f'idx {t[2]} {par(e)}', t[3]) + [(value, num(s))]
        if t[0] == 'idx':  # a gather
            self.feat('gather-' + ('row' if t[3][0] == 'arr' else 'scalar'))
            return self.components(f'idx {t[2]} {par(e)}', t[3])
        if t[0] == 'pair':
            return self.components(f'fst {par(e)}', t[1]) + self.components(f'snd {par(e)}', t[2])
        return [(e, t)]

    # ---- values of a given numeric (or pair of numeric) type -----------

    def choose_out(self, nums, ctx):
        """An output type for a scalar body over the phrases nums."""
        if nums:
            t = self.pick([ty for _, ty in nums])
        else:
            t = num(ctx.stype)
        if self.chance(0.08):
            self.feat('pair-result')
            t2 = self.pick([ty for _, ty in nums]) if nums else t
            return pair(t, t2)
        return t

    def value_of(self, vars_, out, ctx):
        if out[0] == 'pair':
            a = self.value_of(vars_, out[1], ctx)
            b = self.value_of(vars_, out[2], ctx)
            return f'({a}, {b})'
        if self.chance(0.06):
            # let (substitution): the bound expression used twice
            t = self.fresh('t')
            bound = self.scalar_expr(vars_, out, 2)
            use = self.scalar_expr([(t, out)], out, 2)
            self.feat('let')
            return f'let {t} = {bound} in {use} + {t}'
        return self.scalar_expr(vars_, out, self.pick([1, 2, 2, 3]))

    def body(self, e, t, ctx, target=None):
        """The body of a function from e : t, of type target when given
        (a numeric type or a pair of equal numeric types).  Returns
        (text, type)."""
        comps = self.components(e, t)
        arrs = [c for c in comps if c[1][0] == 'arr']
        nums = [c for c in comps if c[1][0] == 'num']
        for col, n in self.scalar_idx:  # an element chosen by an idx[n] input
            for a, at in arrs:
                if at[1] == n and at[2][0] == 'num' and self.chance(0.6):
                    nums.append((f'idx {par(a)} {col}', at[2]))
                    self.feat('gather-scalar-idx-of-array')
        ctx = ctx.but(scalars=ctx.scalars + nums, arrays=ctx.arrays + arrs)
        if target is not None:
            leaf = target if target[0] == 'num' else target[1]
            arrs = [c for c in arrs if can_make(c[1], leaf)]
        if arrs and (not nums or self.chance(0.85)):
            main, mt = self.pick(arrs)
            text, u = self.pipeline(main, mt, ctx.but(depth=ctx.depth - 1), target)
            if u[0] == 'num' and nums and self.chance(0.4):
                extra = [c for c in ctx.scalars if c[1][1] == u[1] and c[1][2] in (1, u[2])]
                if extra:
                    v, vt = self.pick(extra)
                    self.feat('combine-outer-scalar')
                    if vt[2] != u[2]:
                        v = f'vec {u[2]} {par(v)}'
                    text = f'{par(text)} * {"2" if u[1] == "int" else "0.5"} + {par(v)}'
            return text, u
        vars_ = ctx.scalars
        out = target if target is not None else self.choose_out(nums or vars_, ctx)
        text = self.value_of(vars_, out, ctx)
        # the body reads its argument (an unused parameter is no test)
        if nums and not any(re.search(r'\b' + re.escape(v.split()[-1]) + r'\b', text) for v, _ in nums):
            leaf = out if out[0] == 'num' else out[1]
            fit = [(v, vt) for v, vt in nums if vt[1] == leaf[1] and vt[2] in (1, leaf[2])]
            if fit:
                v, vt = self.pick(fit)
                v = v if vt[2] == leaf[2] else f'vec {leaf[2]} {par(v)}'
                text = f'{par(text)} + {par(v)}' if out[0] == 'num' else f'({par(v)}, {text})'
                if out[0] == 'pair':
                    out = pair(leaf, out)
        return text, out

    # ---- array pipelines ---------------------------------------------

    def nl(self, ctx):
        return '\n' + ctx.ind

    def views(self, e, t, ctx, count, target=None, acceptor_only=False):
        for _ in range(count):
            e, t = self.view(e, t, ctx, target, acceptor_only)
        return e, t

    def view(self, e, t, ctx, target=None, acceptor_only=False):
        """One random layout view applied to e : t (an array)."""
        assert t[0] == 'arr'
        el = t[2]
        opts = ['split', 'reorder', 'take', 'drop', 'pad', 'slide', 'vec', 'split', 'splitpad']
        if el[0] == 'arr':
            opts += ['join', 'join', 'transpose']
        if el[0] == 'num' and el[2] > 1:
            opts += ['scalar', 'scalar']
        if el[0] in ('arr', 'pair'):
            opts += ['mapview', 'mapview']
        if acceptor_only:
            opts = [o for o in opts if o in ('split', 'join', 'transpose', 'vec', 'scalar', 'take', 'drop')]
            if el[0] == 'num':
                opts.append('padcst')  # written through: borders and interior
        for _ in range(6):
            o = self.pick(opts)
            try:
                res = self.try_view(o, e, t, ctx, target)
            except GenFail:
                res = None
            if res is not None:
                if target is not None and not can_make(res[1], target):
                    continue
                self.feat('view:' + o)
                return res
        return e, t

    def chunk(self, n, choices=(2, 3, 4, 5, 8, 16, 32)):
        if n.is_const():
            v = int(n.const_value())
            ds = [c for c in choices if v % c == 0 and c <= v]
            if not ds:
                ds = [d for d in range(2, v + 1) if v % d == 0]
            if not ds:
                raise GenFail('no divisor')
            return self.pick(ds)
        return self.pick(choices, [3, 1, 4, 1, 3, 2, 1][:len(choices)] if len(choices) == 7 else None)

    def try_view(self, o, e, t, ctx, target):
        n, el = t[1], t[2]
        nl = self.nl(ctx)
        if o == 'split':
            if n.single_term() and self.chance(0.2):
                c = self.pick([2, 4, 8, 16])
                k = n.divc(c)
                self.need_div(n, c)
                self.feat('split-symbolic')
                return f'{e}{nl}|> split {k.arg()}', arr(S(c), self.mk_arr(k, el))
            c = self.chunk(n)
            self.need_div(n, c)
            if 'tile' in self.nat_defs and el == num(ctx.stype) and self.chance(0.5):
                self.use_def('tile')
                self.feat('def-nat-tile')
                return f'{e}{nl}|> tile {c}', self.mk_arr(n.divc(c), arr(S(c), el))
            return f'{e}{nl}|> split {c}', self.mk_arr(n.divc(c), arr(S(c), el))
        if o == 'splitpad':
            # splitPad k c: rows of k for any n, the last one filled up with
            # c (docs/reference.md, "Sizes that do not divide"); n is then
            # chosen without k dividing it
            if el[0] != 'num' or el[1] == 'bool' or n.has_ceil() or n.is_const() \
                    or any(c.denominator != 1 for c in n.terms.values()) or not self.chance(0.5):
                return None
            k = self.pick([2, 3, 4, 8, 16, 64], [3, 2, 3, 2, 1, 1])
            v = self.lit(el[1])
            if el[2] != 1:
                v = f'(vec {el[2]} {v})'
            elif re.fullmatch(r'[0-9]+', v):
                v = f'({v} : {el[1]})'  # a bare integer would be splitPad's size n
            c = Size.ceil(n, k)
            self.ceilings[str(c)] = (n, k)
            self.need_ge(n, 1)
            self.feat('splitPad')
            return f'{e}{nl}|> splitPad {k} {v}', self.mk_arr(c, arr(S(k), el))
        if o == 'mapview':
            return self.view_map(e, t, ctx)
        if o == 'join':
            return f'{e}{nl}|> join', self.mk_arr(n * el[1], el[2])
        if o == 'transpose':
            return f'{e}{nl}|> transpose', arr(el[1], arr(n, el[2]))
        if o == 'vec':
            if el[0] != 'num' or el[2] != 1 or el[1] == 'bool':
                return None
            k = self.pick([2, 4, 8, 4, 2, 16, 3], [4, 4, 3, 0, 0, 1, 1])
            self.need_div(n, k)
            self.feat(f'asVector{k}')
            return f'{e}{nl}|> asVector {k}', self.mk_arr(n.divc(k), num(el[1], k))
        if o == 'scalar':
            return f'{e}{nl}|> asScalar', self.mk_arr(n * el[2], num(el[1], 1))
        if o == 'reorder':
            s = self.pick([2, 3, 4])
            self.need_div(n, s)
            return f'{e}{nl}|> reorderStride {s}', t
        if o == 'take':
            if n.single_term() and self.chance(0.3):
                k = n.divc(2)
                self.need_div(n, 2)
            else:
                k = S(self.pick([1, 2, 3, 4]))
            self.need_ge(n - k, 1)
            return f'{e}{nl}|> take {k.arg()}', self.mk_arr(k, el)
        if o == 'drop':
            k = S(self.pick([1, 2, 3]))
            self.need_ge(n - k, 1)
            return f'{e}{nl}|> drop {k.arg()}', self.mk_arr(n - k, el)
        if o in ('pad', 'padcst'):
            l, r = self.pick([(1, 1), (0, 2), (2, 1), (1, 0), (3, 3)])
            self.need_ge(n, 1)
            if el[0] == 'num' and (o == 'padcst' or self.chance(0.4)):
                v = self.lit(el[1])
                if el[2] != 1:
                    v = f'(vec {el[2]} {v})'
                self.feat('padCst')
                return f'{e}{nl}|> padCst {l} {r} {v}', self.mk_arr(n + (l + r), el)
            self.feat('padClamp')
            return f'{e}{nl}|> padClamp {l} {r}', self.mk_arr(n + (l + r), el)
        if o == 'slide':
            s, st = self.pick([(3, 1), (2, 1), (4, 2), (5, 1), (2, 2), (4, 4), (3, 2)])
            self.need_ge(n - s, 0)
            m = (n - s).divc(st) + 1
            if st != 1:
                self.need_div(n - s, st)
            return f'{e}{nl}|> slide {s} {st}', self.mk_arr(m, arr(S(s), el))
        raise AssertionError(o)

    def view_map(self, e, t, ctx):
        """A plain map of a view function over the elements of e : t (a
        view itself, docs/language.md section 9): a projection of pairs, a
        view primitive without its array (map transpose, map (split 2)),
        or a lambda applying one or two views to its parameter."""
        n, el = t[1], t[2]
        nl = self.nl(ctx)
        if el[0] == 'pair':
            k = self.pick(['fst', 'snd'])
            self.feat('view-map-' + k)
            return f'{e}{nl}|> map {k}', self.mk_arr(n, el[1] if k == 'fst' else el[2])
        inner = ctx.but(ind=ctx.ind + '    ')
        x = self.fresh('r')
        if self.chance(0.4):
            o = self.pick(['split', 'take', 'drop', 'pad', 'slide'] +
                          (['transpose', 'join'] if el[2][0] == 'arr' else []))
            res = self.try_view(o, x, el, inner, None)
            if res is None or o == 'pad' and 'padCst' in res[0]:
                raise GenFail('no view primitive form')
            body, bt = res
            prim = body[len(x):].split('|> ', 1)[1]
            if prim.startswith('tile '):
                raise GenFail('a def is no view primitive')
            self.feat('view-map-prim')
            return f'{e}{nl}|> map ({prim})', self.mk_arr(n, bt)
        body, bt = self.views(x, el, inner, self.pick([1, 1, 2]))
        if body == x:
            raise GenFail('no view of the element')
        self.feat('view-map-lambda')
        return f'{e}{nl}|> map (\\{x} -> {body})', self.mk_arr(n, bt)

    def same_length_partner(self, e, t, ctx, target=None):
        """Another array of the same length as e : t, for a zip."""
        n = t[1]
        if self.ix_r is not None and 'indices' not in self.avoid and self.ix_r.random() < 0.1:
            # the positions of e's elements (docs/language.md section 22),
            # each read as the element of a fresh input there (a gather at
            # the position: what a zip with the input reads) and as a value
            data = self.new_input(arr(n, num(ctx.stype)))
            self.feat('zip-indices')
            return f'(indices {n.arg()})', arr(n, idx_t(n, data, num(ctx.stype)) + ('position',))
        kinds = ['derived', 'derived', 'input', 'outer']
        k = self.pick(kinds)
        if k == 'outer':
            cands = [(a, at) for a, at in ctx.arrays if at[1] == n and a != e]
            if cands:
                self.feat('zip-outer')
                return self.pick(cands)
            k = 'input'
        if k == 'input' or ctx.depth <= 0:
            el = self.pick([num(ctx.stype), num(ctx.stype), t[2] if not has_arrays(t[2]) else num(ctx.stype)])
            if self.chance(0.2) and ctx.vectors:
                el = num(ctx.stype, self.pick([2, 4]))
            elif self.chance(0.15) and 'mixed-types' not in self.avoid:
                # an input of another scalar type, read through toFloat/toInt/toDouble
                el = num(self.pick([x for x in ('float', 'double', 'int') if x != ctx.stype]))
                self.feat('mixed-types')
            name = self.new_input(arr(n, el))
            self.feat('zip-input')
            return name, arr(n, el)
        # derived from e itself: a length-preserving chain
        self.feat('zip-derived')
        inner = ctx.but(ind=ctx.ind + '  ')
        d, dt = e, t
        how = self.pick(['reorder', 'map', 'map', 'pad', 'splitjoin'])
        if how == 'map' and 'own-tmp' in self.avoid and ctx.level not in ('wg', 'top'):
            how = 'reorder'
        nl = self.nl(inner)
        if how == 'reorder':
            s = self.pick([2, 4])
            self.need_div(n, s)
            d = f'{e}{nl}|> reorderStride {s}'
        elif how == 'pad':
            d = f'{e}{nl}|> padClamp 1 2{nl}|> drop 2{nl}|> take {n.arg()}'
            self.need_ge(n, 1)
        elif how == 'splitjoin':
            c = self.chunk(n, (2, 4, 8))
            self.need_div(n, c)
            d = f'{e}{nl}|> split {c}{nl}|> join'
        else:
            d, dt = self.map_stage(e, t, inner, final=False)
        return f'({d})', dt

    def map_kinds(self, ctx, final):
        """The map primitives allowed at ctx, with weights."""
        out = []
        if ctx.level == 'top':
            return [('mapGlobal', 1)]
        free_grid = [d for d in (0, 1) if d not in ctx.grid]
        free_local = [d for d in (0, 1) if d not in ctx.local]
        if ctx.level == 'global':
            out.append(('mapSeq', 6))
            if final and free_grid and ctx.grid_ok:
                out.append(('mapGlobal', 3))
        elif ctx.level == 'wg':
            if free_local:
                out.append(('mapLocal', 10))
            if final and free_grid and ctx.grid_ok and 'nested-wg' not in self.avoid:
                out.append(('mapWorkgroup', 3))
            out.append(('mapSeq', 1))
        elif ctx.level == 'local':
            out.append(('mapSeq', 6))
            # a mapLocal of another dimension inside a mapLocal: only as the
            # final stage (its result goes to the enclosing one's output),
            # since a barrier inside the enclosing loop is not possible when
            # not all work-items run it (spec section 5, last rule)
            if free_local and final:
                out.append(('mapLocal', 2))
        else:
            out.append(('mapSeq', 1))
        return out

    def map_stage(self, e, t, ctx, final, target=None):
        """e |> mapX f, materialised (toPrivate/toLocal/toGlobal or the
        implicit global temporary) unless final."""
        n, el = t[1], t[2]
        kinds = self.map_kinds(ctx, final)
        names = [k for k, _ in kinds]
        kind = self.pick(names, [w for _, w in kinds])
        free_grid = [d for d in (0, 1) if d not in ctx.grid]
        free_local = [d for d in (0, 1) if d not in ctx.local]
        dim = None
        if kind in ('mapGlobal', 'mapWorkgroup'):
            dim = self.pick(free_grid)
        elif kind == 'mapLocal':
            dim = self.pick(free_local, [3, 1] if len(free_local) == 2 else None)
        if dim is None or (dim == 0 and self.chance(0.6)):
            prim = kind
        else:
            prim = f'{kind}{dim}'
        self.feat(kind + (str(dim) if dim else ''))
        if kind in ('mapGlobal', 'mapWorkgroup'):
            self.nested_grid.append(n)
        self.cost(ctx, n)
        v = self.fresh(self.var_base(el))
        inner = self.inner_ctx(ctx, kind, dim, n)
        if kind == 'mapLocal':
            self.need_le(self.local_product(ctx, n), MAX_LOCAL)
            self.local_sizes[dim].append(n)
        btarget = None
        if target is not None:
            btarget = target if target[0] == 'num' else target[1]
        # materialisation of an intermediate stage
        mem = ''
        if not final and kind in ('mapSeq', 'mapLocal'):
            mems = [('toGlobal', 2), ('', 2)]
            if ctx.in_wg:
                mems.append(('toLocal', 4 if kind == 'mapLocal' else 2))
            if kind == 'mapSeq' and ctx.level != 'wg':
                mems.append(('toPrivate', 4))
            if 'own-tmp' in self.avoid and ctx.level != 'wg':
                mems = [('toPrivate', 1)] + ([('toLocal', 1)] if ctx.in_wg else [])
            mem = self.pick([m for m, _ in mems], [w for _, w in mems])
        if (self.template and self.template[1] == 1 and kind == 'mapSeq' and el[0] == 'num'
                and el[1] != 'bool' and btarget in (None, el) and self.chance(0.5)):
            # the template def as a function argument: mapSeq twice
            self.use_def(self.template[0])
            self.feat('def-template-as-argument')
            b, u = None, el
            lam = self.template[0]
        else:
            b, u = self.body(v, el, inner, btarget)
            lam = self.lam(v, b, ctx)
        self.last_kind = kind
        res_t = arr(n, u)
        if final:
            # a view with no acceptor form after it (take, slide, ...)
            # materialises it implicitly, in private memory under a
            # toPrivate, which needs a constant size (seed 71 #388)
            if not const_sized(res_t):
                self.implicit_symbolic.append(f'{prim} {lam}')
            return f'{e}{self.nl(ctx)}|> {prim} {lam}', res_t
        # toPrivate f x makes every implicit temporary in f and x private
        # (spec section 6: newGlobal unless inside toLocal/toPrivate), and
        # a private array needs a constant size (seed 11, index 321 had one of [N + 4])
        if mem == 'toPrivate' and (not const_sized(res_t)
                                   or any(t in e or t in lam for t in self.implicit_symbolic)):
            mem = 'toLocal' if ctx.in_wg else 'toGlobal'
        if not mem and not const_sized(res_t):
            self.implicit_symbolic.append(f'{prim} {lam}')
        self.last_mem = mem
        self.feat('mem:' + (mem or 'implicit') + ':' + kind)
        if mem == 'toPrivate':
            self.need_le(flat(res_t), MAX_PRIVATE)
        if mem == 'toLocal':
            self.need_le(self.local_product(ctx, flat(res_t)), MAX_LOCAL_MEM)
        if mem:
            return f'{e}{self.nl(ctx)}|> {mem} ({prim} {lam})', res_t
        return f'{e}{self.nl(ctx)}|> {prim} {lam}', res_t

    def dropping_stage(self, e, t, ctx):
        """e |> toPrivate (\\c -> c |> mapSeq (\\x -> twice a) |> V), with a
        an expression of x (not x itself: the def's argument is bound to a
        variable, docs/language.md section 4) and V a view that drops some
        of the elements: take, drop, slide with a step beyond its window
        (then join), padCst over an empty array, or map fst/snd of pairs
        whose other component is twice a.  The steps of the mapSeq are
        unrolled, and the bindings of the dropped elements are read by
        nothing (issue 41: -Wunused-variable failed the re-parse).  Drawn
        from a stream of its own; None where it does not fit (a symbolic
        length, no private array, not a scalar)."""
        r = self.drop_r
        n, el = t[1], t[2]
        if (r is None or 'dropped-args' in self.avoid or ctx.level not in ('global', 'local', 'seq')
                or el[0] != 'num' or el[2] != 1 or el[1] == 'bool' or not n.is_const()
                or any(x in e for x in self.implicit_symbolic) or r.random() >= 0.4):
            return None
        v, s = int(n.const_value()), el[1]
        if not 2 <= v <= MAX_PRIVATE:
            return None
        slides = [(w, st) for w in (1, 2) for st in range(w + 1, v) if (v - w) % st == 0]
        how = r.choice(['take', 'drop', 'padcst', 'pair'] + (['slide'] if slides else []))
        c, x = self.fresh('c'), self.fresh('x')
        a = self.scalar_expr([(x, el)], el, r.choice([1, 2]))
        if a == x:
            a = f'{x} / 3' if s == 'int' else f'{x} / 3.0'
        self.defs['twice'] = 'def twice x = x + x'
        self.use_def('twice')
        value = f'twice ({a})'
        if how == 'take':
            k = r.randrange(1, v)
            view, m = f'take {k}', k
        elif how == 'drop':
            k = r.randrange(1, v)
            view, m = f'drop {k}', v - k
        elif how == 'slide':
            w, st = r.choice(slides)
            view, m = f'slide {w} {st} |> join', ((v - w) // st + 1) * w
        elif how == 'padcst':
            lo, hi = r.choice([(1, 1), (0, 2), (2, 1)])
            view = f'{r.choice(["take 0", f"drop {v}"])} |> padCst {lo} {hi} {self.lit(s)}'
            m = lo + hi
        else:
            k = r.choice(['fst', 'snd'])
            other = self.scalar_expr([(x, el)], el, 1)
            value = f'({value}, {other})' if k == 'snd' else f'({other}, {value})'
            view, m = f'map {k}', v
        self.cost(ctx, n)
        self.feat('dropped-arg:' + how)
        self.last_kind, self.last_mem = 'mapSeq', 'toPrivate'
        return (f'{e}{self.nl(ctx)}|> toPrivate (\\{c} -> {c} |> mapSeq (\\{x} -> {value}) |> {view})',
                arr(S(m), el))

    def iterate_stage(self, e, t, ctx):
        """e |> iterate K (a tree reduction step halving a constant array
        of scalars in local memory, docs/language.md section 15), or None
        where it does not fit."""
        n, el = t[1], t[2]
        if el[0] != 'num' or el[2] != 1 or el[1] == 'bool' or not n.is_const() or ctx.local:
            return None
        v = int(n.const_value())
        ks = [k for k in (1, 2, 3) if v % (2 ** k) == 0]
        if not ks:
            return None
        k = self.pick(ks)
        self.need_le(self.local_product(ctx, n), MAX_LOCAL_MEM)
        for j in range(1, k + 1):
            self.need_le(self.local_product(ctx, S(v // 2 ** j)), MAX_LOCAL)
            self.local_sizes[0].append(S(v // 2 ** j))
        ys, x, a = self.fresh('ys'), self.fresh('x'), self.fresh('a')
        init = self.lit(el[1])
        self.feat('iterate')
        step = f'{ys} |> split 2 |> toLocal (mapLocal (reduceSeq (\\{x} {a} -> {x} + {a}) {init}))'
        return f'{e}{self.nl(ctx)}|> iterate {k} (\\{ys} -> {step})', arr(S(v // 2 ** k), el)

    def local_product(self, ctx, n):
        p = n
        for l in ctx.local_loops:
            p = p * l
        return p

    def var_base(self, t):
        if t[0] == 'idx':
            return 'j'
        if t[0] == 'num':
            return 'x' if t[2] == 1 else 'v'
        if t[0] == 'pair':
            return 'p'
        return 'c' if t[2][0] != 'arr' else 'b'

    def lam(self, v, body, ctx):
        if '\n' in body:
            return f'(\\{v} ->{self.nl(ctx)}    {body})'
        return f'(\\{v} -> {body})'

    def inner_ctx(self, ctx, kind, dim, n):
        ind = ctx.ind + '      '
        loops = ctx.loops + (n,)
        if kind == 'mapGlobal':
            return ctx.but(level='global', grid=ctx.grid | {dim}, loops=loops, ind=ind)
        if kind == 'mapWorkgroup':
            return ctx.but(level='wg', in_wg=True, grid=ctx.grid | {dim}, loops=loops, ind=ind)
        if kind == 'mapLocal':
            return ctx.but(level='local', local=ctx.local | {dim}, loops=loops,
                           local_loops=ctx.local_loops + (n,), ind=ind, grid_ok=False)
        return ctx.but(level='seq', loops=loops, ind=ind, grid_ok=False)

    def reduce_stage(self, e, t, ctx, target=None):
        n, el = t[1], t[2]
        self.cost(ctx, n)
        if (target is None and el[0] == 'arr' and el[1].is_const() and el[1].const_value() <= 16
                and el[2][0] == 'num' and self.chance(0.5)):
            return self.reduce_array_acc(e, t, ctx)
        if target is None and el[0] == 'num' and el[1] != 'bool' and self.chance(0.12):
            # rows of a split, reduced into an array accumulator
            c = self.chunk(n, (2, 4, 8, 16)) if n.is_const() else self.pick([2, 4, 8, 16])
            self.need_div(n, c)
            e, t = f'{e}{self.nl(ctx)}|> split {c}', self.mk_arr(n.divc(c), arr(S(c), el))
            return self.reduce_array_acc(e, t, ctx)
        if target is None:
            lv = [l for l in leaves(el) if l[1] != 'bool']
            leaf = self.pick(lv)
            target = pair(leaf, leaf) if self.chance(0.15) else leaf
        leaf = target if target[0] == 'num' else target[1]
        y = self.fresh(self.var_base(el))
        a = self.fresh('a')
        inner = ctx.but(level='seq', loops=ctx.loops + (n,), ind=ctx.ind + '      ', grid_ok=False)
        self.feat('reduceSeq' + ('-pair' if target[0] == 'pair' else '') + ('-vec' if leaf[2] > 1 else ''))

        def comb(acc, val, ty):
            if ty[1] == 'int':
                f = self.pick(['({a} * 3 + {v}) % 1009', '({v} - {a} * 2) % 1009'])
            else:
                f = self.pick(['{a} * 0.5 + {v}', '{v} - {a} * 0.5', 'fma {a} 0.5 {v}', '{a} * 0.75 + {v} * 0.25'])
            return f.format(a=par(acc), v=par(val))

        compound = None
        if target[0] == 'pair' and self.chance(0.4):
            compound = 'pair'
        elif target[0] == 'num' and self.chance(0.12):
            compound = self.pick(['pair', 'nested'])
        if compound:
            # a compound accumulator whose new components read each other
            # (the step must not update it component by component)
            v1, _ = self.body(y, el, inner, leaf)
            v2, _ = self.body(y, el, inner, leaf)
            v1, v2 = par(v1), par(v2)
            F, Sn = f'fst {a}', f'snd {a}'
            if compound == 'nested':
                F, Sn, R = f'fst (fst {a})', f'snd (fst {a})', Sn
            ii = leaf[1] == 'int'
            if compound == 'pair':
                bod = self.pick([
                    f'({Sn} + {v1}, {F})' if not ii else f'(({Sn} + {v1}) % 1009, {F})',
                    f'(({Sn} * 3 + {v1}) % 1009, ({F} * 2 - {Sn} + {v2}) % 1009)' if ii else
                    f'({Sn} * 0.5 + {v1}, {F} * 0.5 - {Sn} * 0.25 + {v2})',
                    f'(({F} + {Sn} * 2 + {v1}) % 1009, ({F} - {v2}) % 1009)' if ii else
                    f'({F} * 0.5 + {Sn} * 0.25 + {v1}, {F} * 0.25 - {Sn} * 0.5 + {v2})'])
                init = f'({self.lit(leaf[1], leaf[2] == 1)}, {self.lit(leaf[1], leaf[2] == 1)})'
                proj = f'fst {{s}} + snd {{s}} * {"2" if ii else "0.5"}'
            else:
                bod = (f'((({Sn} * 3 + {v1}) % 1009, ({R} * 2 + {F}) % 1009), ({F} - {Sn} * 2 + {v2}) % 1009)' if ii
                       else f'(({Sn} * 0.5 + {v1}, {R} * 0.5 + {F} * 0.25), {F} * 0.5 - {Sn} * 0.25 + {v2})')
                ls = [self.lit(leaf[1], leaf[2] == 1) for _ in range(3)]
                init = f'(({ls[0]}, {ls[1]}), {ls[2]})'
                proj = f'fst (fst {{s}}) + snd (fst {{s}}) * {"2" if ii else "0.5"} + snd {{s}}'
            self.feat('reduceSeq-compound-' + compound)
            lam = f'(\\{y} {a} -> {bod})' if '\n' not in bod else f'(\\{y} {a} ->{self.nl(ctx)}    {bod})'
            e = f'{e}{self.nl(ctx)}|> {self.reducer(lam, init)}'
            if target[0] == 'pair':
                return e, target
            sv = self.fresh('s')
            return f'{e}{self.nl(ctx)}|> (\\{sv} -> {proj.format(s=sv)})', target
        if target[0] == 'pair':
            v1, _ = self.body(y, el, inner, leaf)
            v2, _ = self.body(y, el, inner, leaf)
            bod = f'({comb(f"fst {a}", v1, leaf)}, {comb(f"snd {a}", v2, leaf)})'
            i1, i2 = self.lit(leaf[1], leaf[2] == 1), self.lit(leaf[1], leaf[2] == 1)
            init = f'({i1}, {i2})'
        else:
            v1, _ = self.body(y, el, inner, leaf)
            bod = comb(a, v1, leaf)
            init = self.lit(leaf[1], leaf[2] == 1)
            if leaf[2] > 1 and self.chance(0.5):
                init = f'(vec {leaf[2]} {init})'
        lam = f'(\\{y} {a} -> {bod})' if '\n' not in bod else f'(\\{y} {a} ->{self.nl(ctx)}    {bod})'
        sel = self.select_sides(e, t, ctx, lam, init, target)
        return sel or f'{e}{self.nl(ctx)}|> {self.reducer(lam, init)}', target

    def reducer(self, lam, init):
        """reduceSeq lam init, or (from a stream of its own, so that the
        programs of a seed are the ones they were) reduceRange s lam init
        lo hi: a step of 1 to 3 and int bounds that cover the array, part
        of it, none of it, or reach outside it at either end, clamped
        (docs/language.md section 25)."""
        r = self.range_r
        if r is None or r.random() >= 0.15:
            return f'reduceSeq {lam} {init}'
        step = r.choice([1, 1, 2, 3])
        lo = r.choice(['0', '1', '2', '(-3)'])
        hi = r.choice(['1000', '3', '7', '(-1)', '0'])
        self.feat('reduceRange')
        return f'reduceRange {step} {lam} {init} {lo} {hi}'

    def select_sides(self, e, t, ctx, lam, init, target):
        """e |> (\\zs -> select (idx zs 0 > c) (zs |> reduceSeq f init)
        (idx zs 0)): a scalar reduction of a work-item's or sequential body
        as the side of a select that its row's first element chooses, so
        that it runs only where chosen (docs/language.md section 28).
        Drawn from a stream of its own (the programs of a seed are the
        ones they were); None where it does not fit."""
        r = self.select_r
        n, el = t[1], t[2]
        if (r is None or ctx.level not in ('global', 'local', 'seq') or el != target or target[2] != 1
                or target[1] == 'bool' or r.random() >= 0.25):
            return None
        self.need_ge(n, 1)
        zs = self.fresh('zs')
        c = r.choice(['0', '2'] if target[1] == 'int' else ['0.0', '0.5', '(-0.25)'])
        self.feat('select-sides')
        return (f'{e}{self.nl(ctx)}|> (\\{zs} -> select (idx {zs} 0 > {c}) ({zs} |> reduceSeq {lam} {init}) '
                f'(idx {zs} 0))')

    def first_n(self, e, t, ctx):
        """firstN K e or firstN K L e: a def with nat parameters, the
        first one passed explicitly (the second inferred or passed too)."""
        n = t[1]
        k = S(self.pick([1, 2, 3, 4]))
        if n.is_const() and n.const_value() > 4 and self.chance(0.3):
            k = n - 1
        elif not n.is_const() and n.single_term() and self.chance(0.3):
            k = n.divc(2)
            self.need_div(n, 2)
        self.need_ge(n - k, 1)
        self.cost(ctx, k)
        self.use_def('firstN')
        self.feat('def-nat-firstN')
        # a def's size argument is + - * / of sizes, no ceil (docs/language.md 1.2)
        if k.has_ceil():
            raise GenFail('ceil in a def size argument')
        if self.chance(0.4) and not n.has_ceil():
            self.feat('def-nat-firstN-both')
            return f'{e}{self.nl(ctx)}|> firstN {k.arg()} {n.arg()}', t[2]
        return f'{e}{self.nl(ctx)}|> firstN {k.arg()}', t[2]

    def scan_stage(self, e, t, ctx):
        """e |> scanSeq f init over scalars or vectors, in place of the last
        map of a work-item's or sequential body: each step's accumulator
        is an element of the result (docs/language.md section 23).  Drawn
        from a stream of its own (the programs of a seed are the ones they
        were, some of their last maps scans); None where it does not fit."""
        r = self.scan_r
        n, el = t[1], t[2]
        if (r is None or ctx.level not in ('global', 'local', 'seq') or el[0] != 'num' or el[1] == 'bool'
                or r.random() >= 0.3):
            return None
        self.cost(ctx, n)
        y, a = self.fresh(self.var_base(el)), self.fresh('a')
        if el[1] == 'int':
            bod = r.choice(['({a} * 3 + {v}) % 1009', '({v} - {a} * 2) % 1009', 'max {a} {v}'])
        else:
            bod = r.choice(['{a} * 0.5 + {v}', '{v} - {a} * 0.5', 'fma {a} 0.5 {v}', 'max {a} ({v} * 2.0)'])
        init = r.choice(['0', '1', '3'] if el[1] == 'int' else ['0.0', '1.5', '0.75', '(-2.0)'])
        if el[2] > 1:
            init = f'(vec {el[2]} {init})'
        self.feat('scanSeq' + ('-vec' if el[2] > 1 else ''))
        return f'{e}{self.nl(ctx)}|> scanSeq (\\{y} {a} -> {bod.format(a=a, v=y)}) {init}', t

    def slide_stage(self, e, t, ctx):
        """e |> slideSeq s f over scalars or vectors, in place of the last
        map of a work-item's or sequential body: mapSeq f (slide s 1 e)
        with the window rotated in private memory (docs/language.md section
        26).  Drawn from a stream of its own, like scan_stage; None where
        it does not fit."""
        r = self.slide_r
        n, el = t[1], t[2]
        if (r is None or ctx.level not in ('global', 'local', 'seq') or el[0] != 'num' or el[1] == 'bool'
                or r.random() >= 0.25):
            return None
        s = r.choice([2, 3, 3, 4, 5])
        if n.is_const() and n.const_value() < s:
            return None
        self.need_ge(n, s)
        self.cost(ctx, n)
        w = self.fresh('w')
        if el[1] == 'int':
            bod = r.choice(['(idx {w} 0 * 3 + idx {w} {l}) % 1009', '(idx {w} {l} - idx {w} 1 * 2) % 1009',
                            'max (idx {w} 0) (idx {w} {l})'])
        else:
            bod = r.choice(['idx {w} 0 * 0.5 + idx {w} {l}', 'idx {w} {l} - idx {w} 0 * 0.5 + idx {w} 1',
                            'fma (idx {w} 1) 0.5 (idx {w} 0)', 'max (idx {w} 0) (idx {w} {l} * 2.0)']
                           + (['reduceSeq (\\x a -> a * 0.5 + x) 0.0 {w}'] if el[2] == 1 else []))
        self.feat('slideSeq' + ('-vec' if el[2] > 1 else ''))
        body = bod.format(w=w, l=s - 1)
        return f'{e}{self.nl(ctx)}|> slideSeq {s} (\\{w} -> {body})', self.mk_arr(n - S(s - 1), el)

    def reduce_array_acc(self, e, t, ctx):
        """reduceSeq with an array accumulator (compound assignment), its
        initial value a kernel input."""
        n, el = t[1], t[2]
        m, leaf = el[1], el[2]
        self.cost(ctx, n * m)
        init = self.new_input(arr(m, leaf))
        y, a, p = self.fresh('c'), self.fresh('a'), self.fresh('p')
        inner = ctx.but(level='seq', loops=ctx.loops + (n, m), grid_ok=False)
        val = self.scalar_expr(inner.scalars + [(f'fst {p}', leaf)], leaf, 2)
        if f'fst {p}' not in val:
            val = f'{par(val)} + fst {p}'
        if leaf[1] == 'int':
            bod = f'(snd {p} * 3 + {par(val)}) % 1009'
        else:
            bod = self.pick([f'snd {p} * 0.5 + {par(val)}', f'{par(val)} - snd {p} * 0.5'])
        self.feat('reduceSeq-array-acc')
        return (f'{e}{self.nl(ctx)}|> reduceSeq (\\{y} {a} -> zip {y} {self.permuted(a, m, 0.7)} |> mapSeq (\\{p} -> {bod}))'
                f' {init}', el)

    def permuted(self, a, m, p=0.5):
        """The accumulator a : [m]_ as read by its update: itself or (with
        chance p) a permutation or shift of it, so that each new element
        reads other old ones."""
        mv = int(m.const_value())
        if not self.chance(p) or mv < 2:
            return a
        ds = [d for d in (2, 3, 4) if mv % d == 0 and d < mv]
        how = self.pick(['reorder', 'transpose', 'shift'] if ds else ['shift'])
        self.feat('array-acc-read-' + how)
        if how == 'reorder':
            return f'({a} |> reorderStride {self.pick(ds)})'
        if how == 'transpose':
            return f'({a} |> split {self.pick(ds)} |> transpose |> join)'
        return f'({a} |> padClamp 1 0 |> take {mv})'

    def wg_array_acc(self, e, t, ctx):
        """A work-group's reduceSeq over rows whose array accumulator is
        updated by a mapLocal (the CGO 2017 gemv strategy): it lives in
        local memory.  None when t does not fit."""
        n, el = t[1], t[2]
        free_local = [d for d in (0, 1) if d not in ctx.local]
        if not free_local:
            return None
        if el[0] == 'num' and el[1] != 'bool':
            m = self.chunk(n, (4, 8, 16, 32, 64)) if not n.is_const() else self.chunk(n, (2, 4, 8, 16, 32))
            self.need_div(n, m)
            rows = n.divc(m)
            e, leaf, m = f'{e}{self.nl(ctx)}|> split {m}', el, S(m)
            self.need_ge(rows, 1)
        elif (el[0] == 'arr' and el[2][0] == 'num' and el[2][1] != 'bool' and el[1].is_const()
              and 2 <= el[1].const_value() <= MAX_LOCAL):
            rows, m, leaf = n, el[1], el[2]
        else:
            return None
        mv = int(m.const_value())
        dim = self.pick(free_local, [3, 1] if len(free_local) == 2 else None)
        prim = 'mapLocal' if dim == 0 and self.chance(0.6) else f'mapLocal{dim}'
        how = self.pick(['zip', 'zip', 'noread', 'split', 'split'])
        if how == 'split' and mv % 2:
            how = 'zip'
        width = S(mv // 2) if how == 'split' else m
        self.need_le(self.local_product(ctx, width), MAX_LOCAL)
        self.local_sizes[dim].append(width)
        self.need_le(self.local_product(ctx, m), MAX_LOCAL_MEM)
        self.cost(ctx, rows * m)
        row, a, p = self.fresh('r'), self.fresh('a'), self.fresh('p')
        init = self.new_input(arr(m, leaf))
        inner = ctx.but(level='local', local=ctx.local | {dim}, loops=ctx.loops + (rows, width),
                        local_loops=ctx.local_loops + (width,), grid_ok=False)
        ii = leaf[1] == 'int'
        if how == 'noread':
            x = self.fresh('x')
            val = self.scalar_expr(inner.scalars + [(x, leaf)], leaf, 2)
            if not re.search(r'' + x + r'', val):
                val = f'{par(val)} + {x}'
            upd = f'{row} |> {prim} (\\{x} -> {val})'
        else:
            val = self.scalar_expr(inner.scalars + [(f'fst {p}', leaf)], leaf, 2)
            if f'fst {p}' not in val:
                val = f'{par(val)} + fst {p}'
            bod = f'(snd {p} * 3 + {par(val)}) % 1009' if ii else f'snd {p} * 0.5 + {par(val)}'
            acc = self.permuted(a, m, 0.4)
            if how == 'split':
                upd = f'zip {row} {acc} |> split 2 |> {prim} (mapSeq (\\{p} -> {bod})) |> join'
            else:
                upd = f'zip {row} {acc} |> {prim} (\\{p} -> {bod})'
        self.feat('wg-array-acc-' + how)
        e = f'{e}{self.nl(ctx)}|> reduceSeq (\\{row} {a} -> {upd}){self.nl(ctx)}     {init}'
        t = arr(m, leaf)
        self.last_kind = prim
        if self.chance(0.4):
            e, t = self.map_stage(e, t, ctx.but(grid_ok=False), final=True)
        return e, t

    def pipeline(self, e, t, ctx, target=None):
        """A pipeline over the array e : t at ctx: views, zips, map stages,
        ending in a final map or (with a target: always) a reduction."""
        can_reduce = ctx.level in ('global', 'local', 'seq') or (ctx.level == 'wg' and self.chance(0.1))
        nstages = self.pick([1, 1, 2, 2, 3]) if ctx.depth > 0 else 1
        if 'own-tmp' in self.avoid and ctx.level not in ('wg', 'top'):
            nstages = 1
        for st in range(nstages):
            last = st == nstages - 1
            e, t = self.views(e, t, ctx, self.pick([0, 0, 1, 1, 2]), target)
            if self.chance(0.15):
                p, pt = self.same_length_partner(e, t, ctx, target)
                e, t = f'zip {par(e)} {par(p)}', arr(t[1], pair(t[2], pt[2]))
                self.feat('zip')
                if re.search(r'\bmap(Seq|Local|Global|Workgroup)', p):  # a temporary: no nested grid map after it
                    ctx = ctx.but(grid_ok=False)
            if not last and ctx.level == 'wg' and self.chance(0.4):
                res = self.iterate_stage(e, t, ctx)
                if res is not None:
                    e, t = res
                    ctx = ctx.but(grid_ok=False)  # a local temporary: no grid-level map after it
                    continue
            res = self.dropping_stage(e, t, ctx)
            if res is not None:
                e, t = res
            if not last:
                e, t = self.map_stage(e, t, ctx, final=False, target=target)
                # a grid-level map's body that holds another grid-level map
                # runs in every work-item of the inner one: it may make no
                # temporary but a private one (dpia rejects it, strategy.c)
                if self.last_mem != 'toPrivate' or 'toGlobal' in e or 'toLocal' in e:
                    ctx = ctx.but(grid_ok=False)
                continue
            if ctx.level == 'wg' and target is None and self.chance(0.25):
                res = self.wg_array_acc(e, t, ctx)
                if res is not None:
                    return res
            if ('firstN' in self.nat_defs and t[2] == num(ctx.stype) and target in (None, t[2])
                    and (can_reduce or target is not None) and self.chance(0.5)):
                return self.first_n(e, t, ctx)
            if target is not None:
                return self.reduce_stage(e, t, ctx, target)
            if can_reduce and self.chance(0.35):
                return self.reduce_stage(e, t, ctx)
            res = self.scan_stage(e, t, ctx) or self.slide_stage(e, t, ctx)
            if res is not None:
                return res
            if self.chance(0.05) and not pair_with_array(t) and not has_idx(t):
                self.feat('view-only-body')
                return self.views(e, t, ctx, 1)
            # the final map; views after it only pass through acceptors when
            # it was a grid-level map (no barrier across work-groups)
            e, t = self.map_stage(e, t, ctx, final=True)
            grid_final = self.last_kind in ('mapGlobal', 'mapWorkgroup') or \
                (self.last_kind == 'mapLocal' and ctx.level == 'local')
            if self.chance(0.3) and not ('own-tmp' in self.avoid and ctx.level != 'wg'):
                e, t = self.views(e, t, ctx, 1, acceptor_only=grid_final)
            return e, t
        raise AssertionError

    # ---- kernels -----------------------------------------------------

    def source(self, ctx, two_d):
        """A kernel input (maybe zipped with another), with views."""
        N = Size.var('N')
        s = ctx.stype
        if self.chance(0.1):
            return self.gather_source(ctx, two_d)
        r = self.r.random()
        if two_d:
            M = Size.var('M')
            t = arr(M, arr(N, num(s)))
        elif r < 0.12 and ctx.vectors:
            t = arr(N, num(s, self.pick([2, 4])))
            self.feat('vector-input')
        elif r < 0.2:
            t = arr(N, pair(num(s), num(s)))
            self.feat('pair-input')
        elif r < 0.25:
            c = self.pick([2, 3])
            t = arr(N * c, num(s))
        else:
            t = arr(N, num(s))
        e = self.new_input(t)
        if t[2] == num(s) and self.chance(0.15):
            k = self.pick([2, 4, 8])
            self.need_div(t[1], k)
            self.feat(f'asVector{k}')
            e, t = f'{e} |> asVector {k}', self.mk_arr(t[1].divc(k), num(s, k))
        if self.chance(0.25):
            p, pt = self.same_length_partner(e, t, ctx.but(depth=0))
            e, t = f'zip {par(e)} {par(p)}', arr(t[1], pair(t[2], pt[2]))
            self.feat('zip-top')
        return e, t

    def gather_source(self, ctx, two_d):
        """An array of indices read from data (idx-typed kernel inputs),
        each one used as `idx data j`: a 1-D index array into a data input,
        into the rows of a 2-D input, or a 2-D neighbour list."""
        N, s = Size.var('N'), ctx.stype
        L = Size.var('M') if two_d and self.chance(0.5) else N  # length of the data indexed
        how = self.pick(['scalar', 'rows', 'nbh'])
        if how == 'rows':
            w = Size.var('N') if two_d and L != N and self.chance(0.5) else S(self.pick([4, 8, 16]))
            data = self.new_input(arr(L, arr(w, num(s))))
            el = idx_t(L, data, arr(w, num(s)))
        else:
            data = self.new_input(arr(L, num(s)))
            el = idx_t(L, data, num(s))
        if how == 'nbh':
            k = Size.var('M') if two_d and L == N and self.chance(0.6) else S(self.pick([3, 4, 8]))
            t = arr(N, arr(k, el))
        else:
            t = arr(N, el)
        e = self.new_input(t)
        self.feat('gather-input-' + how)
        if how == 'nbh' and L == N and self.chance(0.5):
            # the particle with its neighbours (molecular dynamics)
            e, t = f'zip {data} {e}', arr(N, pair(num(s), t[2]))
        return e, t

    def top_stage(self, ctx, two_d, kind=None, dim=None):
        e, t = self.source(ctx, two_d)
        e, t = self.views(e, t, ctx, self.pick([0, 1, 1, 2, 3]))
        kind = kind or self.pick(['mapGlobal', 'mapWorkgroup'])
        if dim is None:
            dim = 1 if two_d and self.chance(0.5) else 0
        n = t[1]
        if kind == 'mapWorkgroup' and t[2][0] != 'arr':
            c = self.chunk(n, (4, 8, 16, 32, 64, 128) if not n.is_const() else (2, 4, 8, 16, 32))
            self.need_div(n, c)
            e, t = f'{e}{self.nl(ctx)}|> split {c}', self.mk_arr(n.divc(c), arr(S(c), t[2]))
            n = t[1]
        self.need_le(n, MAX_ELEMS)
        self.cost(ctx, n)
        v = self.fresh(self.var_base(t[2]))
        prim = kind if dim == 0 and self.chance(0.6) else f'{kind}{dim}'
        self.feat(f'top-{kind}{dim}')
        inner = self.inner_ctx(ctx, kind, dim, n)
        first_cost, self.nested_grid = len(self.costs), []
        b, u = self.body(v, t[2], inner)
        # the stages before a nested grid-level map run in each of its
        # work-items: count that work
        for g in self.nested_grid:
            for i in range(first_cost, len(self.costs)):
                self.costs[i] = self.costs[i] * g
        e = f'{e}{self.nl(ctx)}|> {prim} {self.lam(v, b, ctx)}'
        t = arr(n, u)
        e, t = self.views(e, t, ctx, self.pick([0, 0, 1, 2]), acceptor_only=True)
        return e, t

    def kernel(self):
        stype = self.pick(['float', 'double', 'int'], [70, 15, 15])
        two_d = self.chance(0.25)
        nats = ['M', 'N'] if two_d else ['N']
        ctx = Ctx(level='top', in_wg=False, grid=frozenset(), local=frozenset(), loops=(), local_loops=(),
                  scalars=[], arrays=[], depth=self.pick([1, 2, 2, 3]), ind='  ', stype=stype,
                  vectors=True, grid_ok=True)
        self.feat('type:' + stype)
        if self.chance(0.3):
            self.params.append(('alpha', f'(alpha: {stype})'))
            ctx.scalars = [('alpha', num(stype))]
            self.feat('scalar-param')
        helper_def = ''
        if self.chance(0.12):
            # a helper def, inlined where it is used (spec section 2)
            body = self.scalar_expr([('y', num(stype))], num(stype), 2)
            helper_def = f'def h (y: {stype}) =\n  {body}\n\n'
            self.helper = ('h', stype)
            self.feat('def-helper')
        if self.chance(0.13):
            # an untyped def: a template checked at each use (spec section 2)
            name, arity, text = self.pick([
                ('twice', 1, 'def twice x = x + x'),
                ('halfSum', 2, 'def halfSum x y = x + y / 2'),
                ('lerp', 3, 'def lerp x y t = x + (y - x) * t'),
                ('inc', 1, 'def inc x = x + 1')])
            self.defs[name] = text
            self.template = (name, arity)
        if self.chance(0.15):
            # defs with nat parameters, passed explicitly (firstN 3 v) or inferred
            red = '(a * 3 + x) % 1009' if stype == 'int' else 'a * 0.5 + x'
            self.defs['firstN'] = (f'def firstN (K: nat) (L: nat) (v: [L]{stype}) =\n'
                                   f'  v |> take K |> reduceSeq (\\x a -> {red}) 0')
            self.defs['tile'] = f'def tile (T: nat) (L: nat) (v: [L * T]{stype}) = v |> split T'
            self.nat_defs = {'firstN', 'tile'}
        if self.chance(0.1):
            # an index input used directly: idx ts col, and idx row col for
            # the arrays of its length
            n = Size.var('M') if two_d and self.chance(0.2) else Size.var('N')  # N: a row's length in 2-D
            data = self.new_input(arr(n, num(stype)))
            col = self.new_input(idx_t(n, data, num(stype)))
            self.scalar_idx.append((col, n))
            ctx.scalars = ctx.scalars + [(f'idx {data} {col}', num(stype))]
            self.feat('scalar-idx-input')
        shape = self.pick(['stage', 'pair', 'zip', 'seq'], [80, 7, 7, 6])
        self.feat('kernel:' + shape)
        if shape == 'stage':
            e, t = self.top_stage(ctx, two_d)
            e = self.scatter_result(e, t, ctx)
            e = self.unzip_result(e, t, ctx)
        elif shape == 'pair':
            # two stages on the same grid dimension (else each one runs
            # redundantly in every work-item of the other's dimension)
            e1, _ = self.top_stage(ctx.but(ind='    ', grid_ok=False), two_d, dim=0)
            e2, _ = self.top_stage(ctx.but(ind='    ', grid_ok=False), two_d, dim=0)
            e = f'(\n    {e1},\n    {e2})'
        elif shape == 'zip':
            # two parallel stages over arrays of the same length, zipped
            src, st = self.source(ctx, False)
            n = st[1]
            ind = ctx.ind + '    '
            v1, v2 = self.fresh(self.var_base(st[2])), self.fresh('x')
            inner = self.inner_ctx(ctx, 'mapGlobal', 0, n)
            self.cost(ctx, n)
            self.cost(ctx, n)
            b1, u1 = self.body(v1, st[2], inner)
            other = self.new_input(arr(n, num(stype)))
            b2, u2 = self.body(v2, num(stype), inner)
            e = (f'zip\n{ind}({src}\n{ind}|> mapGlobal {self.lam(v1, b1, ctx.but(ind=ind))})'
                 f'\n{ind}({other} |> mapGlobal {self.lam(v2, b2, ctx.but(ind=ind))})')
            e = self.unzip_result(e, arr(n, pair(u1, u2)), ctx)
        else:
            src, st = self.source(ctx, two_d)
            sctx = ctx.but(level='seq', grid_ok=False)
            if self.chance(0.5):
                e, t = self.reduce_stage(src, st, sctx)
            else:
                e, t = self.map_stage(src, st, sctx, final=True)
        for col, _ in self.scalar_idx:
            if not re.search(r'\b' + col + r'\b', e):
                raise GenFail('idx input unused')  # no test: try another program
            self.feat('scalar-idx-used')
        nat_decl = f'({" ".join(nats)}: nat)'
        params = ' '.join([nat_decl] + [p for _, p in self.params])
        defs = ''.join(self.defs[d] + '\n' for d in self.used_defs)
        if defs:
            defs += '\n'
        perms = ' permutation ' + ' '.join(self.perms) if self.perms else ''
        return f'{helper_def}{defs}kernel k {params}{perms} =\n  {e}\n', nats

    def unzip_result(self, e, t, ctx):
        """e, a kernel's array of pairs, returned unzipped (|> unzip): the
        two arrays are two outputs, each pair's fields stored into both by
        the iteration that makes it (docs/language.md section 24).  Drawn
        from a stream of its own, so the programs of a seed are the ones
        they were, some of them unzipped."""
        r = self.unzip_r
        if r is None or 'unzip' in self.avoid or t[0] != 'arr' or t[2][0] != 'pair' or r.random() >= 0.6:
            return e
        self.feat('unzip')
        return f'{e}{self.nl(ctx)}|> unzip'

    def scatter_result(self, e, t, ctx):
        """e, a kernel's array, written through a permutation (|> scatter
        p, p a new input of type [n]idx[n] declared a permutation): element
        i of e is written to p[i] by the iteration that makes it
        (docs/language.md section 29).  Drawn from a stream of its own, so
        the programs of a seed are the ones they were, some of them
        scattered."""
        r = self.scatter_r
        if r is None or 'scatter' in self.avoid or t[0] != 'arr' or r.random() >= 0.25:
            return e
        n = t[1]
        p = self.new_input(arr(n, idx_t(n, None, None)))
        self.perms.append(p)
        self.feat('scatter')
        return f'{e}{self.nl(ctx)}|> scatter {p}'

    def use_def(self, name):
        if name not in self.used_defs:
            self.used_defs.append(name)

    # ---- sizes -------------------------------------------------------

    def solve(self, nats):
        # A dimension whose constant mapLocals all run over one element and
        # another over a symbolic size has no work-group size dpia can fix:
        # check rejects it (codegen/kernel.c, choose: never silently 1)
        for d in (0, 1):
            consts = [n.const_value() for n in self.local_sizes[d] if n.is_const()]
            if consts and max(consts) == 1 and any(not n.is_const() for n in self.local_sizes[d]):
                raise GenFail()
        # the work-group size is the largest mapLocal of each dimension
        for a in self.local_sizes[0]:
            for b in self.local_sizes[1]:
                self.need_le(a * b, MAX_LOCAL)
        cons = []
        for kind, n, c in self.constraints:
            f, d = n.compile()
            cons.append((kind, f, d, c, set(x for m in n.terms for x, _ in m)))
        costs = [c.compile() for c in self.costs]

        def ok(env, only=None):
            for kind, f, d, c, vs in cons:
                if only is not None and not vs <= only:
                    continue
                v = f(env)
                if kind == 'div':
                    if v % (d * c) != 0:
                        return False
                elif kind == 'ge':
                    if v < c * d:
                        return False
                elif v > c * d:
                    return False
            return True

        def work(env):
            return sum(Fraction(f(env), d) for f, d in costs)

        def with_ceilings(env):
            # n has no ceil atom of its own (splitPad), so one pass computes them
            for name, (n, k) in self.ceilings.items():
                env[name] = -(-int(n.value(env)) // k)
            return env

        # N: a multiple of the lcm of the moduli of requirements on N alone
        base = 1
        for kind, n, c in self.constraints:
            if kind == 'div' and n.single_term() and set(x for m in n.terms for x, _ in m) == {'N'}:
                (m, coef), = n.terms.items()
                if m == (('N', 1),):
                    q = coef.denominator * c
                    g = q // math.gcd(q, coef.numerator)
                    base = base * g // math.gcd(base, g)
        for _ in range(8):
            env = {}
            if 'M' in nats:
                ms = [m for m in range(1, 65) if ok(with_ceilings({'M': m, 'N': 1}), only={'M'})]
                if not ms:
                    raise GenFail('no M')
                env['M'] = self.pick(ms)
            target = math.exp(self.r.uniform(math.log(max(base, 24)), math.log(NMAX)))
            cands = list(range(base, NMAX + 1, base)) or [base]
            cands.sort(key=lambda x: abs(math.log(x) - math.log(target)) + self.r.random() * 0.3)
            for nv in cands[:400]:
                env['N'] = nv
                with_ceilings(env)
                if ok(env) and work(env) <= WORK_BUDGET:
                    return dict((k, env[k]) for k in nats)
            if 'M' not in nats:
                break
        raise GenFail('no sizes')


def generate(seed, index, avoid=(), extra=()):
    """Program number index of the stream seed: a Program (deterministic)."""
    for retry in range(200):
        rng = random.Random(f'{seed}:{index}:{retry}')
        g = Gen(rng, avoid, extra, random.Random(f'{seed}:{index}:{retry}:literals'),
                random.Random(f'{seed}:{index}:{retry}:drops'), random.Random(f'{seed}:{index}:{retry}:indices'),
                random.Random(f'{seed}:{index}:{retry}:scans'), random.Random(f'{seed}:{index}:{retry}:ranges'),
                random.Random(f'{seed}:{index}:{retry}:selects'), random.Random(f'{seed}:{index}:{retry}:slides'),
                random.Random(f'{seed}:{index}:{retry}:unzips'), random.Random(f'{seed}:{index}:{retry}:scatters'))
        try:
            text, nats = g.kernel()
            sizes = g.solve(nats)
        except GenFail:
            continue
        with_ = ''.join(f' --with {x}' for x in sorted(extra))
        header = f'-- generated by tests/diff/gen.py --seed {seed} --index {index}{with_}\n'
        prog = Program(None, 'k', sizes, sorted(g.features))
        prog.text = header + prog.run_line() + '\n' + text
        return prog
    raise RuntimeError(f'no program for seed {seed} index {index}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--index', type=int, default=0)
    ap.add_argument('--count', type=int, default=1)
    ap.add_argument('--avoid', default='', help='comma-separated patterns to leave out: ' +
                    '; '.join(f'{k}: {v}' for k, v in AVOIDABLE.items()))
    ap.add_argument('--with', dest='extra', action='append', default=[], choices=sorted(OPTIONAL),
                    help='a feature that is off by default: ' + '; '.join(f'{k}: {v}' for k, v in OPTIONAL.items()))
    ap.add_argument('--high-level', action='store_true',
                    help='high-level programs (plain map, reduce: no strategy) for the rewrite rules')
    a = ap.parse_args()
    if a.high_level:
        for i in range(a.index, a.index + a.count):
            sys.stdout.write(generate_high_level(a.seed, i) + '\n')
        return
    avoid = [x for x in a.avoid.split(',') if x]
    for i in range(a.index, a.index + a.count):
        p = generate(a.seed, i, avoid, a.extra)
        sys.stdout.write(p.text + '\n')


if __name__ == '__main__':
    main()
