/* access.c: acceptors to l-values and expressions to r-values (paper
 * Figure 6 b and c, spec section 8).
 *
 * gen_acc(A, ps) and gen_exp(E, ps) push the access path ps through the
 * layout views of A or E until an identifier is reached; the identifier's
 * storage (cgen.h) then turns the path into C: flat indices into buffers,
 * struct fields, vector lanes.  Index arithmetic is built with
 * codegen/index.h and simplified there with the ranges of the enclosing
 * loops. */
#include "cgen.h"

#include <stdlib.h>
#include <string.h>

/* ---- paths ---- */

static const Step *mk_step(CG *cg, StepKind kind, const Ix *ix, int n, const Step *next) {
  Step *s = NEW(cg->arena, Step);
  s->kind = kind;
  s->ix = ix;
  s->n = n;
  s->next = next;
  return s;
}

const Step *step_idx(CG *cg, const Ix *ix, const Step *next) { return mk_step(cg, STEP_IDX, ix, 0, next); }
const Step *step_field(CG *cg, int field, const Step *next) { return mk_step(cg, STEP_FIELD, NULL, field, next); }
static const Step *step_lane(CG *cg, const Ix *lane, const Step *next) {
  return mk_step(cg, STEP_LANE, lane, 0, next);
}

const Step *step_append(CG *cg, const Step *ps, Step s) {
  if (!ps) return mk_step(cg, s.kind, s.ix, s.n, NULL);
  return mk_step(cg, ps->kind, ps->ix, ps->n, step_append(cg, ps->next, s));
}

static const Ix *K(CG *cg, int64_t v) { return ix_const(&cg->ix, v); }

/* ---- phrase shapes ---- */

bool spine_of(Arena *a, const Phrase *p, Spine *s) {
  phrase_spine(a, p, s);
  if (s->head->kind == PH_PRIM) return true;
  s->head = NULL;
  s->nargs = 0;
  return false;
}

PhraseType *fn_param(PhraseType *t, int k) {
  for (int i = 0; i < k; i++) t = t->snd;
  ASSERT(t->kind == PT_FN || t->kind == PT_FN_P);
  return t->fst;
}

PhraseType *fn_result(PhraseType *t, int n) {
  for (int i = 0; i < n; i++) t = t->snd;
  return t;
}

/* number of arguments of an instantiated primitive */
static int prim_arity(const Phrase *head) {
  int n = 0;
  for (const PhraseType *t = head->type; t->kind == PT_FN || t->kind == PT_FN_P; t = t->snd) n++;
  return n;
}

/* the data type of the k-th parameter of an instantiated primitive */
static DataType *arg_data(const Spine *s, int k) {
  PhraseType *t = fn_param(s->head->type, k);
  ASSERT(t->kind == PT_EXP || t->kind == PT_ACC);
  return t->data;
}

static EnvEntry *env_find(CG *cg, const Binder *b) { return env_index_get(&cg->by_binder, b); }

Storage *phrase_storage(CG *cg, const Phrase *p) {
  if (p->kind == PH_PROJ) p = p->fst;
  if (p->kind != PH_VAR) return NULL;
  EnvEntry *e = env_find(cg, p->binder);
  return e && e->kind == ENV_STORAGE ? e->st : NULL;
}

const Binder *acc_root(CG *cg, const Phrase *a) {
  for (;;) {
    if (a->kind == PH_PROJ) a = a->fst;
    if (a->kind == PH_VAR) {
      EnvEntry *e = env_find(cg, a->binder);
      if (!e) return NULL;
      if (e->kind == ENV_ALIAS) {
        a = e->acc;
        continue;
      }
      return e->kind == ENV_STORAGE ? e->st->root : NULL;
    }
    Spine s;
    if (!spine_of(cg->arena, a, &s) || s.nargs < 1) return NULL;
    a = s.args[0]; /* every acceptor view takes its acceptor first */
  }
}

/* ---- expression helpers ---- */

static CExpr bin(CG *cg, KirBinop op, CExpr a, CExpr b) { return kir_binary(cg->arena, op, a, b); }
static CExpr at_index(CG *cg, CExpr base, const Ix *at) { return kir_index(cg->arena, base, kir_ix(cg->arena, at)); }

CExpr cg_ix_expr(CG *cg, const Ix *ix) { return kir_ix(cg->arena, ix); }

static KirSpace kir_space(Space sp) {
  switch (sp) {
  case SP_GLOBAL: return KSP_GLOBAL;
  case SP_LOCAL: return KSP_LOCAL;
  case SP_PRIVATE: break;
  }
  return KSP_PRIVATE;
}

static CExpr unsupported(CG *cg, Span span, const char *what) {
  cg_error(cg, ERR_CODEGEN_UNSUPPORTED, span, "cannot generate OpenCL for %s", what);
  return kir_int(cg->arena, 0);
}

static Target lvalue(CExpr e) { return (Target){TG_LVALUE, e, 0, NULL, NULL, NULL, NULL, NULL, NULL}; }

static Target bad_target(CG *cg) { return lvalue(kir_var(cg->arena, "x", kir_scalar1(SC_INT))); }

/* a pointer to elements of type elem in st's memory (const: an input) */
static const KirType *elements_of(CG *cg, const Storage *st, const KirType *elem) {
  return kir_pointer_type(cg->arena, elem, kir_space(st->space), st->space == SP_GLOBAL && st->read_only);
}

/* the variable of a storage: a buffer's is a pointer to its elements (a
 * packed buffer of 3-vectors': to their scalars), as a C array decays to
 * one; a value's is of the value's type */
static CExpr make_storage_var(CG *cg, const Storage *st) {
  if (st->kind != STORE_BUFFER) return kir_var(cg->arena, st->name, cg_value_type(cg, st->type));
  DataType *elem = dt_resolve(cg_elem_type(st->type));
  const KirType *t = st->packed3 ? kir_scalar1(elem->scalar) : cg_value_type(cg, elem);
  return kir_var(cg->arena, st->name, elements_of(cg, st, t));
}

/* made once per storage (Storage.var): the expressions of the kernel IR
 * are never changed once made, so one node serves every access.  Its
 * type's one effect, noting a use of double (cg_scalar_type), is made by
 * the first. */
static CExpr storage_var(CG *cg, const Storage *st) {
  if (!st->var) ((Storage *)st)->var = make_storage_var(cg, st); /* a cache: st is the arena's, not const */
  return st->var;
}

/* ---- literals ---- */

KirLit cg_scalar_literal(CG *cg, ScalarKind s, const Phrase *lit) {
  switch (s) {
  case SC_BOOL: return (KirLit){s, lit->lit_int != 0, 0};
  case SC_INT: return (KirLit){s, lit->lit_int, 0};
  case SC_FLOAT:
  case SC_DOUBLE:
    if (s == SC_DOUBLE) cg->uses_double = true;
    return (KirLit){s, 0, lit->lit_is_float ? lit->lit_float : (double)lit->lit_int};
  }
  INTERNAL("scalar kind");
}

/* A literal of vector type is the scalar broadcast (spec section 2):
 * printed as the scalar where C broadcasts it (an operand of arithmetic),
 * as (float4)(0.0f) where a vector value is needed. */
static bool split_indices(CG *cg, DataType **t, const Step **ps, const Ix **flat, bool simplify);

static CExpr gen_literal(CG *cg, const Phrase *lit, const Step *ps, bool operand) {
  if (lit->lit_is_size) /* a size used as a value, toFloat N (docs/language.md section 12) */
    return cg_ix_expr(cg, ix_simplify(&cg->ix, ix_from_size(&cg->ix, lit->lit_size)));
  DataType *t = dt_resolve(lit->type->data);
  const Phrase *value = lit;
  if (lit->lit_nelems > 0) { /* an element of the literal's constant array (consts.c) */
    const Ix *flat;
    const Step *rest = ps;
    if (!split_indices(cg, &t, &rest, &flat, true) || rest)
      return unsupported(cg, lit->span, "an array literal read other than element by element");
    /* every element the same (the zeros an accumulator starts from): the
     * element is that value, with no array to read it from */
    if (!cg_literal_splat(lit)) {
      const KirType *elems = kir_pointer_type(cg->arena, cg_value_type(cg, t), KSP_CONSTANT, false);
      return at_index(cg, kir_var(cg->arena, cg_table_name(cg, lit), elems), flat);
    }
    value = lit->lit_elems[0];
    ps = NULL;
  }
  if (t->kind != DT_SCALAR) return unsupported(cg, lit->span, "a literal of compound type");
  CExpr s = kir_lit(cg->arena, cg_scalar_literal(cg, t->scalar, value));
  if (ps && ps->kind == STEP_LANE) return s;
  if (t->width == 1 || operand) return s;
  return kir_vector(cg->arena, cg_scalar_type(cg, t->scalar, t->width), 1, &s);
}

