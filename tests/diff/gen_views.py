"""gen_views.py: layout views of gen.py's programs (spec section 4).

split, join, transpose, asVector/asScalar, reorderStride, take, drop,
padClamp/padCst, slide, splitPad, plain maps of views, and the arrays of
the same length a zip pairs an array with."""
import re

from gen_types import Size, S, num, arr, idx_t, has_arrays, can_make, GenFail


class Views:
    """Views over an array, each recording the requirement on sizes it needs."""

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
        # --with shared: more splits, joins, transposes and vectors
        opts += self.odds([], ['split', 'vec', 'vec'] + (['join', 'transpose', 'transpose'] if el[0] == 'arr' else [])
                          + (['scalar'] if el[0] == 'num' and el[2] > 1 else []))
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
        return self.pick(choices, self.odds([3, 1, 4, 1, 3, 2, 1], [3, 2, 4, 1, 3, 3, 0])[:len(choices)]
                         if len(choices) == 7 else None)

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
            k = self.pick([2, 4, 8, 4, 2, 16, 3], self.odds([4, 4, 3, 0, 0, 1, 1], [3, 3, 3, 0, 0, 3, 1]))
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
