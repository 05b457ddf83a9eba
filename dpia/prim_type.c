/* prim_type.c: the type of a primitive at one use, instantiated from its
 * signature in the primitive table (prims.h; spec section 4, paper
 * Figure 4).
 *
 * The signatures are parsed once per process, by the parser of the
 * language's own types, into PrimSigs: the type, the names of the static
 * arguments and the constraints after "where".  That table is the only data
 * the library builds outside a translation: written once under
 * pthread_once and read-only afterwards, so the library stays reentrant
 * and thread-safe, and a search driver's thousands of translations do not
 * parse the table again each time (with a parse per checker, the
 * translation throughput benchmark lost 8%).  It lives in its own arena and
 * interner, from the default allocator, for the life of the process; its
 * names are compared with each other only.  Each use then walks the type, giving every
 * implicit name a fresh metavariable (a size metavariable in a size
 * position, a data metavariable in a type position) and every static name
 * the argument written after the primitive, and records the constraints.
 *
 * A signature the parser rejects or that breaks these rules is a bug of the
 * table, not of the program: it aborts (tests/check's prims-table test
 * instantiates every row). */
#include "check_int.h"

#include <pthread.h>
#include <string.h>

typedef enum ClauseKind {
  CL_NUMERIC,  /* a: numeric scalar or vector */
  CL_FLOATING, /* a: floating scalar or vector */
  CL_VECTOR,   /* `vector v s w`: a v, b s, c w */
  CL_CONVERT,  /* a s, b r, target: r is target with the width of s */
  CL_WIDTH,    /* a: a static size that is a vector width */
  CL_POSITIVE, /* a: a size >= 1; what names it */
  CL_LANE,     /* `lane v s k`: a v, b s, c k (v has lane k, of type s) */
} ClauseKind;

typedef struct Clause {
  ClauseKind kind;
  Sym a, b, c;
  ScalarKind target; /* CL_CONVERT */
  const char *what;  /* CL_POSITIVE */
} Clause;

enum { SIG_MAX_STATICS = 3, SIG_MAX_CLAUSES = 4, SIG_MAX_NAMES = 12 };

typedef struct PrimSig {
  Sym statics[SIG_MAX_STATICS]; /* the static sizes, then the type argument */
  int nstatics;
  const TypeAst *type;
  Clause clauses[SIG_MAX_CLAUSES];
  int nclauses;
} PrimSig;

/* ---- reading a signature ---- */

typedef struct SigReader {
  Arena *arena;
  Interner *in;
  Prim prim;
  const char *at;
} SigReader;

static void sig_bug(const SigReader *r, const char *what) {
  INTERNAL("the signature of %s in prims.h: %s", prim_info[r->prim].name, what);
}

static void skip_blanks(SigReader *r) {
  while (*r->at == ' ' || *r->at == ',') r->at++;
}

