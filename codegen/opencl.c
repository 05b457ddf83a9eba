/* opencl.c: imperative DPIA to an OpenCL C kernel (spec section 8, paper
 * Figure 6a and section 6): commands to statements, the loop forms of the
 * parallel loops, barrier sites (barriers.c; the barrier pass:
 * barrier_pass.c), names and types.  Acceptors and expressions are in
 * access.c; the launch, the parameters and the passes over the kernel IR
 * in lower.c.
 */
#include "cgen.h"

#include <stdio.h>
#include <string.h>

const KirExpr target_never = {.kind = KE_LIT, .lit = {SC_BOOL, 0, 0}};

/* ---- names (spec section 8: the program's own names, with _2, _3 only
 * when needed) ----
 *
 * Which names the target language takes is the backend's (Backend.names,
 * the list the checker asks too: backend_opencl_names.c).  The
 * generator keeps one family for itself: names beginning with `pair_`,
 * the struct typedefs of pair types (cg_type), so that no variable or
 * parameter can hide one. */

static bool generated_family(const char *name) {
  /* the first byte first: most names asked begin otherwise (issue 35: a
   * strncmp call per name) */
  return name[0] == 'p' && strncmp(name, "pair_", 5) == 0;
}

/* name_n, as arena_printf "%s_%d" writes it (n >= 2), without a format:
 * the suffix search of every name taken (lid_2 of a second mapLocal) */
static const char *suffixed(Arena *a, const char *name, int n) {
  char digits[12];
  int nd = 0;
  for (unsigned v = (unsigned)n; v; v /= 10) digits[nd++] = (char)('0' + v % 10);
  size_t len = strlen(name);
  char *c = NEWARRAY(a, char, len + 2 + (size_t)nd);
  memcpy(c, name, len);
  c[len] = '_';
  for (int i = 0; i < nd; i++) c[len + 1 + i] = digits[nd - 1 - i];
  c[len + 1 + nd] = '\0';
  return c;
}

bool cg_is_reserved(const Backend *b, const char *name) { return backend_reserved(b, name) || generated_family(name); }

/* A C name for a binder called base (cgen.h).  Three steps:
 *  1. a prime is no C character: a run of k primes becomes _ and k p's
 *     (xs' is xs_p, xs'' xs_pp);
 *  2. a reserved name loses its leading underscores (__x is x, _Tmp Tmp);
 *  3. the first of name, name_2, name_3, ... that is neither taken nor
 *     reserved (dot_2, while_2).  A reserved name_n means a whole reserved
 *     family (CLK_a_2, CL_2, pair_x_2: a prefix), which no suffix leaves;
 *     then the candidates are v_name, v_name_2, ...: no reserved name
 *     begins with v_ (check.h).  Each step ends after as many candidates as
 *     there are taken names, so the search is quick and always ends. */
const char *cg_c_name(Arena *a, const Backend *be, const char *base, CNameTaken taken, const void *ctx,
                      NameSet *hints) {
  /* base itself where it has no prime (most names: no copy) */
  const char *name = base;
  if (strchr(base, '\'')) {
    Buf b;
    buf_init(&b, a);
    for (const char *s = base; *s; s++) {
      if (*s != '\'') buf_putc(&b, *s);
      else if (s > base && s[-1] == '\'') buf_putc(&b, 'p');
      else buf_puts(&b, "_p");
    }
    name = b.data ? b.data : "";
  }
  if (!*name) name = "v";
  /* asked once where the name stays as it is (most are free): every
   * binder's name is, and each question searches the backend's tables */
  bool reserved = cg_is_reserved(be, name);
  if (reserved) {
    const char *t = name;
    while (*t == '_') t++;
    if (!*t) name = "v";
    else if (*t >= '0' && *t <= '9') name = arena_printf(a, "v_%s", t);
    else if (t != name) name = t;
    reserved = cg_is_reserved(be, name);
  }
  if (!reserved && !taken(ctx, name)) return name;
  int *hint = hints ? nameset_hint(hints, name) : NULL;
  for (int n = hint && *hint > 2 ? *hint : 2;; n++) {
    const char *c = suffixed(a, name, n);
    if (cg_is_reserved(be, c)) break;
    if (!taken(ctx, c)) {
      if (hint) *hint = n + 1;
      return c;
    }
  }
  const char *v = arena_printf(a, "v_%s", name);
  for (int n = 1;; n++) {
    const char *c = n == 1 ? v : arena_printf(a, "%s_%d", v, n);
    if (cg_is_reserved(be, c)) INTERNAL("the C name '%s' is reserved", c);
    if (!taken(ctx, c)) return c;
  }
}

static bool name_visible(const void *ctx, const char *name) {
  const CG *cg = ctx;
  return nameset_has(&cg->visible, name);
}

static void declare_name(CG *cg, const char *name) {
  if (cg->nnames == cg->capnames) {
    int cap = cg->capnames ? 2 * cg->capnames : 32;
    const char **n = NEWARRAY(cg->arena, const char *, cap);
    if (cg->nnames) memcpy(n, cg->names, sizeof *n * (size_t)cg->nnames);
    cg->names = n;
    cg->capnames = cap;
  }
  cg->names[cg->nnames++] = name;
  nameset_add(&cg->visible, name);
}

/* the binder's own name, made a C name not visible here (no shadowing) */
const char *cg_name(CG *cg, const char *base) {
  const char *name = cg_c_name(cg->arena, cg->backend, base, name_visible, cg, NULL);
  declare_name(cg, name);
  return name;
}

const char *cg_declare(CG *cg, const char *name) {
  declare_name(cg, name);
  return name;
}

void cg_scope_enter(CG *cg, int *mark) { *mark = cg->nnames; }
void cg_scope_leave(CG *cg, int mark) {
  while (cg->nnames > mark) nameset_remove(&cg->visible, cg->names[--cg->nnames]);
}

void cg_error(CG *cg, DiagCode code, Span span, const char *fmt, ...) {
  if (cg->trial) {
    cg->trial_failed = true;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  Buf b;
  buf_init(&b, cg->arena);
  vemit(&b, fmt, ap);
  va_end(ap);
  diag_error(cg->diag, code, span, "%s", b.data);
  cg->failed = true;
}

void binder_set_add(CG *cg, BinderSet *s, const Binder *b) {
  if (!b || binder_set_has(s, b)) return;
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 8;
    const Binder **n = NEWARRAY(cg->arena, const Binder *, cap);
    if (s->n) memcpy(n, s->items, sizeof *n * (size_t)s->n);
    s->items = n;
    s->cap = cap;
  }
  s->items[s->n++] = b;
}

bool binder_set_has(const BinderSet *s, const Binder *b) {
  for (int i = 0; i < s->n; i++)
    if (s->items[i] == b) return true;
  return false;
}

/* ---- types ---- */

DataType *cg_elem_type(DataType *t) {
  t = dt_resolve(t);
  while (t->kind == DT_ARRAY) t = dt_resolve(t->elem);
  return t;
}

Size cg_elem_count(CG *cg, DataType *t) {
  Size n = size_const(&cg->tc->sizes, 1);
  for (t = dt_resolve(t); t->kind == DT_ARRAY; t = dt_resolve(t->elem)) n = size_mul(&cg->tc->sizes, n, t->size);
  return n;
}

/* typedef names: pair_float_int, pair_arr4_float_int (Polish notation, so
 * distinct types get distinct names).  No variable or parameter name the
 * generator makes begins with pair_ (cg_is_reserved); the names it keeps,
 * the kernel's and its nat parameters', may, and a typedef of that name
 * takes _t (then _t_t ...: no tag ends in _t, so the names stay distinct;
 * see struct_name). */
