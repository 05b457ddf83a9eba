"""gen_stages.py: the stages of gen.py's pipelines.

A function body, a pipeline of views and stages, map stages of every
level with their materialisation, and reductions (non-commutative
steps, compound and array accumulators, a work-group's accumulator in
local memory).  The hierarchy rules of spec section 5 hold by
construction (map_kinds, inner_ctx)."""
import re

from gen_types import (S, num, arr, pair, leaves, can_make, has_idx, flat, pair_with_array, const_sized, par, GenFail,
                       MAX_LOCAL, MAX_LOCAL_MEM, MAX_PRIVATE)


class Stages:
    """Bodies, pipelines, maps and reductions."""

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

    def pipeline(self, e, t, ctx, target=None):
        """A pipeline over the array e : t at ctx: views, zips, map stages,
        ending in a final map or (with a target: always) a reduction."""
        can_reduce = ctx.level in ('global', 'local', 'seq') or (ctx.level == 'wg' and self.chance(self.odds(0.1, 0.3)))
        nstages = self.pick(self.odds([1, 1, 2, 2, 3], [1, 2, 2, 3, 3])) if ctx.depth > 0 else 1
        if 'own-tmp' in self.avoid and ctx.level not in ('wg', 'top'):
            nstages = 1
        # an earlier stage of this body written to memory other work-items
        # read (not a private temporary): a nested mapLocal that reads it
        # needs a barrier inside the enclosing mapLocal's body (map_stage)
        shared = False
        for st in range(nstages):
            last = st == nstages - 1
            e, t = self.views(e, t, ctx, self.pick([0, 0, 1, 1, 2]), target)
            if self.chance(0.15):
                p, pt = self.same_length_partner(e, t, ctx, target)
                e, t = f'zip {par(e)} {par(p)}', arr(t[1], pair(t[2], pt[2]))
                self.feat('zip')
                if re.search(r'\bmap(Seq|Local|Global|Workgroup)', p):  # a temporary: no nested grid map after it
                    ctx = ctx.but(grid_ok=False)
                    shared = True
            if not last and ctx.level == 'wg' and self.chance(self.odds(0.4, 0.6)):
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
                shared = shared or self.last_mem != 'toPrivate'
                # a grid-level map's body that holds another grid-level map
                # runs in every work-item of the inner one: it may make no
                # temporary but a private one (dpia rejects it, strategy.c)
                if self.last_mem != 'toPrivate' or 'toGlobal' in e or 'toLocal' in e:
                    ctx = ctx.but(grid_ok=False)
                continue
            if ctx.level == 'wg' and target is None:
                # nested mapLocal levels over an array accumulator (a
                # stream of its own: gen_streams.py)
                res = self.nested_acc_stage(e, t, ctx)
                if res is not None:
                    return res
            if ctx.level == 'wg' and target is None and self.chance(self.odds(0.25, 0.45)):
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
            res = self.dep_stage(e, t, ctx) or self.scan_stage(e, t, ctx) or self.slide_stage(e, t, ctx)
            if res is not None:
                return res
            if self.chance(0.05) and not pair_with_array(t) and not has_idx(t):
                self.feat('view-only-body')
                return self.views(e, t, ctx, 1)
            # the final map; views after it only pass through acceptors when
            # it was a grid-level map (no barrier across work-groups)
            e, t = self.map_stage(e, t, ctx, final=True, shared_before=shared)
            grid_final = self.last_kind in ('mapGlobal', 'mapWorkgroup') or \
                (self.last_kind == 'mapLocal' and ctx.level == 'local')
            if self.chance(0.3) and not ('own-tmp' in self.avoid and ctx.level != 'wg'):
                e, t = self.views(e, t, ctx, 1, acceptor_only=grid_final)
            return e, t
        raise AssertionError

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

    def map_stage(self, e, t, ctx, final, target=None, shared_before=False):
        """e |> mapX f, materialised (toPrivate/toLocal/toGlobal or the
        implicit global temporary) unless final.  shared_before: an
        earlier stage of the body wrote memory that other work-items read
        (a nested mapLocal here needs a barrier before it)."""
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
            if ctx.level == 'local' and shared_before:
                # the barrier before this nested mapLocal is inside the
                # enclosing one's body: every work-item of the group must
                # reach it (spec section 5, last rule), so the enclosing
                # mapLocal must run once per work-item, its trip count the
                # largest of its dimension (gen_sizes.py, solve); else a
                # guard `if (lid < n)` around it, and check refuses the
                # program with E0604 (seed 11 #793,
                # regress/nested_local_after_stage_guarded.dpia)
                self.fill_local.append(ctx.own_local)
                self.feat('nested-mapLocal-after-shared-stage')
        btarget = None
        if target is not None:
            btarget = target if target[0] == 'num' else target[1]
        # materialisation of an intermediate stage
        mem = ''
        if not final and kind in ('mapSeq', 'mapLocal'):
            mems = [('toGlobal', self.odds(2, 4)), ('', 2)]
            if ctx.in_wg:
                mems.append(('toLocal', self.odds(4, 12) if kind == 'mapLocal' else self.odds(2, 6)))
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

    def inner_ctx(self, ctx, kind, dim, n):
        ind = ctx.ind + '      '
        loops = ctx.loops + (n,)
        if kind == 'mapGlobal':
            return ctx.but(level='global', grid=ctx.grid | {dim}, loops=loops, ind=ind)
        if kind == 'mapWorkgroup':
            return ctx.but(level='wg', in_wg=True, grid=ctx.grid | {dim}, loops=loops, ind=ind)
        if kind == 'mapLocal':
            return ctx.but(level='local', local=ctx.local | {dim}, loops=loops,
                           local_loops=ctx.local_loops + (n,), ind=ind, grid_ok=False, own_local=(dim, n))
        return ctx.but(level='seq', loops=loops, ind=ind, grid_ok=False)

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

    def reduce_stage(self, e, t, ctx, target=None):
        n, el = t[1], t[2]
        self.cost(ctx, n)
        if (target is None and el[0] == 'arr' and el[1].is_const() and el[1].const_value() <= 16
                and el[2][0] == 'num' and self.chance(0.5)):
            return self.reduce_array_acc(e, t, ctx)
        padded = None
        if target is None and el[0] == 'num' and el[1] != 'bool' and (
                self.chance(self.odds(0.12, 0.3)) or self.padrow_r is not None and (padded := self.padrow_r.random() < 0.12)):
            # rows of a split, reduced into an array accumulator
            c = self.chunk(n, (2, 4, 8, 16)) if n.is_const() else self.pick([2, 4, 8, 16])
            self.need_div(n, c)
            e, rows, c = self.padded_rows(e, n, el, c, ctx, padded)
            e, t = f'{e}{self.nl(ctx)}|> split {c}', self.mk_arr(rows, arr(S(c), el))
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

    def padded_rows(self, e, n, el, c, ctx, padded=None):
        """e : [n]el about to be split into rows of c for a reduction, maybe
        padded by padCst at both ends first, by whole rows (a*c and b*c) or
        shifted by s < c (a*c + s and b*c - s): codegen/partition.c cuts
        the reduction's loop into the padding's steps and the data's, each
        with its padding tests decided.  The rows are mostly of 2 to 4
        elements, whose loops codegen writes out, so that the partition
        cuts the reduction's loop and not a row's; an array of 2 to 4 is
        often one row itself, the data's step then a single one whose
        variable is a constant (`const int i = 1`; push_side's tightened
        facts, regress/pad_guard_constant_row_warning.dpia).  Drawn from a
        stream of its own, so the programs of a seed are the ones they
        were (padded: that stream chose this reduction, the main one did
        not).  Returns e, the row count and c."""
        r = self.padrow_r
        if r is None or not padded and r.random() >= 0.4:
            return e, n.divc(c), c
        # rows of at most 4 elements, whose loops codegen writes out, so
        # that the partition cuts the reduction's loop rather than a row's
        if n.is_const():
            nv = int(n.const_value())
            small = [d for d in (2, 3, 4) if nv % d == 0 and d < nv]
            if 2 <= nv <= 4 and r.random() < 0.6 or nv <= 4 and not small:
                c = nv
            elif small and r.random() < 0.8:
                c = r.choice(small)
        elif r.random() < 0.7:
            c = r.choice([2, 3, 4])
        self.need_div(n, c)
        # most often 5 rows or more: a reduction of at most 4 steps is
        # written out whole (codegen/opencl.c, UNROLL_MAX), no loop to cut
        a, b = r.choice([(1, 1), (0, 2), (2, 2), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2)])
        s = r.randrange(1, c) if b > 0 and c > 1 and r.random() < 0.3 else 0
        if el[1] == 'int':
            v = r.choice(['1', '2', '3', '0'])
        else:
            v = r.choice(['0.5', '1.5', '2.0', '0.25'])
        if el[2] != 1:
            v = f'(vec {el[2]} {v})'
        self.cost(ctx, S(c * (a + b)))
        self.feat('padded-rows-reduce' + ('-one' if n.is_const() and n.const_value() == c else '')
                  + ('-shift' if s else ''))
        return f'{e}{self.nl(ctx)}|> padCst {a * c + s} {b * c - s} {v}', n.divc(c) + (a + b), c

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
        # the accumulator's copy in (and the copy of its next value) runs
        # over all m of its elements in the mapLocal's dimension, whatever
        # the update's width: a mapLocal with a barrier in its body over
        # fewer is guarded (seed 1216 #183, gen53's check sweep: a nested
        # mapLocal1 after a sequential stage in a mapLocal0 over 4, the
        # local size 8 of a copy of `split 2`'s accumulator of 8, E0604)
        self.need_le(self.local_product(ctx, m), MAX_LOCAL)
        self.local_sizes[dim].append(m)
        if width != m:
            self.local_sizes[dim].append(width)
        self.need_le(self.local_product(ctx, m), MAX_LOCAL_MEM)
        self.cost(ctx, rows * m)
        row, a, p = self.fresh('r'), self.fresh('a'), self.fresh('p')
        init = self.new_input(arr(m, leaf))
        inner = ctx.but(level='local', local=ctx.local | {dim}, loops=ctx.loops + (rows, width),
                        local_loops=ctx.local_loops + (width,), grid_ok=False, own_local=(dim, width))
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