static bool is_word_char(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'); }

/* the next word of a where-clause, interned */
static Sym sig_word(SigReader *r) {
  skip_blanks(r);
  const char *start = r->at;
  while (is_word_char(*r->at)) r->at++;
  if (r->at == start) sig_bug(r, "a name is missing in a constraint");
  return intern(r->in, start, (size_t)(r->at - start));
}

static bool word_is(Sym w, const char *text) { return strcmp(w, text) == 0; }

static Clause read_clause(SigReader *r) {
  Clause cl = {0};
  Sym kind = sig_word(r);
  if (word_is(kind, "numeric") || word_is(kind, "floating")) {
    cl.kind = word_is(kind, "numeric") ? CL_NUMERIC : CL_FLOATING;
    cl.a = sig_word(r);
  } else if (word_is(kind, "vector")) {
    cl.kind = CL_VECTOR;
    cl.a = sig_word(r);
    cl.b = sig_word(r);
    cl.c = sig_word(r);
  } else if (word_is(kind, "convert")) {
    cl.kind = CL_CONVERT;
    cl.a = sig_word(r);
    cl.b = sig_word(r);
    Sym target = sig_word(r);
    cl.target = word_is(target, "float") ? SC_FLOAT : word_is(target, "int") ? SC_INT : SC_DOUBLE;
    if (cl.target == SC_DOUBLE && !word_is(target, "double")) sig_bug(r, "a conversion to an unknown type");
  } else if (word_is(kind, "lane")) {
    cl.kind = CL_LANE;
    cl.a = sig_word(r);
    cl.b = sig_word(r);
    cl.c = sig_word(r);
  } else if (word_is(kind, "width")) {
    cl.kind = CL_WIDTH;
    cl.a = sig_word(r);
  } else if (word_is(kind, "positive")) {
    cl.kind = CL_POSITIVE;
    cl.a = sig_word(r);
    skip_blanks(r);
    cl.what = prim_info[r->prim].name;
    if (*r->at == '(') {
      const char *close = strchr(r->at, ')');
      if (!close) sig_bug(r, "an unclosed '(' in a constraint");
      cl.what = arena_printf(r->arena, "%.*s", (int)(close - r->at - 1), r->at + 1);
      r->at = close + 1;
    }
  } else {
    sig_bug(r, "an unknown constraint");
  }
  return cl;
}

static PrimSig *read_signature(Arena *a, Interner *in, Prim prim) {
  const PrimInfo *info = &prim_info[prim];
  SigReader r = {a, in, prim, info->signature};
  PrimSig *sig = NEW(a, PrimSig);
  /* "k t. type": the static arguments */
  const char *dot = strchr(r.at, '.');
  if (dot) {
    while (r.at < dot) {
      skip_blanks(&r);
      if (r.at == dot) break;
      if (sig->nstatics == SIG_MAX_STATICS) sig_bug(&r, "too many static arguments");
      const char *start = r.at;
      while (is_word_char(*r.at)) r.at++;
      if (r.at == start) sig_bug(&r, "a static argument is not a name");
      sig->statics[sig->nstatics++] = intern(in, start, (size_t)(r.at - start));
    }
    r.at = dot + 1;
  }
  if (sig->nstatics != info->nsizes + info->takes_type) sig_bug(&r, "the static arguments do not match the row");
  /* "type where clauses" */
  const char *where = strstr(r.at, " where ");
  size_t type_len = where ? (size_t)(where - r.at) : strlen(r.at);
  Source *src = NEW(a, Source);
  source_init(src, a, info->name, arena_printf(a, "%.*s", (int)type_len, r.at), type_len);
  Diag scratch;
  diag_init(&scratch, a);
  sig->type = parse_phrase_type_text(a, in, &scratch, src);
  if (!sig->type || scratch.nerrors) sig_bug(&r, scratch.first ? scratch.first->message : "it does not parse");
  if (where) {
    r.at = where + strlen(" where ");
    for (skip_blanks(&r); *r.at; skip_blanks(&r)) {
      if (sig->nclauses == SIG_MAX_CLAUSES) sig_bug(&r, "too many constraints");
      sig->clauses[sig->nclauses++] = read_clause(&r);
    }
  }
  return sig;
}

/* ---- instantiating ---- */

typedef struct Binding {
  Sym name;
  bool is_size;
  Size size;      /* is_size */
  DataType *data; /* !is_size */
} Binding;

typedef struct Inst {
  Checker *c;
  Prim prim;
  Span span;
  Binding names[SIG_MAX_NAMES];
  int nnames;
  /* inside a dependent array's element: its index as the table names it,
   * and as the instantiated type does (the checker's interner) */
  Sym dep_written, dep_index;
} Inst;

static Binding *bind_fresh(Inst *in, Sym name, bool is_size);

/* the binding of a name of the signature: found here, inlined into the
 * walk (a signature has a few names, each met several times: translation
 * throughput), made by bind_fresh at the first */
static inline Binding *bind(Inst *in, Sym name, bool is_size) {
  for (int i = 0; i < in->nnames; i++) {
    Binding *b = &in->names[i];
    if (b->name != name) continue;
    if (b->is_size != is_size)
      INTERNAL("the signature of %s in prims.h uses '%s' as a size and as a type", prim_info[in->prim].name, name);
    return b;
  }
  return bind_fresh(in, name, is_size);
}

static Binding *bind_fresh(Inst *in, Sym name, bool is_size) {
  if (in->nnames == SIG_MAX_NAMES) INTERNAL("the signature of %s in prims.h has too many names", prim_info[in->prim].name);
  Binding *b = &in->names[in->nnames++];
  b->name = name;
  b->is_size = is_size;
  /* an implicit argument: a fresh metavariable */
  if (is_size) b->size = size_var(&in->c->tc->sizes, fresh_size_meta(in->c, in->span));
  else b->data = dt_meta(in->c->tc, MC_ANY, in->span);
  return b;
}

static Size inst_size(Inst *in, const SizeAst *s) {
  SizeCtx *sc = &in->c->tc->sizes;
  switch (s->kind) {
  case SZA_NUM: return size_const(sc, (int64_t)s->num);
  case SZA_VAR:
    if (s->name == in->dep_written) return size_var(sc, in->dep_index);
    return bind(in, s->name, true)->size;
  case SZA_ADD:
  case SZA_MUL: {
    /* left first: implicit names are numbered in the order they appear */
    Size a = inst_size(in, s->lhs), b = inst_size(in, s->rhs);
    return s->kind == SZA_ADD ? size_add(sc, a, b) : size_mul(sc, a, b);
  }
  case SZA_SUB:
    /* a row of a dependent array, n - i: natural for every index i < n
     * (triangle) */
    if (in->dep_written) {
      Size a = inst_size(in, s->lhs), b = inst_size(in, s->rhs);
      return size_sub(sc, a, b);
    }
    break;
  case SZA_DIV:
  case SZA_MOD:
  case SZA_CEIL:
  case SZA_FLOOR: break;
  }
  INTERNAL("the signature of %s in prims.h subtracts, divides or rounds sizes", prim_info[in->prim].name);
}

static DataType *inst_data(Inst *in, const TypeAst *t) {
  TypeCtx *tc = in->c->tc;
  switch (t->kind) {
  case TYA_SCALAR: return dt_scalar(tc, t->scalar, t->vec_width);
  case TYA_ARRAY: {
    Size n = inst_size(in, t->size);
    return dt_array(tc, n, inst_data(in, t->elem));
  }
  case TYA_PAIR: {
    DataType *a = inst_data(in, t->fst);
    return dt_pair(tc, a, inst_data(in, t->snd));
  }
  case TYA_IDX: return dt_idx(tc, inst_size(in, t->size));
  case TYA_NAMED: return bind(in, t->name, false)->data;
  case TYA_DEPARRAY: {
    /* [n](\i -> elem), docs/language.md section 30: elem made with the
     * index written, then renamed to its canonical name (dt_dep_index).
     * One level: the table's dependent arrays do not nest, and their
     * elements' type names are not dependent arrays (the checker refuses
     * those where the row type is made: triangle's elements) */
    if (in->dep_written) INTERNAL("the signature of %s in prims.h nests dependent arrays", prim_info[in->prim].name);
    Size n = inst_size(in, t->size);
    in->dep_written = t->name;
    in->dep_index = intern_cstr(in->c->in, t->name);
    DataType *elem = inst_data(in, t->elem);
    Sym written = in->dep_index;
    in->dep_written = in->dep_index = NULL;
    Sym index = dt_dep_index(in->c->in, elem);
    Size canonical = size_var(&tc->sizes, index);
    bool is_size = true;
    TypeSubst s = {1, &written, &is_size, &canonical, NULL};
    return dt_deparray(tc, n, index, written, dt_subst(tc, &s, elem));
  }
  case TYA_EXP:
  case TYA_ACC:
  case TYA_VAR:
  case TYA_COMM:
  case TYA_WITH:
  case TYA_FN:
  case TYA_FN_P: break;
  }
  INTERNAL("the signature of %s in prims.h has a phrase type inside a data type", prim_info[in->prim].name);
}

static PhraseType *inst_phrase(Inst *in, const TypeAst *t) {
  TypeCtx *tc = in->c->tc;
  switch (t->kind) {
  case TYA_EXP: return pt_exp(tc, inst_data(in, t->elem));
  case TYA_ACC: return pt_acc(tc, inst_data(in, t->elem));
  case TYA_VAR: return pt_var(tc, inst_data(in, t->elem));
  case TYA_COMM: return tc->t_comm;
  case TYA_WITH:
  case TYA_FN:
  case TYA_FN_P: {
    PhraseType *a = inst_phrase(in, t->fst), *b = inst_phrase(in, t->snd);
    return t->kind == TYA_WITH ? pt_with(tc, a, b) : t->kind == TYA_FN ? pt_fn(tc, a, b) : pt_fn_p(tc, a, b);
  }
  case TYA_SCALAR:
  case TYA_ARRAY:
  case TYA_PAIR:
  case TYA_IDX:
  case TYA_DEPARRAY:
  case TYA_NAMED: break;
  }
  /* a data type where a phrase type is expected means exp[T], as in a
   * program; the table writes exp[...] everywhere */
  INTERNAL("the signature of %s in prims.h has a bare data type", prim_info[in->prim].name);
}

static bool vector_width_ok(int64_t w) { return w == 2 || w == 3 || w == 4 || w == 8 || w == 16; }

/* Constraints that must hold before the type is built: a vector width must
 * be a constant now, because the type's vector depends on it. */
static bool check_widths(Inst *in, const PrimSig *sig) {
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    if (cl->kind != CL_WIDTH) continue;
    int64_t kv;
    Size k = bind(in, cl->a, true)->size;
    if (!size_const_value(k, &kv) || !vector_width_ok(kv)) {
      /* a width of tune parameters is known once --set gives them
       * (docs/language.md section 6) */
      check_error(in->c, ERR_BAD_VECTOR_WIDTH, in->span, "%s needs a vector width of 2, 3, 4, 8 or 16%s",
                  prim_info[in->prim].name,
                  size_const_value(k, &kv) ? "" : " (a constant: a tune parameter used as the width needs --set)");
      return false;
    }
  }
  return true;
}