static void type_tag(Buf *b, DataType *t) {
  t = dt_resolve(t);
  int64_t n;
  switch (t->kind) {
  case DT_SCALAR:
    buf_puts(b, scalar_name(t->scalar));
    if (t->width > 1) emit(b, "%d", t->width);
    return;
  case DT_PAIR:
    buf_puts(b, "pair_");
    type_tag(b, t->fst);
    buf_putc(b, '_');
    type_tag(b, t->snd);
    return;
  case DT_ARRAY:
    emit(b, "arr%lld_", size_const_value(t->size, &n) ? (long long)n : 0LL);
    type_tag(b, t->elem);
    return;
  case DT_IDX: buf_puts(b, "int"); return;
  default: INTERNAL("type tag of %d", (int)t->kind);
  }
}

/* a name the kernel keeps: its own, its nat parameters' (file scope and
 * the function's outermost scope, where a typedef of the same name would
 * be hidden or clash) */
static bool kept_name(const CG *cg, const char *name) {
  if (strcmp(name, cg->k->name) == 0) return true;
  for (int i = 0; i < cg->k->nparams; i++)
    if (cg->k->params[i].role == KP_NAT && strcmp(cg->k->params[i].name, name) == 0) return true;
  return false;
}

static const char *struct_name(CG *cg, DataType *t) {
  Buf b;
  buf_init(&b, cg->arena);
  type_tag(&b, t);
  while (kept_name(cg, b.data)) buf_puts(&b, "_t");
  return b.data;
}

static bool struct_fields_ok(CG *cg, DataType *t) {
  for (DataType *f = t; f->kind == DT_ARRAY; f = dt_resolve(f->elem)) {
    int64_t n;
    if (!size_const_value(f->size, &n)) return false;
  }
  (void)cg;
  return true;
}

const KirType *cg_scalar_type(CG *cg, ScalarKind s, int width) {
  if (s == SC_DOUBLE) cg->uses_double = true;
  return kir_scalar_type(cg->arena, s, width);
}

/* t's type; note: t is declared here (note its struct typedef, report a
 * pair type that cannot be one) */
static const KirType *type_of(CG *cg, DataType *t, bool note) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_SCALAR: return cg_scalar_type(cg, t->scalar, t->width);
  case DT_IDX: return cg_scalar_type(cg, SC_INT, 1);
  case DT_PAIR: {
    if (!note) return kir_struct_type(cg->arena, struct_name(cg, t));
    /* fields first, so the typedefs come out in dependency order */
    DataType *f[2] = {dt_resolve(t->fst), dt_resolve(t->snd)};
    for (int i = 0; i < 2; i++) {
      if (!struct_fields_ok(cg, f[i])) {
        cg_error(cg, ERR_CODEGEN_UNSUPPORTED, cg->where,
                 "cannot generate OpenCL for the pair type %s: an array of symbolic size "
                 "cannot be a struct field",
                 dt_str(cg->arena, t));
      }
      cg_type(cg, cg_elem_type(f[i]));
    }
    const KirType *type = kir_struct_type(cg->arena, struct_name(cg, t));
    for (int i = 0; i < cg->structs.len; i++)
      if (dt_equal(cg->structs.items[i], t)) return type;
    vec_push(cg->arena, &cg->structs, t);
    return type;
  }
  default: INTERNAL("no C type for %s", dt_str(cg->arena, t));
  }
}

const KirType *cg_type(CG *cg, DataType *t) { return type_of(cg, t, true); }

const KirType *cg_value_type(CG *cg, DataType *t) { return type_of(cg, t, false); }

KirStruct cg_struct_of(CG *cg, DataType *t) {
  KirStruct st = {.name = cg_type(cg, t)->name};
  DataType *f[2] = {dt_resolve(t->fst), dt_resolve(t->snd)};
  for (int i = 0; i < 2; i++) {
    st.field[i] = (KirStructField){cg_type(cg, cg_elem_type(f[i])), i ? "snd" : "fst", -1};
    if (f[i]->kind == DT_ARRAY) {
      int64_t n = 0;
      size_const_value(cg_elem_count(cg, f[i]), &n);
      st.field[i].array_len = n;
    }
  }
  return st;
}

/* ---- output ---- */

KirStmt *cg_add(CG *cg, KirStmtKind kind, const char *comment) {
  KirStmt *s = kir_stmt(cg->arena, kind);
  s->comment = comment;
  kir_append(cg->block, s);
  return s;
}

KirBlock *cg_enter(CG *cg, KirStmt *s) {
  KirBlock *outer = cg->block;
  cg->block = kir_body(s);
  if (!cg->block) INTERNAL("a %d statement has no body", (int)s->kind);
  return outer;
}

void cg_leave(CG *cg, KirBlock *outer) { cg->block = outer; }

void cg_comment(CG *cg, const char *fmt, ...) {
  Buf b;
  buf_init(&b, cg->arena);
  va_list ap;
  va_start(ap, fmt);
  vemit(&b, fmt, ap);
  va_end(ap);
  cg_add(cg, KS_COMMENT, NULL)->text = b.data;
}

static KirStmt *add_decl(CG *cg, const KirType *type, const char *name, const KirExpr *init, const char *comment) {
  KirStmt *d = cg_add(cg, KS_DECL, comment);
  d->decl.space = KSP_PRIVATE;
  d->decl.type = type;
  d->decl.name = name;
  d->decl.array_len = -1;
  d->decl.init = init;
  return d;
}

/* for (int i = init; i < bound; i += step) { comment */
static KirStmt *add_for(CG *cg, const char *i, const KirExpr *init, const Ix *bound, const KirExpr *step,
                        const char *comment) {
  KirStmt *f = cg_add(cg, KS_FOR, comment);
  f->loop.var = i;
  f->loop.init = init;
  f->loop.bound = cg_ix_expr(cg, bound);
  f->loop.step = step;
  return f;
}

KirStmt *add_if(CG *cg, const KirExpr *cond, const char *comment) {
  KirStmt *f = cg_add(cg, KS_IF, comment);
  f->cond.cond = cond;
  return f;
}

static void pop_statement_ranges(CG *cg) {
  for (; cg->nranges_stmt > 0; cg->nranges_stmt--) ix_pop_range(&cg->ix);
}

/* ---- commands (Figure 6a) ---- */


/* The value of an assignment, with each element of a padCst view that it
 * reads more than once (a lambda's variable used twice: \x -> x * x)
 * read once, into a variable declared before the statement, as one would
 * write it by hand:
 *   const float x = i < 1 ? 0.25f : xs[i - 1];
 *   output[i] = x * x;
 * rather than the conditional read twice.  The expression is rendered
 * once to count the reads, then again with the variables, only when some
 * read repeats; a read inside another one (PaddedRead.container) that is
 * read as often goes with it. */
static CExpr gen_value_once(CG *cg, const Phrase *val, const Step *ps) {
  cg->padded_reads.len = 0;
  cg->count_padded_reads = true;
  bool failed_before = cg->failed;
  CExpr v = gen_exp(cg, val, ps);
  cg->count_padded_reads = false;
  bool repeats = false;
  /* after an error, not again: it would be reported twice */
  for (int k = 0; k < cg->padded_reads.len && cg->failed == failed_before; k++) {
    PaddedRead *r = cg->padded_reads.items[k];
    if (r->count < 2) continue;
    bool inside_another = false; /* read only as part of a longer repeated one */
    int depth = 0;               /* a chain of containers is no longer than the reads */
    for (const PaddedRead *o = r->container; o && depth < cg->padded_reads.len; o = o->container, depth++)
      if (o->count >= r->count) inside_another = true;
    if (inside_another) continue;
    r->name = cg_name(cg, "x");
    add_decl(cg, cg_type(cg, r->type), r->name, r->read, NULL)->decl.is_const = true;
    repeats = true;
  }
  if (repeats) v = gen_exp(cg, val, ps);
  cg->padded_reads.len = 0;
  return v;
}

