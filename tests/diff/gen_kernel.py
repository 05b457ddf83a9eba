"""gen_kernel.py: the kernels of gen.py's programs.

A kernel's inputs (maybe gathered through idx inputs), its top-level
stages on the grid and its shape (one stage, a pair of stages, a zip of
two stages, sequential), its defs and parameters."""
import re

from gen_types import Size, S, num, arr, pair, idx_t, par, Ctx, GenFail, MAX_ELEMS


class Kernels:
    """Kernels: sources, top-level stages and the program text."""

    def kernel(self):
        stype = self.pick(['float', 'double', 'int'], [70, 15, 15])
        two_d = self.chance(0.25)
        nats = ['M', 'N'] if two_d else ['N']
        ctx = Ctx(level='top', in_wg=False, grid=frozenset(), local=frozenset(), loops=(), local_loops=(),
                  scalars=[], arrays=[], depth=self.pick(self.odds([1, 2, 2, 3], [2, 2, 3, 3])), ind='  ', stype=stype,
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
            self.helper_body = body
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
            res = self.updates_stage(ctx, two_d)
            if res is None:
                res = self.private_loop_stage(ctx, two_d)
            if res is None:
                res = self.padded_rows_stage(ctx, two_d)
            if res is None:
                res = self.dep_result_stage(ctx, two_d)
            if res is not None:
                e, t = res
            else:
                e, t = self.dep_top_stage(ctx, two_d) or self.top_stage(ctx, two_d)
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
        updates = f' updates {self.updates}' if self.updates else ''
        return f'{helper_def}{defs}kernel k {params}{perms}{updates} =\n  {e}\n', nats

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

    def private_loop_stage(self, ctx, two_d):
        """A 1-D kernel whose work-items each copy a chunk of K = 5 to 16
        elements to a private array (toPrivate) and then loop over it,
        mapped element by element or as a window of three (padClamp 1 1
        |> slide 3 1): a constant loop reading a private array at its
        variable plus constants, which codegen unrolls whole (`#pragma
        unroll K`, codegen/kir.c, array_loop).  Loops of at most 4 steps
        are written out instead.  Drawn from a stream of its own, in place
        of a few kernels: None otherwise."""
        r = self.unroll_r
        if r is None or two_d or r.random() >= 0.04:
            return None
        el = num(ctx.stype)
        k = r.choice([5, 6, 7, 8, 9, 12, 16])
        n = Size.var('N')
        self.need_div(n, k)
        xs = self.new_input(arr(n, el))
        self.cost(ctx, n)
        c, x, y = self.fresh('c'), self.fresh('x'), self.fresh('y')
        f = self.scalar_expr([(x, el)], el, 2)
        if r.random() < 0.5:
            g = self.scalar_expr([(y, el)], el, 2)
            rest = f'mapSeq (\\{y} -> {g})'
            self.feat('private-loop-map')
        else:
            w = self.fresh('w')
            g = (f'(idx {w} 0 * 3 + idx {w} 2) % 1009' if el[1] == 'int'
                 else f'idx {w} 0 * 0.5 + idx {w} 2 - idx {w} 1 * 0.25')
            rest = f'padClamp 1 1 |> slide 3 1 |> mapSeq (\\{w} -> {g})'
            self.feat('private-loop-window')
        nl = self.nl(ctx)
        e = (f'{xs}{nl}|> split {k}{nl}|> mapGlobal (\\{c} ->{nl}    {c} |> toPrivate (mapSeq (\\{x} -> {f}))'
             f' |> {rest}){nl}|> join')
        return e, arr(n, el)

    def padded_rows_stage(self, ctx, two_d):
        """A 1-D kernel whose work-groups (or work-items) each copy K rows
        of M elements to local (or private) memory, pad the rows by
        padClamp l r and map or reduce each padded row, or return them:
        the partition pass cuts the loop over the rows at the padding
        (codegen/partition.c), and the rows of the unclamped middle are
        read through a pointer into the temporary whose offset subtracts
        the padding, `loc + (i*M - l*M)` (the C printer's parentheses:
        regress/row_pointer_past_local_end.dpia).  Drawn from a stream
        of its own, in place of a few kernels: None otherwise."""
        r = self.padrow_r
        if r is None or two_d or r.random() >= 0.04:
            return None
        el = num(ctx.stype)
        local = r.random() < 0.5
        # more than 4 rows in the middle for a private array, whose loops
        # of at most 4 steps codegen writes out, constant offsets then
        k = r.choice([2, 3, 4, 8] if local else [5, 6, 8])
        m = r.choice([2, 3, 4])
        lo, hi = r.choice([(1, 1), (2, 1), (1, 2), (2, 2), (3, 1)])
        rest = r.choice(['map', 'reduce', 'copy'])
        n = Size.var('N')
        self.need_div(n, k * m)
        xs = self.new_input(arr(n, el))
        self.cost(ctx, n)
        self.cost(ctx, n.divc(k * m) * S((k + lo + hi) * m))
        c, row, x, y, a = (self.fresh(b) for b in ('c', 'r', 'x', 'y', 'a'))
        f = self.scalar_expr([(x, el)], el, 2)
        level = 'mapLocal' if local else 'mapSeq'
        if rest == 'map':
            g = self.scalar_expr([(y, el)], el, 2)
            tail = f' |> {level} (mapSeq (\\{y} -> {g}))'
        elif rest == 'reduce':
            step = f'({a} * 3 + {y}) % 1009' if el[1] == 'int' else r.choice([f'{a} * 0.5 + {y}', f'{y} - {a} * 0.5'])
            tail = f' |> {level} (\\{row} -> {row} |> reduceSeq (\\{y} {a} -> {step}) 0)'
        else:
            tail = ''
        nl, nl2, nl3 = self.nl(ctx), self.nl(ctx) + '    ', self.nl(ctx) + '      '
        if local:
            self.local_sizes[0] += [S(k), S(k + lo + hi)]
            body = f'{c}{nl3}|> split {m}{nl3}|> toLocal (mapLocal (mapSeq (\\{x} -> {f})))'
            top = 'mapWorkgroup'
        else:
            body = f'{c}{nl3}|> split {m}{nl3}|> toPrivate (mapSeq (mapSeq (\\{x} -> {f})))'
            top = 'mapGlobal'
        body += f'{nl3}|> padClamp {lo} {hi}{tail}'
        self.feat(f'padded-rows-{"local" if local else "private"}-{rest}')
        e = f'{xs}{nl}|> split {k * m}{nl}|> {top} (\\{c} ->{nl2}{body}){nl}|> join'
        if rest == 'reduce':
            return e, arr(n.divc(k * m) * S(k + lo + hi), el)
        return e, arr(n.divc(k * m) * S(k + lo + hi), arr(S(m), el))

    def top_stage(self, ctx, two_d, kind=None, dim=None):
        e, t = self.source(ctx, two_d)
        e, t = self.views(e, t, ctx, self.pick([0, 1, 1, 2, 3]))
        kind = kind or self.pick(['mapGlobal', 'mapWorkgroup'], self.odds(None, [1, 3]))
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

    def use_def(self, name):
        if name not in self.used_defs:
            self.used_defs.append(name)
