/* in_place.c: the proof that a kernel computing in place reads the input
 * it updates only where it writes (docs/language.md section 27; a pass
 * over the kernel IR after lowering, kir.h, kir_check_in_place).
 *
 * A kernel `updates xs` has one buffer for its output and for xs.  OpenCL
 * orders no work-item's write before another's read (spec section 5), so
 * a work-item that reads an element another one writes reads the old or
 * the new value, as the device pleases: a race the race check of
 * separate buffers cannot see.  The rule kept here is the simplest that
 * is sound: every read of xs is of the element a store of the output
 * writes, at the same index expression, in that store's right-hand side
 * or in an earlier statement of the same block (a private variable's
 * declaration or assignment) that the store follows unconditionally, no
 * statement between them assigning a variable of the index.
 *
 *   output[gid] = alpha * xs[gid];                       accepted
 *   vstore4(alpha * vload4(gid, xs), gid, output);       accepted
 *   float y = xs[gid] * 0.5f;  output[gid] = y * y;      accepted
 *   output[gid] = xs[gid] + xs[gid + 1];                 rejected: gid + 1
 *
 * Why that suffices: the translation writes each element of the output
 * once (the acceptor translation, paper section 5.2; the race check
 * proves no two work-items write one element), and the store's own
 * right-hand side is evaluated before it writes; so each element is read
 * only by the work-item that writes it, before it writes it.  The same
 * holds for a read earlier in the block: the block's statements run in
 * order and none of them skips the rest (KIR has no return or break), so
 * the work-item that reads the element then writes it, and since the
 * element is written once, no other work-item writes it.  A store
 * inside a sequential loop whose variable its index does not mention
 * would write one element at every step, the later steps reading the
 * earlier ones' values: such a store is rejected too, as is any other use
 * of xs (a pointer to it, a read in a condition or a loop bound, an index
 * computed from it) and any read of the output.  A kernel that never
 * reads xs (a copy into a region of it from another input) has nothing
 * to prove.
 *
 * A second rule, staged through the work-group, admits the kernels that
 * copy their part of xs to local or private memory first (Rodinia's
 * lud_diagonal, docs/language.md section 31): the kernel's code is a
 * prefix that reads xs anywhere and neither reads nor writes the output,
 * a barrier of the whole group at the top level of the kernel's body
 * (every work-item reaches it, once), and a suffix that keeps the first
 * rule.  (The top level of the body of a loop over work-groups that only
 * group 0 enters, once, is the body's too: a mapWorkgroup over one
 * element under a local size of the user's.)  Within the group the
 * barrier orders every read of the prefix before every write of the
 * suffix; it fences global memory too, which the proof makes it do (a
 * barrier fencing only local memory orders no access to xs, OpenCL 1.2
 * section 6.12.8).  Across groups nothing orders them, so the prefix's
 * reads must touch no element another group writes: proven here when one
 * work-group does the work (the group count is a constant 1 in every
 * dimension, or the loops above), or by the caller from the functional
 * body (one_group: translate/in_place_groups.c shows from the views of
 * xs that each group reads only the part of the region it writes and
 * what no group writes); otherwise the kernel is refused (E0705) rather
 * than trusted. */
#include "kir.h"

#include <string.h>

typedef struct InPlace {
  Arena *arena;
  /* the index polynomials of a read and a store are compared in (same_index) */
  IxCtx *ix;
  const char *out, *in;
  /* the variables of the sequential loops around the statement */
  const char *loops[64];
  int nloops;
  /* the first offence: the read (or use) and the store it is in (NULL:
   * not in a store of the output) */
  const KirExpr *bad, *bad_store;
  const char *why;
  /* the prefix of the staged rule: any element of the input may be read */
  bool staged;
  /* the statements after the current one in its block, when the current
   * one writes a private place (a declaration, an assignment): a store of
   * the output among them may justify its reads (current: that one) */
  const KirStmt *current, *rest;
  /* where a read outside any value stored is (a condition, ...): the
   * message's reason */
  const char *where;
} InPlace;

static bool ix_mentions(const Ix *x, const char *name);

/* does e mention the variable name, its index polynomials' atoms included */
static bool mentions(const KirExpr *e, const char *name) {
  if (!e) return false;
  if (e->kind == KE_VAR) return strcmp(e->name, name) == 0;
  if (e->kind == KE_IX) return ix_mentions(e->ix, name);
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++)
    if (mentions(kids[i], name)) return true;
  return false;
}