/* the value of an assignment written to one place of its target */
static void store(CG *cg, const Target *target, const Phrase *val, const Step *ps, DataType *t) {
  Target tg = *target;
  /* lanes written one by one, none of them ever (a dropAcc past a vector
   * of lanes): nothing is written, and no vector is read into a variable
   * nothing reads (seed 71 #52: -Wunused-variable after check) */
  bool some_lane = tg.kind != TG_LANES;
  for (int l = 0; !some_lane && l < tg.width; l++) some_lane = !tg.lane_guards || tg.lane_guards[l] != TARGET_NEVER;
  if (tg.guard == TARGET_NEVER || !some_lane) {
    cg_reads_skipped(cg, val);
    return;
  }
  KirBlock *outer = cg->block;
  if (tg.guard) /* a write takeAcc or dropAcc may drop */
    cg_enter(cg, add_if(cg, tg.guard, NULL));
  CExpr v = gen_value_once(cg, val, ps);
  switch (tg.kind) {
  case TG_LVALUE: {
    /* x = x writes nothing new: a part of an accumulator that a step
     * keeps as it is (a register tile of which the step updates one
     * vector: a select of two register tiles,
     * tests/structure/select_sides.dpia) */
    if (kir_expr_equal(tg.lvalue, v)) break;
    KirStmt *as = cg_add(cg, KS_ASSIGN, NULL);
    as->assign.lhs = tg.lvalue;
    as->assign.rhs = v;
    break;
  }
  case TG_VSTORE: {
    KirStmt *st = cg_add(cg, KS_VSTORE, NULL);
    st->vstore.width = tg.width;
    st->vstore.value = v;
    st->vstore.offset = tg.offset;
    st->vstore.ptr = tg.ptr;
    break;
  }
  case TG_LANES: {
    KirBlock *around = cg_enter(cg, cg_add(cg, KS_BLOCK, NULL));
    int mark;
    cg_scope_enter(cg, &mark);
    const char *tmp = cg_name(cg, "v");
    const KirType *tmp_type = cg_type(cg, t);
    add_decl(cg, tmp_type, tmp, v, NULL);
    for (int l = 0; l < tg.width; l++) {
      if (tg.lane_guards && tg.lane_guards[l] == TARGET_NEVER) continue;
      KirBlock *lane_outer = cg->block;
      if (tg.lane_guards && tg.lane_guards[l]) {
        KirStmt *g = add_if(cg, tg.lane_guards[l], NULL);
        g->cond.one_line = true;
        cg_enter(cg, g);
      }
      KirStmt *as = cg_add(cg, KS_ASSIGN, NULL);
      as->assign.lhs = tg.lanes[l];
      as->assign.rhs = kir_lane(cg->arena, kir_var(cg->arena, tmp, tmp_type), l, tg.width);
      cg_leave(cg, lane_outer);
    }
    cg_scope_leave(cg, mark);
    cg_leave(cg, around);
    break;
  }
  }
  cg_leave(cg, outer);
}

/* A :=T E, the paper's generalised assignment (section 4.1) on compound T:
 * field by field and element by element. */
static void gen_assign(CG *cg, const Phrase *acc, const Phrase *val, const Step *ps, DataType *t) {
  t = dt_resolve(t);
  if (t->kind == DT_PAIR) {
    gen_assign(cg, acc, val, step_append(cg, ps, (Step){STEP_FIELD, NULL, 1, NULL}), t->fst);
    gen_assign(cg, acc, val, step_append(cg, ps, (Step){STEP_FIELD, NULL, 2, NULL}), t->snd);
    return;
  }
  if (t->kind == DT_ARRAY) {
    int mark;
    cg_scope_enter(cg, &mark);
    const char *i = cg_name(cg, "i");
    const Ix *n = ix_from_size(&cg->ix, t->size);
    KirBlock *outer = cg_enter(cg, add_for(cg, i, kir_int(cg->arena, 0), n, kir_int(cg->arena, 1), "copy"));
    const Ix *iv = ix_var(&cg->ix, i);
    ix_push_range(&cg->ix, iv, NULL, n);
    gen_assign(cg, acc, val, step_append(cg, ps, (Step){STEP_IDX, iv, 0, NULL}), t->elem);
    ix_pop_range(&cg->ix);
    cg_leave(cg, outer);
    cg_scope_leave(cg, mark);
    return;
  }
  Target tg = gen_acc(cg, acc, ps);
  /* mirrorAcc's places share their guard (j >= i): one test, the value
   * computed once, into a variable when it is more than a variable's
   * read, then stored at each place (PolyBench's symmat[j1*m + j2] = s;
   * symmat[j2*m + j1] = s) */
  bool shared = tg.also && tg.guard != TARGET_NEVER;
  for (const Target *o = tg.also; shared && o; o = o->also) shared = o->guard == tg.guard && o->kind == TG_LVALUE;
  if (shared && tg.kind == TG_LVALUE) {
    KirBlock *outer = cg->block;
    if (tg.guard) cg_enter(cg, add_if(cg, tg.guard, NULL));
    CExpr v = gen_value_once(cg, val, ps);
    if (v->kind != KE_VAR && v->kind != KE_LIT && v->kind != KE_INT) {
      const char *name = cg_name(cg, "v");
      const KirType *vt = cg_type(cg, t);
      add_decl(cg, vt, name, v, NULL)->decl.is_const = true;
      v = kir_var(cg->arena, name, vt);
    }
    for (const Target *o = &tg; o; o = o->also) {
      KirStmt *as = cg_add(cg, KS_ASSIGN, NULL);
      as->assign.lhs = o->lvalue;
      as->assign.rhs = v;
    }
    cg_leave(cg, outer);
  } else {
    for (const Target *o = &tg; o; o = o->also) store(cg, o, val, ps, t);
  }
  pop_statement_ranges(cg);
}

/* the leaf commands of a sequence */
static void leaves(CG *cg, const Phrase *p, Vec *out) {
  if (p->kind == PH_SEQ) {
    leaves(cg, p->fst, out);
    leaves(cg, p->snd, out);
  } else {
    vec_push(cg->arena, out, (void *)p);
  }
}

/* the leaves of a sequence, and those of the bodies of the for loops in it */
static void leaves_through_for(CG *cg, const Phrase *p, Vec *out) {
  Spine s;
  if (p->kind == PH_SEQ) {
    leaves_through_for(cg, p->fst, out);
    leaves_through_for(cg, p->snd, out);
  } else if (p->kind == PH_APP && spine_of(cg->arena, p, &s) && s.head->prim == PRIM_FOR && s.nargs == 1 &&
             s.args[0]->kind == PH_LAM) {
    leaves_through_for(cg, s.args[0]->body, out);
  } else {
    vec_push(cg->arena, out, (void *)p);
  }
}

/* Whether some subphrase q of p has match(q, b) (lambda bodies included:
 * b's scope is a lambda, so there is no shadowing to mind). */
static bool has_subphrase(CG *cg, const Phrase *p, bool (*match)(const Phrase *, const Binder *), const Binder *b) {
  /* a leaf (a private variable's initial value, 0.0) answered without
   * the stack */
  if (p->kind == PH_VAR || p->kind == PH_LIT || p->kind == PH_PRIM) return match(p, b);
  Vec stack = {0};
  vec_push(cg->arena, &stack, (void *)p);
  while (stack.len) {
    const Phrase *q = stack.items[--stack.len];
    if (match(q, b)) return true;
    if (q->kind == PH_LAM) vec_push(cg->arena, &stack, (void *)q->body);
    else if (q->kind != PH_VAR && q->kind != PH_LIT && q->kind != PH_PRIM) {
      if (q->fst) vec_push(cg->arena, &stack, (void *)q->fst);
      if (q->kind != PH_PROJ && q->kind != PH_UNOP && q->snd) vec_push(cg->arena, &stack, (void *)q->snd);
    }
  }
  return false;
}

