"""gen_high.py: the high-level programs of `gen.py --high-level`.

High-level programs (docs/language.md section 21) say what a kernel
computes with plain map, reduce, zip, split and transpose, and no strategy;
they feed the soundness test of the rewrite rules
(tests/rewrite/random_rules.py).  Kept apart from gen.py, the generator of
strategy programs, which imports generate_high_level from here."""
import random

# High-level programs (docs/language.md section 21): what a kernel computes
# with plain map, reduce, zip, split and transpose, no strategy, for the
# soundness test of the rewrite rules (tests/rewrite/random_rules.py).
# Sizes stay symbolic (the test picks them); every split is at most 16, so
# that N = M = 16 satisfies every precondition and the reference
# interpreter stays fast on [M][N] inputs.


# High-level features that are off unless asked for (gen.py --high-level
# --with, run_diff.py --derived --with): drawn from streams of their own,
# so that the programs of a seed without them stay as they were.
OPTIONAL = {
    'neighbours': 'kernels whose later map reads a map\'s result at other elements than its own: a stencil '
                  '(padClamp or padCst, then slide) over a chunk\'s mapped elements, a chunk\'s mapped elements '
                  'zipped with themselves shifted by one, permuted (split, transpose, join), or a tile of rows '
                  'mapped then reduced by columns (transpose): the lowered program keeps that result in a '
                  'temporary (private, local or global) that other work-items, or other steps, read',
}