/* ---- identifiers: the storage end of a path ---- */

static bool split_indices(CG *cg, DataType **t, const Step **ps, const Ix **flat, bool simplify) {
  const Ix *f = NULL;
  while ((*t)->kind == DT_ARRAY) {
    if (!*ps || (*ps)->kind != STEP_IDX) return false;
    /* the extent of the outermost dimension multiplies nothing: not made
     * (N/64 of a kernel's output, a fraction, is dear to make) */
    f = f ? ix_add(&cg->ix, ix_mul(&cg->ix, f, ix_from_size(&cg->ix, (*t)->size)), (*ps)->ix) : (*ps)->ix;
    *t = (*t)->elem;
    *ps = (*ps)->next;
  }
  *flat = f ? f : K(cg, 0);
  if (simplify) *flat = ix_simplify(&cg->ix, *flat);
  return true;
}

static void note_access(CG *cg, const Storage *st, bool write) {
  if (st->space == SP_PRIVATE || st->read_only) return;
  cg_note_access(cg, st->root, write);
}

/* (cgen.h) What storage_access does with a path of one index, kept as
 * written, on p's storage where that is all it does: no split storage,
 * no work-item's own element to drop, a flat buffer of scalars of one
 * dimension (split_indices takes the index as the element), not a packed
 * one (packed3_access) nor volatile (whose lanes are never one vloadn);
 * p as gen_exp (write: gen_acc) reads it: a variable bound to a storage
 * or its projection of the right side. */
const Storage *cg_plain_scalar_buffer(CG *cg, const Phrase *p, bool write) {
  if (p->kind == PH_PROJ && p->index != (write ? 1 : 2)) return NULL;
  const Storage *st = phrase_storage(cg, p);
  if (!st || st->kind != STORE_BUFFER || st->nowned_by || st->packed3 || st->is_volatile) return NULL;
  const DataType *t = st->type;
  if (t->kind != DT_ARRAY || t->elem->kind != DT_SCALAR || t->elem->width != 1) return NULL;
  return st;
}

/* its element's access made: noted, as storage_access notes it; the base */
CExpr cg_plain_element_base(CG *cg, const Storage *st, bool write) {
  note_access(cg, st, write);
  return storage_var(cg, st);
}

/* Element flat of a packed array of 3-vectors (kparam_packed3), with the
 * rest of the path ps: the whole element through vload3/vstore3, a lane
 * the scalar 3*flat + l of the buffer. */
static Target packed3_access(CG *cg, const Storage *st, const Ix *flat, const Step *ps, bool write) {
  Probe *p = cg->probe;
  if (p) {
    p->count++;
    p->ok = false;
    p->base = p->elem = NULL;
    p->lane = -1;
    p->width = 0;
    p->space = st->space;
    p->read_only = st->read_only;
    p->unsimplified = false;
  }
  if (!ps) {
    CExpr at = cg_ix_expr(cg, flat);
    if (write) return (Target){TG_VSTORE, NULL, 3, at, storage_var(cg, st), NULL, NULL, NULL, NULL};
    return lvalue(kir_vload(cg->arena, 3, at, storage_var(cg, st)));
  }
  if (ps->kind != STEP_LANE || ps->next) INTERNAL("access path does not fit the type of '%s'", st->name);
  const Ix *at = ix_simplify(&cg->ix, ix_add(&cg->ix, ix_mul(&cg->ix, flat, K(cg, 3)), ps->ix));
  if (p) { /* a scalar of the buffer: consecutive lanes may form a vloadn */
    p->ok = true;
    p->base = storage_var(cg, st);
    p->flat = at;
  }
  return lvalue(at_index(cg, storage_var(cg, st), at));
}

/* a scalar of this space's memory seen through a pointer: global float * */
static const KirType *pointer_type(CG *cg, const Storage *st, ScalarKind s) {
  return elements_of(cg, st, cg_scalar_type(cg, s, 1));
}

/* eta(x)(ps) of Figure 6: the identifier's storage with the path applied;
 * the result is an l-value (also used as an r-value). */
static Target storage_access(CG *cg, const Storage *st, const Step *ps, bool write, Span span) {
  while (st->kind == STORE_SPLIT) {
    if (!ps || ps->kind != STEP_FIELD) {
      cg_error(cg, ERR_CODEGEN_UNSUPPORTED, span, "cannot generate OpenCL for a whole access to the split output '%s'",
               st->name);
      return bad_target(cg);
    }
    st = st->part[ps->n - 1];
    ps = ps->next;
  }
  /* a work-item's own element of an accumulator (locals.c): the indices
   * of its parforLocals, which the private variable does not have */
  for (int k = 0; k < st->nowned_by; k++) {
    const Ix *own = cg->local_index[st->owned_by[k]];
    if (!ps || ps->kind != STEP_IDX || !own || !ix_equal(ps->ix, own))
      INTERNAL("an access to '%s' other than its work-item's own element", st->name);
    ps = ps->next;
  }
  note_access(cg, st, write);
  DataType *t = st->type;
  CExpr e = storage_var(cg, st);
  CExpr base = NULL, elem = NULL;
  const Ix *flat = NULL;
  int64_t lane = -1;
  int width = 0;
  bool unsimplified = false;
  if (st->kind == STORE_BUFFER) {
    /* packed3_access simplifies its own index from flat */
    unsimplified = cg->probe && cg->probe->defer_simplify && !st->packed3;
    if (!split_indices(cg, &t, &ps, &flat, !unsimplified)) goto bad;
    if (st->packed3) return packed3_access(cg, st, flat, ps, write);
    base = e;
    e = at_index(cg, base, flat);
  }
  while (ps) {
    switch (ps->kind) {
    case STEP_FIELD:
      if (t->kind != DT_PAIR) goto bad;
      t = ps->n == 1 ? t->fst : t->snd;
      /* an array field is a pointer to its elements, in the struct's memory */
      e = kir_member(cg->arena, e, ps->n == 1 ? "fst" : "snd",
                     dt_resolve(t)->kind == DT_ARRAY ? elements_of(cg, st, cg_value_type(cg, cg_elem_type(t)))
                                                     : cg_value_type(cg, t));
      ps = ps->next;
      base = NULL;
      if (t->kind == DT_ARRAY) {
        if (!split_indices(cg, &t, &ps, &flat, true)) goto bad;
        unsimplified = false; /* base holds the first index */
        base = e;
        e = at_index(cg, base, flat);
      }
      break;
    case STEP_LANE:
      if (t->kind != DT_SCALAR || t->width == 1) goto bad;
      elem = e;
      width = t->width;
      if (ix_const_value(ps->ix, &lane) && lane >= 0 && lane < width &&
          !(write && base && st->space != SP_PRIVATE)) {
        e = kir_lane(cg->arena, e, (int)lane, width);
      } else if (write && base && st->space != SP_PRIVATE && lane >= 0) {
        /* a store to one lane of a vector in global or local memory is a
         * store of the scalar: `v.s0 = x` loads the whole vector, sets the
         * lane and stores the whole vector back (clang, and so PoCL and
         * the GPU compilers built on it), which writes the lanes other
         * work-items write at the same time (Oclgrind: seed 7402 #598,
         * tests/diff/regress/vector_lane_store_race.dpia) */
        int room = t->width == 3 ? 4 : t->width;
        const Ix *at = ix_simplify(&cg->ix, ix_add(&cg->ix, ix_mul(&cg->ix, flat, K(cg, room)), ps->ix));
        e = at_index(cg, kir_cast(cg->arena, pointer_type(cg, st, t->scalar), base), at);
      } else if (base) {
        /* a lane chosen at run time of an array element: the array as an
         * array of scalars, indexed from its start.  Not through the
         * element's address (((global double *)&tmp[i])[j]): PoCL 3.1's
         * optimiser then reads the element before an earlier store to it
         * (tests/diff/regress/dynamic_lane_of_temporary.dpia). */
        lane = -2;
        /* OpenCL's float3 takes the room of a float4 (packed float3
         * buffers, 12 bytes an element, are read by vload3 above) */
        int room = t->width == 3 ? 4 : t->width;
        const Ix *at = ix_simplify(&cg->ix, ix_add(&cg->ix, ix_mul(&cg->ix, flat, K(cg, room)), ps->ix));
        e = at_index(cg, kir_cast(cg->arena, pointer_type(cg, st, t->scalar), base), at);
      } else {
        /* a lane chosen at run time of a vector variable */
        lane = -2;
        CExpr address = kir_unary(cg->arena, '&', e);
        e = at_index(cg, kir_cast(cg->arena, pointer_type(cg, st, t->scalar), address), ps->ix);
      }
      t = cg->tc->t_int; /* any scalar: nothing may follow a lane */
      ps = ps->next;
      if (ps) goto bad;
      break;
    case STEP_IDX: goto bad;
    }
  }
  if (cg->probe) {
    Probe *p = cg->probe;
    p->count++;
    /* a volatile buffer's lanes are never one vloadn or vstoren: its
     * elements are read and written one by one (docs/language.md section
     * 32), and OpenCL C's vloadn takes no pointer to volatile */
    p->ok = (lane == -1 ? base != NULL : lane >= 0) && !st->is_volatile;
    p->base = base;
    p->flat = flat;
    p->lane = lane >= 0 ? (int)lane : -1;
    p->width = width;
    p->space = st->space;
    p->read_only = st->read_only;
    p->elem = elem;
    p->unsimplified = unsimplified;
  }
  return lvalue(e);
bad:
  INTERNAL("access path does not fit the type of '%s'", st->name);
}

