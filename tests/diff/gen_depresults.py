"""gen_depresults.py: mirror and depJoin in gen.py's programs (--with depmaps).

Two results that write outside the one element a map's iteration owns,
drawn from a stream of their own (res_r), so that the programs of a seed
with --with depmaps are the ones they were, but for the kernels this
stream takes over:

- `mirror` (docs/language.md section 29.1), the symmetric square of an
  upper triangle, each iteration writing its element (i, j) and (j, i):
  over the rows of a dependent map placed in the square (`triangle xs |>
  depMapX (\\k row -> row |> mapSeq f |> padCst k 0 c) |> mirror`), over
  a square of positions whose lower half a `select` leaves out (`zip xs
  (indices n) |> mapGlobal (\\c1 -> zip xs (indices n) |> mapSeq (\\c2 ->
  select (snd c2 >= snd c1) ... c))`, PolyBench's covariance), over a
  square input mapped element by element (mapGlobal1 of mapGlobal,
  mapGlobal of mapSeq, mapWorkgroup of mapLocal), and a batch of squares
  each mirrored inside its work-item or work-group; maybe transposed
  after (an acceptor view).  The square's side is at times 1 or 2.  And
  programs the checker must refuse with E0505 (the generated program says
  `-- expect: reject E0505`, run_diff.py checks the code): a mirror into
  the temporary of a toLocal, toPrivate or toGlobal that a later stage
  reads, and a mirror in a kernel that `updates` its input;
- `depJoin` (section 30.2), a dependent map's rows stored packed, as the
  kernel's result or as the result of a toGlobal, toLocal or toPrivate
  function that a later stage reads as an ordinary array; the rows are
  `a + b*k` elements for row k: the triangle's row mapped (n - k), after
  `drop 1` (n - k - 1) or padded (`padCst 0 c`, n - k + c; `padCst k k`,
  n + k), or a `take (b*k + c)` (b*k + c) or `drop (b*k)` (b*n + c - b*k)
  of another input of b*n + c elements, b 1 or 2.

Every program is otherwise one gen.py writes: the functions of the rows
and elements are its random bodies, the sources its inputs and views."""
from gen_types import S, Size, MAX_ELEMS, MAX_LOCAL, MAX_LOCAL_MEM, MAX_PRIVATE, GenFail, arr, leaves, num, pair, par