static void record_constraints(Inst *in, const PrimSig *sig) {
  Checker *c = in->c;
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    switch (cl->kind) {
    case CL_VECTOR:
      defer(c, DEFER_VECTOR_OF, bind(in, cl->b, false)->data, bind(in, cl->a, false)->data,
            bind(in, cl->c, true)->size, SC_INT, in->span);
      break;
    case CL_CONVERT:
      defer(c, DEFER_CONVERT, bind(in, cl->a, false)->data, bind(in, cl->b, false)->data,
            size_const(&c->tc->sizes, 0), cl->target, in->span);
      break;
    case CL_POSITIVE: require(c, REQ_POSITIVE, bind(in, cl->a, true)->size, in->span, cl->what); break;
    case CL_LANE:
      defer(c, DEFER_LANE, bind(in, cl->a, false)->data, bind(in, cl->b, false)->data, bind(in, cl->c, true)->size,
            SC_INT, in->span);
      break;
    case CL_NUMERIC:
    case CL_FLOATING:
    case CL_WIDTH: break; /* before the type was built */
    }
  }
}

typedef struct SigTable {
  DpiaMem mem;
  Arena arena;
  Interner in;
  const PrimSig *sigs[PRIM_COUNT];
} SigTable;

static SigTable sig_table;
static pthread_once_t sig_table_once = PTHREAD_ONCE_INIT;

