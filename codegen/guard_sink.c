/* guard_sink.c: the computation a test's body alone reads moved into that
 * body (a pass over the kernel IR, after lowering; kir.h,
 * kir_sink_into_guards).
 *
 * A map over an array of any length pads it to whole tiles
 * (docs/reference.md, "Sizes that do not divide"): `mapPadClamp 64
 * (mapWorkgroup (mapLocal f))` runs 64*ceil(N/64) work-items, and the
 * take N after it writes through a guard, `if (wg*64 + lid < N)`.
 * Lowering computes f's value before the write, so the work-items past N
 * computed f on the clamped last element again and dropped it: the last
 * tile recomputed, for nothing.  Where the statements before an if only
 * compute private values that nothing after the if reads, they go into
 * its body, as one would write it by hand:
 *
 *   if (wg*64 + lid < N) {
 *     float acc = 0.0f;
 *     ... acc = xs[(wg*64 + lid)*8 + 7] + acc;
 *     output[wg*64 + lid] = acc;
 *   }
 *
 * one test per work-item, and (the pass runs before the partition pass)
 * the clamps its condition decides are gone from the reads inside.
 *
 * What moves is the longest run of statements just before the if that
 * writes only the private variables it declares itself (not through a
 * pointer it declares, which writes memory), holds no barrier, vstore or
 * call of a foreign function (whose effect, a print, would then happen
 * for fewer work-items), declares no work-item id (an elided parallel
 * loop's variable, whose declaration is where its loop begins), and
 * declares no name that the if's condition or a statement after the if
 * mentions.  Moving it changes nothing a
 * work-item does when the condition holds; when it does not, the work-item
 * computes values that nothing read.  Every read is one it made before,
 * under a condition now, so race freedom and the bounds of the reads are
 * unchanged; no barrier moves, so no barrier comes under the test. */
#include "kir.h"

#include <string.h>

/* ---- what a run of statements declares, writes and mentions ---- */

/* the names a statement's expressions (and its nested blocks') mention */
static void stmt_mentions(const KirStmt *s, NameSet *names) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_DECL: kir_names_read(s->decl.init, names); break;
  case KS_ASSIGN:
    kir_names_read(s->assign.lhs, names);
    kir_names_read(s->assign.rhs, names);
    break;
  case KS_VSTORE:
    kir_names_read(s->vstore.value, names);
    kir_names_read(s->vstore.offset, names);
    kir_names_read(s->vstore.ptr, names);
    break;
  case KS_FOR:
    kir_names_read(s->loop.init, names);
    kir_names_read(s->loop.bound, names);
    kir_names_read(s->loop.step, names);
    break;
  case KS_IF: kir_names_read(s->cond.cond, names); break;
  case KS_EXPR: kir_names_read(s->expr, names); break;
  case KS_BLOCK:
  case KS_BARRIER:
  case KS_COMMENT: break;
  case KS_RUN: /* its steps mention what its template does, but $step (declared nowhere) */
    for (const KirStmt *t = s->run.body.first; t; t = t->next) stmt_mentions(t, names);
    break;
  }
  DPIA_EXHAUSTIVE_END
  const KirBlock *body = kir_body((KirStmt *)s);
  for (const KirStmt *t = body ? body->first : NULL; t; t = t->next) stmt_mentions(t, names);
}

/* does e call a foreign function (the only calls of the kernel IR,
 * KE_CALL: codegen/access.c)? */
static bool calls(const KirExpr *e) {
  if (!e) return false;
  if (e->kind == KE_CALL) return true;
  if (e->kind == KE_IX) return false; /* index polynomials: sizes, variables and ids */
  const KirExpr *buf[3], *const *sub;
  int n = kir_expr_children(e, buf, &sub);
  for (int i = 0; i < n; i++)
    if (calls(sub[i])) return true;
  return false;
}

typedef struct Run {
  NameSet declared; /* private variables the run declares (nested ones too),
                     * not pointers: a write through a pointer writes memory */
  Vec names;        /* the names it declares at its top level: in scope after it */
  Arena *arena;
} Run;

/* Whether s computes private values only: declarations (a private
 * variable or pointer) and assignments, in loops, tests and blocks of
 * such statements; its names added to r (top: s is one of the run's own
 * statements, not nested in one).  Assignments are judged once the whole
 * run is known (writes_own). */