static bool ix_mentions(const Ix *x, const char *name) {
  if (!x) return false;
  switch (x->kind) {
  case IX_CONST: return false;
  case IX_VAR: return strcmp(x->name, name) == 0;
  case IX_EXPR: return mentions(x->expr, name);
  case IX_ADD:
  case IX_SUB:
  case IX_MUL:
  case IX_DIV:
  case IX_MOD: return ix_mentions(x->a, name) || ix_mentions(x->b, name);
  }
  return true;
}

/* the variable a place (an element, a lane, a field of a buffer) is in */
static const KirExpr *place_root(const KirExpr *e) {
  for (;;) {
    switch (e->kind) {
    case KE_INDEX: e = e->index.base; continue;
    case KE_LANE: e = e->lane.base; continue;
    case KE_MEMBER: e = e->member.base; continue;
    default: return e;
    }
  }
}

/* e as an index polynomial when it is one: a KE_IX, an int constant or
 * variable, or their sum, difference or product; NULL for anything else
 * (a division, a clamp, a load), which only an equal tree matches */
static const Ix *as_ix(IxCtx *x, const KirExpr *e) {
  switch (e->kind) {
  case KE_IX: return e->ix;
  case KE_INT: return ix_const(x, e->value);
  case KE_VAR:
    return e->type && e->type->kind == KTY_SCALAR && e->type->scalar == SC_INT && e->type->width == 1
               ? ix_var(x, e->name)
               : NULL;
  case KE_BINARY: {
    if (e->bin.op != KB_ADD && e->bin.op != KB_SUB && e->bin.op != KB_MUL) return NULL;
    const Ix *l = as_ix(x, e->bin.lhs), *r = l ? as_ix(x, e->bin.rhs) : NULL;
    if (!r) return NULL;
    return e->bin.op == KB_ADD ? ix_add(x, l, r) : e->bin.op == KB_SUB ? ix_sub(x, l, r) : ix_mul(x, l, r);
  }
  default: return NULL;
  }
}

/* Do the index expressions a and b name the same element: the same tree,
 * or polynomials whose difference simplifies to 0 (gid*N*4 + N + i + 1
 * and gid*N*4 + N + 1 + i, as a read through drop 1 and a store through
 * padCst can come out).  The simplifier never changes a value (index.h),
 * and no range is pushed here, so a difference that is 0 is 0 for every
 * value of the variables, and the two name one element whenever both are
 * evaluated in the same state, which the callers ensure (written_later:
 * no assignment between). */
static bool same_index(const InPlace *ip, const KirExpr *a, const KirExpr *b) {
  if (kir_expr_equal(a, b)) return true;
  const Ix *ia = as_ix(ip->ix, a), *ib = ia ? as_ix(ip->ix, b) : NULL;
  return ib && ix_simplifies_to(ip->ix, ix_sub(ip->ix, ia, ib), 0);
}

/* the read r of the input is the place the store w of the output writes:
 * the same path of indices (as polynomials), lanes and fields */
static bool same_place(const InPlace *ip, const KirExpr *w, const KirExpr *r) {
  if (w->kind != r->kind) return false;
  switch (w->kind) {
  case KE_VAR: return strcmp(w->name, ip->out) == 0 && strcmp(r->name, ip->in) == 0;
  case KE_INDEX: return same_index(ip, w->index.at, r->index.at) && same_place(ip, w->index.base, r->index.base);
  case KE_LANE: return w->lane.lane == r->lane.lane && same_place(ip, w->lane.base, r->lane.base);
  case KE_MEMBER: return strcmp(w->member.name, r->member.name) == 0 && same_place(ip, w->member.base, r->member.base);
  default: return false;
  }
}

static bool assigns(const KirStmt *s, const KirExpr *e);

/* does a statement of the block b assign (or declare) a variable e mentions */
static bool block_assigns(const KirBlock *b, const KirExpr *e) {
  for (const KirStmt *s = b->first; s; s = s->next)
    if (assigns(s, e)) return true;
  return false;
}

/* does s, its nested statements included, assign or declare a variable e
 * mentions (then e may not name the same element after s as before) */