static void read_sig_table(void) {
  SigTable *t = &sig_table;
  dpia_mem_default(&t->mem); /* no on_oom handler: running out aborts */
  arena_init(&t->arena, &t->mem);
  intern_init(&t->in, &t->arena);
  for (int p = 0; p < PRIM_COUNT; p++) t->sigs[p] = read_signature(&t->arena, &t->in, (Prim)p);
}

static const PrimSig *prim_signature(Prim prim) {
  pthread_once(&sig_table_once, read_sig_table);
  return sig_table.sigs[prim];
}

/* depJoinAcc T: the flat acceptor it takes is T joined (dt_dep_join), the
 * type made so (the signature's [m]a is its shape) */
static PhraseType *dep_join_acc_type(Checker *c, const Phrase *p, Span span) {
  DataType *flat = p->type_arg ? dt_dep_join(c->tc, p->type_arg) : NULL;
  if (!flat) {
    TypeNamer tn;
    check_namer(c, &tn);
    check_error(c, ERR_BAD_DEP_JOIN, span,
                "depJoinAcc takes the dependent array it writes, [n](\\i -> [a + b*i]t), whose rows are arrays of "
                "one element type; this is %s",
                p->type_arg ? tn_data(&tn, p->type_arg) : "no type");
    return NULL;
  }
  return pt_fn(c->tc, pt_acc(c->tc, flat), pt_acc(c->tc, p->type_arg));
}

