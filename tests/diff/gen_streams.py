"""gen_streams.py: the constructs of gen.py drawn from streams of their own.

Each one is decided by a random generator of its own (Gen.__init__),
never by the main one, so that adding it left the programs of a seed as
they were, some of them now with the construct: array literals, dropped
def arguments, reduceRange, reductions as a select's side, scanSeq,
slideSeq, unzipped and scattered results, kernels updating part of an
input in place, accumulators updated by nested mapLocal levels; and the vector lanes of --with vectors (clampIdx of a
position: gen_scalar.py's components, a stream of its own too)."""

import re

from gen_types import GenFail, S, Size, arr, num, pair, idx_t, par, MAX_PRIVATE, MAX_LOCAL, MAX_LOCAL_MEM, lane_name


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
        # not 0.5: the reductions' `a * 0.5` and inits of 2.0 make values
        # 0.5 plus a residue float cannot hold (seed 1127 #17: 0.5 + 2e-8,
        # 0.5 once stored), which the device's select sees as not above
        # 0.5 and the reference's double as above (dpia run --check: E0005)
        c = r.choice(['0', '2'] if target[1] == 'int' else ['0.0', '0.45', '(-0.25)'])
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
        lr = self.letlit_r
        if lr is not None and lr.random() < 0.5:
            # the last position bound by let to its literal: an index of
            # the window and a value of its elements' type (a vector's
            # broadcast) at once (docs/language.md section 11)
            last = self.fresh('l')
            body = f'let {last} = {s - 1} in {bod.format(w=w, l=last)} + idx {w} ({last} - 1) * {last}'
            self.feat('let-literal-index')
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

    def row_scan_update(self, ctx):
        """A 2-D kernel that updates its input in place, each work-item
        scanning K adjacent rows of M elements side by side (K = 2 to 4):
        element i + 1 of a row read through `transpose |> drop 1` and
        stored through `padCst 1 0 |> transpose`, whose indices come out
        as different sums of the same terms (gid*M*3 + M + i + 1 and
        gid*M*3 + M + 1 + i), one element by codegen/in_place.c's
        same_index, which compares them as polynomials
        (tests/structure/in_place_rows.dpia).  In place of some of the
        2-D updates kernels, from a stream of its own."""
        r = self.inplace_r
        el = num(ctx.stype)
        k = r.choice([2, 3, 4])
        m = Size.var('N')
        self.need_ge(m, 2)
        xs = self.new_input(arr(Size.var('M'), arr(m * S(k), el)))
        self.cost(ctx, Size.var('M') * m * S(k))
        if el[1] == 'int':
            step = r.choice(['(fst p + snd p * 2) % 1009', '(fst p * 3 - snd p) % 1009'])
        else:
            step = r.choice(['fst p * 0.5 + snd p', 'fst p + 0.5 * snd p', 'fst p - snd p * 0.25',
                             'fma (fst p) 0.5 (snd p)'])
        blk, rows, firsts, rw, col, prevs = (self.fresh(x) for x in ('blk', 'rows', 'firsts', 'r', 'col', 'prevs'))
        nl = self.nl(ctx)
        e = (f'{xs}{nl}|> mapGlobal (\\{blk} ->{nl}    let {rows} = {blk} |> split N in{nl}'
             f'    let {firsts} = {rows} |> toPrivate (mapSeq (\\{rw} -> idx {rw} 0)) in{nl}'
             f'    {rows} |> transpose |> drop 1{nl}'
             f'    |> scanSeq (\\{col} {prevs} -> zip {col} {prevs} |> mapSeq (\\p -> {step})) {firsts}{nl}'
             f'    |> padCst 1 0 {firsts} |> transpose |> join)')
        self.updates = xs
        self.feat(f'updates-row-scan-{k}')
        return e, arr(Size.var('M'), arr(m * S(k), el))

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
        if two_d and self.inplace_r is not None and self.inplace_r.random() < 0.5:
            return self.row_scan_update(ctx)
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
        statements = r'\blet\b|\|> \(\\|\['
        if re.search(statements, f) or (re.search(r'\bh\b', f) and re.search(statements, self.helper_body)):
            # the element bound to a name (let, an applied lambda) or put
            # in an array literal is read by a statement before the store:
            # E0704, as docs/language.md section 27 says (only a read in the
            # store's right-hand side is proved pointwise); so is a helper
            # def's (seed 1040 #838: h's array literal made a select two
            # ifs, the second's test reading the element the first stored)
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

    def nested_acc_stage(self, e, t, ctx):
        """A work-group's reduceSeq whose array accumulator [m1][m0] (or
        [m1][m0][k]: a work-item's k elements) is updated by two nested
        mapLocal levels of distinct dimensions (1 over rows then 0, or 0
        then 1), work-item (i, j) reading and writing element [i][j] only:
        updated in place, and kept in the work-item's private memory when
        the code after the loop reads each element by the work-item of
        the same levels (docs/language.md section 2.1, "Nested levels";
        SHOC's sgemmNN, issue 40 item 10).  Variants: the row and the
        accumulator zipped in either order at either level, the
        accumulator not read, or read at a neighbour's element (then
        through `next`, in local memory); after the loop the same levels
        (registers), a join read by a mapLocal of dimension 0 (local
        memory), or nothing.  One in eight drawn (about one in five kept:
        they fail no size requirement) is a mistake check must refuse
        with E0602, both levels of one dimension.  Drawn from a stream of
        its own, so the programs of a seed are the ones they were unless
        it is drawn; None where it does not fit (decided before any
        random choice of the main stream)."""
        r = self.nest_r
        n, el = t[1], t[2]
        if r is None or ctx.level != 'wg' or ctx.local:
            return None
        if el[0] == 'num' and el[1] != 'bool':
            leaf, row_len = el, None
        elif (el[0] == 'arr' and el[2][0] == 'num' and el[2][1] != 'bool' and el[1].is_const()
              and el[1].const_value() in (4, 8, 16, 32, 64)):
            leaf, row_len = el[2], int(el[1].const_value())
        else:
            return None
        if r.random() >= 0.6:
            return None
        # the shape: k elements a work-item, m0 columns, m1 rows
        k = r.choice([1, 1, 1, 2, 4])
        m0 = r.choice([2, 4, 8])
        m1 = r.choice([1, 2, 4])
        if row_len is not None:
            if row_len % (k * m0):
                k, m0 = 1, 2
            m1 = row_len // (k * m0)
            if m1 > 16:
                return None
            rows, src = n, e
        else:
            block = m1 * m0 * k
            self.need_div(n, block)
            rows = n.divc(block)
            self.need_ge(rows, 1)
            src = f'{e}{self.nl(ctx)}|> split {block}'
        split_k = f' |> split {k}' if k > 1 else ''
        w = self.fresh('w')
        src = f'{src} |> map (\\{w} -> {w}{split_k} |> split {m0})'
        outer = r.choice([1, 1, 1, 0])
        inner = 1 - outer

        def prim(d):
            return 'mapLocal1' if d == 1 else r.choice(['mapLocal', 'mapLocal0'])
        how = r.choice(['zip', 'zip', 'zip', 'noread', 'neighbour'])
        if how == 'neighbour' and m0 < 2:
            how = 'zip'
        reject = r.random() < 0.125
        p_out, p_in = prim(outer), prim(inner)
        if reject:
            # both levels of one dimension (mapLocal for mapLocal1, the
            # slip a user makes): spec section 5, E0602
            p_in = prim(outer)
            self.expect = 'reject E0602'
            self.feat('nested-acc-reject-same-dim')
        else:
            self.need_le(S(m1 * m0), MAX_LOCAL)
            self.local_sizes[outer].append(S(m1))
            self.local_sizes[inner].append(S(m0))
            self.need_le(S(m1 * m0 * k), MAX_LOCAL_MEM)
        self.cost(ctx, rows * S(m1 * m0 * k))
        elt = arr(S(k), leaf) if k > 1 else leaf
        init = self.new_input(arr(S(m1), arr(S(m0), elt)))
        row, a, q, p, s = (self.fresh(x) for x in ('r', 'a', 'q', 'p', 's'))
        inner_ctx = ctx.but(level='local', local=frozenset({0, 1}), loops=ctx.loops + (rows, S(m1), S(m0)),
                            local_loops=ctx.local_loops + (S(m1), S(m0)), grid_ok=False, own_local=(inner, S(m0)))
        ii = leaf[1] == 'int'

        def value(x):
            """A new element from the row's element x (and the old one)."""
            val = self.scalar_expr(inner_ctx.scalars + [(x, leaf)], leaf, 2)
            if not re.search(r'\b' + re.escape(x.split()[-1]) + r'\b', val):
                val = f'{par(val)} + {x}'
            return val

        def update(x, y):
            """The new element from the row's x and the accumulator's y:
            order matters (not commutative)."""
            v = value(x)
            return f'({y} * 3 + {par(v)}) % 1009' if ii else f'{y} * 0.5 + {par(v)}'

        def leafwise(el_x, el_y, f):
            """f over a work-item's element: a scalar, or k of them by mapSeq."""
            if k == 1:
                return f(el_x, el_y)
            return f'zip {el_x} {el_y} |> mapSeq (\\{s} -> {f(f"fst {s}", f"snd {s}")})'
        if how == 'noread':
            x = self.fresh('x')
            body = value(x) if k == 1 else f'{x} |> mapSeq (\\{s} -> {value(s)})'
            step = f'{row} |> {p_out} (\\{q} -> {q} |> {p_in} (\\{x} -> {body}))'
        else:
            acc_first_out = r.random() < 0.3
            acc_first_in = r.random() < 0.3
            outer_zip = f'zip {a} {row}' if acc_first_out else f'zip {row} {a}'
            ro, ao = (f'snd {q}', f'fst {q}') if acc_first_out else (f'fst {q}', f'snd {q}')
            if how == 'neighbour':
                ao = par(f'{ao} |> padClamp 1 0 |> take {m0}')
            inner_zip = f'zip {par(ao)} {par(ro)}' if acc_first_in else f'zip {par(ro)} {par(ao)}'
            ri, ai = (f'snd {p}', f'fst {p}') if acc_first_in else (f'fst {p}', f'snd {p}')
            body = leafwise(par(ri) if k > 1 else ri, par(ai) if k > 1 else ai, update)
            step = f'{outer_zip} |> {p_out} (\\{q} -> {inner_zip} |> {p_in} (\\{p} -> {body}))'
        nl = self.nl(ctx)
        e = f'{src}{nl}|> reduceSeq (\\{row} {a} ->{nl}     {step}){nl}     {init}'
        t = arr(S(m1), arr(S(m0), elt))
        after = r.choice(['own', 'own', 'join', 'none'])
        if reject and after != 'none':
            after = 'own'
        def reader(x):
            """A function of a work-item's element x after the loop."""
            y = self.fresh('y') if k > 1 else x
            g = self.scalar_expr(inner_ctx.scalars + [(y, leaf)], leaf, 1)
            if not re.search(r'\b' + y + r'\b', g):
                g = f'{par(g)} + {y}'
            return g if k == 1 else f'{x} |> mapSeq (\\{y} -> {g})'
        if after == 'own':
            c, x = self.fresh('c'), self.fresh('x')
            e = f'{e}{nl}|> {prim(outer)} (\\{c} -> {c} |> {prim(inner)} (\\{x} -> {reader(x)}))'
        elif after == 'join':
            x = self.fresh('x')
            body = reader(x)
            self.need_le(S(m1 * m0), MAX_LOCAL)
            self.local_sizes[0].append(S(m1 * m0))
            e = f'{e}{nl}|> join |> {prim(0)} (\\{x} -> {body})'
            t = arr(S(m1 * m0), elt)
        self.last_kind = 'mapLocal'
        self.feat(f'nested-acc-{outer}{inner}-{how}' + (f'-k{k}' if k > 1 else '') + f'-{after}')
        return e, t