static bool assigns(const KirStmt *s, const KirExpr *e) {
  switch (s->kind) {
  case KS_DECL: return mentions(e, s->decl.name);
  case KS_ASSIGN: {
    const KirExpr *root = place_root(s->assign.lhs);
    return root->kind != KE_VAR || mentions(e, root->name);
  }
  case KS_FOR: return mentions(e, s->loop.var) || block_assigns(&s->loop.body, e);
  case KS_IF: return block_assigns(&s->cond.body, e);
  case KS_BLOCK: return block_assigns(&s->block.body, e);
  case KS_VSTORE:
  case KS_EXPR:
  case KS_BARRIER:
  case KS_COMMENT: return false;
  case KS_RUN:
    INTERNAL("a run of steps reaches the in-place check: cg_lower writes every run out (kir_write_out_runs)");
  }
  return true;
}

/* the read r of the input (a place, or a vload when width > 0) is of the
 * element (vector) a later store of the output in ip->rest writes, no
 * statement before that store changing what r's indices name */
static bool written_later(const InPlace *ip, const KirExpr *r, int width) {
  /* `float i = in[i]` would make the store's i another variable */
  if (!ip->current || assigns(ip->current, r)) return false;
  for (const KirStmt *s = ip->rest; s; s = s->next) {
    if (width == 0 && s->kind == KS_ASSIGN && same_place(ip, s->assign.lhs, r)) return true;
    if (width > 0 && s->kind == KS_VSTORE && s->vstore.ptr->kind == KE_VAR && strcmp(s->vstore.ptr->name, ip->out) == 0 &&
        s->vstore.width == width && same_index(ip, s->vstore.offset, r->vload.offset))
      return true;
    if (assigns(s, r)) return false;
  }
  return false;
}

static void offence(InPlace *ip, const KirExpr *e, const KirExpr *store, const char *why) {
  if (ip->bad) return;
  if (!why) why = "not in a value stored";
  ip->bad = e;
  ip->bad_store = store;
  ip->why = why;
}

/* the reads of e: of the input only at the place w writes (a scalar
 * store, vstore NULL) or as the vector vstore writes; of the output never */
static void reads(InPlace *ip, const KirExpr *e, const KirExpr *w, const KirStmt *vstore) {
  if (!e || ip->bad) return;
  if (mentions(e, ip->out) && !mentions(e, ip->in)) {
    offence(ip, e, w, "the output is read");
    return;
  }
  if (!mentions(e, ip->in)) return;
  if (e->kind == KE_INDEX || e->kind == KE_LANE || e->kind == KE_MEMBER) {
    const KirExpr *root = place_root(e);
    if (root->kind == KE_VAR && strcmp(root->name, ip->in) == 0) {
      if (ip->staged) return;
      if (!w && written_later(ip, e, 0)) return;
      if (!w || !same_place(ip, w, e))
        offence(ip, e, w, w ? "not the element the statement writes"
                          : ip->current ? "no later store of its block writes that element"
                                        : ip->where);
      return;
    }
  }
  if (e->kind == KE_VLOAD && e->vload.ptr->kind == KE_VAR && strcmp(e->vload.ptr->name, ip->in) == 0) {
    if (ip->staged) return;
    if (!vstore && !w && written_later(ip, e, e->vload.width)) return;
    bool same = vstore && vstore->vstore.width == e->vload.width && same_index(ip, vstore->vstore.offset, e->vload.offset);
    if (!same)
      offence(ip, e, w, vstore || w ? "not the vector the statement writes"
                        : ip->current ? "no later store of its block writes that vector"
                                      : ip->where);
    return;
  }
  if (e->kind == KE_VAR) {
    offence(ip, e, w, "used as a pointer");
    return;
  }
  if (e->kind == KE_IX) {
    offence(ip, e, w, "an index computed from it");
    return;
  }
  const KirExpr *buf[3];
  const KirExpr *const *kids;
  int n = kir_expr_children(e, buf, &kids);
  for (int i = 0; i < n; i++) reads(ip, kids[i], w, vstore);
}

/* does an index on the path of the place e (a vstore's offset) mention name */
static bool path_mentions(const KirExpr *e, const char *name) {
  for (;;) {
    switch (e->kind) {
    case KE_INDEX:
      if (mentions(e->index.at, name)) return true;
      e = e->index.base;
      continue;
    case KE_LANE: e = e->lane.base; continue;
    case KE_MEMBER: e = e->member.base; continue;
    default: return mentions(e, name);
    }
  }
}

/* a store to the place (or at the offset) at: written once, not at every
 * step of a sequential loop whose variable no index of it mentions (shown:
 * what the message names) */