/* ---- indices ---- */

/* an index that reads nothing: a constant, a size, a loop variable or a
 * private value's variable; NULL for any other */
static inline __attribute__((always_inline)) const Ix *known_index(CG *cg, const Phrase *i) {
  if (i->kind == PH_LIT) /* idx nbh 4, idx row (N - 1) */
    return i->lit_is_size ? ix_from_size(&cg->ix, i->lit_size) : K(cg, i->lit_int);
  if (i->kind == PH_VAR) {
    EnvEntry *e = env_find(cg, i->binder);
    if (e && e->kind == ENV_INDEX) return e->ix;
    if (e && e->kind == ENV_STORAGE && e->st->kind == STORE_VALUE) return ix_var(&cg->ix, e->st->name);
  }
  return NULL;
}

const Ix *gen_index(CG *cg, const Phrase *i) {
  const Ix *known = known_index(cg, i);
  if (known) return known;
  if (i->type->kind == PT_EXP) {
    /* an index read from data (a gather: idx xs (idx nbh j)): its value is
     * an atom of the index expression, in 0 <= v < n by the type idx[n]
     * (the host and the reference interpreter check inputs against it) */
    CExpr v = gen_exp(cg, i, NULL);
    /* the element of indices n: the index itself, which the simplifier
     * knows, not an atom it knows nothing of */
    if (v->kind == KE_IX) return v->ix;
    return ix_expr(&cg->ix, v);
  }
  unsupported(cg, i->span, "this index expression (only loop variables and idx parameters are indices)");
  return K(cg, 0);
}

/* ---- expressions (Figure 6c) ---- */

static CExpr gen_exp_f(CG *cg, const Phrase *e, const Step *ps, bool operand);

/* The padded reads met while rendering one padded element (inside: its
 * view's array and value) are inside container (NULL: the element needs
 * no choice, so no read of it), and inside what holds it in turn. */
static void padded_frame_end(CG *cg, Vec *outer, Vec *inside, PaddedRead *container) {
  cg->padded_inside = outer;
  for (int k = 0; k < inside->len; k++) {
    PaddedRead *r = inside->items[k];
    if (container && !r->container && r != container) r->container = container;
    if (outer) vec_push(cg->arena, outer, r);
  }
  if (container && outer) vec_push(cg->arena, outer, container);
}

/* A whole element of a padCst view: counted while gen_assign renders its
 * statement the first time, its variable's name the second time if it is
 * bound to one. */
static CExpr padded_read(CG *cg, CExpr read, DataType *type, Vec *outer, Vec *inside) {
  PaddedRead *r = NULL;
  for (int k = 0; k < cg->padded_reads.len && !r; k++) {
    PaddedRead *o = cg->padded_reads.items[k];
    if (kir_expr_equal(o->read, read)) r = o;
  }
  if (r && r->name) {
    padded_frame_end(cg, outer, inside, NULL);
    return kir_var(cg->arena, r->name, cg_value_type(cg, r->type));
  }
  if (r && cg->count_padded_reads) r->count++;
  if (!r && cg->count_padded_reads) {
    r = NEW(cg->arena, PaddedRead);
    *r = (PaddedRead){read, type, 1, NULL, NULL};
    vec_push(cg->arena, &cg->padded_reads, r);
  }
  padded_frame_end(cg, outer, inside, r);
  return read;
}

static const Step *need_idx(CG *cg, const Step *ps, const Phrase *e, const Ix **i) {
  if (!ps || ps->kind != STEP_IDX) INTERNAL("%s: array view without an index", phrase_kind_name[e->kind]);
  *i = ps->ix;
  (void)cg;
  return ps->next;
}

/* an int expression as an index polynomial (an index, a size, an int
 * literal, its negation, their sums, differences and products, and
 * quotients and remainders of a dividend the simplifier proves at least 0
 * by a divisor it proves at least 1, where C's truncating / and % are the
 * simplifier's), or NULL: for deciding a comparison, and the range of
 * clampIdx's int (clamp_int) */
static const Ix *as_index(CG *cg, CExpr e) {
  if (e->kind == KE_IX) return e->ix;
  if (e->kind == KE_INT) return K(cg, e->value);
  int64_t c;
  if (kir_type_equal(e->type, kir_scalar1(SC_INT)) && cg_int_literal(e, &c)) return K(cg, c);
  if (e->kind == KE_UNARY && e->un.op == '-' && kir_type_equal(e->type, kir_scalar1(SC_INT))) {
    const Ix *a = as_index(cg, e->un.operand);
    return a ? ix_sub(&cg->ix, K(cg, 0), a) : NULL;
  }
  if (e->kind != KE_BINARY) return NULL;
  KirBinop op = e->bin.op;
  if (op != KB_ADD && op != KB_SUB && op != KB_MUL && op != KB_DIV && op != KB_MOD) return NULL;
  const Ix *a = as_index(cg, e->bin.lhs), *b = a ? as_index(cg, e->bin.rhs) : NULL;
  if (!b) return NULL;
  if (op == KB_ADD) return ix_add(&cg->ix, a, b);
  if (op == KB_SUB) return ix_sub(&cg->ix, a, b);
  if (op == KB_MUL) return ix_mul(&cg->ix, a, b);
  if (!ix_provably_less(&cg->ix, K(cg, -1), a) || !ix_provably_less(&cg->ix, K(cg, 0), b)) return NULL;
  return op == KB_DIV ? ix_div(&cg->ix, a, b) : ix_mod(&cg->ix, a, b);
}

CExpr cg_int_min_max(CG *cg, KirBuiltin f, CExpr a, CExpr b) {
  const Ix *ia = as_index(cg, a), *ib = ia ? as_index(cg, b) : NULL;
  const Ix *known = ib ? ix_min_max(&cg->ix, f == KBI_MAX, ia, ib) : NULL;
  if (known) return known == ia ? a : b;
  return kir_builtin(cg->arena, f, cg_scalar_type(cg, SC_INT, 1), (CExpr[]){a, b});
}

static bool bool_literal(CExpr e, bool *v) {
  if (e->kind != KE_LIT || e->lit.scalar != SC_BOOL) return false;
  *v = e->lit.i != 0;
  return true;
}

/* The value of a comparison of two indices that the simplifier decides
 * (an unrolled loop's position against a constant, 2 < 3), and of && and
 * || with such a value: folded, as C compilers warn about a constant
 * operand of && and || (docs/language.md section 22); NULL otherwise. */