static bool computes_only(const KirStmt *s, Run *r, bool top) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_DECL:
    /* a work-item's id (an elided parallel loop's variable) stays where
     * its loop begins */
    if (s->decl.space != KSP_PRIVATE || calls(s->decl.init) || (s->decl.init && s->decl.init->kind == KE_QUERY))
      return false;
    if (s->decl.type->kind != KTY_POINTER) nameset_add(&r->declared, s->decl.name);
    if (top) vec_push(r->arena, &r->names, (void *)s->decl.name);
    return true;
  case KS_ASSIGN: return !calls(s->assign.lhs) && !calls(s->assign.rhs);
  case KS_FOR:
    if (calls(s->loop.init) || calls(s->loop.bound) || calls(s->loop.step)) return false;
    break;
  case KS_IF:
    if (calls(s->cond.cond)) return false;
    break;
  case KS_BLOCK:
  case KS_COMMENT: break;
  case KS_VSTORE:
  case KS_BARRIER:
  case KS_EXPR: return false;
  case KS_RUN:
    /* its steps are its template's statements (not its sites, which
     * the barrier pass has decided), their calls and kinds the same */
    for (const KirStmt *t = s->run.body.first; t; t = t->next)
      if (kir_run_template_stmt(t) && !computes_only(t, r, false)) return false;
    return true;
  }
  DPIA_EXHAUSTIVE_END
  const KirBlock *body = kir_body((KirStmt *)s);
  for (const KirStmt *t = body ? body->first : NULL; t; t = t->next)
    if (!computes_only(t, r, false)) return false;
  return true;
}

/* every assignment in s (nested ones too) is to a variable the run
 * declares (not through one of its pointers) */
static bool writes_own(const KirStmt *s, const Run *r) {
  if (s->kind == KS_ASSIGN) {
    const char *var = kir_lvalue_var(s->assign.lhs);
    return var && nameset_has(&r->declared, var);
  }
  if (s->kind == KS_RUN) /* what its template writes */
    for (const KirStmt *t = s->run.body.first; t; t = t->next)
      if (!writes_own(t, r)) return false;
  const KirBlock *body = kir_body((KirStmt *)s);
  for (const KirStmt *t = body ? body->first : NULL; t; t = t->next)
    if (!writes_own(t, r)) return false;
  return true;
}

/* the run from `from` up to (not including) g moves into g: it computes
 * only (checked for each statement by the caller), writes only what it
 * declares, and declares nothing that g's condition or what follows g
 * mentions (after; what it declares inside its loops and blocks, and its
 * loops' variables, are out of scope there) */
static bool movable(Arena *a, const KirStmt *from, const KirStmt *g, const NameSet *after) {
  Run r = {.declared = {.arena = a}, .arena = a};
  for (const KirStmt *s = from; s != g; s = s->next) computes_only(s, &r, true);
  for (const KirStmt *s = from; s != g; s = s->next)
    if (!writes_own(s, &r)) return false;
  for (int i = 0; i < r.names.len; i++)
    if (nameset_has(after, r.names.items[i])) return false;
  return true;
}

/* ---- the walk ---- */

/* g, an if of b, takes the longest movable run of statements before it */
static void sink_into(Arena *a, KirBlock *b, KirStmt *g) {
  NameSet after = {.arena = a};
  kir_names_read(g->cond.cond, &after);
  for (const KirStmt *t = g->next; t; t = t->next) stmt_mentions(t, &after);
  /* the statements before g, and the first of those after which each
   * one computes only (earliest start of a run) */
  Vec before = {0};
  for (KirStmt *s = b->first; s != g; s = s->next) vec_push(a, &before, s);
  int start = before.len;
  Run scratch = {.declared = {.arena = a}, .arena = a};
  while (start > 0 && computes_only(before.items[start - 1], &scratch, true)) start--;
  /* the longest run that also writes only its own and binds nothing read
   * after g */
  for (; start < before.len; start++)
    if (movable(a, before.items[start], g, &after)) break;
  bool computes = false;
  for (int i = start; i < before.len; i++) computes |= ((KirStmt *)before.items[i])->kind != KS_COMMENT;
  if (!computes) return; /* nothing, or comments alone */
  KirStmt *from = before.items[start], *last = before.items[before.len - 1];
  last->next = g->cond.body.first;
  if (!g->cond.body.first) g->cond.body.last = last;
  g->cond.body.first = from;
  g->cond.one_line = false;
  if (start > 0)
    ((KirStmt *)before.items[start - 1])->next = g;
  else
    b->first = g;
}