PhraseType *prim_type(Checker *c, const Phrase *p, Span span) {
  const PrimSig *sig = prim_signature(p->prim);
  /* the bindings are written before they are read (nnames counts them):
   * not zeroed, 12 of them at every instance (translation throughput) */
  Inst in;
  in.c = c;
  in.prim = p->prim;
  in.span = span;
  in.nnames = 0;
  in.dep_written = in.dep_index = NULL;
  /* the static arguments, as written */
  for (int i = 0; i < sig->nstatics; i++) {
    Binding *b = &in.names[in.nnames++];
    b->name = sig->statics[i];
    b->is_size = i < prim_info[p->prim].nsizes;
    if (b->is_size) b->size = p->sizes[i];
    else b->data = p->type_arg;
  }
  if (!check_widths(&in, sig)) return NULL;
  /* metavariables of a class first, in the order of the constraints */
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    if (cl->kind != CL_NUMERIC && cl->kind != CL_FLOATING) continue;
    Binding *b = &in.names[in.nnames++];
    b->name = cl->a;
    b->is_size = false;
    b->data = dt_meta(c->tc, cl->kind == CL_NUMERIC ? MC_NUMERIC : MC_FLOATING, span);
  }
  PhraseType *t = inst_phrase(&in, sig->type);
  record_constraints(&in, sig);
  if (p->prim == PRIM_DEP_JOIN_ACC) return dep_join_acc_type(c, p, span);
  return t;
}

/* a checker for one primitive outside a program */
static Checker scratch_checker(Arena *a, Interner *in, Diag *diag, TypeCtx *tc) {
  Checker c = {.arena = a, .in = in, .diag = diag, .tc = tc};
  c.zonk_memo = NEW(a, ZonkMemo);
  return c;
}

/* select by a vector mask (check_ops.c, check_select_type;
 * docs/language.md section 19): exp[intN] -> exp[sN] -> exp[sN] -> exp[sN] */
static bool is_vector_select(const PhraseType *t) {
  if (t->kind != PT_FN || t->fst->kind != PT_EXP) return false;
  const DataType *m = dt_resolve(t->fst->data);
  if (m->kind != DT_SCALAR || m->scalar != SC_INT || m->width == 1) return false;
  const PhraseType *a = t->snd;
  if (a->kind != PT_FN || a->fst->kind != PT_EXP) return false;
  const DataType *v = dt_resolve(a->fst->data);
  const PhraseType *b = a->snd;
  return v->kind == DT_SCALAR && v->width == m->width && b->kind == PT_FN && pt_equal(b->fst, a->fst) &&
         pt_equal(b->snd, a->fst);
}

/* t with each dependent array [n](\i -> d) taken at the row k, [n]d[k/i]:
 * a primitive at a dependent map's row (its mapI, the idx of its row)
 * has the table's type so (docs/language.md section 30) */