static CExpr fold_binop(CG *cg, BinOp op, CExpr l, CExpr r) {
  int64_t d;
  bool x, y;
  switch (op) {
  case BIN_LT:
  case BIN_LE:
  case BIN_GT:
  case BIN_GE:
  case BIN_EQ:
  case BIN_NE: {
    /* the operands as indices only here: as_index walks its operand, so
     * asking it of every sum made a chain of D float additions cost D^2
     * (tests/limits, 16000 defs each nesting 21 more levels) */
    const Ix *a = as_index(cg, l), *b = as_index(cg, r);
    if (!a || !b || !ix_const_value(ix_simplify(&cg->ix, ix_sub(&cg->ix, a, b)), &d)) return NULL;
    bool v = op == BIN_LT ? d < 0 : op == BIN_LE ? d <= 0 : op == BIN_GT ? d > 0 : op == BIN_GE ? d >= 0
           : op == BIN_EQ ? d == 0 : d != 0;
    return kir_lit(cg->arena, (KirLit){SC_BOOL, v, 0});
  }
  case BIN_AND: /* true && r is r, false && r is false */
    if (bool_literal(l, &x)) return x ? r : l;
    if (bool_literal(r, &y)) return y ? l : r;
    return NULL;
  case BIN_OR: /* true || r is true, false || r is r */
    if (bool_literal(l, &x)) return x ? l : r;
    if (bool_literal(r, &y)) return y ? r : l;
    return NULL;
  case BIN_MUL:
  case BIN_DIV:
  case BIN_MOD:
  case BIN_ADD:
  case BIN_SUB:
  case BIN_COUNT: return NULL;
  }
  return NULL;
}

static CExpr gen_binop(CG *cg, const Phrase *e) {
  static const KirBinop op[BIN_COUNT] = {
      [BIN_MUL] = KB_MUL, [BIN_DIV] = KB_DIV, [BIN_MOD] = KB_MOD, [BIN_ADD] = KB_ADD, [BIN_SUB] = KB_SUB,
      [BIN_LT] = KB_LT,   [BIN_LE] = KB_LE,   [BIN_GT] = KB_GT,   [BIN_GE] = KB_GE,   [BIN_EQ] = KB_EQ,
      [BIN_NE] = KB_NE,   [BIN_AND] = KB_AND, [BIN_OR] = KB_OR,
  };
  /* a vector literal next to a non-literal operand is broadcast by C;
   * next to a literal or a literal's negation (printed as a scalar too,
   * gen_unop) it is the vector: 2.0 * (-0.75) converted by toInt to an
   * int4 was a scalar product cast to a vector, an internal error (gen.py
   * --seed 1051 --index 4375, tests/diff/regress/
   * negated_literal_operand_converted.dpia) */
  const Phrase *other = e->snd;
  while (other->kind == PH_UNOP) other = other->fst;
  CExpr l = gen_exp_f(cg, e->fst, NULL, other->kind != PH_LIT);
  CExpr r = gen_exp_f(cg, e->snd, NULL, true);
  CExpr folded = fold_binop(cg, e->op, l, r);
  return folded ? folded : bin(cg, op[e->op], l, r);
}

/* -x has x's type: a vector literal's negation is an operand of C's
 * broadcast only where the negation is one (operand), else the vector,
 * -(float8)(3.0f): toInt (-3.0) added to an int8 converted a scalar to a
 * vector, an internal error (gen.py --seed 1004 --index 484,
 * tests/diff/regress/negated_vector_literal_converted.dpia) */
static CExpr gen_unop(CG *cg, const Phrase *e, bool operand) {
  return kir_unary(cg->arena, e->unop, gen_exp_f(cg, e->fst, NULL, operand));
}

/* the built-in a math primitive is (dpia/prims.h MATH) */
static KirBuiltin math_builtin(Prim prim) {
  switch (prim) {
  case PRIM_FABS: return KBI_FABS;
  case PRIM_SQRT: return KBI_SQRT;
  case PRIM_RSQRT: return KBI_RSQRT;
  case PRIM_EXP: return KBI_EXP;
  case PRIM_LOG: return KBI_LOG;
  case PRIM_SIN: return KBI_SIN;
  case PRIM_COS: return KBI_COS;
  case PRIM_FLOOR: return KBI_FLOOR;
  case PRIM_CEIL: return KBI_CEIL;
  case PRIM_MIN: return KBI_MIN;
  case PRIM_MAX: return KBI_MAX;
  case PRIM_POW: return KBI_POW;
  case PRIM_FMA: return KBI_FMA;
  default: INTERNAL("%s is not a math primitive", prim_info[prim].name);
  }
}

/* clamp(v, 0, top) (max(v, 0) without high, min(v, top) without low) as
 * an opaque index whose range is [0, nn), nn = top + 1 */
static const Ix *clamped_atom(CG *cg, CExpr v, const Ix *top, const Ix *nn, bool low, bool high) {
  CExpr args[3] = {v, kir_int(cg->arena, 0), cg_ix_expr(cg, top)};
  const KirType *index = cg_scalar_type(cg, SC_INT, 1);
  CExpr clamped;
  if (low && high)
    clamped = kir_builtin(cg->arena, KBI_CLAMP, index, args);
  else if (low)
    clamped = kir_builtin(cg->arena, KBI_MAX, index, args);
  else
    clamped = kir_builtin(cg->arena, KBI_MIN, index, (CExpr[]){args[0], args[2]});
  /* an atom of the index (index.h) */
  const Ix *a = ix_expr(&cg->ix, clamped);
  ix_push_range(&cg->ix, a, NULL, nn);
  cg->nranges_stmt++;
  return a;
}

/* clamp(x, 0, n - 1) as an opaque index whose range is [0, n) */
static const Ix *clamp_index(CG *cg, const Ix *x, Size n, bool low, bool high) {
  const Ix *nn = ix_from_size(&cg->ix, n);
  const Ix *top = ix_simplify(&cg->ix, ix_sub(&cg->ix, nn, K(cg, 1)));
  x = ix_simplify(&cg->ix, x);
  int64_t t;
  if (ix_const_value(top, &t) && t == 0) return K(cg, 0); /* one element */
  int64_t c;
  if (ix_const_value(x, &c)) { /* an unrolled step: clamp now */
    if (low && c < 0) return K(cg, 0);
    if (high && ix_const_value(top, &t) && c > t) return K(cg, t);
  }
  /* x >= n - 1 (clampIdx N N): the last index, whatever x's sign */
  if (high && ix_provably_less(&cg->ix, top, ix_add(&cg->ix, x, K(cg, 1)))) return top;
  if (high && ix_provably_less(&cg->ix, x, nn)) high = false;
  if (low && ix_provably_less(&cg->ix, K(cg, -1), x)) low = false; /* x >= 0 */
  if (!low && !high) return x;
  return clamped_atom(cg, cg_ix_expr(cg, x), top, nn, low, high);
}

/* clampIdx n v (docs/language.md section 22): an index v is already one
 * (the simplifier knows it is at least 0, and it may know more), a
 * constant is clamped now; any other int may be negative, which the
 * simplifier must not assume otherwise (every atom is at least 0,
 * index.h), so both ends are clamped */
bool cg_int_literal(CExpr v, int64_t *c) {
  bool negated = v->kind == KE_UNARY && v->un.op == '-'; /* -3 */
  const KirExpr *lit = negated ? v->un.operand : v;
  if (lit->kind != KE_LIT || lit->lit.scalar != SC_INT) return false;
  *c = negated ? -lit->lit.i : lit->lit.i;
  return true;
}

static const Ix *clamp_int(CG *cg, CExpr v, Size n) {
  /* an int the simplifier sees into (an index, a size, a literal and
   * arithmetic of them: toInt i + 1, N - 1): clamped at the ends it
   * cannot prove, or not at all */
  const Ix *x = as_index(cg, v);
  if (x) return clamp_index(cg, x, n, true, true);
  const Ix *nn = ix_from_size(&cg->ix, n);
  const Ix *top = ix_simplify(&cg->ix, ix_sub(&cg->ix, nn, K(cg, 1)));
  int64_t t;
  if (ix_const_value(top, &t) && t == 0) return K(cg, 0); /* one element */
  return clamped_atom(cg, v, top, nn, true, true);
}

static bool lane_by_path(CG *cg, const Phrase *e);

/* The lanes of the mask of select head (an intN: select by a vector mask,
 * docs/language.md section 19), or 0 for a select by a bool. */
static int select_mask_width(const Phrase *head) {
  const DataType *m = dt_resolve(fn_param(head->type, 0)->data);
  return m->kind == DT_SCALAR && m->width > 1 ? m->width : 0;
}
static CExpr gen_prim_exp(CG *cg, const Phrase *e, const Spine *s, const Step *ps);

/* Element i of the view map `map f E`, at path ps: f applied to idx E i
 * (docs/language.md section 9).  f's parameter stands for idx E i while
 * its body is generated; a view primitive waiting for its array (split 2,
 * zip ys) gets a fresh parameter standing for it. */