class HighLevel:
    def __init__(self, rng, nested=False):
        self.rng = rng
        self.fresh = 0
        # a zipped program zips a zip: zip (zip xs ys) xs, its elements
        # read as fst (fst p), snd (fst p), snd p (vectorise cuts each
        # array of the zip tree; reduceLanes after it)
        self.nested = nested

    def name(self, base):
        self.fresh += 1
        return f'{base}{self.fresh}'

    def lit(self):
        return self.rng.choice(['0.5', '2.0', '1.5', '0.25'])

    def scalar(self, x, depth=0):
        """an expression of x computing lane by lane, or not (max, a literal
        of another kind), or a function of one (fabs (x * 2.0)) that
        fissionMap splits"""
        r = self.rng.random()
        if depth >= 2 or r < 0.25:
            return self.rng.choice([x, f'{x} * {self.lit()}', f'alpha * {x}', f'{x} + {self.lit()}'])
        if r < 0.5:
            op = self.rng.choice(['+', '-', '*'])
            return f'{self.scalar(x, depth + 1)} {op} {self.scalar(x, depth + 1)}'
        if r < 0.7:
            return f'fabs ({self.scalar(x, depth + 1)})'
        if r < 0.85:
            return f'sqrt (fabs ({self.scalar(x, depth + 1)}))'
        return f'max ({self.scalar(x, depth + 1)}) {self.lit()}'

    def fn(self, pairs=False, flat=False):
        """a function of one element: of a pair (zip) when pairs, of a zip
        of a zip when the program's are (nested) unless flat"""
        x = self.name('p' if pairs else 'x')
        nested = self.nested and not flat
        if pairs and nested:
            a, b = f'fst (fst {x})', f'snd (fst {x}) + snd {x}'
        if pairs and not nested:
            a, b = f'fst {x}', f'snd {x}'
        if pairs:
            body = self.rng.choice([f'{a} * {b}', f'{a} + {b}', f'{a} * {b} + {a}', f'alpha * {a} - {b}'])
        else:
            body = self.scalar(x)
        return f'(\\{x} -> {body})'

    def reduction(self):
        """(operator, neutral element): associative ones (partialReduce,
        partialReduceAny, treeReduce) or not (sequential only)"""
        return self.rng.choice([('(\\x a -> x + a)', '0.0'), ('(\\x a -> a + x)', '0.0'),
                                ('(\\x a -> a * 0.5 + x)', '0.0'), ('(\\x a -> max x a)', '0.0')])

    def maps(self, pairs):
        """one or two map stages"""
        stages = [f'map {self.fn(pairs)}']
        if self.rng.random() < 0.4:
            stages.append(f'map {self.fn()}')
        return stages

    def loop_kernel(self):
        """a map whose function is a loop over an array every element
        reads (ws: the samples or bodies of mriq and n-body), its
        accumulator one value or a pair (vectoriseLoop)"""
        if self.rng.random() < 0.3:
            return self.columns_kernel()
        zipped = self.rng.random() < 0.4
        src = 'zip xs ys' if zipped else 'xs'
        x = self.name('p' if zipped else 'x')
        v = f'fst {x} * snd {x}' if zipped else x
        w, acc = self.name('w'), self.name('a')
        term = self.rng.choice([f'{v} * {w}', f'{w} - {v}', f'sqrt (fabs ({v} - {w}))', f'alpha * {w} + {v}'])
        if self.rng.random() < 0.4:
            op = f'(\\{w} {acc} -> (fst {acc} + {term}, snd {acc} + {w} * {self.lit()}))'
            z = self.rng.choice(['(0.0, 0.0)', f'(0.0, {self.lit()})'])
            tail = self.rng.choice(['', ' |> (\\r -> fst r * snd r)'])
        else:
            op = self.rng.choice([f'(\\{w} {acc} -> {acc} + {term})', f'(\\{w} {acc} -> {acc} * 0.5 + {term})'])
            z = self.rng.choice(['0.0', self.lit()])
            tail = ''
        body = f'ws |> reduce {op} {z}{tail}'
        if self.rng.random() < 0.5:
            body = f'let s = {v} * 2.0 in ws |> reduce {op.replace(v, "s")} {z}{tail}'
        return (f'kernel k (N M: nat) (alpha: float) (xs ys: [N]float) (ws: [M]float) =\n'
                f'  {src}\n  |> map (\\{x} -> {body})\n')

    def soa_kernel(self):
        """n-body's shape: a map over bodies that are float4 (or float2),
        read lane by lane, whose function loops over all bodies
        (vectoriseLoop makes each float4 a structure of arrays: nbodyVec)"""
        k = self.rng.choice([4, 4, 2])
        t, zero = f'float{k}', f'vec {k} 0.0'
        zipped = self.rng.random() < 0.5
        p, q, acc = self.name('p'), self.name('q'), self.name('a')
        el = self.name('pv') if zipped else p
        lanes = 'xyzw'[:k]
        if self.rng.random() < 0.7:
            # a floatK accumulator: built lane by lane, or scaled
            build = f'{t} ' + ' '.join(self.rng.choice([f'r.{c}', f'(r.{c} * r.x)', '0.0', f'(sqrt (fabs r.{c}))'])
                                      for c in lanes)
            term = self.rng.choice([f'{build} * ({q}.x * alpha)', f'r * (r.x * r.x + alpha)', build])
            z = self.rng.choice([f'({zero})', f'({t} ' + ' '.join(self.lit() for _ in lanes) + ')'])
            res = self.rng.choice([f'{p} + {acc} * alpha', f'{acc} - {p}'])
        else:
            term = self.rng.choice(['r.x * r.y', f'rsqrt (r.x * r.x + alpha * alpha + 1.0)', f'r.x * {q}.y - alpha'])
            z = self.rng.choice(['0.0', self.lit()])
            res = f'{p} * {acc}'
        body = f'let r = {q} - {p} in {acc} + {term}'
        loop = f'let {acc} = qs |> reduce (\\{q} {acc} -> {body}) {z} in {res}'
        if zipped:
            fn = f'\\{el} -> let {p} = fst {el} in let v = snd {el} in {loop.rsplit(" in ", 1)[0]} in ({res}, v)'
            src = 'zip ps vs'
        else:
            fn = f'\\{el} -> {loop}'
            src = 'ps'
        # (one size: the reference evaluates the program at N = M anyway)
        return (f'kernel k (N: nat) (alpha: float) (ps vs: [N]{t}) (qs: [N]{t}) =\n'
                f'  {src}\n  |> map ({fn})\n')

    def columns_kernel(self):
        """a map over the columns of a matrix whose function loops over
        ws, each step a loop over its column, and keeps a running minimum
        by select (k-means' nearest centre; vectoriseLoop reads the
        columns as vectors)"""
        c, w, acc, q = self.name('c'), self.name('w'), self.name('a'), self.name('q')
        term = self.rng.choice([f'fst {q} * {w} - snd {q}', f'(fst {q} - {w}) * (fst {q} - snd {q})'])
        # the column's loop without a map before it: a map would give the
        # rules (fuseReduceMap, fissionMap, ...) so many more positions
        # that the search to depth 2 took minutes a program
        d = f'zip {c} ws |> reduce (\\{q} s -> s + {term}) 0.0'
        keep = self.rng.choice([f'select (d < {acc}) d {acc}', f'{acc} + d * alpha'])
        return (f'kernel k (M N: nat) (alpha: float) (mat: [M][N]float) (ws: [M]float) =\n'
                f'  mat |> transpose\n'
                f'  |> map (\\{c} -> ws |> reduce (\\{w} {acc} -> let d = {d} in {keep}) {self.lit()})\n')

    def product_kernel(self):
        """a matrix product's shape: a map over the rows of xs of a map
        over the columns of mat, each element the reduction of the row
        zipped with the column, or of a map of it (registerTile, then
        vectoriseTile over mat's rows as vectors).  Without the map the
        search to depth 2 has fewer positions: three nested maps take
        minutes (samples/explore/mm.dpia)"""
        r, c = self.name('r'), self.name('c')
        op, z = self.reduction()
        elems = f'zip {r} {c}'
        if self.rng.random() < 0.3:
            # a row zipped with a column: one pair whatever nested says
            # (seed 101 #52: fst (fst p) of a float, E0301)
            elems += f' |> map {self.fn(True, flat=True)}'
        else:
            p, acc = self.name('p'), self.name('a')
            term = self.rng.choice([f'fst {p} * snd {p}', f'alpha * fst {p} - snd {p}'])
            op = self.rng.choice([f'(\\{p} {acc} -> {acc} + {term})', f'(\\{p} {acc} -> {acc} * 0.5 + {term})'])
        return (f'kernel k (M N K: nat) (alpha: float) (xs: [M][K]float) (mat: [K][N]float) =\n'
                f'  xs\n  |> map (\\{r} -> mat |> transpose |> map (\\{c} -> {elems} |> reduce {op} {z}))\n')

    def vector_sum_kernel(self):
        """a map of rows, each the sum of a lane-by-lane map over its
        vectors (zipped with a vector every row shares, or alone), from
        vec W of the neutral element, its lanes added at the end: the sum
        of vectors that reduceLanes leaves and accumulators folds into
        several accumulators (gemv's shape after vectoriseSums)"""
        w = self.rng.choice([2, 4])
        row, p = self.name('row'), self.name('p')
        lanes = ' + '.join(f'v.{c}' for c in 'xyzw'[:w])
        if self.rng.random() < 0.6:
            elems = f'zip (asVector {w} {row}) (asVector {w} xs)'
            term = self.rng.choice([f'fst {p} * snd {p}', f'fst {p} * snd {p} + fst {p}', f'alpha * fst {p} - snd {p}'])
        else:
            elems = f'asVector {w} {row}'
            term = self.rng.choice([f'{p} * {self.lit()}', f'{p} * {p}', f'alpha * {p}'])
        op, z = self.rng.choice([('(\\x a -> x + a)', f'(vec {w} 0.0)'), ('(\\x a -> a + x)', f'(vec {w} 0.0)'),
                                 ('(\\x a -> x * a)', f'(vec {w} 1.0)')])
        return (f'kernel k (M N: nat) (alpha: float) (mat: [M][N]float) (xs: [N]float) =\n'
                f'  mat\n  |> map (\\{row} -> {elems} |> map (\\{p} -> {term}) |> reduce {op} {z}'
                f' |> (\\v -> {lanes}))\n')

    def neighbours_kernel(self):
        """(--with neighbours) a kernel whose later map reads the result of
        a map at other elements than its own, so that no rule fuses the
        two and the derived strategy keeps the result in a temporary read
        across work-items or steps (barriers, the placement of toLocal and
        toGlobal, the single writers at other launches; gen_derived.py):
        within chunks of k elements (a work-group's, a work-item's or a
        run of unrolled steps' when k is at most 16), or a tile of rows"""
        shape = self.rng.choice(['stencil', 'stencil', 'shift', 'permute', 'columns'])
        if shape == 'columns':
            t = self.rng.choice([2, 4, 8, 16])
            op, z = self.reduction()
            c = self.name('col')
            return (f'kernel k (M N: nat) (alpha: float) (mat: [M][N]float) =\n'
                    f'  mat\n  |> split {t}\n'
                    f'  |> map (\\t -> t |> map (map {self.fn()}) |> transpose'
                    f' |> map (\\{c} -> {c} |> reduce {op} {z}))\n')
        zipped = self.rng.random() < 0.4
        src = ('zip (zip xs ys) xs' if self.nested else 'zip xs ys') if zipped else 'xs'
        k = self.rng.choice([4, 8, 8, 16, 16, 32, 64])
        first = ' |> '.join(self.maps(zipped))
        c = self.name('c')
        if shape == 'stencil':
            w = self.rng.choice([2, 3, 3, 5])
            left = self.rng.randint(0, w - 1)
            pad = self.rng.choice([f'padClamp {left} {w - 1 - left}', f'padCst {left} {w - 1 - left} 0.0'])
            op, z = self.reduction()
            win = self.name('w')
            body = f'{c} |> {first} |> {pad} |> slide {w} 1 |> map (\\{win} -> {win} |> reduce {op} {z})'
        elif shape == 'shift':
            q = self.name('q')
            other = self.rng.choice(['t |> padClamp 0 1 |> drop 1', f't |> padClamp 1 0 |> take {k}',
                                     f't |> padCst 0 2 0.0 |> drop 2'])
            use = self.rng.choice([f'fst {q} - snd {q} * 0.5', f'fst {q} * snd {q} + alpha',
                                   f'snd {q} + fst {q} * 0.25'])
            body = f'{c} |> {first} |> (\\t -> zip t ({other}) |> map (\\{q} -> {use}))'
        else:
            s = self.rng.choice([2, 4])
            body = f'{c} |> {first} |> split {s} |> transpose |> join |> map {self.fn()}'
        return (f'kernel k (N: nat) (alpha: float) (xs ys: [N]float) =\n'
                f'  {src}\n  |> split {k}\n  |> map (\\{c} -> {body})\n  |> join\n')

    def kernel(self):
        shape = self.rng.choice(['vector', 'vector', 'sum', 'chunks', 'matrix', 'rows'])
        zipped = self.rng.random() < 0.4
        src = ('zip (zip xs ys) xs' if self.nested else 'zip xs ys') if zipped else 'xs'
        if shape in ('vector', 'sum', 'chunks'):
            params = '(N: nat) (alpha: float) (xs ys: [N]float)'
            stages = self.maps(zipped)
            if shape == 'sum':
                op, z = self.reduction()
                stages.append(f'reduce {op} {z}')
            elif shape == 'chunks':
                op, z = self.reduction()
                c = self.name('c')
                k = self.rng.choice([2, 4, 8, 16])
                inner = ' |> '.join([c] + self.maps(zipped) + [f'reduce {op} {z}'])
                stages = [f'split {k}', f'map (\\{c} -> {inner})']
        else:
            params = '(M N: nat) (alpha: float) (mat: [M][N]float)'
            src = 'mat |> transpose' if self.rng.random() < 0.5 else 'mat'
            row = self.name('row')
            if shape == 'matrix':
                stages = [f'map (map {self.fn()})']
            else:
                op, z = self.reduction()
                stages = [f'map (\\{row} -> {row} |> map {self.fn()} |> reduce {op} {z})']
        body = '\n  |> '.join([src] + stages)
        return f'kernel k {params} =\n  {body}\n'