static bool is_use_of(const Phrase *q, const Binder *b) { return q->kind == PH_VAR && q->binder == b; }

/* v.2, the expression half of the variable v */
static bool is_read_of(const Phrase *q, const Binder *v) {
  return q->kind == PH_PROJ && q->index == 2 && q->fst->kind == PH_VAR && q->fst->binder == v;
}

/* A for loop (over `index`) around updates of a private accumulator that
 * read it back came from reduceSeq (spec section 7: reduceI); otherwise
 * from mapSeq.  The accumulator may be an array updated element by element
 * (a reduceSeq whose function is a mapSeq, e.g. register blocking:
 * acc[r] = ... + acc[r]): the loop over r, whose index picks the element
 * written, is that mapSeq, and the loop around it the reduceSeq. */
static bool is_reduction(CG *cg, const Phrase *body, const Binder *index) {
  Vec cmds = {0};
  leaves_through_for(cg, body, &cmds);
  for (int i = 0; i < cmds.len; i++) {
    const Phrase *c = cmds.items[i];
    if (c->kind != PH_ASSIGN) return false;
    const Phrase *a = c->fst;
    Spine sp;
    while (a->kind == PH_APP && spine_of(cg->arena, a, &sp) && sp.head->prim == PRIM_IDX_ACC && sp.nargs == 2) {
      if (has_subphrase(cg, sp.args[1], is_use_of, index)) return false;
      a = sp.args[0];
    }
    Storage *st = phrase_storage(cg, a);
    if (!st || st->space != SP_PRIVATE || a->kind != PH_PROJ) return false;
    if (!has_subphrase(cg, c->snd, is_read_of, a->fst->binder)) return false;
  }
  return cmds.len > 0;
}

/* the comment of a loop: what the source says, when stage II recorded it;
 * else what its body does (user-written imperative loops, copies) */
static const char *loop_label(CG *cg, const Phrase *loop, const Phrase *lam) {
  if (loop->origin) return loop->origin;
  return is_reduction(cg, lam->body, lam->lam_binder) ? "reduceSeq" : "mapSeq";
}

/* The bytes a private variable of type t takes (OpenCL C's sizes: a
 * 3-vector as a 4-vector, a pair as its two halves, bool as an int), or
 * INT64_MAX when that does not fit 64 bits.  Arrays have constant sizes
 * here (gen_new refuses symbolic ones before asking). */
static int64_t private_bytes(CG *cg, DataType *t) {
  t = dt_resolve(t);
  DPIA_EXHAUSTIVE_BEGIN
  switch (t->kind) {
  case DT_SCALAR: return (t->scalar == SC_DOUBLE ? 8 : 4) * (t->width == 3 ? 4 : t->width);
  case DT_IDX: return 4;
  case DT_PAIR: {
    int64_t a = private_bytes(cg, t->fst), b = private_bytes(cg, t->snd), sum;
    return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
  }
  case DT_ARRAY: {
    int64_t n, product;
    if (!size_const_value(cg_elem_count(cg, t), &n)) return INT64_MAX;
    return __builtin_mul_overflow(n, private_bytes(cg, cg_elem_type(t)), &product) ? INT64_MAX : product;
  }
  case DT_DEPARRAY: /* never stored: the checker refuses it (E0329) */
  case DT_VAR:
  case DT_META:
  default: INTERNAL("a private variable of unresolved type");
  }
  DPIA_EXHAUSTIVE_END
}

/* Private memory is a work-item's registers and a small stack: OpenCL
 * gives no size for it, GPUs spill to slow memory long before this, and
 * PoCL 3.1's work-items overflowed their stack (a segfault, after a clean
 * check) at 256 KiB of private arrays (224 KiB ran).  A kernel whose
 * private arrays in scope at once exceed this is refused at the one that
 * crosses it (docs/errors.md E0606), as a program that would not run (a
 * private accumulator of a whole block of gemm did so). */
enum { PRIVATE_LIMIT = 64 * 1024 };

static bool private_fits(CG *cg, const Phrase *p, DataType *t, int64_t bytes) {
  if (bytes <= PRIVATE_LIMIT - cg->private_live) return true;
  if (cg->private_reported) return false;
  cg->private_reported = true;
  if (cg->private_live == 0)
    cg_error(cg, ERR_PRIVATE_TOO_LARGE, p->span,
             "this private %s takes %lld bytes per work-item, more than the %d that dpia allows (private "
             "memory is registers and a small stack); place it in local or global memory (toLocal, toGlobal) "
             "or split the work",
             dt_str(cg->arena, t), (long long)bytes, (int)PRIVATE_LIMIT);
  else
    cg_error(cg, ERR_PRIVATE_TOO_LARGE, p->span,
             "this private %s takes %lld bytes per work-item, which with the %lld bytes of private arrays "
             "already in scope is more than the %d that dpia allows (private memory is registers and a small "
             "stack); place it in local or global memory (toLocal, toGlobal) or split the work",
             dt_str(cg->arena, t), (long long)bytes, (long long)cg->private_live, (int)PRIVATE_LIMIT);
  return false;
}

static void gen_new_private(CG *cg, const Phrase *lam, DataType *t, int64_t n);

static void gen_new(CG *cg, const Phrase *p, const Spine *s) {
  const Phrase *lam = s->args[0];
  DataType *t = dt_resolve(s->head->type_arg);
  const Binder *b = lam->lam_binder;
  if (s->head->prim == PRIM_NEW_LOCAL) {
    const EnvEntry *declared = env_index_get(&cg->by_binder, b);
    if (!declared)
      cg_error(cg, ERR_BAD_TEMPORARY, p->span,
               "newLocal inside a parforLocal or parforGlobal cannot be generated: local memory "
               "belongs to the whole work-group (allocate it around the kernel body)");
    /* a work-group's accumulator kept in private memory, each work-item
     * its own element (locals.c, collect_locals): declared here */
    const Storage *own = declared && declared->kind == ENV_STORAGE ? declared->st : NULL;
    if (own && own->nowned_by) {
      DataType *e = own->type;
      int64_t n = -1;
      if (e->kind == DT_ARRAY) size_const_value(cg_elem_count(cg, e), &n);
      add_decl(cg, cg_type(cg, e->kind == DT_ARRAY ? cg_elem_type(e) : e), own->name, NULL, NULL)->decl.array_len =
          n;
    }
    gen_comm(cg, lam->body);
    return;
  }
  if (s->head->prim == PRIM_NEW_GLOBAL) {
    cg_error(cg, ERR_BAD_TEMPORARY, p->span,
             "newGlobal inside a kernel body cannot be generated: global temporaries are kernel "
             "parameters (docs/reference.md section 8.2, hoisting)");
    return;
  }
  /* new / newPrivate: a private variable (spec section 8) */
  int64_t n = 0;
  if (t->kind == DT_ARRAY && !size_const_value(cg_elem_count(cg, t), &n)) {
    cg_error(cg, ERR_BAD_ADDRESS_SPACE, p->span,
             "a private array of symbolic size %s cannot be generated (OpenCL has no dynamic "
             "private memory)",
             dt_str(cg->arena, t));
    return;
  }
  /* arrays and pairs (which may hold arrays): scalars and vectors are
   * registers */
  int64_t bytes = t->kind == DT_ARRAY || t->kind == DT_PAIR ? private_bytes(cg, t) : 0;
  if (!private_fits(cg, p, t, bytes)) return;
  cg->private_live += bytes;
  gen_new_private(cg, lam, t, n);
  cg->private_live -= bytes;
}