static CExpr gen_view_map(CG *cg, const Phrase *f, const Phrase *array, const Ix *i, const Step *ps) {
  cg_reads_skipped(cg, array); /* read through f's parameter, where f reads it */
  if (f->kind == PH_LAM) {
    EnvEntry *old = env_put_view(cg, f->lam_binder, array, i);
    CExpr r = gen_exp(cg, f->body, ps);
    env_put_back(cg, f->lam_binder, old);
    return r;
  }
  Spine s;
  if (!spine_of(cg->arena, f, &s)) return unsupported(cg, f->span, "this function of a map");
  Binder *y = NEW(cg->arena, Binder);
  *y = (Binder){.name = "y", .type = fn_param(f->type, 0), .span = f->span};
  Phrase *v = NEW(cg->arena, Phrase);
  *v = (Phrase){.kind = PH_VAR, .type = y->type, .span = f->span, .binder = y};
  Phrase **args = NEWARRAY(cg->arena, Phrase *, s.nargs + 1);
  for (int k = 0; k < s.nargs; k++) args[k] = s.args[k];
  args[s.nargs] = v;
  Spine full = {.head = s.head, .nargs = s.nargs + 1, .args = args};
  EnvEntry *old = env_put_view(cg, y, array, i);
  CExpr r = gen_prim_exp(cg, f, &full, ps);
  env_put_back(cg, y, old);
  return r;
}

/* The views whose element at path ps is their array's (s->args[0]) at
 * the path with its leading indices rewritten (Figure 6c): the array, and
 * that path in *next; NULL for any other primitive.  *pure is cleared
 * where the rewrite reads (an index read from data, gen_index). */
static inline __attribute__((always_inline)) const Phrase *index_view(CG *cg, Prim prim, const Phrase *e,
                                                                     const Spine *s, const Step *ps,
                                                                     const Step **next, bool *pure) {
  const Phrase *h = s->head;
  const Ix *i, *j;
  const Step *rest;
  IxCtx *x = &cg->ix;
  switch (prim) {
  case PRIM_IDX: {
    const Ix *known = known_index(cg, s->args[1]);
    if (!known) *pure = false;
    *next = step_idx(cg, known ? known : gen_index(cg, s->args[1]), ps);
    return s->args[0];
  }
  case PRIM_SPLIT: { /* Figure 6c: split n, i::j::ps -> i*n + j */
    rest = need_idx(cg, ps, e, &i);
    rest = need_idx(cg, rest, e, &j);
    const Ix *k = ix_from_size(x, h->sizes[0]);
    *next = step_idx(cg, ix_add(x, ix_mul(x, i, k), j), rest);
    return s->args[0];
  }
  case PRIM_JOIN: { /* Figure 6c: join, i::ps -> i/n :: i%n */
    rest = need_idx(cg, ps, e, &i);
    const Ix *m = ix_from_size(x, arg_data(s, 0)->elem->size);
    *next = step_idx(cg, ix_div(x, i, m), step_idx(cg, ix_mod(x, i, m), rest));
    return s->args[0];
  }
  case PRIM_TRANSPOSE:
    rest = need_idx(cg, ps, e, &i);
    rest = need_idx(cg, rest, e, &j);
    *next = step_idx(cg, j, step_idx(cg, i, rest));
    return s->args[0];
  case PRIM_SLIDE: { /* [n][s]: element (i, j) is i*t + j */
    rest = need_idx(cg, ps, e, &i);
    rest = need_idx(cg, rest, e, &j);
    const Ix *t = ix_from_size(x, h->sizes[1]);
    *next = step_idx(cg, ix_add(x, ix_mul(x, i, t), j), rest);
    return s->args[0];
  }
  case PRIM_TAKE: *next = ps; return s->args[0];
  case PRIM_DROP:
    rest = need_idx(cg, ps, e, &i);
    *next = step_idx(cg, ix_add(x, i, ix_from_size(x, h->sizes[0])), rest);
    return s->args[0];
  default: return NULL;
  }
}

/* gen_exp of an index view (index_view) prim at path ps */
static CExpr gen_index_view(CG *cg, Prim prim, const Phrase *e, const Spine *s, const Step *ps) {
  const Step *next = NULL;
  bool pure = true;
  const Phrase *array = index_view(cg, prim, e, s, ps, &next, &pure);
  return gen_exp(cg, array, next);
}

/* fst or snd (field 1 or 2) of pair, at path ps.  A pair read is most
 * often an element of a zip reached through index views (fst x * snd x
 * of the dot products' zipped elements): the walk of pair's views, made
 * here view by view as gen_exp's recursion makes it, meets the zip with
 * the field the read asked for right after the element's index, and
 * the other half, read next with the same path after its field, is then
 * read from the zip's other array at that index (CG.zip_element) instead
 * of walking the same views again (issue 35: six views a read).  That
 * holds while no binding a view's index reads has changed
 * (CG.view_changes), no dependent row is open (which ix_from_size reads)
 * and the walk read nothing (index_view's pure).  Where no such zip is
 * found, the read goes on from where the walk stopped: gen_exp of the
 * same phrase and path as the recursion would reach. */
static CExpr gen_pair_half(CG *cg, const Phrase *pair, int field, const Step *ps) {
  bool pure = !cg->walk_each_read && cg->ix.nrows == 0;
  if (pure && cg->zip_element.pair == pair && cg->zip_element.after == ps && cg->zip_element.env == cg->env &&
      cg->zip_element.views == cg->view_changes) {
    cg->halves_shared++;
    cg_reads_skipped(cg, cg->zip_element.arrays[2 - field]);
    return gen_exp(cg, cg->zip_element.arrays[field - 1], step_idx(cg, cg->zip_element.at, ps));
  }
  const Step *f = step_field(cg, field, ps), *path = f;
  const Phrase *e = pair;
  Spine s;
  while (e->kind == PH_APP && spine_of(cg->arena, e, &s) && s.nargs == prim_arity(s.head)) {
    /* the zip's own rule (gen_prim_exp), the field f following the index */
    if (s.head->prim == PRIM_ZIP && path && path->kind == STEP_IDX && path->next == f) {
      if (pure) {
        cg->zip_element.pair = pair;
        cg->zip_element.after = ps;
        cg->zip_element.env = cg->env;
        cg->zip_element.views = cg->view_changes;
        cg->zip_element.arrays[0] = s.args[0];
        cg->zip_element.arrays[1] = s.args[1];
        cg->zip_element.at = path->ix;
      }
      cg_reads_skipped(cg, s.args[2 - field]);
      return gen_exp(cg, s.args[field - 1], step_idx(cg, path->ix, ps));
    }
    const Step *next;
    const Phrase *array = index_view(cg, s.head->prim, e, &s, path, &next, &pure);
    if (!array) break;
    e = array;
    path = next;
  }
  return gen_exp(cg, e, path);
}