/* does e read memory (an element, a field or lane of one, a vector
 * load), or call a function? */
static bool reads_memory(const KirExpr *e) {
  if (!e || e->kind == KE_IX) return false;
  if (e->kind == KE_INDEX || e->kind == KE_VLOAD || e->kind == KE_CALL) return true;
  const KirExpr *buf[3], *const *sub;
  int n = kir_expr_children(e, buf, &sub);
  for (int i = 0; i < n; i++)
    if (reads_memory(sub[i])) return true;
  return false;
}

/* the names s assigns or declares (nested ones too) */
static void stmt_binds(const KirStmt *s, NameSet *names) {
  if (s->kind == KS_ASSIGN && kir_lvalue_var(s->assign.lhs)) nameset_add(names, kir_lvalue_var(s->assign.lhs));
  if (s->kind == KS_DECL) nameset_add(names, s->decl.name);
  if (s->kind == KS_FOR) nameset_add(names, s->loop.var);
  if (s->kind == KS_RUN) /* what its template assigns */
    for (const KirStmt *t = s->run.body.first; t; t = t->next) stmt_binds(t, names);
  const KirBlock *body = kir_body((KirStmt *)s);
  for (const KirStmt *t = body ? body->first : NULL; t; t = t->next) stmt_binds(t, names);
}

/* does a statement of body h bind (declare, nested ones too) a name that
 * body g declares at its top?  Each body was its own scope when written
 * (opencl.c, cg_scope_enter), so both may declare the same name: merged,
 * the second would redeclare it or shadow it (kir_invariant_violation) */
static bool redeclares(Arena *a, const KirBlock *g, const KirBlock *h) {
  NameSet bound = {.arena = a};
  for (const KirStmt *t = h->first; t; t = t->next) stmt_binds(t, &bound);
  for (const KirStmt *t = g->first; t; t = t->next)
    if (t->kind == KS_DECL && nameset_has(&bound, t->decl.name)) return true;
  return false;
}

/* g and the ifs right after it with the same test, one if: the halves of
 * a pair written through a take's guard each (output[i].fst, .snd) are
 * one work-item's, under one test.  The test reads no memory, and the
 * bodies bind none of its names, so it has the same value before each.
 * Not an if whose body declares a name g's does: two single writers'
 * guards, each over its own private temporary priv (single_writer.c; gen.py
 * --seed 102 --index 246 --with vectors --with depmaps, a zip of two
 * toPrivate stages read by a mapLocal1: float priv[8] twice in one block). */
static void merge_same_tests(Arena *a, KirBlock *b, KirStmt *g) {
  if (reads_memory(g->cond.cond)) return;
  NameSet mentioned = {.arena = a};
  kir_names_read(g->cond.cond, &mentioned);
  for (KirStmt *h = g->next; h && h->kind == KS_IF && kir_expr_equal(h->cond.cond, g->cond.cond); h = g->next) {
    NameSet bound = {.arena = a};
    for (const KirStmt *t = g->cond.body.first; t; t = t->next) stmt_binds(t, &bound);
    bool changes = false;
    for (uint32_t i = 0; i < mentioned.cap && !changes; i++)
      changes = mentioned.slots[i].name && mentioned.slots[i].count > 0 && nameset_has(&bound, mentioned.slots[i].name);
    if (changes || !h->cond.body.first || redeclares(a, &g->cond.body, &h->cond.body)) return;
    if (g->cond.body.last)
      g->cond.body.last->next = h->cond.body.first;
    else
      g->cond.body.first = h->cond.body.first;
    g->cond.body.last = h->cond.body.last;
    g->cond.one_line = false;
    g->next = h->next;
    if (b->last == h) b->last = g;
  }
}

static void sink_block(Arena *a, KirBlock *b) {
  for (KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_IF) {
      merge_same_tests(a, b, s);
      sink_into(a, b, s);
    }
    KirBlock *inner = kir_body(s);
    if (inner) sink_block(a, inner);
  }
}

void kir_sink_into_guards(Arena *a, KirKernel *k) { sink_block(a, &k->body); }