/* the private variable of new or newPrivate: of array type t, n elements
 * (a constant: gen_new) */
static void gen_new_private(CG *cg, const Phrase *lam, DataType *t, int64_t n) {
  const Binder *b = lam->lam_binder;
  const char *name = cg_name(cg, b->name);
  if (t->kind == DT_ARRAY) {
    add_decl(cg, cg_type(cg, cg_elem_type(t)), name, NULL, NULL)->decl.array_len = n;
    env_add(cg, b, ENV_STORAGE, new_storage(cg, STORE_BUFFER, SP_PRIVATE, name, t, b), NULL, NULL);
  } else {
    env_add(cg, b, ENV_STORAGE, new_storage(cg, STORE_VALUE, SP_PRIVATE, name, t, b), NULL, NULL);
    /* v.1 := e first (an accumulator's initial value, a let): declared
     * with it, float acc = 0.0f; as one writes it, not float acc; then
     * acc = 0.0f;.  e cannot read v, which has no value yet. */
    const Phrase *first = lam->body, *rest = NULL;
    if (first->kind == PH_SEQ) rest = first->snd, first = first->fst;
    if (t->kind == DT_SCALAR && first->kind == PH_ASSIGN && first->fst->kind == PH_PROJ && first->fst->index == 1 &&
        is_use_of(first->fst->fst, b) && !has_subphrase(cg, first->snd, is_use_of, b)) {
      cg->where = first->span;
      KirSite *site = cg_command_site(cg, first, KL_NONE);
      CExpr v = gen_value_once(cg, first->snd, NULL);
      add_decl(cg, cg_type(cg, t), name, v, NULL);
      cg_command_end(cg, site);
      pop_statement_ranges(cg);
      if (rest) gen_comm(cg, rest);
      return;
    }
    add_decl(cg, cg_type(cg, t), name, NULL, NULL);
  }
  gen_comm(cg, lam->body);
}

/* the index of a loop: its variable, or 0 when it runs once */
static const Ix *index_of(CG *cg, const char *name, Size trips) {
  int64_t n;
  if (size_const_value(trips, &n) && n == 1) return ix_const(&cg->ix, 0);
  return ix_var(&cg->ix, name);
}

/* A for loop of at most UNROLL_MAX constant steps whose body only assigns
 * (the step of a reduceSeq or mapSeq over a small neighbourhood) is written
 * out step by step: its index becomes a constant, which the simplifier
 * folds (padClamp then drops the clamps it no longer needs, as a person
 * would write a 3-point stencil), and PoCL vectorises the work-item loop
 * around straight-line code, not around an inner loop (bench/blas_bench:
 * the 1D stencil 3x and jacobi2d 10x faster).  A loop of one step is its
 * body.
 *
 * So is a small nest: a constant loop whose body is assignments, scalar
 * private variables (a nested reduceSeq's accumulator) and constant loops,
 * which writes no buffer in global or local memory (so that no barrier can
 * fall inside it: the loop would get none either), and which writes out at
 * most UNROLL_BUDGET assignments in all (the trip counts multiplied down
 * the nest, the assignments of every level counted).  16 takes a 3 x 3
 * neighbourhood as a loop of 3 around rows of 3 (15 assignments with the
 * rows' accumulators) or as one loop of 9 (whose i/3 and i%3 then fold to
 * constants), as one writes a 3 x 3 convolution by hand, and a lane-wise
 * reduction of a float16; a 5 x 5 neighbourhood stays a loop (not
 * measured: the written-out text would stop reading like a hand-written
 * kernel).  Measured (bench/peer_bench.c, 4096 x 4096, PoCL, 2 cores):
 * samples/gaussian_blur.dpia gaussian3x3 and gaussian3x3Prelude ran at
 * 0.23x-0.27x and 0.07x-0.08x of the hand-written kernel as loops, and
 * written out at 0.79x-0.85x, as gaussian3x3Rows, which the program
 * writes out itself (0.79x-0.86x in the same runs). */
enum { UNROLL_MAX = 4, UNROLL_BUDGET = 16 };

static bool only_assignments(CG *cg, const Phrase *body) {
  Vec cmds = {0};
  leaves(cg, body, &cmds);
  for (int i = 0; i < cmds.len; i++)
    if (((const Phrase *)cmds.items[i])->kind != PH_ASSIGN) return false;
  return cmds.len > 0;
}

/* the number of assignments p writes out when every loop in it is written
 * out, or -1 when p has another command (a parfor, a variable not private
 * or not scalar, a loop of symbolic or no steps) or writes out more than
 * budget */
static int64_t nest_assignments(CG *cg, const Phrase *p, int64_t budget) {
  if (p->kind == PH_ASSIGN) return budget >= 1 ? 1 : -1;
  if (p->kind == PH_PRIM && p->prim == PRIM_SKIP) return 0;
  if (p->kind == PH_SEQ) {
    int64_t a = nest_assignments(cg, p->fst, budget);
    if (a < 0) return -1;
    int64_t b = nest_assignments(cg, p->snd, budget - a);
    return b < 0 ? -1 : a + b;
  }
  Spine s;
  if (p->kind != PH_APP || !spine_of(cg->arena, p, &s) || s.nargs != 1 || s.args[0]->kind != PH_LAM) return -1;
  const Phrase *body = s.args[0]->body;
  if (s.head->prim == PRIM_NEW || s.head->prim == PRIM_NEW_PRIVATE)
    return dt_resolve(s.head->type_arg)->kind == DT_SCALAR ? nest_assignments(cg, body, budget) : -1;
  int64_t trips;
  if (s.head->prim != PRIM_FOR || !size_const_value(s.head->sizes[0], &trips) || trips < 1 || trips > budget) return -1;
  int64_t a = nest_assignments(cg, body, budget / trips);
  return a < 0 ? -1 : a * trips;
}

static bool small_nest(CG *cg, const Phrase *body, int64_t trips) {
  if (trips > UNROLL_BUDGET || nest_assignments(cg, body, UNROLL_BUDGET / trips) < 1) return false;
  BinderSet writes = {0};
  scan_writes(cg, body, NULL, &writes);
  return writes.n == 0;
}

/* the loop that fills an array literal of computed elements (check.c) is
 * unrolled up to this many elements: the program wrote them one by one.
 * The copy of an array value of up to UNROLL_COPY_MAX elements into its
 * acceptor (a private array written to its place in the output: a
 * literal of a tuple's fields, or a small accumulator) is written out
 * too: an element a statement, as a person copies a few registers, and
 * the work-items' loop around it straight-line code for PoCL to
 * vectorise (samples/cfd_flux.dpia's five fluxes: the copy of five,
 * left a loop, kept PoCL from vectorising the work-items; a loop of 5 is
 * one more than UNROLL_MAX). */
enum { UNROLL_LITERAL_MAX = 64, UNROLL_COPY_MAX = 8 };

/* Is the loop `for n lam` written out, step by step?  *trips: its steps. */
static bool unrolls(CG *cg, const Phrase *loop, const Phrase *lam, Size n, int64_t *trips) {
  bool literal = loop->fills_literal;
  if (!size_const_value(n, trips) || *trips < 1) return false;
  int64_t most = loop->copies_array ? UNROLL_COPY_MAX : UNROLL_MAX;
  return literal ? *trips <= UNROLL_LITERAL_MAX
                 : *trips == 1 || (*trips <= most && only_assignments(cg, lam->body)) ||
                       small_nest(cg, lam->body, *trips);
}

/* A step that is nothing but a loop written out too (a register tile's
 * rows of lanes): its label, and *trips its steps. */