static CExpr gen_prim_exp(CG *cg, const Phrase *e, const Spine *s, const Step *ps) {
  const Phrase *h = s->head;
  Prim prim = h->prim;
  const Ix *i, *j;
  const Step *rest;
  IxCtx *x = &cg->ix;
  if (s->nargs != prim_arity(h))
    return unsupported(cg, e->span, arena_printf(cg->arena, "a partial application of %s", prim_info[prim].name));
  DPIA_EXHAUSTIVE_BEGIN
  switch (prim) {
  /* each its own call, whose view index_view then knows */
  case PRIM_IDX: return gen_index_view(cg, PRIM_IDX, e, s, ps);
  case PRIM_SPLIT: return gen_index_view(cg, PRIM_SPLIT, e, s, ps);
  case PRIM_JOIN: return gen_index_view(cg, PRIM_JOIN, e, s, ps);
  case PRIM_TRANSPOSE: return gen_index_view(cg, PRIM_TRANSPOSE, e, s, ps);
  case PRIM_SLIDE: return gen_index_view(cg, PRIM_SLIDE, e, s, ps);
  case PRIM_TAKE: return gen_index_view(cg, PRIM_TAKE, e, s, ps);
  case PRIM_DROP: return gen_index_view(cg, PRIM_DROP, e, s, ps);
  case PRIM_ZIP:
    rest = need_idx(cg, ps, e, &i);
    if (!rest || rest->kind != STEP_FIELD) return unsupported(cg, e->span, "a whole element of a zip");
    cg_reads_skipped(cg, s->args[2 - rest->n]);
    return gen_exp(cg, s->args[rest->n - 1], step_idx(cg, i, rest->next));
  /* scatter and mirror have no read form (strategy.c refuses one before translation) */
  case PRIM_SCATTER: return unsupported(cg, e->span, "a read of a scatter's result");
  case PRIM_MIRROR: return unsupported(cg, e->span, "a read of a mirror's result");
  /* nor has depJoin (strategy.c, E0412) */
  case PRIM_DEP_JOIN: return unsupported(cg, e->span, "a read of a depJoin's result");
  case PRIM_UNZIP: /* unzip, k::i::ps -> i::k::ps: component k of element i */
    if (!ps || ps->kind != STEP_FIELD) return unsupported(cg, e->span, "a whole pair of arrays of unzip");
    rest = need_idx(cg, ps->next, e, &i);
    return gen_exp(cg, s->args[0], step_idx(cg, i, step_field(cg, ps->n, rest)));
  case PRIM_PAIR:
    if (!ps || ps->kind != STEP_FIELD) return unsupported(cg, e->span, "a whole pair value");
    cg_reads_skipped(cg, s->args[2 - ps->n]);
    return gen_exp(cg, s->args[ps->n - 1], ps->next);
  case PRIM_FST:
  case PRIM_SND: return gen_pair_half(cg, s->args[0], prim == PRIM_FST ? 1 : 2, ps);
  case PRIM_AS_VECTOR: {
    rest = need_idx(cg, ps, e, &i);
    int64_t k;
    if (!size_const_value(h->sizes[0], &k)) INTERNAL("asVector width");
    const Ix *first = ix_mul(x, i, K(cg, k));
    if (rest && rest->kind == STEP_LANE)
      return gen_exp(cg, s->args[0], step_idx(cg, ix_add(x, first, rest->ix), rest->next));
    return gen_vector_read(cg, s->args[0], first, (int)k, arg_data(s, 0)->elem);
  }
  case PRIM_AS_SCALAR: {
    rest = need_idx(cg, ps, e, &i);
    const Ix *k = K(cg, arg_data(s, 0)->elem->width);
    return gen_exp(cg, s->args[0], step_idx(cg, ix_div(x, i, k), step_lane(cg, ix_simplify(x, ix_mod(x, i, k)), rest)));
  }
  case PRIM_PAD_CLAMP: {
    rest = need_idx(cg, ps, e, &i);
    Size n = arg_data(s, 0)->size;
    bool low = !size_is_zero(h->sizes[0]), high = !size_is_zero(h->sizes[1]);
    const Ix *at = clamp_index(cg, ix_sub(x, i, ix_from_size(x, h->sizes[0])), n, low, high);
    return gen_exp(cg, s->args[0], step_idx(cg, at, rest));
  }
  case PRIM_PAD_CST: { /* i < l || i >= l + n ? v : E[i - l] */
    rest = need_idx(cg, ps, e, &i);
    /* the tests print i: simplified where it holds a quotient or a
     * remainder, which the simplifier may fold as it does a read's index
     * (a joined row's gid/64*64 + gid%64 is gid); as built otherwise,
     * where simplifying would only factor it */
    if (i->divides) i = ix_simplify(x, i);
    Size n = arg_data(s, 1)->size;
    const Ix *l = ix_from_size(x, h->sizes[0]);
    const Ix *end = ix_simplify(x, ix_add(x, l, ix_from_size(x, n)));
    /* no test on a side the index provably stays clear of (i >= l, i < l + n),
     * and v alone where the index is provably in the padding */
    bool low = !size_is_zero(h->sizes[0]) && !ix_provably_less(x, ix_sub(x, l, K(cg, 1)), i);
    bool high = !size_is_zero(h->sizes[1]) && !ix_provably_less(x, i, end);
    if ((low && ix_provably_less(x, i, l)) || (high && ix_provably_less(x, ix_sub(x, end, K(cg, 1)), i))) {
      cg_reads_skipped(cg, s->args[1]);
      return gen_exp(cg, s->args[0], rest);
    }
    Vec *outer = cg->padded_inside, inside = {0};
    cg->padded_inside = &inside;
    CExpr in = gen_exp(cg, s->args[1], step_idx(cg, ix_sub(x, i, l), rest));
    CExpr cond = NULL;
    if (low) cond = bin(cg, KB_LT, cg_ix_expr(cg, i), cg_ix_expr(cg, l));
    if (high) {
      CExpr c2 = bin(cg, KB_GE, cg_ix_expr(cg, i), cg_ix_expr(cg, end));
      cond = cond ? bin(cg, KB_OR, cond, c2) : c2;
    }
    if (!cond) {
      padded_frame_end(cg, outer, &inside, NULL);
      cg_reads_skipped(cg, s->args[0]);
      return in;
    }
    /* a lane that is a choice is not the element it may read: no vloadn */
    if (cg->probe) cg->probe->count += 2;
    CExpr v = gen_exp(cg, s->args[0], rest);
    /* padding with the value the element has anyway (zeros padded with
     * zeros: a literal of equal elements, read as its value): no test */
    if (kir_expr_equal(v, in)) {
      padded_frame_end(cg, outer, &inside, NULL);
      return in;
    }
    CExpr read = kir_cond(cg->arena, cond, v, in);
    DataType *elem = dt_resolve(arg_data(s, 1)->elem);
    if (!cg->probe && !rest && elem->kind == DT_SCALAR) return padded_read(cg, read, elem, outer, &inside);
    padded_frame_end(cg, outer, &inside, NULL);
    return read;
  }
  case PRIM_REORDER_STRIDE: { /* element i is E[i/m + s*(i%m)], m = n/s */
    rest = need_idx(cg, ps, e, &i);
    Size m;
    if (!size_div(&cg->tc->sizes, arg_data(s, 0)->size, h->sizes[0], &m))
      return unsupported(cg, e->span, "reorderStride with this stride");
    const Ix *mm = ix_from_size(x, m);
    const Ix *at = ix_add(x, ix_div(x, i, mm), ix_mul(x, ix_from_size(x, h->sizes[0]), ix_mod(x, i, mm)));
    return gen_exp(cg, s->args[0], step_idx(cg, at, rest));
  }
  case PRIM_INDICES: /* element i of indices n is i itself: no memory */
    rest = need_idx(cg, ps, e, &i);
    if (rest) INTERNAL("a path into an index");
    return cg_ix_expr(cg, i);
  /* triangle, i::j::k::ps: field k of row i's element j, the pair
   * (xs[i], xs[i + j]) (docs/language.md section 30) */
  case PRIM_TRIANGLE:
    rest = need_idx(cg, ps, e, &i);
    rest = need_idx(cg, rest, e, &j);
    if (!rest || rest->kind != STEP_FIELD) return unsupported(cg, e->span, "a whole pair of a triangle");
    return gen_exp(cg, s->args[0], step_idx(cg, rest->n == 1 ? i : ix_add(x, i, j), rest->next));
  case PRIM_SELECT: {
    /* on vectors, a choice lane by lane by the sign bit of the mask's lane
     * (docs/language.md section 19; KBI_SELECT); a lane of it is taken
     * from the whole value (lane_by_path) */
    int lanes = select_mask_width(h);
    if (lanes && ps) INTERNAL("a path into a select of vectors");
    CExpr test = gen_exp(cg, s->args[0], NULL);
    bool chosen; /* a condition decided by code generation (fold_binop): its side alone */
    if (bool_literal(test, &chosen)) {
      cg_reads_skipped(cg, s->args[chosen ? 2 : 1]);
      return gen_exp(cg, s->args[chosen ? 1 : 2], ps);
    }
    CExpr args[3] = {test, gen_exp(cg, s->args[1], ps), gen_exp(cg, s->args[2], ps)};
    if (!lanes) return kir_cond(cg->arena, args[0], args[1], args[2]);
    DataType *r = dt_resolve(fn_result(h->type, 3)->data);
    return kir_builtin(cg->arena, KBI_SELECT, cg_scalar_type(cg, r->scalar, r->width), args);
  }
  case PRIM_CLAMP_IDX: { /* clamp(e, 0, n - 1), left out where e is provably in range */
    return cg_ix_expr(cg, clamp_int(cg, gen_exp(cg, s->args[0], NULL), h->sizes[0]));
  }
  case PRIM_VEC: {
    CExpr v = gen_exp(cg, s->args[0], NULL);
    if (ps && ps->kind == STEP_LANE) return v;
    DataType *t = fn_result(h->type, 1)->data;
    return kir_vector(cg->arena, cg_scalar_type(cg, t->scalar, t->width), 1, &v);
  }
  PRIM_CASES_VECTOR : { /* float4 a b c d: (float4)(a, b, c, d); lane 2 of it is c */
    int64_t l;
    if (ps && ps->kind == STEP_LANE && ix_const_value(ps->ix, &l) && l >= 0 && l < s->nargs) {
      for (int a = 0; a < s->nargs; a++)
        if (a != l) cg_reads_skipped(cg, s->args[a]);
      return gen_exp(cg, s->args[l], ps->next);
    }
    if (ps) return unsupported(cg, e->span, "a lane chosen at run time of a vector built from its lanes");
    DataType *t = fn_result(h->type, s->nargs)->data;
    CExpr *lanes = NEWARRAY(cg->arena, CExpr, s->nargs);
    for (int a = 0; a < s->nargs; a++) lanes[a] = gen_exp(cg, s->args[a], NULL);
    return kir_vector(cg->arena, cg_scalar_type(cg, t->scalar, t->width), s->nargs, lanes);
  }
  case PRIM_LANE: { /* v.x */
    if (ps) INTERNAL("a path after a lane");
    const Phrase *v = s->args[0];
    if (lane_by_path(cg, v)) return gen_exp(cg, v, mk_step(cg, STEP_LANE, ix_from_size(x, h->sizes[0]), 0, NULL));
    /* a computed vector, (p - q).x: the value, then its lane */
    int64_t l;
    if (!size_const_value(h->sizes[0], &l)) INTERNAL("lane number");
    CExpr whole = gen_exp(cg, v, NULL);
    return kir_lane(cg->arena, whole, (int)l, dt_resolve(arg_data(s, 0))->width);
  }
  PRIM_CASES_CONVERT : {
    DataType *from = arg_data(s, 0), *to = fn_result(h->type, 1)->data;
    CExpr v = gen_exp(cg, s->args[0], NULL);
    if (dt_equal(from, to)) return v;
    /* toInt i of an index: the int it is already (docs/language.md section 22) */
    if (dt_resolve(from)->kind == DT_IDX && to->kind == DT_SCALAR && to->scalar == SC_INT && to->width == 1) return v;
    return kir_cast(cg->arena, cg_scalar_type(cg, to->scalar, to->width), v);
  }
  PRIM_CASES_MATH : { /* the target's built-in (KirBuiltin), lane-wise */
    CExpr args[3];
    for (int a = 0; a < s->nargs; a++) args[a] = gen_exp(cg, s->args[a], NULL);
    DataType *r = dt_resolve(fn_result(h->type, s->nargs)->data);
    return kir_builtin(cg->arena, math_builtin(prim), cg_scalar_type(cg, r->scalar, r->width), args);
  }
  PRIM_CASES_FOREIGN : { /* the program's own OpenCL C function, emitted before the kernel */
    CExpr *args = NEWARRAY(cg->arena, CExpr, s->nargs);
    for (int a = 0; a < s->nargs; a++) args[a] = gen_exp(cg, s->args[a], NULL);
    cg_use_foreign(cg, h->foreign);
    return kir_call(cg->arena, h->foreign->name, cg_value_type(cg, fn_result(h->type, s->nargs)->data), s->nargs, args);
  }
  case PRIM_MAP: /* a view map */
    rest = need_idx(cg, ps, e, &i);
    return gen_view_map(cg, s->args[0], s->args[1], i, rest);
  /* gone after stage II, or commands and acceptors */
  case PRIM_MAP_SEQ:
  case PRIM_DEP_MAP_SEQ:
  case PRIM_MAP_GLOBAL:
  case PRIM_DEP_MAP_GLOBAL:
  case PRIM_MAP_WORKGROUP:
  case PRIM_DEP_MAP_WORKGROUP:
  case PRIM_MAP_LOCAL:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: break;
  }
  DPIA_EXHAUSTIVE_END
  return unsupported(cg, e->span,
                     arena_printf(cg->arena, "%s here (not an expression of an imperative kernel)", prim_info[prim].name));
}