static void once(InPlace *ip, const KirExpr *at, const KirExpr *shown) {
  for (int i = 0; i < ip->nloops; i++)
    if (!path_mentions(at, ip->loops[i])) offence(ip, shown, NULL, "a store the loop around it repeats");
}

static void walk(InPlace *ip, const KirBlock *b);

static void stmt(InPlace *ip, const KirStmt *s) {
  switch (s->kind) {
  case KS_DECL:
    /* a private variable's value, read before a later store of the block */
    ip->current = s;
    ip->rest = s->next;
    reads(ip, s->decl.init, NULL, NULL);
    ip->current = ip->rest = NULL;
    return;
  case KS_ASSIGN: {
    const KirExpr *lhs = s->assign.lhs, *root = place_root(lhs);
    bool output = root->kind == KE_VAR && strcmp(root->name, ip->out) == 0;
    if (!output) {
      ip->where = "in an index";
      reads(ip, lhs, NULL, NULL);
      /* a private place's value (not the input's, which is the output's
       * buffer, nor another buffer's), as a declaration's */
      bool private_place = root->kind == KE_VAR && strcmp(root->name, ip->in) != 0 && !mentions(lhs, ip->in);
      ip->current = private_place ? s : NULL;
      ip->rest = private_place ? s->next : NULL;
      ip->where = "in a value stored outside the output";
      reads(ip, s->assign.rhs, NULL, NULL);
      ip->current = ip->rest = NULL;
      return;
    }
    /* the path to the element written mentions neither buffer */
    ip->where = "in an index";
    for (const KirExpr *e = lhs; e->kind == KE_INDEX || e->kind == KE_LANE || e->kind == KE_MEMBER;
         e = e->kind == KE_INDEX ? e->index.base : e->kind == KE_LANE ? e->lane.base : e->member.base)
      if (e->kind == KE_INDEX && (mentions(e->index.at, ip->in) || mentions(e->index.at, ip->out)))
        offence(ip, e->index.at, lhs, "an index computed from it");
    once(ip, lhs, lhs);
    reads(ip, s->assign.rhs, lhs, NULL);
    return;
  }
  case KS_VSTORE: {
    const KirExpr *ptr = s->vstore.ptr;
    bool output = ptr->kind == KE_VAR && strcmp(ptr->name, ip->out) == 0;
    ip->where = "in an index";
    if (!output) reads(ip, ptr, NULL, NULL);
    reads(ip, s->vstore.offset, NULL, NULL);
    if (output) once(ip, s->vstore.offset, s->vstore.offset);
    /* a vector stored elsewhere (private or local memory) is a value read
     * before a later store of the block, as a declaration's */
    if (!output && !mentions(ptr, ip->in)) {
      ip->current = s;
      ip->rest = s->next;
    }
    reads(ip, s->vstore.value, NULL, output ? s : NULL);
    ip->current = ip->rest = NULL;
    return;
  }
  case KS_FOR:
    ip->where = "in a loop's bounds";
    reads(ip, s->loop.init, NULL, NULL);
    reads(ip, s->loop.bound, NULL, NULL);
    reads(ip, s->loop.step, NULL, NULL);
    if (ip->nloops < (int)(sizeof ip->loops / sizeof ip->loops[0])) {
      ip->loops[ip->nloops++] = s->loop.var;
      walk(ip, &s->loop.body);
      ip->nloops--;
    } else {
      offence(ip, s->loop.bound, NULL, "loops nested too deeply to check");
    }
    return;
  case KS_IF:
    ip->where = "in a condition";
    reads(ip, s->cond.cond, NULL, NULL);
    walk(ip, &s->cond.body);
    return;
  case KS_BLOCK: walk(ip, &s->block.body); return;
  case KS_EXPR:
    ip->where = "in an expression statement";
    reads(ip, s->expr, NULL, NULL);
    return;
  case KS_BARRIER:
  case KS_COMMENT: return;
  case KS_RUN:
    INTERNAL("a run of steps reaches the in-place check: cg_lower writes every run out (kir_write_out_runs)");
  }
}

/* the statements from first up to stop (excluded; NULL: to the end) */
static void walk_from(InPlace *ip, const KirStmt *first, const KirStmt *stop) {
  for (const KirStmt *s = first; s && s != stop && !ip->bad; s = s->next) stmt(ip, s);
}

static void walk(InPlace *ip, const KirBlock *b) { walk_from(ip, b->first, NULL); }