static const char *unrolled_inner(CG *cg, const Phrase *body, int64_t *trips) {
  Spine s;
  if (body->kind != PH_APP || !spine_of(cg->arena, body, &s) || s.head->kind != PH_PRIM || s.head->prim != PRIM_FOR ||
      s.nargs != 1 || s.args[0]->kind != PH_LAM)
    return NULL;
  if (!unrolls(cg, s.head, s.args[0], s.head->sizes[0], trips) || *trips < 2) return NULL;
  return loop_label(cg, s.head, s.args[0]);
}

static bool gen_for_unrolled(CG *cg, const Phrase *loop, const Phrase *lam, Size n) {
  int64_t trips, inner_trips;
  if (!unrolls(cg, loop, lam, n, &trips)) return false;
  /* a nest written out has one comment (the steps of the inner loops are
   * not each announced again) */
  bool quiet = cg->unrolled_nest;
  const char *inner = trips > 1 ? unrolled_inner(cg, lam->body, &inner_trips) : NULL;
  if (trips > 1 && !quiet && inner)
    cg_comment(cg, "%s of %s, %lld x %lld steps", loop_label(cg, loop, lam), inner, (long long)trips,
               (long long)inner_trips);
  else if (trips > 1 && !quiet) { /* "%s, %lld steps" without a format (every chunk-16 reduction's) */
    Buf b;
    buf_init(&b, cg->arena);
    buf_puts(&b, loop_label(cg, loop, lam));
    buf_puts(&b, ", ");
    buf_put_int(&b, trips);
    buf_puts(&b, " steps");
    cg_add(cg, KS_COMMENT, NULL)->text = b.data;
  }
  cg->unrolled_nest = quiet || inner;
  for (int64_t t = gen_steps_by_copy(cg, loop, lam, trips); t < trips; t++) {
    env_add(cg, lam->lam_binder, ENV_INDEX, NULL, ix_const(&cg->ix, t), NULL);
    if (loop->dep_index) ix_push_row(&cg->ix, loop->dep_index, ix_const(&cg->ix, t));
    gen_comm(cg, lam->body);
    if (loop->dep_index) ix_pop_row(&cg->ix);
  }
  cg->unrolled_nest = quiet;
  return true;
}

static void gen_for(CG *cg, const Phrase *p, const Spine *s) {
  const Phrase *lam = s->args[0];
  Size n = s->head->sizes[0];
  if (gen_for_unrolled(cg, s->head, lam, n)) return;
  int mark;
  cg_scope_enter(cg, &mark);
  /* a dependent map's loop (not a hand-written one, which has no origin),
   * whose binder is named as its row: i */
  bool row_named = s->head->dep_index && s->head->origin;
  const char *i = cg_name(cg, row_named ? prim_level_index_name(PLVL_SEQ) : lam->lam_binder->name);
  const Ix *nix = ix_from_size(&cg->ix, n);
  KirBlock *outer =
      cg_enter(cg, add_for(cg, i, kir_int(cg->arena, 0), nix, kir_int(cg->arena, 1), loop_label(cg, s->head, lam)));
  ix_push_range(&cg->ix, ix_var(&cg->ix, i), NULL, nix);
  env_add(cg, lam->lam_binder, ENV_INDEX, NULL, index_of(cg, i, n), NULL);
  /* a dependent map's rows: their sizes are this index (check_dep.c) */
  if (s->head->dep_index) ix_push_row(&cg->ix, s->head->dep_index, index_of(cg, i, n));
  int body_accesses = cg_accesses_mark(cg);
  gen_comm(cg, lam->body);
  if (s->head->dep_index) ix_pop_row(&cg->ix);
  /* the barrier the next iteration needs (barrier_pass.c) */
  int64_t trips;
  if (!(size_const_value(n, &trips) && trips <= 1))
    cg_body_end_site(cg, KSITE_LOOP_END, lam->body, lam->lam_binder, body_accesses);
  ix_pop_range(&cg->ix);
  cg_leave(cg, outer);
  cg_scope_leave(cg, mark);
  (void)p;
}

/* forRange n s lo hi (\i -> body), a trip count read from data
 * (docs/language.md section 25):
 *   for (int i = max(lo, 0); i < min(hi, n); i += s)
 * both ends clamped, so that i is an index of n elements whatever lo and
 * hi hold: its range is [0, n) as a for's is, and every read at it is in
 * bounds.  Its bounds are a work-item's data, so no barrier may fall in
 * its body (the strategy check keeps parallel maps out of it, and the
 * kernel IR check refuses a barrier under a divergent loop). */
/* The end of a forRange, min(hi, n).  A tile's end t*C + C (the rewrite
 * partialReduceAny's, docs/language.md section 21) is past n for the
 * last tile, and leaves int when n is near 2^31; min(e, n - C) + C is the
 * same value and computes e + C only where it is at most n (e and n - C
 * fit: e is the program's value, n - C lies between -C and n).  An end
 * the simplifier places is hi or n itself: hi = N is min(N, N), N, and a
 * tile's end N - 5 + 1024 is past N, so N. */
static CExpr range_end(CG *cg, const KirType *index, CExpr hi, const Ix *nix) {
  CExpr n = cg_ix_expr(cg, nix);
  CExpr end = cg_int_min_max(cg, KBI_MIN, hi, n);
  if (end == hi || end == n) return end;
  int64_t c;
  if (hi->kind == KE_BINARY && hi->bin.op == KB_ADD && cg_int_literal(hi->bin.rhs, &c) && c > 0) {
    CExpr last = cg_ix_expr(cg, ix_sub(&cg->ix, nix, ix_const(&cg->ix, c)));
    return kir_binary(cg->arena, KB_ADD, kir_builtin(cg->arena, KBI_MIN, index, (CExpr[]){hi->bin.lhs, last}),
                      hi->bin.rhs);
  }
  return end;
}

/* Whether for (i = init; i < bound; i += step) can step past INT_MAX: its
 * last i is below bound <= n, so i + step fits when bound (a constant) or
 * n (a constant size) is at most INT_MAX + 1 - step; a step of 1 always
 * fits. */
static bool range_step_may_overflow(const Spine *s, const KirExpr *bound) {
  int64_t step, end;
  if (!size_const_value(s->head->sizes[1], &step)) return true;
  if (step == 1) return false;
  if (!cg_int_literal(bound, &end) && !size_const_value(s->head->sizes[0], &end)) return true;
  return end > (int64_t)INT32_MAX + 1 - step;
}

