"""gen_scalar.py: scalar and vector expressions of gen.py's programs.

Literals, the math built-ins, conversions, lets and applied lambdas
(sharing), helper and template defs, over the numeric phrases in scope;
the numeric components of a phrase (pairs, gathers, indices)."""
import re

from gen_types import num, pair, par


class ScalarExprs:
    """Expressions of a numeric type from the numeric phrases in scope."""

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

    def _sx(self, usable, s, w, depth):
        if depth <= 0 or self.chance(0.25):
            if usable and self.chance(0.85):
                t, ty = self.pick(usable)
                return self.literal_leaf(t, s, ty[2]), ty[2], t not in self.constant_names
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
            if not ua:
                # a name bound to literals alone is no use of a variable:
                # an expression of literals has the type its context gives,
                # float with none (docs/reference.md section 4.5), so the
                # body of `def h (y: double)` must read y (seed 101 #472
                # --with vectors: `h` of literals alone was a float, E0302)
                self.constant_names.add(name)
                if wa == 1 and w > 1 and not (op == 'let' and re.fullmatch(r'\(?-?[0-9.]+f?\)?', a)):
                    # and one type for all its uses (anything but a let of
                    # a literal, docs/language.md section 11): the first
                    # operator next to a vector made it that vector, and
                    # `vec 2 t` or a lane's use of it an error (E0301;
                    # seed 1207 #883, gen53's check sweep); typed, it is the
                    # scalar broadcast where it meets a vector
                    a = f'({a} : {s})'
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

    def components(self, e, t):
        if t[0] == 'idx' and t[-1] == 'position':
            # an element of indices n (docs/language.md section 22): the
            # element of the input at that position, and the position as a
            # value, compared with a constant and with the last index
            s = t[3][1]
            conv = {'float': 'toFloat', 'double': 'toDouble', 'int': 'toInt'}[s]
            k = self.ix_r.choice([1, 2, 3])
            zero = "0" if s == "int" else "0.0"
            value = (f'select ({par(e)} < {k} || {par(e)} == {t[1].expr(self.ceilings)} - 1) '
                     f'({conv} ({par(e)} % 5)) {zero}')
            self.feat('indices-compare')
            if self.clamp_r is not None and self.clamp_r.random() < 0.5:
                # the position offset, out of range near either end, made
                # an index again by clampIdx (docs/language.md section 22):
                # the input read at the clamped neighbour, or the clamped
                # position compared with the element's own (equal where the
                # clamp moved it back, and for offset 0 everywhere)
                d = self.clamp_r.choice([-3, -2, -1, 1, 2, 3])
                near = f'clampIdx {t[1].arg()} (toInt {par(e)} {"-" if d < 0 else "+"} {abs(d)})'
                if self.clamp_r.random() < 0.6:
                    value = f'idx {t[2]} ({near})'
                    self.feat('clamp-idx-read')
                else:
                    value = f'select (({near}) == {par(e)}) ({conv} ({par(e)} % 5)) {zero}'
                    self.feat('clamp-idx-compare')
            return self.components(f'idx {t[2]} {par(e)}', t[3]) + [(value, num(s))]
        if t[0] == 'idx':  # a gather
            self.feat('gather-' + ('row' if t[3][0] == 'arr' else 'scalar'))
            return self.components(f'idx {t[2]} {par(e)}', t[3])
        if t[0] == 'pair':
            return self.components(f'fst {par(e)}', t[1]) + self.components(f'snd {par(e)}', t[2])
        return [(e, t)]

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

    def let_literal_value(self, text, out):
        """text, a value of the numeric type out, maybe plus a name bound to
        an integer literal and used at two types (docs/language.md section
        11): the program's (a float, a vector broadcast, or an int) and
        another, an int under a conversion to a float program's type or a
        float under toInt in an int program.  Added, not multiplied: the
        value may be a reduction's step.  Drawn from a stream of its own,
        so the programs of a seed are the ones they were, some of their
        values wrapped."""
        r = self.letlit_r
        if r is None or out[0] != 'num' or out[1] == 'bool' or r.random() >= 0.06:
            return text
        s, w = out[1], out[2]
        name = self.fresh('c')
        k = r.choice(['2', '3', '5'])
        if s == 'int':
            other = f'toInt ({name} * 0.5)'  # a float there
        else:
            conv = 'toDouble' if s == 'double' else 'toFloat'
            other = f'{conv} ({name} % 3 * {name})'  # an int there
        if w > 1:
            other = f'vec {w} ({other})'
        self.feat('let-literal-two-types' + ('-vec' if w > 1 else ''))
        return f'let {name} = {k} in {par(text)} + {name} + {other}'

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
        return self.let_literal_value(self.scalar_expr(vars_, out, self.pick([1, 2, 2, 3])), out)