typedef struct Mention {
  const char *name;
  bool found;
} Mention;

static const KirExpr *note_mention(void *ctx, const KirExpr *e) {
  Mention *m = ctx;
  m->found = m->found || mentions(e, m->name);
  return e;
}

/* does the statement s, its nested blocks included, mention name */
static bool stmt_mentions(KirStmt *s, const char *name) {
  Mention m = {name, false};
  kir_map_exprs(s, note_mention, &m);
  KirBlock *body = kir_body(s);
  for (KirStmt *t = body ? body->first : NULL; t && !m.found; t = t->next) m.found = stmt_mentions(t, name);
  return m.found;
}

/* is s a loop over work-groups, `for (wg = get_group_id(d); wg < n; wg
 * += get_num_groups(d))` (a mapWorkgroup launched with a local size of
 * the user's: the group count is then not known to code generation),
 * and does only group 0 enter it, once (n is 1) */
static bool group_loop(const KirStmt *s, bool *once) {
  if (s->kind != KS_FOR) return false;
  const KirExpr *from = kir_query_of(s->loop.init), *by = kir_query_of(s->loop.step);
  int64_t bound;
  *once = kir_const_int(s->loop.bound, &bound) && bound == 1;
  return from && from->query.query == KQ_GROUP_ID && by && by->query.query == KQ_NUM_GROUPS &&
         by->query.dim == from->query.dim;
}

/* The block whose statements the staged rule splits: the kernel's body,
 * or the body of the loops over work-groups that make all of it and that
 * only group 0 enters, once (then *one_group: no other group runs any of
 * it); with groups_apart, of any loops over work-groups, whose every
 * iteration is an element no other iteration of any group reads before
 * its barrier or writes (translate/in_place_groups.c), so that one
 * group's iterations are ordered among themselves as different groups'
 * need not be */
static KirBlock *staged_block(KirKernel *k, bool *one_group, bool groups_apart) {
  KirBlock *b = &k->body;
  for (;;) {
    KirStmt *loop = NULL;
    bool once = false;
    for (KirStmt *s = b->first; s; s = s->next) {
      /* a barrier beside the loop (the previous iteration's local memory
       * done with) orders more, never less */
      if (s->kind == KS_COMMENT || (groups_apart && s->kind == KS_BARRIER)) continue;
      if (loop || !group_loop(s, &once) || !(once || groups_apart)) return b;
      loop = s;
    }
    if (!loop) return b;
    if (once) *one_group = true;
    b = &loop->loop.body;
  }
}

/* The barrier of the staged rule: the last barrier at the top level of
 * the block b before the first statement there that mentions the output
 * (NULL: none, or the output is mentioned before any barrier). */
static KirStmt *separating_barrier(KirBlock *b, const char *out) {
  KirStmt *sep = NULL;
  for (KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_BARRIER) sep = s;
    else if (stmt_mentions(s, out)) return sep;
  }
  return NULL;
}

/* the message naming ip's offence, in and the kernel's name */
static Buf offence_message(Arena *a, const KirKernel *k, const InPlace *ip, const char *in,
                           void (*print_expr)(Buf *out, const KirExpr *e)) {
  Buf msg;
  buf_init(&msg, a);
  emit(&msg, "kernel '%s' updates '%s' in place, but reads ", k->name, in);
  print_expr(&msg, ip->bad);
  if (ip->bad_store) {
    buf_puts(&msg, " where it writes ");
    print_expr(&msg, ip->bad_store);
  }
  return msg;
}

/* E0705: the prefix reads the input and the launch has more than one
 * work-group.  The read named is the one the proof over the functional
 * body found at fault (culprit: translate/in_place_groups.c), a note
 * pointing at it; the first read of the prefix, which may well be the
 * group's own part, only when that proof named none */
