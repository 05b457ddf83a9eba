"""gen_streams.py: the constructs of gen.py drawn from streams of their own.

Each one is decided by a random generator of its own (Gen.__init__),
never by the main one, so that adding it left the programs of a seed as
they were, some of them now with the construct: array literals, dropped
def arguments, reduceRange, reductions as a select's side, scanSeq,
slideSeq, unzipped and scattered results, kernels updating part of an
input in place; and the vector lanes of --with vectors (clampIdx of a
position: gen_scalar.py's components, a stream of its own too)."""

import re

from gen_types import GenFail, S, Size, arr, num, pair, idx_t, par, MAX_PRIVATE, MAX_LOCAL, lane_name


class Streams:
    """Constructs drawn from streams of their own; each returns its phrase
    unchanged (or None) when its stream is off or does not fit."""

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

    def updates_stage(self, ctx, two_d):
        """A kernel that updates part of an input in place (docs/language.md
        section 27): `updates xs [a .. N-1-b]` (2-D: and `[c .. N-1-d]` of
        the rows), its result the region, each element computed from the
        element itself (and maybe the element of another input of xs's
        shape at the same place, jacobi2d's copy-back) by the work-item
        that writes it; the rest of xs is never written, and run --check
        compares all of it.  Drawn from a stream of its own, in place of
        about one kernel in thirteen: None otherwise."""
        r = self.upd_r
        if r is None or 'updates' in self.avoid or r.random() >= 0.08:
            return None
        el = num(ctx.stype)
        dims = [Size.var('M'), Size.var('N')] if two_d else [Size.var('N')]
        xs = self.new_input(arr(dims[0], arr(dims[1], el)) if two_d else arr(dims[0], el))
        ys = self.new_input(arr(dims[0], arr(dims[1], el)) if two_d else arr(dims[0], el)) if r.random() < 0.4 else None
        ends = [(r.choice([0, 0, 1, 2]), r.choice([0, 0, 1, 3])) for _ in dims]
        if all(a == 0 and b == 0 for a, b in ends) and r.random() < 0.7:
            ends[-1] = (1, 1)
        lens, regions, views = [], [], []
        for n, (a, b) in zip(dims, ends):
            self.need_ge(n, a + b + 1)
            lens.append(n - S(a + b) if a + b else n)
            regions.append(f'[{a} .. {n} - {1 + b}]')
            v = (f' |> drop {a}' if a else '') + (f' |> take ({n} - {a + b})' if a + b else '')
            views.append(v)
        region = '' if all(a == 0 and b == 0 for a, b in ends) else ' ' + ''.join(regions)
        kind = r.choice(['mapGlobal', 'mapGlobal', 'mapWorkgroup'])
        if two_d and kind == 'mapWorkgroup':
            kind = 'mapGlobal'
        self.cost(ctx, lens[0])
        ictx = self.inner_ctx(ctx, 'mapGlobal1' if two_d else kind, 1 if two_d else 0, lens[0])
        if two_d:
            self.cost(ictx, lens[1])
            ictx = self.inner_ctx(ictx, 'mapGlobal', 0, lens[1])
        if ys is not None:
            f, _ = self.res_elem_fn(pair(el, el), ictx.but(level='seq', grid_ok=False), el)
            self.feat('updates-zip')
        else:
            f, _ = self.res_elem_fn(el, ictx.but(level='seq', grid_ok=False), el)
        if re.search(r'\blet\b|\|> \(\\|\[', f):
            # the element bound to a name (let, an applied lambda) or put
            # in an array literal is read by a statement before the store:
            # E0704, as docs/language.md section 27 says (only a read in the
            # store's right-hand side is proved pointwise)
            raise GenFail('updates: the element read outside the store')
        nl = self.nl(ctx)

        def src(name, i):
            return f'{name}{views[i]}'
        if two_d:
            rw = self.fresh('r')
            if ys is not None:
                q = self.fresh('q')
                e = (f'zip ({src(xs, 0)}) ({src(ys, 0)}){nl}|> mapGlobal1 (\\{q} -> '
                     f'zip (fst {q}{views[1]}) (snd {q}{views[1]}) |> mapGlobal {f})')
            else:
                e = f'{src(xs, 0)}{nl}|> mapGlobal1 (\\{rw} -> {rw}{views[1]} |> mapGlobal {f})'
            t = arr(lens[0], arr(lens[1], el))
        else:
            body = f'zip ({src(xs, 0)}) ({src(ys, 0)})' if ys is not None else src(xs, 0)
            if kind == 'mapWorkgroup':
                k = self.chunk(lens[0], (2, 4, 8))
                self.need_div(lens[0], k)
                self.need_le(S(k), MAX_LOCAL)
                self.local_sizes[0].append(S(k))
                e = f'{body}{nl}|> split {k} |> mapWorkgroup (mapLocal {f}) |> join'
            else:
                e = f'{body}{nl}|> mapGlobal {f}'
            t = arr(lens[0], el)
        self.updates = xs + region
        self.feat(f'updates-{len(dims)}d-{kind}' + ('-region' if region else ''))
        return e, t