/* May a lane of e be read by pushing the lane onto e's access path?  Not
 * when e computes the vector (arithmetic, a math built-in, a conversion):
 * those generate the whole value, whose lane is then taken. */
static bool lane_by_path(CG *cg, const Phrase *e) {
  if (e->kind == PH_BINOP || e->kind == PH_UNOP) return false;
  if (e->kind != PH_APP) return true;
  Spine s;
  if (!spine_of(cg->arena, e, &s)) return true;
  PrimFamily f = prim_family(s.head->prim);
  /* a select of vectors chooses by the mask's sign bit, not by a lane as a bool */
  if (s.head->prim == PRIM_SELECT && s.nargs == 3) return select_mask_width(s.head) == 0;
  return f != PFAM_MATH && f != PFAM_CONVERT;
}

static CExpr gen_exp_f(CG *cg, const Phrase *e, const Step *ps, bool operand) {
  switch (e->kind) {
  case PH_VAR: {
    EnvEntry *en = env_find(cg, e->binder);
    if (!en) INTERNAL("unbound identifier %s", e->binder->name);
    if (en->kind == ENV_INDEX) {
      if (ps) INTERNAL("path on an index");
      return cg_ix_expr(cg, en->ix);
    }
    if (en->kind == ENV_VIEW) return gen_exp_f(cg, en->acc, step_idx(cg, en->ix, ps), operand);
    if (en->kind != ENV_STORAGE) INTERNAL("acceptor %s read", e->binder->name);
    return storage_access(cg, en->st, ps, false, e->span).lvalue;
  }
  case PH_PROJ: {
    Storage *st = phrase_storage(cg, e);
    if (!st || e->index != 2) return unsupported(cg, e->span, "this projection");
    return storage_access(cg, st, ps, false, e->span).lvalue;
  }
  case PH_LIT: return gen_literal(cg, e, ps, operand);
  case PH_BINOP:
    if (ps) return unsupported(cg, e->span, "a lane of an arithmetic result");
    return gen_binop(cg, e);
  case PH_UNOP:
    if (ps) return unsupported(cg, e->span, "a lane of an arithmetic result");
    return gen_unop(cg, e, operand);
  case PH_APP: {
    Spine s;
    if (!spine_of(cg->arena, e, &s)) return unsupported(cg, e->span, "this application");
    return gen_prim_exp(cg, e, &s, ps);
  }
  case PH_PRIM: {
    /* a primitive of no arguments, a whole phrase (indices n) */
    Spine s = {.head = (Phrase *)e, .nargs = 0, .args = NULL};
    if (prim_arity(e) == 0) return gen_prim_exp(cg, e, &s, ps);
    return unsupported(cg, e->span, arena_printf(cg->arena, "%s without arguments", prim_info[e->prim].name));
  }
  default: return unsupported(cg, e->span, arena_printf(cg->arena, "a %s phrase as an expression", phrase_kind_name[e->kind]));
  }
}

CExpr gen_exp(CG *cg, const Phrase *e, const Step *ps) { return gen_exp_f(cg, e, ps, false); }
CExpr gen_exp_operand(CG *cg, const Phrase *e, const Step *ps) { return gen_exp_f(cg, e, ps, true); }

/* ---- acceptors (Figure 6b) ---- */

/* "i < k": a test of an index, for a guarded write; TARGET_NEVER when
 * both are constants and the test fails (the write is dropped) */
static CExpr index_test(CG *cg, const Ix *i, KirBinop op, const Ix *k) {
  i = ix_simplify(&cg->ix, i);
  k = ix_simplify(&cg->ix, k);
  int64_t a, b;
  if (ix_const_value(i, &a) && ix_const_value(k, &b)) return TARGET_NEVER; /* a passing test is not asked */
  return bin(cg, op, cg_ix_expr(cg, i), cg_ix_expr(cg, k));
}

/* t written only when cond holds too (each of its places) */
static Target guarded(CG *cg, Target t, CExpr cond) {
  if (cond == TARGET_NEVER || t.guard == TARGET_NEVER) t.guard = TARGET_NEVER;
  else
    t.guard = t.guard ? bin(cg, KB_ALL, cond, t.guard) : cond;
  if (t.also) {
    Target *also = NEW(cg->arena, Target);
    *also = guarded(cg, *t.also, cond);
    t.also = also;
  }
  return t;
}

/* t, then the places of u written the same value */
static Target and_also(CG *cg, Target t, Target u) {
  if (!t.also) {
    Target *copy = NEW(cg->arena, Target);
    *copy = u;
    t.also = copy;
    return t;
  }
  Target *rest = NEW(cg->arena, Target);
  *rest = and_also(cg, *t.also, u);
  t.also = rest;
  return t;
}