class DepResults:
    """Kernels whose result is a mirror or a depJoin, from the stream res_r."""

    def dep_result_stage(self, ctx, two_d):
        """A kernel's stage written through mirror or depJoin, or None
        unless the stream chooses one (about one kernel in ten)."""
        r = self.res_r
        if r is None or 'depmaps' not in self.extra or r.random() >= 0.1:
            return None
        # the kernels this stream writes: (feature, weight, writer)
        forms = [('mirror-dep', 3, self.res_mirror_dep), ('mirror-select', 2, self.res_mirror_select),
                 ('mirror-square', 2, self.res_mirror_square), ('mirror-batch', 1, self.res_mirror_batch),
                 ('mirror-reject', 2, self.res_mirror_reject), ('depjoin-result', 3, self.res_depjoin_result),
                 ('depjoin-temp', 2, self.res_depjoin_temp)]
        form, _, write = r.choices(forms, [w for _, w, _ in forms])[0]
        self.feat(form)
        # squares of N*N and rows packed in about N*N/2 elements: N small
        # enough for a buffer, chosen below it rather than found by chance
        self.n_cap = 256
        return write(ctx, two_d)

    # ---- helpers ----------------------------------------------------------

    def res_small(self, n):
        """Now and then a square of side 1 or 2: n at most 2."""
        if self.res_r.random() < 0.2 and not n.is_const():
            side = self.res_r.choice([1, 2])
            self.need_le(n, side)
            (m, coef), = n.terms.items() if len(n.terms) == 1 else ((None, 0),)
            if m == (('N', 1),):  # c*N: N at most side/c
                self.n_cap = int(side / coef)
            self.feat('small-side')

    def res_leaf(self, t, ctx):
        lv = [l for l in leaves(t) if l[1] != 'bool']
        return self.res_r.choice(lv) if lv else num(ctx.stype)

    def res_mirror(self, e, t, ctx):
        """e |> mirror, maybe transposed after (written through)."""
        assert t[0] == 'arr' and t[2][0] == 'arr' and t[1] == t[2][1], t
        self.need_le(t[1] * t[1], MAX_ELEMS)
        e = f'{e}{self.nl(ctx)}|> mirror'
        if self.res_r.random() < 0.2:
            e += f'{self.nl(ctx)}|> transpose'
            self.feat('mirror-transposed')
        return e, t

    def res_batch(self, two_d, private):
        """(batch count, side) of a batch of squares: [N][s][s], s constant
        (1 to 8, or at most 4 for private memory) in 1-D programs, M in 2-D
        ones unless private."""
        if two_d and not private:
            return Size.var('N'), Size.var('M')
        s = self.res_r.choice([1, 2, 2, 3, 4] if private else [1, 2, 3, 4, 5, 8])
        return Size.var('N'), S(s)

    def res_elem_fn(self, el, ctx, target=None):
        """(\\x -> f x) over an element el at ctx (sequential), and its type."""
        x = self.fresh(self.var_base(el))
        b, u = self.body(x, el, ctx, target)
        return self.lam(x, b, ctx), u

    # ---- mirror -----------------------------------------------------------

    def res_dep_source(self, ctx, two_d):
        """a source array through views, and the dependent map to take its triangle with (kind, dim)"""
        r = self.res_r
        e, t = self.source(ctx, two_d)
        e, t = self.views(e, t, ctx, r.choice([0, 0, 1]))
        self.res_small(t[1])
        kind = r.choice(['depMapGlobal', 'depMapGlobal', 'depMapWorkgroup', 'depMapSeq'])
        dim = 1 if two_d and kind != 'depMapSeq' and r.random() < 0.3 else 0
        return e, t, kind, dim

    def res_mirror_dep(self, ctx, two_d):
        """triangle SRC |> depMapX (\\k row -> row |> mapSeq f |> padCst k 0 c) |> mirror"""
        e, t, kind, dim = self.res_dep_source(ctx, two_d)
        e, t = self.dep_map(e, t, ctx, kind, dim, how='pad')
        return self.res_mirror(e, t, ctx)

    def res_mirror_select(self, ctx, two_d):
        """zip SRC (indices n) |> mapX (\\c1 -> zip SRC (indices n) |> mapY (\\c2 ->
        select (snd c2 >= snd c1) (f c1 c2) c)) |> mirror: the lower half
        computed as a constant, never written."""
        r = self.res_r
        src, st = self.source(ctx, two_d)
        n, el = st[1], st[2]
        self.res_small(n)
        outer, inner_kind = r.choice([('mapGlobal', 'mapSeq'), ('mapGlobal', 'mapSeq'), ('mapWorkgroup', 'mapLocal')])
        c1, c2 = self.fresh('c'), self.fresh('c')
        zipped = f'zip {par(src)} (indices {n.arg()})'
        self.cost(ctx, n)
        octx = self.inner_ctx(ctx, outer, 0, n)
        self.cost(octx, n)
        ictx = self.inner_ctx(octx, inner_kind, 0, n)
        if inner_kind == 'mapLocal':
            self.need_le(n, MAX_LOCAL)
            self.local_sizes[0].append(n)
        # the element of the row, c1's, is in scope of the body over c2's
        comps = self.components(f'fst {c1}', el)
        ictx = ictx.but(scalars=ictx.scalars + [c for c in comps if c[1][0] == 'num'],
                        arrays=ictx.arrays + [c for c in comps if c[1][0] == 'arr'])
        leaf = self.res_leaf(el, ctx)
        v, _ = self.body(f'fst {c2}', el, ictx.but(level='seq', grid_ok=False), leaf)
        other = self.lit(leaf[1], leaf[2] == 1)
        if leaf[2] > 1:
            other = f'(vec {leaf[2]} {other})'
        test = r.choice([f'snd {c2} >= snd {c1}', f'snd {c1} <= snd {c2}', f'snd {c2} > snd {c1}'])
        if '>' in test and '>=' not in test:
            self.feat('mirror-diagonal-other')  # the diagonal is the constant, as corr_kernel's
        body = f'select ({test}){self.nl(ictx)}    ({v}){self.nl(ictx)}    {other}'
        row = f'{zipped}{self.nl(octx)}|> {inner_kind} (\\{c2} ->{self.nl(ictx)}    {body})'
        e = f'{zipped}{self.nl(ctx)}|> {outer} (\\{c1} ->{self.nl(octx)}    {row})'
        self.feat(f'mirror-select-{outer}')
        return self.res_mirror(e, arr(n, arr(n, leaf)), ctx)

    def res_mirror_square(self, ctx, two_d, updates=False):
        """SQ |> mapGlobal1 (mapGlobal f) | mapGlobal (mapSeq f) |
        mapWorkgroup (mapLocal f) |> mirror, SQ a square input; with
        updates, the kernel updates SQ (f keeps the element's type)."""
        r = self.res_r
        n = Size.var('M' if two_d else 'N')  # the square's side
        self.res_small(n)
        el = num(ctx.stype)
        xs = self.new_input(arr(n, arr(n, el)))
        outer, inner_kind, odim = r.choice([('mapGlobal', 'mapGlobal', 1), ('mapGlobal', 'mapSeq', 0),
                                            ('mapWorkgroup', 'mapLocal', 0)])
        self.cost(ctx, n)
        octx = self.inner_ctx(ctx, outer, odim, n)
        self.cost(octx, n)
        ictx = self.inner_ctx(octx, inner_kind, 0, n)
        if inner_kind == 'mapLocal':
            self.need_le(n, MAX_LOCAL)
            self.local_sizes[0].append(n)
        f, u = self.res_elem_fn(el, ictx.but(level='seq', grid_ok=False), el if updates else None)
        rw = self.fresh('r')
        oprim = outer + (str(odim) if odim else '')
        e = f'{xs}{self.nl(ctx)}|> {oprim} (\\{rw} -> {rw} |> {inner_kind} {f})'
        self.feat(f'mirror-square-{oprim}-{inner_kind}')
        if updates:
            self.need_le(n * n, MAX_ELEMS)
            self.updates = xs
            return f'{e}{self.nl(ctx)}|> mirror', arr(n, arr(n, el))
        return self.res_mirror(e, arr(n, arr(n, u)), ctx)

    def res_mirror_batch(self, ctx, two_d):
        """BATCH |> mapWorkgroup (\\m -> m |> mapLocal (mapSeq f) |> mirror), or
        mapGlobal (\\m -> m |> mapSeq (mapSeq f) |> mirror): one square each."""
        r = self.res_r
        b, s = self.res_batch(two_d, False)
        el = num(ctx.stype)
        xs = self.new_input(arr(b, arr(s, arr(s, el))))
        outer, mid = r.choice([('mapWorkgroup', 'mapLocal'), ('mapGlobal', 'mapSeq')])
        self.cost(ctx, b)
        octx = self.inner_ctx(ctx, outer, 0, b)
        self.cost(octx, s)
        mctx = self.inner_ctx(octx, mid, 0, s)
        if mid == 'mapLocal':
            self.need_le(s, MAX_LOCAL)
            self.local_sizes[0].append(s)
        self.cost(mctx, s)
        f, u = self.res_elem_fn(el, mctx.but(level='seq', loops=mctx.loops + (s,), grid_ok=False))
        m, rw = self.fresh('m'), self.fresh('r')
        sq, _ = self.res_mirror(f'{m} |> {mid} (\\{rw} -> {rw} |> mapSeq {f})', arr(s, arr(s, u)), octx)
        self.feat(f'mirror-batch-{outer}')
        return f'{xs}{self.nl(ctx)}|> {outer} (\\{m} ->{self.nl(octx)}    {sq})', arr(b, arr(s, arr(s, u)))

    def res_mirror_reject(self, ctx, two_d):
        """A mirror the checker must refuse with E0505: into a toLocal,
        toPrivate or toGlobal temporary a later stage reads, or in a kernel
        that updates its input."""
        r = self.res_r
        how = r.choice(['toLocal', 'toLocal', 'toPrivate', 'toGlobal', 'updates'])
        self.expect = 'reject E0505'
        self.feat('mirror-reject-' + how)
        if how == 'updates':
            return self.res_mirror_square(ctx, two_d, updates=True)
        b, s = self.res_batch(two_d, how == 'toPrivate')
        el = num(ctx.stype)
        xs = self.new_input(arr(b, arr(s, arr(s, el))))
        outer, mid = ('mapWorkgroup', 'mapLocal') if how == 'toLocal' else ('mapGlobal', 'mapSeq')
        octx = self.inner_ctx(ctx, outer, 0, b)
        mctx = self.inner_ctx(octx, mid, 0, s)
        if mid == 'mapLocal':
            self.need_le(s, MAX_LOCAL)
            self.local_sizes[0].append(s)
        if how == 'toPrivate':
            self.need_le(s * s, MAX_PRIVATE)
        if how == 'toLocal':
            self.need_le(s * s, MAX_LOCAL_MEM)
        sctx = mctx.but(level='seq', loops=mctx.loops + (s,), grid_ok=False)
        f, u = self.res_elem_fn(el, sctx, el)
        g, _ = self.res_elem_fn(el, sctx, el)
        m, t, r1, r2 = self.fresh('m'), self.fresh('t'), self.fresh('r'), self.fresh('r')
        write = f'{t} |> {mid} (\\{r1} -> {r1} |> mapSeq {f}) |> mirror'
        return (f'{xs}{self.nl(ctx)}|> {outer} (\\{m} ->{self.nl(octx)}    {m}{self.nl(octx)}    '
                f'|> {how} (\\{t} -> {write}){self.nl(octx)}    |> {mid} (\\{r2} -> {r2} |> mapSeq {g}))',
                arr(b, arr(s, arr(s, el))))

    # ---- depJoin ----------------------------------------------------------

    def res_rows(self, k, row, n, el, ctx, sctx):
        """The function of row k of `triangle` over an [n]el, whose result
        has a + b*k elements: (text, a, b, leaf type)."""
        r = self.res_r
        rt = pair(el, el)
        leaf = self.res_leaf(el, ctx)
        form = r.choice(['row', 'row', 'drop1', 'padR', 'padK', 'take', 'drop'])
        self.feat('depjoin-rows-' + form)
        if form in ('take', 'drop'):
            b, c = r.choice([1, 1, 2]), r.choice([0, 1, 2, 3])
            leaf = num(ctx.stype)
            ys = self.new_input(arr(n * b + c, leaf))
            y = self.fresh('y')
            v, _ = self.body(y, leaf, sctx, leaf)
            if r.random() < 0.4:
                kv = k if leaf[1] == 'int' else f'to{leaf[1].capitalize()} {k}'
                v = f'({v}) + {kv}'
            bk = k if b == 1 else f'{b}*{k}'
            if form == 'take':
                start = bk if c == 0 else f'{bk} + {c}'
                return f'take ({start}) {ys} |> mapSeq {self.lam(y, v, sctx)}', S(c), S(b), leaf
            return f'drop ({bk}) {ys} |> mapSeq {self.lam(y, v, sctx)}', n * b + c, S(-b), leaf
        p = self.fresh('p')
        v, _ = self.body(p, rt, sctx, leaf)
        src = f'{row} |> drop 1' if form == 'drop1' else row
        text = f'{src} |> mapSeq {self.lam(p, v, sctx)}'
        if form in ('row', 'drop1'):
            return text, n - (1 if form == 'drop1' else 0), S(-1), leaf
        c = self.lit(leaf[1], leaf[2] == 1)
        if leaf[2] > 1:
            c = f'(vec {leaf[2]} {c})'
        if form == 'padR':
            w = r.choice([1, 2, 3])
            return f'{text} |> padCst 0 {w} {c}', n + w, S(-1), leaf
        return f'{text} |> padCst {k} {k} {c}', n, S(1), leaf

    def res_dep_join(self, e, t, ctx, kind, dim):
        """triangle e |> kind (\\k row -> ROW) |> depJoin: (text, [count]leaf)."""
        n, el = t[1], t[2]
        k, row = self.fresh('k'), self.fresh('row')
        level = {'depMapGlobal': 'mapGlobal', 'depMapWorkgroup': 'mapWorkgroup', 'depMapSeq': 'mapSeq'}[kind]
        self.cost(ctx, n)
        inner = self.inner_ctx(ctx, level, dim, n)
        sctx = inner.but(level='seq', loops=inner.loops + (n * 2 + 3,), ind=inner.ind + '      ', grid_ok=False)
        self.cost(inner, n * 2 + 3)  # the longest row: at most 2*n + 3 elements
        text, a, b, leaf = self.res_rows(k, row, n, el, ctx, sctx)
        # the rows one after another: a*n + b*n*(n-1)/2 elements (section 30)
        count = a * n + b * n * (n - 1) * Size.const(1).divc(2)
        self.need_le(count, MAX_ELEMS)
        prim = kind if dim == 0 else f'{kind}{dim}'
        self.feat(prim)
        lam = f'(\\{k} {row} ->{self.nl(ctx)}    {text})'
        # at least one element, as every array the generator makes
        # (mk_arr): the rows of a 1-element triangle after `drop 1`, or
        # `take k` of a row, are empty, and a later stage may be a parallel
        # map over the packed rows, which check refuses over no elements
        # (E0404; seed 2 #307 --with depmaps: split 1, then each chunk's
        # triangle depJoin'ed, 0 elements, then mapLocal over it)
        return f'triangle {par(e)}{self.nl(ctx)}|> {prim} {lam}{self.nl(ctx)}|> depJoin', self.mk_arr(count, leaf)

    def res_depjoin_result(self, ctx, two_d):
        """triangle SRC |> depMapX (\\k row -> ROW) |> depJoin: the kernel's result."""
        e, t, kind, dim = self.res_dep_source(ctx, two_d)
        return self.res_dep_join(e, t, ctx, kind, dim)

    def res_depjoin_temp(self, ctx, two_d):
        """A work-item's or work-group's row made a packed triangle in a
        temporary (toGlobal, toPrivate, toLocal) that the rest of its body
        reads as an ordinary array."""
        r = self.res_r
        if two_d:
            src = self.new_input(arr(Size.var('M'), arr(Size.var('N'), num(ctx.stype))))
            b, s = Size.var('M'), Size.var('N')
        else:
            s = S(r.choice([1, 2, 3, 4, 5, 8]))
            self.need_div(Size.var('N'), int(s.const_value()))
            xs = self.new_input(arr(Size.var('N'), num(ctx.stype)))
            src, b = f'{xs} |> split {s}', Size.var('N').divc(int(s.const_value()))
            self.need_ge(b, 1)
        outer = r.choice(['mapGlobal', 'mapWorkgroup'])
        mems = ['toLocal'] if outer == 'mapWorkgroup' else ['toGlobal'] + (['toPrivate'] if s.is_const() else [])
        mem = r.choice(mems)
        self.cost(ctx, b)
        octx = self.inner_ctx(ctx, outer, 0, b)
        c, tv = self.fresh('c'), self.fresh('t')
        tctx = octx.but(ind=octx.ind + '      ')
        joined, jt = self.res_dep_join(tv, arr(s, num(ctx.stype)), tctx, 'depMapSeq', 0)
        count = jt[1]
        if mem == 'toPrivate':
            self.need_le(count, MAX_PRIVATE)
        if mem == 'toLocal':
            self.need_le(count, MAX_LOCAL_MEM)
        self.feat(f'depjoin-temp-{mem}')
        tmp = f'{c}{self.nl(octx)}    |> {mem} (\\{tv} ->{self.nl(tctx)}    {joined})'
        later, u = self.body(tmp, jt, octx.but(grid_ok=False, depth=1))
        if tmp not in later:
            raise GenFail('the temporary is not read')  # no test of it
        return f'{src}{self.nl(ctx)}|> {outer} (\\{c} ->{self.nl(octx)}    {later})', arr(b, u)
