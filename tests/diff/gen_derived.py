#!/usr/bin/env python3
"""gen_derived.py: strategy programs derived by random walks of the rewrite rules.

`gen.py` writes strategy programs directly; `gen.py --high-level`
(gen_high.py) writes high-level ones (plain `map` and `reduce`) whose rule
applications tests/unit/test_rewrite.c checks in the reference
interpreter alone.  This module joins the two: it takes the high-level
program of a seed and index and lowers it by a random walk over `dpia
rewrite`'s positions and rules (docs/language.md section 21: every rule of
dpia/rules.h at any position its listing names, with random parameters)
until plain `dpia check` accepts it, then chooses sizes that satisfy the
derived kernel's preconditions.  run_diff.py --derived runs these
programs on PoCL or Oclgrind as it runs gen.py's, so that the kernels the
rules make (vectorised, tiled, regrouped by partialReduce or treeReduce,
their maps lowered to any level, their temporaries placed in any memory)
are translated, run and compared with the reference interpreter, and
under Oclgrind checked for races, as `dpia explore` does for its macro
steps only and on PoCL only.

The walk: a free phase of 1 to 6 applications drawn among every rule the
listing offers (refusals, E1104 and E1105, drawn again), each kept only
if the program still checks apart from maps that have no level yet
(E0601); then a lowering phase (the lower* rules alone) until the program
checks.  A walk that ends elsewhere is drawn again (a retry: its own
random stream).  Each application talks to one `dpia batch` process
(include/dpia.h, dpia_batch), so that a derivation costs no process per
step.

The programs depend on dpia's rule table and listing as well as on the
seed: a new rule or position changes the walks.  They are not gen.py's:
the `diff` test's programs (gen.py, seed 1) stay as they were.

Usage:  gen_derived.py --dpia build/dpia --seed S [--index I] [--count K]
prints the programs with their `-- run:` line and derivation."""
import argparse
import json
import math
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_high import OPTIONAL, generate_high_level  # noqa: E402
from gen_types import MAX_ELEMS, MAX_LOCAL, Program  # noqa: E402

LOWERING = {'lowerGlobal', 'lowerWorkgroup', 'lowerLocal', 'lowerSeq', 'lowerReduceSeq'}
# how often a rule is drawn relative to the others: the parallel levels
# before the sequential ones (a walk would make mostly sequential kernels),
# the rules that reshape a program before the memory ones
WEIGHT = {'lowerGlobal': 3, 'lowerWorkgroup': 3, 'lowerLocal': 4, 'lowerSeq': 1, 'lowerReduceSeq': 1,
          'toGlobal': 1, 'toLocal': 2, 'toPrivate': 1}
OTHER_WEIGHT = 2
# the free phase's applications at most, and the lowering phase's
FREE_STEPS = 6
LOWER_STEPS = 12
RETRIES = 40
# the sizes: at most this many elements of any input (the reference
# interpreter and Oclgrind stay fast), and of one size variable
SIZE_ELEMS = 1 << 14
SIZE_TRIES = 400
# and at most this much work where an element's function loops over a
# whole input (gen_high.py's loop, n-body, k-means and matrix product
# shapes: the reduce of ws, qs or a column), counted as the product of
# the sizes times the largest (n-body's N*N, k-means' M*M*N)
LOOP_WORK = 1 << 17
LOOPS = ('ws |> reduce', 'qs |> reduce', 'mat |> transpose |> map')
# a difference of two equal terms (gen_high.py draws `alpha * x2 - alpha
# * x2`): 0 in the reference, a rounding residue on a device that
# contracts a*b - c*d into a fused multiply-add (OpenCL C's default
# FP_CONTRACT), which a sqrt then makes 1e-4 (seed 1 #78, E0005): no
# program has it
CANCELLING = re.compile(r'(?<![\w.])(\w+(?: \* [\w.]+)?) - \1(?![\w.])')
# a product of a row's vectors (gen_high.py's vector_sum_kernel: `reduce
# (\x a -> x * a) (vec W 1.0)` over asVector W of a row of N): each factor
# is at least 2^-8 in magnitude (alpha * p or p * p, the inputs at least
# 1/16: verify/compare.h, RNG_MIN_MAGNITUDE), and the reference computes
# float arithmetic in double (spec section 11), so at more than 126 / 8
# factors a lane the product may leave float's normal range (2^-126): the
# reference keeps 1.96e-52 where the device's float is 0, a relative error
# of 1 that is no fault of the kernel (seed 1119 #43 at N = 84, W = 2: 42
# factors).  No row has more than PRODUCT_FACTORS vectors.
PRODUCT = re.compile(r'reduce \(\\x a -> x \* a\) \(vec (\d+) 1\.0\)')
PRODUCT_FACTORS = 126 // 8