static Target gen_prim_acc(CG *cg, const Phrase *a, const Spine *s, const Step *ps) {
  const Phrase *h = s->head;
  IxCtx *x = &cg->ix;
  const Ix *i, *j;
  const Step *rest;
  if (s->nargs != prim_arity(h)) goto bad;
  DPIA_EXHAUSTIVE_BEGIN
  switch (h->prim) {
  case PRIM_IDX_ACC: return gen_acc(cg, s->args[0], step_idx(cg, gen_index(cg, s->args[1]), ps));
  case PRIM_SPLIT_ACC: { /* Figure 6b: splitAcc m, i::ps -> i/m :: i%m */
    rest = need_idx(cg, ps, a, &i);
    const Ix *k = ix_from_size(x, h->sizes[0]);
    return gen_acc(cg, s->args[0], step_idx(cg, ix_div(x, i, k), step_idx(cg, ix_mod(x, i, k), rest)));
  }
  case PRIM_JOIN_ACC: { /* Figure 6b: joinAcc m, i::j::ps -> i*m + j */
    rest = need_idx(cg, ps, a, &i);
    rest = need_idx(cg, rest, a, &j);
    const Ix *m = ix_from_size(x, fn_result(h->type, 1)->data->elem->size);
    return gen_acc(cg, s->args[0], step_idx(cg, ix_add(x, ix_mul(x, i, m), j), rest));
  }
  case PRIM_DEP_JOIN_ACC: { /* depJoinAcc T, i::j::ps -> offset(i) + j (docs/language.md section 30.2) */
    rest = need_idx(cg, ps, a, &i);
    rest = need_idx(cg, rest, a, &j);
    /* the offset of row #k as a size of T's own index, written with i
     * for it: the row mechanism of the dependent maps (ix_push_row) */
    const DataType *t = dt_resolve(h->type_arg);
    Size offset;
    if (!dt_dep_offset(cg->tc, t, size_var(&cg->tc->sizes, t->index), &offset))
      INTERNAL("depJoinAcc of a type the checker refuses");
    ix_push_row(x, t->index, i);
    const Ix *at = ix_from_size(x, offset);
    ix_pop_row(x);
    return gen_acc(cg, s->args[0], step_idx(cg, ix_add(x, at, j), rest));
  }
  case PRIM_PAIR_ACC1:
  case PRIM_PAIR_ACC2: return gen_acc(cg, s->args[0], step_field(cg, h->prim == PRIM_PAIR_ACC1 ? 1 : 2, ps));
  case PRIM_ZIP_ACC1:
  case PRIM_ZIP_ACC2:
    rest = need_idx(cg, ps, a, &i);
    return gen_acc(cg, s->args[0], step_idx(cg, i, step_field(cg, h->prim == PRIM_ZIP_ACC1 ? 1 : 2, rest)));
  case PRIM_SCATTER_ACC: { /* scatterAcc A p, i::ps -> p[i]::ps: an atom read from the permutation */
    rest = need_idx(cg, ps, a, &i);
    CExpr v = gen_exp(cg, s->args[1], step_idx(cg, i, NULL));
    return gen_acc(cg, s->args[0], step_idx(cg, v->kind == KE_IX ? v->ix : ix_expr(x, v), rest));
  }
  case PRIM_MIRROR_ACC: {
    /* mirrorAcc A, i::j::ps -> i::j::ps and j::i::ps, written when j >= i
     * (docs/language.md section 29.1): PolyBench's symmat[j1][j2] = s;
     * symmat[j2][j1] = s.  The diagonal is written twice, the same value
     * by the same work-item, as PolyBench's covar_kernel does, rather
     * than tested for again. */
    rest = need_idx(cg, ps, a, &i);
    rest = need_idx(cg, rest, a, &j);
    Target t = and_also(cg, gen_acc(cg, s->args[0], step_idx(cg, i, step_idx(cg, j, rest))),
                        gen_acc(cg, s->args[0], step_idx(cg, j, step_idx(cg, i, rest))));
    return ix_provably_less(x, ix_sub(x, i, K(cg, 1)), j) ? t : guarded(cg, t, index_test(cg, j, KB_GE, i));
  }
  case PRIM_PAIR_ACC: /* pairAcc A1 A2, k::ps -> ps into Ak (b_assign writes a pair field by field) */
    if (!ps || ps->kind != STEP_FIELD || (ps->n != 1 && ps->n != 2)) goto bad;
    return gen_acc(cg, s->args[ps->n - 1], ps->next);
  case PRIM_UNZIP_ACC: /* unzipAcc, i::k::ps -> k::i::ps: element i of array k */
    rest = need_idx(cg, ps, a, &i);
    if (!rest || rest->kind != STEP_FIELD) goto bad; /* b_assign writes a pair field by field */
    return gen_acc(cg, s->args[0], step_field(cg, rest->n, step_idx(cg, i, rest->next)));
  case PRIM_AS_SCALAR_ACC: {
    rest = need_idx(cg, ps, a, &i);
    int64_t k;
    if (!size_const_value(h->sizes[0], &k)) INTERNAL("asScalarAcc width");
    const Ix *first = ix_mul(x, i, K(cg, k));
    if (rest && rest->kind == STEP_LANE)
      return gen_acc(cg, s->args[0], step_idx(cg, ix_add(x, first, rest->ix), rest->next));
    return gen_vector_write(cg, s->args[0], first, (int)k);
  }
  case PRIM_AS_VECTOR_ACC: {
    rest = need_idx(cg, ps, a, &i);
    const Ix *k = K(cg, fn_param(h->type, 0)->data->elem->width);
    return gen_acc(cg, s->args[0], step_idx(cg, ix_div(x, i, k), step_lane(cg, ix_simplify(x, ix_mod(x, i, k)), rest)));
  }
  case PRIM_TRANSPOSE_ACC:
    rest = need_idx(cg, ps, a, &i);
    rest = need_idx(cg, rest, a, &j);
    return gen_acc(cg, s->args[0], step_idx(cg, j, step_idx(cg, i, rest)));
  case PRIM_TAKE_ACC: { /* takeAcc k, i::ps -> i, written when i < k */
    rest = need_idx(cg, ps, a, &i);
    const Ix *k = ix_from_size(x, h->sizes[0]);
    Target t = gen_acc(cg, s->args[0], step_idx(cg, i, rest));
    return ix_provably_less(x, i, k) ? t : guarded(cg, t, index_test(cg, i, KB_LT, k));
  }
  case PRIM_DROP_ACC: { /* dropAcc k, i::ps -> i - k, written when i >= k */
    rest = need_idx(cg, ps, a, &i);
    const Ix *k = ix_from_size(x, h->sizes[0]);
    Target t = gen_acc(cg, s->args[0], step_idx(cg, ix_sub(x, i, k), rest));
    return ix_provably_less(x, ix_sub(x, k, K(cg, 1)), i) ? t : guarded(cg, t, index_test(cg, i, KB_GE, k));
  }
  case PRIM_SLICE_ACC: /* sliceAcc o m, i::ps -> o + i */
    rest = need_idx(cg, ps, a, &i);
    return gen_acc(cg, s->args[0], step_idx(cg, ix_add(x, ix_from_size(x, h->sizes[0]), i), rest));
  /* not acceptors (stage I writes through an expression view's acceptor
   * twin, prims.h LOWERED) */
  PRIM_CASES_MAP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_VIEW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_SCALAR:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN:
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: break;
  }
  DPIA_EXHAUSTIVE_END
bad:
  unsupported(cg, a->span, arena_printf(cg->arena, "%s as an acceptor", prim_info[h->prim].name));
  return bad_target(cg);
}

Target gen_acc(CG *cg, const Phrase *a, const Step *ps) {
  switch (a->kind) {
  case PH_VAR: {
    EnvEntry *en = env_find(cg, a->binder);
    if (!en) INTERNAL("unbound identifier %s", a->binder->name);
    if (en->kind == ENV_ALIAS) return gen_acc(cg, en->acc, step_idx(cg, en->ix, ps)); /* o = idxAcc A i */
    if (en->kind != ENV_STORAGE) INTERNAL("index %s written", a->binder->name);
    return storage_access(cg, en->st, ps, true, a->span);
  }
  case PH_PROJ: {
    Storage *st = phrase_storage(cg, a);
    if (!st || a->index != 1) break;
    return storage_access(cg, st, ps, true, a->span);
  }
  case PH_APP: {
    Spine s;
    if (!spine_of(cg->arena, a, &s)) break;
    return gen_prim_acc(cg, a, &s, ps);
  }
  default: break;
  }
  unsupported(cg, a->span, "this acceptor");
  return bad_target(cg);
}