static void across_groups(Arena *a, Diag *diag, const KirKernel *k, const KirBlock *body, const KirStmt *sep,
                          const char *out, const char *in, IxCtx *ix, Span culprit, Span at,
                          void (*print_expr)(Buf *out, const KirExpr *e)) {
  const char *tail = " before the barrier of its work-group, and the launch has more than one work-group: no barrier "
                     "orders another group's writes of the elements it reads";
  if (culprit.src && culprit.end > culprit.begin) {
    const char *text = culprit.src->text + culprit.begin;
    int len = (int)(culprit.end - culprit.begin);
    bool short_text = len <= 60 && !memchr(text, '\n', (size_t)len);
    diag_error(diag, ERR_UPDATE_ACROSS_GROUPS, at, "kernel '%s' updates '%s' in place, but reads %s%.*s%s%s", k->name,
               in, short_text ? "'" : "", short_text ? len : 0, text, short_text ? "'" : "a view of it (below)", tail);
    diag_note(diag, culprit,
              "this read of '%s' is neither outside the region the kernel updates nor inside the part its own "
              "work-group writes (docs/language.md section 27)",
              in);
    return;
  }
  InPlace first = {.arena = a, .ix = ix, .out = out, .in = in};
  walk_from(&first, body->first, sep);
  Buf msg = offence_message(a, k, &first, in, print_expr);
  buf_puts(&msg, tail);
  diag_error(diag, ERR_UPDATE_ACROSS_GROUPS, at, "%s", msg.data);
}

bool kir_check_in_place(Arena *a, Diag *diag, KirKernel *k, const char *out, const char *in, bool one_group,
                        bool groups_apart, Span culprit, bool *staged, Span at,
                        void (*print_expr)(Buf *out, const KirExpr *e)) {
  *staged = false;
  /* a kernel that never names the input has nothing to prove: with no
   * output to match, any use of it is an offence */
  IxCtx ix;
  ix_init(&ix, a);
  ix.print_expr = print_expr;
  InPlace probe = {.arena = a, .ix = &ix, .out = "", .in = in};
  walk(&probe, &k->body);
  if (!probe.bad) return true;
  InPlace ip = {.arena = a, .ix = &ix, .out = out, .in = in};
  walk(&ip, &k->body);
  if (!ip.bad) return true;
  /* the staged rule: reads before a barrier of the group, the first rule
   * after it */
  one_group = one_group || groups_apart;
  KirBlock *body = staged_block(k, &one_group, groups_apart);
  KirStmt *sep = separating_barrier(body, out);
  if (sep) {
    InPlace before = {.arena = a, .ix = &ix, .out = out, .in = in, .staged = true};
    walk_from(&before, body->first, sep);
    InPlace after = {.arena = a, .ix = &ix, .out = out, .in = in};
    walk_from(&after, sep->next, NULL);
    if (!before.bad && !after.bad) {
      if (one_group) {
        sep->barrier.global = true;
        *staged = true;
        return true;
      }
      across_groups(a, diag, k, body, sep, out, in, &ix, culprit, at, print_expr);
      return false;
    }
    if (!after.bad) after = before; /* the prefix's offence: a use that is no read */
    ip = after;
  }
  Buf msg = offence_message(a, k, &ip, in, print_expr);
  emit(&msg, " (%s): a work-item may read the input it updates only at the element it writes, in the statement "
             "that writes it or an earlier one of its block; another work-item may already have written any other",
       ip.why);
  diag_error(diag, ERR_UPDATE_NOT_POINTWISE, at, "%s", msg.data);
  return false;
}

/* ---- one buffer, one parameter ---- */

typedef struct Rename {
  Arena *arena;
  const char *from, *to;
} Rename;

/* e with the variable from named to (its type kept: the output's, a
 * pointer to the same elements in global memory, writable) */
static const KirExpr *renamed(void *ctx, const KirExpr *e) {
  const Rename *r = ctx;
  if (!e) return NULL;
  if (e->kind == KE_VAR) return strcmp(e->name, r->from) == 0 ? kir_var(r->arena, r->to, e->type) : e;
  const KirExpr *buf[3];
  const KirExpr *const *old;
  int n = kir_expr_children(e, buf, &old);
  const KirExpr **kids = NEWARRAY(r->arena, const KirExpr *, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) kids[i] = renamed(ctx, old[i]);
  return kir_expr_rebuilt(r->arena, e, kids);
}

static void rename_block(Rename *r, KirBlock *b) {
  for (KirStmt *s = b->first; s; s = s->next) {
    kir_map_exprs(s, renamed, r);
    KirBlock *body = kir_body(s);
    if (body) rename_block(r, body);
  }
}

void kir_in_place_one_param(Arena *a, KirKernel *k, const char *out, const char *in) {
  Rename r = {a, out, in};
  rename_block(&r, &k->locals);
  rename_block(&r, &k->body);
  int n = 0;
  for (int i = 0; i < k->nparams; i++)
    if (strcmp(k->params[i].name, out) != 0) k->params[n++] = k->params[i];
  k->nparams = n;
}