class DeriveFail(Exception):
    pass


class Batch:
    """One `dpia batch` process, a request a line (include/dpia.h)."""

    def __init__(self, dpia):
        self.proc = subprocess.Popen([dpia, 'batch'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def request(self, req):
        self.proc.stdin.write(json.dumps(req) + '\n')
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f'dpia batch ended (exit {self.proc.wait()}) on {json.dumps(req)[:200]}')
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def param_value(rng, param):
    """A random value of a rule's parameter (a listing's params entry):
    small chunks and tiles (the sizes stay small: every split of a
    derivation multiplies what N must be a multiple of), the vector
    widths, a dimension, a few halving steps."""
    name, doc = param['name'], param['doc']
    if name == 'dim':
        return rng.choice([0, 0, 0, 1])
    if name == 'k':
        return rng.choice([1, 1, 2, 3])
    if param['max'] == 16:  # a vector width
        return rng.choice([2, 2, 4, 4, 3, 8, 16])
    if 'tile' in doc:  # any length: 3 divides few sizes, its tail padded
        return rng.choice([2, 3, 4, 5, 8])
    return rng.choice([2, 2, 4, 4, 3, 8, 16])


def moves(listing, lowering_only):
    """(path, rule, params) of every rule at every position of the listing"""
    out = []
    for pos in listing['positions']:
        for r in pos['rules']:
            if lowering_only and r['rule'] not in LOWERING:
                continue
            out.append((pos['path'], r['rule'], r['params']))
    return out


def check_codes(batch, src):
    """the error codes plain `dpia check` gives ([]: it checks)"""
    res = batch.request({'action': 'check', 'source': src})
    return sorted({d['code'] for d in res['diagnostics'] if d['level'] == 'error'})


def step(batch, rng, src, lowering_only):
    """One application drawn at random among those that apply and keep the
    program checking but for unlowered maps: (new source, 'RULE@PATH
    n=V', checks) or None when none does."""
    res = batch.request({'action': 'rewrite', 'source': src, 'kernel': 'k'})
    if res['status'] != 'ok':
        raise DeriveFail(f'no listing: {res["diagnostics"][:1]}')
    # drawn in turn without replacement, each with its rule's weight
    # (the order of keys rand^(1/w), largest first)
    cands = sorted(moves(res['outputs'], lowering_only),
                   key=lambda m: -rng.random() ** (1 / WEIGHT.get(m[1], OTHER_WEIGHT)))
    for path, rule, params in cands:
        req = {'action': 'rewrite', 'source': src, 'kernel': 'k', 'apply': f'{rule}@{path}'}
        values = {p['name']: param_value(rng, p) for p in params}
        if values:
            req['params'] = values
        out = batch.request(req)
        if out['status'] != 'ok':
            continue  # a side condition (E1104) or a result that does not check (E1105)
        new = out['outputs']['program']
        codes = check_codes(batch, new)
        if codes and codes != ['E0601']:
            continue
        what = f'{rule}@{path}' + ''.join(f' {k}={v}' for k, v in values.items())
        return new, what, not codes
    return None


def size_value(expr, values):
    """a precondition's or launch size's value (C syntax, exact '/')"""
    if not re.fullmatch(r'[0-9A-Za-z_+\-*/%()<>=!&| ]+', expr):
        raise DeriveFail(f'a precondition not understood: {expr}')
    py = expr.replace('/', '//').replace('&&', ' and ').replace('||', ' or ')
    return eval(py, {'__builtins__': {}}, dict(values))  # noqa: S307


def choose_sizes(rng, names, input_dims, preconds, launch, loops, caps=None):
    """Values of the size variables satisfying every precondition, every
    input within SIZE_ELEMS elements (and LOOP_WORK when the program
    loops over an input in each element's function), every size within
    its cap (caps: {name: largest value}), and every work-group within
    MAX_LOCAL work-items; None when the draws find none."""
    caps = caps or {}
    multiple = {n: 1 for n in names}
    for p in preconds:
        m = re.fullmatch(r'(\w+) % (\d+) == 0', p)
        if m and m.group(1) in multiple:
            multiple[m.group(1)] = math.lcm(multiple[m.group(1)], int(m.group(2)))
    for _ in range(SIZE_TRIES):
        values = {}
        for n in names:
            top = max(1, int(SIZE_ELEMS ** (1 / max(1, len(names)))) // multiple[n])
            values[n] = multiple[n] * rng.randint(1, top)
        if any(math.prod(values[d] for d in dims) > SIZE_ELEMS for dims in input_dims):
            continue
        if loops and math.prod(values.values()) * max(values.values()) > LOOP_WORK:
            continue
        # drawn and refused (not drawn below the cap): the programs of
        # the sizes that were within it stay as they were
        if any(values[n] > cap for n, cap in caps.items() if n in values):
            continue
        try:
            if not all(size_value(p, values) for p in preconds):
                continue
            local = [size_value(x, values) for x in launch.get('local_size') or []]
        except ZeroDivisionError:
            continue
        if math.prod(local) > MAX_LOCAL:
            continue
        return values
    return None


def kernel_sizes(text):
    """the kernel's size variables in order, and each input's ([names of
    its dimensions])"""
    head = text.split('=', 1)[0]
    names = [n for group in re.findall(r'\(([\w ]+): nat\)', head) for n in group.split()]
    dims = []
    for group, typ in re.findall(r'\(([\w ]+): ((?:\[\w+\])+)\w+\)', head):
        dims += [re.findall(r'\[(\w+)\]', typ)] * len(group.split())
    return names, dims


def derive(batch, seed, index, extra=()):
    """Program number index of the stream seed: a Program (deterministic
    for a given dpia), its text with the derivation as a comment; extra:
    the high-level features asked for (gen_high.OPTIONAL)."""
    for retry in range(RETRIES):
        rng = random.Random(f'{seed}:{index}:{retry}:derived')
        # the walks of one high-level program first, then other programs
        # (a program whose walks all end elsewhere: none found so far)
        source = generate_high_level(seed, index if retry < RETRIES // 2 else f'{index}.{retry}', extra)
        if CANCELLING.search(source):
            continue
        src, steps, done = source, [], False
        try:
            for _ in range(rng.randint(1, FREE_STEPS)):
                got = step(batch, rng, src, False)
                if not got:
                    break
                src, what, done = got
                steps.append(what)
                if done:
                    break
            for _ in range(LOWER_STEPS):
                if done:
                    break
                got = step(batch, rng, src, True)
                if not got:
                    break
                src, what, done = got
                steps.append(what)
            if not done:
                continue
            res = batch.request({'action': 'translate', 'source': src, 'kernel': 'k', 'emit': 'json', 'verify': False})
            if res['status'] != 'ok':
                continue
            meta = res['outputs']['json']
            names, dims = kernel_sizes(src)
            product = PRODUCT.search(source)
            sizes = choose_sizes(rng, names, dims, meta.get('preconditions') or [], meta,
                                 any(x in source for x in LOOPS),
                                 {'N': PRODUCT_FACTORS * int(product.group(1))} if product else None)
        except DeriveFail:
            continue
        if sizes is None:
            continue
        if any(math.prod(sizes[d] for d in ds) > MAX_ELEMS for ds in dims):
            continue
        prog = Program(None, 'k', sizes, sorted({s.split('@')[0] for s in steps}))
        with_ = ''.join(f' --with {x}' for x in sorted(extra))
        header = (f'-- generated by tests/diff/gen_derived.py --seed {seed} --index {index}{with_} (retry {retry})\n'
                  + prog.run_line() + '\n'
                  + f'-- derived from the high-level program below by: {", ".join(steps)}\n'
                  + ''.join('-- | ' + line + '\n' for line in source.splitlines() if not line.startswith('--')))
        prog.text = header + src
        return prog
    raise RuntimeError(f'no derived program for seed {seed} index {index}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--dpia', required=True)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--index', type=int, default=0)
    ap.add_argument('--count', type=int, default=1)
    ap.add_argument('--with', dest='extra', action='append', default=[], choices=sorted(OPTIONAL),
                    help='a high-level feature that is off by default: '
                    + '; '.join(f'{k}: {v}' for k, v in OPTIONAL.items()))
    a = ap.parse_args()
    batch = Batch(os.path.abspath(a.dpia))
    try:
        for i in range(a.index, a.index + a.count):
            sys.stdout.write(derive(batch, a.seed, i, a.extra).text + '\n')
    finally:
        batch.close()


if __name__ == '__main__':
    main()
