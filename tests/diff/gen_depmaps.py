"""gen_depmaps.py: dependent maps in gen.py's programs (--with depmaps).

`triangle xs` is the dependent array whose row k holds the n - k pairs
(xs[k], xs[k + j]); depMapSeq, depMapGlobal and depMapWorkgroup map a
function over its rows, checked once for a row k of its own
(docs/language.md section 30).  The generator writes them at the top of a
kernel (a dependent map of the grid, or a sequential one) and as the last
stage of a work-item's or sequential body, from a stream of its own, so
that the programs of a seed are the ones they were without --with depmaps.

A row's function reads its row through views that keep the rules of
section 30: a reduction over the row (reduceSeq, or reduceRange, whose
bounds the row clamps), maybe after `drop 1` (the last row empty) or
`take 1`, `map fst` or `map snd`; or `mapSeq f |> padCst k 0 c`, the row
placed in the square from the diagonal on.  The rules hold by
construction: the map is given both its function and the triangle
(E0333), every row gives a value of one type (no row-sized result or
temporary, E0334; the row's stages are fused into the reduction or the
final map), nothing outside the function takes a row's size (E0335), no
row is indexed (E0336), the views are linear in k (E0409), and a row is
mapped sequentially (E0410).  The row's own size, n - k, is tracked as n
(the triangle's count): an upper bound for the work estimate, and no
requirement is made of it (a requirement of a size using k would be the
checker's business at the rows' ends, not the solver's)."""
from gen_types import MAX_ELEMS, GenFail, arr, leaves, num, pair, par


class DepMaps:
    """Dependent maps over a triangle, drawn from the stream dep_r."""

    def dep_wanted(self, p):
        r = self.dep_r
        return r is not None and 'depmaps' in self.extra and r.random() < p

    def dep_top_stage(self, ctx, two_d):
        """A kernel's stage `triangle SRC |> depMapX f`: a dependent map of
        the grid (depMapGlobal, depMapWorkgroup, dimension 0 or 1) or a
        sequential one, maybe followed by acceptor views; None unless the
        stream chooses one."""
        if not self.dep_wanted(0.15):
            return None
        r = self.dep_r
        e, t = self.source(ctx, two_d)
        e, t = self.views(e, t, ctx, r.choice([0, 0, 1]))
        kind = r.choice(['depMapGlobal', 'depMapGlobal', 'depMapWorkgroup', 'depMapSeq'])
        dim = 1 if two_d and kind != 'depMapSeq' and r.random() < 0.3 else 0
        e, t = self.dep_map(e, t, ctx, kind, dim)
        if kind != 'depMapSeq':
            e, t = self.views(e, t, ctx, r.choice([0, 0, 1]), acceptor_only=True)
        return e, t

    def dep_stage(self, e, t, ctx):
        """The last stage of a work-item's or sequential body as a
        sequential dependent map over the triangle of e; None unless the
        stream chooses one."""
        if ctx.level not in ('global', 'local', 'seq') or not self.dep_wanted(0.12):
            return None
        return self.dep_map(e, t, ctx, 'depMapSeq', 0)

    def dep_map(self, e, t, ctx, kind, dim, how=None):
        """triangle e |> kind (\\k row -> ...): (text, type [n]b); how
        'pad' asks for the rows placed in the square (gen_depresults.py's
        mirror), else the stream chooses."""
        r = self.dep_r
        n, el = t[1], t[2]
        lv = [l for l in leaves(el) if l[1] != 'bool']
        leaf = r.choice(lv) if lv else num(ctx.stype)
        k, row = self.fresh('k'), self.fresh('row')
        level = {'depMapGlobal': 'mapGlobal', 'depMapWorkgroup': 'mapWorkgroup', 'depMapSeq': 'mapSeq'}[kind]
        self.cost(ctx, n)
        inner = self.inner_ctx(ctx, level, dim, n)
        if level != 'mapSeq':
            self.feat(f'top-{level}{dim}')
        # the row's index as a value: an int where a value is expected
        kv = k if leaf[1] == 'int' else f'to{leaf[1].capitalize()} {k}'
        if leaf[2] > 1:
            kv = f'vec {leaf[2]} ({kv})'
        rt = arr(n, pair(el, el))  # n - k elements, tracked as n (see above)
        forced, how = how, how or r.choice(['reduce', 'reduce', 'reduce', 'pad'])
        if how == 'pad' and (n * n).is_const() and (n * n).const_value() > 4096:
            if forced:
                raise GenFail('a square too large')
            how = 'reduce'
        if how == 'pad':
            # the row's values placed in the square from the diagonal on:
            # k + (n - k) = n elements (docs/language.md section 30.1)
            p = self.fresh('p')
            sctx = inner.but(level='seq', loops=inner.loops + (n,), ind=inner.ind + '      ', grid_ok=False)
            self.cost(inner, n)
            v, _ = self.body(p, rt[2], sctx, leaf)
            if r.random() < 0.5:
                v = f'({v}) + {kv}'
            c = self.lit(leaf[1], leaf[2] == 1)
            if leaf[2] > 1:
                c = f'(vec {leaf[2]} {c})'
            self.feat('depmap-pad')
            self.need_le(n * n, MAX_ELEMS)
            body = f'{row}{self.nl(inner)}|> mapSeq {self.lam(p, v, inner)}{self.nl(inner)}|> padCst {k} 0 {c}'
            bt = arr(n, leaf)
        else:
            body, bt = row, rt
            view = r.choice(['', '', '', 'drop 1', 'take 1', 'map fst', 'map snd'])
            if view:
                body = f'{body} |> {view}'
                if view.startswith('map'):
                    bt = arr(n, el)
                self.feat('depmap-row-' + view.replace(' ', '-'))
            body, _ = self.reduce_stage(body, bt, inner, leaf)
            if r.random() < 0.4:
                body = f'({body}) + {kv}'
                self.feat('depmap-row-index')
            bt = leaf
        self.feat(kind + (str(dim) if dim else ''))
        if leaf[2] == 1 and n.is_const() and n.const_value() == 1:
            self.feat('depmap-one-row')
        prim = kind if dim == 0 else f'{kind}{dim}'
        lam = f'(\\{k} {row} ->{self.nl(ctx)}    {body})'
        return f'triangle {par(e)}{self.nl(ctx)}|> {prim} {lam}', arr(n, bt)