static DataType *rows_at(TypeCtx *tc, DataType *t, Size k) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_DEPARRAY: return dt_array(tc, t->size, rows_at(tc, dt_dep_elem(tc, t, k), k));
  case DT_ARRAY: return dt_array(tc, t->size, rows_at(tc, t->elem, k));
  case DT_PAIR: return dt_pair(tc, rows_at(tc, t->fst, k), rows_at(tc, t->snd, k));
  case DT_SCALAR:
  case DT_IDX:
  case DT_VAR:
  case DT_META: return t;
  }
  return t;
}

static PhraseType *pt_rows_at(TypeCtx *tc, PhraseType *t, Size k) {
  switch (t->kind) {
  case PT_EXP: return pt_exp(tc, rows_at(tc, t->data, k));
  case PT_ACC: return pt_acc(tc, rows_at(tc, t->data, k));
  case PT_COMM: return t;
  case PT_WITH: return pt_with(tc, pt_rows_at(tc, t->fst, k), pt_rows_at(tc, t->snd, k));
  case PT_FN: return pt_fn(tc, pt_rows_at(tc, t->fst, k), pt_rows_at(tc, t->snd, k));
  case PT_FN_P: return pt_fn_p(tc, pt_rows_at(tc, t->fst, k), pt_rows_at(tc, t->snd, k));
  }
  return t;
}

bool prim_type_is_instance(Arena *a, Interner *in, TypeCtx *tc, const Phrase *p) {
  /* a foreign function's type is its declaration's (check.c) */
  if (p->prim == PRIM_FOREIGN) return p->foreign && pt_equal(p->type, p->foreign->type);
  if (p->prim == PRIM_SELECT && is_vector_select(p->type)) return true;
  /* depJoin's result is its argument's rows joined (dt_dep_join), which
   * the signature's shape does not say */
  if (p->prim == PRIM_DEP_JOIN) {
    const PhraseType *t = p->type;
    if (t->kind != PT_FN || t->fst->kind != PT_EXP || t->snd->kind != PT_EXP) return false;
    DataType *flat = dt_dep_join(tc, t->fst->data);
    return flat && dt_equal(flat, dt_resolve(t->snd->data));
  }
  /* a conversion of an index converts the int it is (check.c,
   * index_conversion; docs/language.md section 22): its type is the
   * conversion's of an int with exp[idx[n]] for exp[int] */
  if (prim_converts(p->prim) && p->type->kind == PT_FN && p->type->fst->kind == PT_EXP &&
      dt_resolve(p->type->fst->data)->kind == DT_IDX) {
    Phrase of_int = *p;
    of_int.type = pt_fn(tc, pt_exp(tc, tc->t_int), p->type->snd);
    return prim_type_is_instance(a, in, tc, &of_int);
  }
  Diag diag;
  diag_init(&diag, a);
  Checker c = scratch_checker(a, in, &diag, tc);
  Span nowhere = {0};
  PhraseType *t = prim_type(&c, p, nowhere);
  PhraseType *have = p->dep_index ? pt_rows_at(tc, p->type, size_var(&tc->sizes, p->dep_index)) : p->type;
  if (!t || !unify_phrase_types(&c, t, have)) return false;
  /* the deferred constraints (a conversion's result) hold of the types
   * unified, or a conversion giving the wrong scalar would pass */
  while (wake_deferred(&c)) {
  }
  return diag.nerrors == 0;
}

PhraseType *check_prim_instance(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, Prim prim, const Size *sizes,
                                DataType *type_arg) {
  Checker c = scratch_checker(a, in, diag, tc);
  Span nowhere = {0};
  Phrase p = {.kind = PH_PRIM, .prim = prim, .type_arg = type_arg};
  for (int i = 0; i < prim_info[prim].nsizes; i++) p.sizes[i] = sizes[i];
  return prim_type(&c, &p, nowhere);
}
