"""gen_types.py: the types of gen.py, the random program generator.

Sizes (polynomials over the nat parameters), the data types of the
phrases the generator writes, the context of a phrase (Ctx), a generated
program (Program) and the limits every program keeps within."""
import math
import re
from fractions import Fraction

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
        return self._text(lambda x: x)

    def expr(self, ceilings):
        """The size as an int expression of the program, as its argument
        (arg): a ceil atom ceil(n/k) as (n + k - 1)/k, its value for n >= 0
        by int division, as `ceil` in an expression is the math function of
        a float or double (E0301 on an int).  ceilings: the generator's,
        name -> (n, k)."""
        def atom(x):
            if x not in ceilings:
                return x
            n, k = ceilings[x]
            return f'({(n + (k - 1)).expr(ceilings)}/{k})'
        if list(self.terms.values()) == [1] and [len(m) for m in self.terms] == [1]:
            (((x, p),),) = self.terms
            if p == 1:
                return atom(x)  # a variable, or a ceil atom's parenthesised quotient
        s = self._text(atom)
        return s if re.fullmatch(r'[0-9]+|[A-Za-z_]\w*', s) else f'({s})'

    def _text(self, atom):
        """as __str__, each variable x written atom(x)"""
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
                vs += [atom(x)] * p
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
    def __init__(self, text, kernel, sizes, features, expect='ok'):
        self.text = text
        self.expect = expect  # run_diff.py's -- expect: ok, or reject CODE
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


def lane_name(k, width):
    """the spelling of lane k of a vector of width lanes, as dpia prints it"""
    return '.' + 'xyzw'[k] if width <= 4 else '.s' + '0123456789abcdef'[k]