static void gen_for_range(CG *cg, const Spine *s) {
  const Phrase *lam = s->args[2];
  const Ix *nix = ix_from_size(&cg->ix, s->head->sizes[0]);
  const KirType *index = cg_scalar_type(cg, SC_INT, 1);
  CExpr lo = gen_exp(cg, s->args[0], NULL), hi = gen_exp(cg, s->args[1], NULL);
  int mark;
  cg_scope_enter(cg, &mark);
  const char *i = cg_name(cg, lam->lam_binder->name);
  /* a constant end is clamped now, as clampIdx's (section 22) */
  int64_t c, n;
  CExpr init = cg_int_literal(lo, &c) ? kir_int(cg->arena, c < 0 ? 0 : c)
                                     : cg_int_min_max(cg, KBI_MAX, lo, kir_int(cg->arena, 0));
  CExpr bound = cg_int_literal(hi, &c) && size_const_value(s->head->sizes[0], &n) ? kir_int(cg->arena, c < n ? c : n)
                                                                                  : range_end(cg, index, hi, nix);
  CExpr step = cg_ix_expr(cg, ix_from_size(&cg->ix, s->head->sizes[1]));
  const char *origin = s->head->origin ? s->head->origin : "forRange", *var = i;
  /* i + step past an end near INT_MAX would leave int (undefined, and in
   * practice a negative i that loops on, docs/language.md section 25):
   * such a loop runs on the index one step behind, i - step, while it is
   * below max(end, 0) - step, which fits (0 <= i < end), and declares i
   * in its body */
  bool behind = range_step_may_overflow(s, bound);
  if (behind) {
    var = cg_name(cg, arena_printf(cg->arena, "%s_behind", i));
    origin = arena_printf(cg->arena, "%s, one step behind %s", origin, i);
    init = kir_binary(cg->arena, KB_SUB, init, step);
    bound = kir_binary(cg->arena, KB_SUB, cg_int_min_max(cg, KBI_MAX, bound, kir_int(cg->arena, 0)), step);
  }
  KirStmt *f = cg_add(cg, KS_FOR, origin);
  f->loop.var = var;
  f->loop.init = init;
  f->loop.bound = bound;
  f->loop.step = step;
  KirBlock *outer = cg_enter(cg, f);
  if (behind) {
    KirStmt *d = add_decl(cg, index, i, kir_binary(cg->arena, KB_ADD, kir_var(cg->arena, var, index), step), NULL);
    d->decl.is_const = true;
  }
  ix_push_range(&cg->ix, ix_var(&cg->ix, i), NULL, nix);
  env_add(cg, lam->lam_binder, ENV_INDEX, NULL, ix_var(&cg->ix, i), NULL);
  int body_accesses = cg_accesses_mark(cg);
  gen_comm(cg, lam->body);
  cg_body_end_site(cg, KSITE_LOOP_END, lam->body, lam->lam_binder, body_accesses);
  ix_pop_range(&cg->ix);
  cg_leave(cg, outer);
  cg_scope_leave(cg, mark);
}

/* The test of the else side: a comparison of ints turned round (j < gid
 * for the then side's j >= gid), as one would write it, else !(c).  Not
 * for floats, where NaN makes !(x < y) differ from x >= y. */
static const KirExpr *negated(CG *cg, const KirExpr *c) {
  if (c->kind == KE_BINARY && c->bin.lhs->type->kind == KTY_SCALAR && c->bin.lhs->type->scalar == SC_INT &&
      c->bin.rhs->type->kind == KTY_SCALAR && c->bin.rhs->type->scalar == SC_INT) {
    KirBinop turned = c->bin.op;
    switch (c->bin.op) {
    case KB_LT: turned = KB_GE; break;
    case KB_LE: turned = KB_GT; break;
    case KB_GT: turned = KB_LE; break;
    case KB_GE: turned = KB_LT; break;
    case KB_EQ: turned = KB_NE; break;
    case KB_NE: turned = KB_EQ; break;
    default: break;
    }
    if (turned != c->bin.op) return kir_binary(cg->arena, turned, c->bin.lhs, c->bin.rhs);
  }
  return kir_unary(cg->arena, '!', c);
}

/* if c {t, e} (a select whose sides compute, stage I): each side under
 * its test, the else side's the then side's turned round; C's else is not
 * in the kernel IR, whose passes see each guarded block as a KS_IF. */
static void gen_if(CG *cg, const Spine *s) {
  CExpr c = gen_exp(cg, s->args[0], NULL);
  const Phrase *sides[2] = {s->args[1]->fst, s->args[1]->snd};
  CExpr tests[2] = {c, negated(cg, c)};
  for (int k = 0; k < 2; k++) {
    if (sides[k]->kind == PH_PRIM && sides[k]->prim == PRIM_SKIP) continue;
    int mark;
    cg_scope_enter(cg, &mark);
    KirBlock *outer = cg_enter(cg, add_if(cg, tests[k], NULL));
    gen_comm(cg, sides[k]);
    cg_leave(cg, outer);
    cg_scope_leave(cg, mark);
  }
}

typedef enum LoopForm { FORM_LOOP, FORM_ONCE, FORM_AT_MOST_ONCE } LoopForm;

static LoopForm loop_form(Size n, bool known, Size launch) {
  if (!known) return FORM_LOOP;
  if (size_eq(n, launch)) return FORM_ONCE;
  int64_t a, b;
  if (size_const_value(n, &a) && size_const_value(launch, &b) && a <= b) return FORM_AT_MOST_ONCE;
  return FORM_LOOP;
}