def generate_high_level(seed, index, extra=()):
    """High-level program number index of the stream seed (its text);
    extra: the OPTIONAL features asked for."""
    rng = random.Random(f'{seed}:{index}:high-level')
    # drawn apart, so that the other programs of a stream stay as they were
    nested = random.Random(f'{seed}:{index}:nested').random() < 0.3
    # a loop over a shared array, in place of the kernel drawn, for a few
    # programs of a stream: drawn apart, so that the others stay as they were
    loop = random.Random(f'{seed}:{index}:loop').random() < 0.15
    # n-body's shape (float4 bodies), in place of a few of the others: drawn apart too
    soa = not loop and random.Random(f'{seed}:{index}:soa').random() < 0.1
    # a matrix product's shape, drawn apart as loop is
    product = not loop and not soa and random.Random(f'{seed}:{index}:product').random() < 0.1
    # a sum of vectors (accumulators after reduceLanes), drawn apart too
    vsum = not loop and not soa and not product and random.Random(f'{seed}:{index}:vsum').random() < 0.1
    # (--with neighbours) a map reading another's result at other
    # elements, in place of half the others: drawn apart too
    neighbours = 'neighbours' in extra and random.Random(f'{seed}:{index}:neighbours').random() < 0.5
    hl = HighLevel(rng, nested)
    text = (hl.neighbours_kernel() if neighbours else hl.soa_kernel() if soa else hl.product_kernel() if product
            else hl.loop_kernel() if loop else hl.vector_sum_kernel() if vsum else hl.kernel())
    with_ = ''.join(f' --with {x}' for x in sorted(extra))
    return (f'-- generated by tests/diff/gen.py --high-level --seed {seed} --index {index}{with_}\n'
            f'-- ARGS: --high-level\n' + text)
