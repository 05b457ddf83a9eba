"""gen_sizes.py: the size requirements of a generated program and their
solution.

Every split, asVector, slide, take, drop... records the divisibility or
range requirement it needs (need_div, need_ge, need_le), every loop its
work (cost); solve then picks values of N (and M) satisfying all of them
within the work budget."""
import math
from fractions import Fraction

from gen_types import arr, GenFail, MAX_LOCAL, WORK_BUDGET, NMAX


class SizeRules:
    """Size requirements and work estimates, and the sizes that satisfy them."""

    def need_div(self, n, c):
        if c == 1:
            return
        if n.is_const():
            if n.const_value() % c != 0:
                raise GenFail(f'{n} not divisible by {c}')
            return
        self.constraints.add(('div', n, c))

    def need_ge(self, n, c):
        if n.is_const():
            if n.const_value() < c:
                raise GenFail(f'{n} < {c}')
            return
        self.constraints.add(('ge', n, c))

    def need_le(self, n, c):
        if n.is_const():
            if n.const_value() > c:
                raise GenFail(f'{n} > {c}')
            return
        self.constraints.add(('le', n, c))

    def mk_arr(self, n, e):
        self.need_ge(n, 1)
        return arr(n, e)

    def cost(self, ctx, n):
        p = n
        for l in ctx.loops:
            p = p * l
        self.costs.append(p)

    def local_product(self, ctx, n):
        p = n
        for l in ctx.local_loops:
            p = p * l
        return p

    def solve(self, nats):
        # A dimension whose constant mapLocals all run over one element and
        # another over a symbolic size has no work-group size dpia can fix:
        # check rejects it (codegen/kernel.c, choose: never silently 1)
        for d in (0, 1):
            consts = [n.const_value() for n in self.local_sizes[d] if n.is_const()]
            if consts and max(consts) == 1 and any(not n.is_const() for n in self.local_sizes[d]):
                raise GenFail()
        # the work-group size is the largest mapLocal of each dimension; a
        # mapLocal whose body holds a barrier must be that largest one
        # (map_stage: else it is guarded and the barrier is not reached by
        # every work-item, E0604)
        # ... and dpia makes a constant mapLocal's trip count the local size
        # rather than a symbolic one's (codegen/kernel.c, choose), the first
        # symbolic one only where there is no constant: then the symbolic
        # one is a loop over the group, whose last round guards the barrier
        # (seed 110 #149: mapLocal over N/8 with a barrier, local size 8 of
        # a later mapLocal over 8, N = 480)
        for d, n in self.fill_local:
            if not n.is_const() and any(m.is_const() or m != n for m in self.local_sizes[d]):
                raise GenFail('a barrier in a mapLocal that is not the local size')
            for m in self.local_sizes[d]:
                self.need_ge(n - m, 0)
        for a in self.local_sizes[0]:
            for b in self.local_sizes[1]:
                self.need_le(a * b, MAX_LOCAL)
        cons = []
        for kind, n, c in self.constraints:
            f, d = n.compile()
            cons.append((kind, f, d, c, set(x for m in n.terms for x, _ in m)))
        costs = [c.compile() for c in self.costs]

        def ok(env, only=None):
            for kind, f, d, c, vs in cons:
                if only is not None and not vs <= only:
                    continue
                v = f(env)
                if kind == 'div':
                    if v % (d * c) != 0:
                        return False
                elif kind == 'ge':
                    if v < c * d:
                        return False
                elif v > c * d:
                    return False
            return True

        def work(env):
            return sum(Fraction(f(env), d) for f, d in costs)

        def with_ceilings(env):
            # n has no ceil atom of its own (splitPad), so one pass computes them
            for name, (n, k) in self.ceilings.items():
                env[name] = -(-int(n.value(env)) // k)
            return env

        # N: a multiple of the lcm of the moduli of requirements on N alone
        base = 1
        for kind, n, c in self.constraints:
            if kind == 'div' and n.single_term() and set(x for m in n.terms for x, _ in m) == {'N'}:
                (m, coef), = n.terms.items()
                if m == (('N', 1),):
                    q = coef.denominator * c
                    g = q // math.gcd(q, coef.numerator)
                    base = base * g // math.gcd(base, g)
        for _ in range(8):
            env = {}
            if 'M' in nats:
                ms = [m for m in range(1, 65) if ok(with_ceilings({'M': m, 'N': 1}), only={'M'})]
                if not ms:
                    raise GenFail('no M')
                env['M'] = self.pick(ms)
            target = math.exp(self.r.uniform(math.log(max(base, 24)), math.log(NMAX)))
            cands = list(range(base, NMAX + 1, base)) or [base]
            if self.n_cap is not None:
                # N at most n_cap (gen_depresults.py: a square's side, 1 or
                # 2 at times), rather than a target its requirements refuse
                cands = [x for x in cands if x <= self.n_cap] or [base]
            cands.sort(key=lambda x: abs(math.log(x) - math.log(target)) + self.r.random() * 0.3)
            for nv in cands[:400]:
                env['N'] = nv
                with_ceilings(env)
                if ok(env) and work(env) <= WORK_BUDGET:
                    return dict((k, env[k]) for k in nats)
            if 'M' not in nats:
                break
        raise GenFail('no sizes')