/* parforGlobal / parforWorkgroup / parforLocal d (spec section 8) */
static void gen_parfor(CG *cg, const Phrase *p, const Spine *s) {
  const Phrase *h = s->head;
  int d = h->dim;
  Size n = fn_param(h->type, 0)->data->size;
  const Phrase *lam_i = s->args[1];
  if (lam_i->kind != PH_LAM || lam_i->body->kind != PH_LAM) {
    cg_error(cg, ERR_CODEGEN_UNSUPPORTED, p->span, "the body of %s must be a lambda \\i o -> ...",
             prim_info[h->prim].name);
    return;
  }
  const Phrase *lam_o = lam_i->body, *body = lam_o->body;
  KirQuery idq, sizeq;
  const char *what;
  bool known;
  Size launch;
  PrimLevel level = prim_level(h->prim);
  DPIA_EXHAUSTIVE_BEGIN
  switch (level) {
  case PLVL_GLOBAL:
    idq = KQ_GLOBAL_ID, sizeq = KQ_GLOBAL_SIZE, what = "mapGlobal";
    known = cg->launch.global_known[d], launch = cg->launch.global[d];
    break;
  case PLVL_WORKGROUP:
    idq = KQ_GROUP_ID, sizeq = KQ_NUM_GROUPS, what = "mapWorkgroup";
    known = cg->launch.groups_known[d], launch = cg->launch.groups[d];
    break;
  case PLVL_LOCAL:
    idq = KQ_LOCAL_ID, sizeq = KQ_LOCAL_SIZE, what = "mapLocal";
    known = cg->launch.local_known[d], launch = cg->launch.local[d];
    break;
  case PLVL_NONE: /* parfor: refused by gen_comm */
  case PLVL_SEQ:
  case PLVL_PRIVATE:
  default: INTERNAL("%s is not an OpenCL parallel loop", prim_info[h->prim].name);
  }
  DPIA_EXHAUSTIVE_END
  if (h->origin) what = h->origin; /* the map it comes from when not the level's own (depMapGlobal) */
  const char *comment = d ? arena_printf(cg->arena, "%s%d", what, d) : what;
  LoopForm form = loop_form(n, known, launch);
  bool is_local = level == PLVL_LOCAL, is_wg = level == PLVL_WORKGROUP;

  /* the variable of an elided loop (FORM_ONCE, FORM_AT_MOST_ONCE) is
   * declared in the enclosing C scope, so its name belongs to that scope and
   * outlives the if block: name it before entering the loop's scope */
  int mark;
  const char *i = NULL;
  /* a dependent map's loop (not a hand-written one, which has no origin),
   * whose binder is named as its row: gid, wg, lid */
  const char *base = h->dep_index && h->origin ? prim_level_index_name(level) : lam_i->lam_binder->name;
  if (form != FORM_LOOP) i = cg_name(cg, base);
  cg_scope_enter(cg, &mark);
  if (form == FORM_LOOP) i = cg_name(cg, base);
  const Ix *nix = ix_from_size(&cg->ix, n);
  int64_t trips;
  bool single = size_const_value(n, &trips) && trips == 1;
  KirBlock *outer = cg->block;
  const KirExpr *id = kir_query(cg->arena, idq, d);
  switch (form) {
  case FORM_ONCE:
    /* one iteration: its index is 0 (index_of), the variable would be unused */
    if (single)
      cg_comment(cg, "%s over one element", comment);
    else
      add_decl(cg, cg_scalar_type(cg, SC_INT, 1), i, id, comment);
    break;
  case FORM_AT_MOST_ONCE:
    add_decl(cg, cg_scalar_type(cg, SC_INT, 1), i, id, NULL);
    cg_enter(cg,
             add_if(cg, kir_binary(cg->arena, KB_LT, kir_var(cg->arena, i, kir_scalar1(SC_INT)), cg_ix_expr(cg, nix)),
                    comment));
    break;
  case FORM_LOOP: cg_enter(cg, add_for(cg, i, id, nix, kir_query(cg->arena, sizeq, d), comment)); break;
  }
  /* n is the launch's size (FORM_ONCE: size_eq) and nix its index,
   * which ix_from_size keeps by size where no dependent row is open (not
   * taken with CodegenOptions.no_shortcuts: tests/throughput, shortcuts) */
  if ((is_wg || is_local) && form == FORM_ONCE && cg->ix.nrows == 0 && !cg->no_shortcuts)
    *(is_wg ? &cg->launch.groups_ix[d] : &cg->launch.local_ix[d]) = nix;
  ix_push_range(&cg->ix, ix_var(&cg->ix, i), NULL, nix);
  const Ix *iv = index_of(cg, i, n);
  env_add(cg, lam_i->lam_binder, ENV_INDEX, NULL, iv, NULL);
  env_add(cg, lam_o->lam_binder, ENV_ALIAS, NULL, iv, s->args[0]); /* o = idxAcc A i */
  if (h->dep_index) ix_push_row(&cg->ix, h->dep_index, iv); /* a dependent map's rows (check_dep.c) */

  /* the body begins and ends with a barrier site: a work-group body has
   * its own pending sets, a work-item's its own writes (barrier_pass.c) */
  KirSite *site = cg_site(cg, KSITE_PARFOR, p->span);
  site->level = kir_level(level);
  site->form = form == FORM_LOOP ? KF_LOOP : form == FORM_ONCE ? KF_ONCE : KF_AT_MOST_ONCE;
  site->dim = d;
  if (is_wg) {
    cg->group_depth++;
    unsigned saved_dims = cg->group_dims;
    cg->group_dims |= 1u << d;
    int body_accesses = cg_accesses_mark(cg);
    gen_comm(cg, body);
    /* a loop's next group id reuses the memory the body read */
    if (form == FORM_LOOP)
      cg_body_end_site(cg, KSITE_PARFOR_END, body, NULL, body_accesses);
    else
      cg_site(cg, KSITE_PARFOR_END, body->span);
    cg->group_depth--;
    cg->group_dims = saved_dims;
  } else {
    cg->distributed++;
    /* An accumulator updated in place (scir_pointwise_parfor, which the
     * body reads): each work-item reads the element it then writes, and
     * no other work-item touches it, so those reads need no barrier before
     * the writes; after the parfor, a write by another work-item does. */
    site->pointwise = scir_pointwise_parfor(p) != NULL;
    const Binder *acc = site->pointwise ? acc_root(cg, s->args[0]) : NULL;
    if (acc) site->accumulator = cg_buffer(cg, acc);
    if (acc) cg->writes_matter = true; /* pending after the parfor (barriers.c) */
    unsigned saved_local = cg->local_dims, saved_global = cg->global_dims;
    const Ix *saved_index = cg->local_index[d];
    if (is_local) {
      cg->local_dims |= 1u << d;
      cg->local_index[d] = form == FORM_LOOP ? NULL : iv;
    } else {
      cg->global_dims |= 1u << d;
    }
    if (!is_local || !gen_local_single_writer(cg, body)) gen_comm(cg, body);
    cg_site(cg, KSITE_PARFOR_END, body->span);
    cg->local_dims = saved_local;
    cg->global_dims = saved_global;
    cg->local_index[d] = saved_index;
    cg->distributed--;
  }
  if (h->dep_index) ix_pop_row(&cg->ix);
  ix_pop_range(&cg->ix);
  cg_leave(cg, outer);
  if (form != FORM_ONCE) cg_scope_leave(cg, mark);
}

void gen_comm(CG *cg, const Phrase *p) {
  cg->where = p->span;
  if ((p->kind == PH_ASSIGN || p->kind == PH_SEQ || p->kind == PH_APP) && gen_single_writer(cg, p)) return;
  switch (p->kind) {
  case PH_SEQ:
    gen_comm(cg, p->fst);
    gen_comm(cg, p->snd);
    return;
  case PH_ASSIGN: {
    KirSite *site = cg_command_site(cg, p, KL_NONE);
    gen_assign(cg, p->fst, p->snd, NULL, p->fst->type->data);
    cg_command_end(cg, site);
    return;
  }
  case PH_PRIM:
    if (p->prim == PRIM_SKIP) return; /* Figure 6a: skip is nothing */
    break;
  case PH_APP: {
    Spine s;
    if (!spine_of(cg->arena, p, &s)) break;
    KirSite *site;
    DPIA_EXHAUSTIVE_BEGIN
    switch (prim_family(s.head->prim)) {
    case PFAM_NEW:
      if (s.nargs != 1 || s.args[0]->kind != PH_LAM) break;
      gen_new(cg, p, &s);
      return;
    case PFAM_FOR:
      if (s.nargs != 1 || s.args[0]->kind != PH_LAM) break;
      site = cg_command_site(cg, p, KL_NONE);
      gen_for(cg, p, &s);
      cg_command_end(cg, site);
      return;
    case PFAM_FOR_RANGE:
      if (s.nargs != 3 || s.args[2]->kind != PH_LAM) break;
      site = cg_command_site(cg, p, KL_NONE);
      gen_for_range(cg, &s);
      cg_command_end(cg, site);
      return;
    case PFAM_IF:
      if (s.nargs != 2 || s.args[1]->kind != PH_PAIR) break;
      site = cg_command_site(cg, p, KL_NONE);
      gen_if(cg, &s);
      cg_command_end(cg, site);
      return;
    case PFAM_PARFOR:
      if (prim_level(s.head->prim) == PLVL_NONE) {
        cg_error(cg, ERR_NO_PARALLEL_LEVEL, p->span,
                 "parfor has no OpenCL level: use parforGlobal, parforWorkgroup or parforLocal");
        return;
      }
      if (s.nargs != 2) break;
      site = cg_command_site(cg, p, kir_level(prim_level(s.head->prim)));
      site->what = prim_info[s.head->prim].name;
      gen_parfor(cg, p, &s);
      cg_command_end(cg, site);
      return;
    /* not commands of an imperative kernel */
    case PFAM_MAP:
    case PFAM_REDUCE:
    case PFAM_SCAN:
    case PFAM_WINDOW:
    case PFAM_VIEW:
    case PFAM_MEMORY:
    case PFAM_SCALAR:
    case PFAM_MATH:
    case PFAM_CONVERT:
    case PFAM_FOREIGN:
    case PFAM_SKIP: /* without arguments: PH_PRIM above */
    case PFAM_VIEW_ACC:
    case PFAM_MAP_I:
    case PFAM_REDUCE_I:
    case PFAM_SCAN_I:
    case PFAM_REDUCE_RANGE: break;
    case PFAM_WINDOW_I: break;
    }
    DPIA_EXHAUSTIVE_END
    cg_error(cg, ERR_CODEGEN_UNSUPPORTED, p->span,
             "cannot generate OpenCL for %s here: the kernel body must be purely imperative "
             "(skip, ;, :=, new, for, forRange, parforGlobal, parforWorkgroup, parforLocal)",
             prim_info[s.head->prim].name);
    return;
  }
  default: break;
  }
  cg_error(cg, ERR_CODEGEN_UNSUPPORTED, p->span, "cannot generate OpenCL for this command");
}
