/* kir_interp.c: the kernel IR interpreter and race detector (kir_interp.h):
 * memory and its shadows, messages, the pass before running, expressions. */
#include "kir_interp_int.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- maps ---- */

static uint32_t hash_ptr(uintptr_t k) {
  uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(x >> 32);
}

static void pmap_grow(Arena *a, PMap *m) {
  PMap old = *m;
  m->cap = old.cap ? old.cap * 2 : 64;
  m->count = 0;
  m->keys = NEWARRAY(a, uintptr_t, m->cap);
  m->vals = NEWARRAY(a, int, m->cap);
  for (uint32_t i = 0; i < old.cap; i++)
    if (old.keys[i]) ki_pmap_put(a, m, old.keys[i], old.vals[i]);
}

void ki_pmap_put(Arena *a, PMap *m, uintptr_t key, int val) {
  if ((m->count + 1) * 2 > m->cap) pmap_grow(a, m);
  uint32_t i = hash_ptr(key) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) m->count++;
  m->keys[i] = key;
  m->vals[i] = val;
}

/* -1: absent */
int ki_pmap_get(const PMap *m, uintptr_t key) {
  if (!m->cap) return -1;
  uint32_t i = hash_ptr(key) & (m->cap - 1);
  while (m->keys[i]) {
    if (m->keys[i] == key) return m->vals[i];
    i = (i + 1) & (m->cap - 1);
  }
  return -1;
}

/* ---- messages ---- */

void ki_fail(R *r, KiStatus st, const char *fmt, ...) {
  if (r->status != KI_OK) return;
  r->status = st;
  va_list ap;
  va_start(ap, fmt);
  vemit(r->msg, fmt, ap);
  va_end(ap);
}

void ki_print_ids(Buf *b, int n, const int64_t *v) {
  if (n > 1) buf_putc(b, '(');
  for (int d = 0; d < n; d++) emit(b, "%s%" PRId64, d ? "," : "", v[d]);
  if (n > 1) buf_putc(b, ')');
}

/* work-item (g0,g1) (local (l0,l1) of group (w0,w1)) */
void ki_print_item(R *r, Buf *b, int64_t group_index, int item) {
  int n = r->launch.ndims;
  int64_t grp[3] = {0}, lid[3] = {0}, gid[3] = {0};
  int64_t gi = group_index, li = item;
  for (int d = 0; d < n; d++) {
    grp[d] = gi % r->ngroups[d];
    gi /= r->ngroups[d];
    lid[d] = li % r->launch.local[d];
    li /= r->launch.local[d];
    gid[d] = grp[d] * r->launch.local[d] + lid[d];
  }
  buf_puts(b, "work-item ");
  ki_print_ids(b, n, gid);
  buf_puts(b, " (local id ");
  ki_print_ids(b, n, lid);
  buf_puts(b, " of group ");
  ki_print_ids(b, n, grp);
  buf_putc(b, ')');
}

/* the first line of s as the backend prints it (quoted from the printed
 * kernel, so that the message shows the code a person reads), with its
 * line number when the printed kernel is the one emitted (want_lines) */
void ki_print_stmt_at(R *r, Buf *b, int id) {
  const KirStmt *s = id >= 0 && id < r->stmts.len ? r->stmts.items[id] : NULL;
  if (s && r->backend && !r->text) r->nlines = r->backend->statement_lines(r->a, r->k, &r->line_stmts, &r->lines, &r->text);
  int line = 0;
  for (int i = 0; s && i < r->nlines && !line; i++)
    if (r->line_stmts[i] == s) line = r->lines[i];
  if (!line) {
    buf_puts(b, "(a statement of the kernel)");
    return;
  }
  const char *at = r->text;
  for (int l = 1; l < line && at; l++) {
    at = strchr(at, '\n');
    if (at) at++;
  }
  if (!at) at = "";
  while (*at == ' ') at++;
  const char *end = strchr(at, '\n');
  if (r->want_lines) emit(b, "line %d: ", line);
  emit(b, "`%.*s`", (int)(end ? end - at : (ptrdiff_t)strlen(at)), at);
}

int ki_stmt_number(R *r, const KirStmt *s) { return s ? ki_pmap_get(&r->stmt_id, (uintptr_t)s) : -1; }

static const char *space_words(const Obj *o) {
  switch (o->space) {
  case KSP_LOCAL: return "local memory";
  case KSP_GLOBAL: return o->buffer ? "global buffer" : "global memory";
  case KSP_CONSTANT: return "constant memory";
  case KSP_PRIVATE: return "private memory";
  }
  return "memory";
}

int ki_scalar_bytes(ScalarKind s) { return s == SC_DOUBLE ? 8 : 4; }

/* element E of o (lane L, byte B) holding byte offset off */
static void print_element(Buf *b, const Obj *o, int64_t off) {
  int64_t es = o->elem_size > 0 ? o->elem_size : 1;
  emit(b, "element %" PRId64, off / es);
  int64_t in = off % es;
  if (o->type && o->type->kind == KTY_SCALAR && o->type->width > 1)
    emit(b, " (lane %" PRId64 ")", in / ki_scalar_bytes(o->type->scalar));
  else if (in)
    emit(b, " (byte %" PRId64 " of it)", in);
}

static void race(R *r, const Obj *o, int64_t word, bool write, bool other_write, int64_t other_group, int other_item,
                 int other_stmt) {
  if (r->status != KI_OK) return;
  Buf *b = r->msg;
  r->status = KI_RACE;
  emit(b, "race on '%s' (%s) ", o->name, space_words(o));
  print_element(b, o, word * 4);
  buf_puts(b, ": ");
  ki_print_item(r, b, r->group_index, r->w->index);
  emit(b, " %s it (", write ? "writes" : "reads");
  ki_print_stmt_at(r, b, ki_stmt_number(r, r->stmt));
  buf_puts(b, ") after ");
  ki_print_item(r, b, other_group, other_item);
  emit(b, " %s it (", other_write ? "wrote" : "read");
  ki_print_stmt_at(r, b, other_stmt);
  if (other_group != r->group_index)
    buf_puts(b, "), in another work-group: no barrier orders work-groups");
  else
    emit(b, "), with no barrier fencing %s between them", o->space == KSP_LOCAL ? "local memory" : "global memory");
}

/* ---- memory accesses ---- */

static void record(R *r, Obj *o, int64_t off, int64_t n, bool write) {
  WI *w = r->w;
  int me = w->index;
  if (r->numbered != r->stmt) { /* once a statement, not once an access */
    r->numbered = r->stmt;
    r->stmt_no = ki_stmt_number(r, r->stmt);
  }
  int stmt = r->stmt_no;
  int32_t g = (int32_t)r->group_index;
  bool global = o->space == KSP_GLOBAL;
  uint32_t ep = global ? r->global_epoch : r->local_epoch;
  for (int64_t word = off >> 2; word <= (off + n - 1) >> 2; word++) {
    Shadow *s = &o->shadow[word];
    if (write) {
      if (s->w_epoch == ep && s->writer != me) {
        race(r, o, word, true, true, g, s->writer, s->w_stmt);
        return;
      }
      if (s->r_epoch == ep && s->reader != me) {
        race(r, o, word, true, false, g, s->reader, s->r_stmt);
        return;
      }
      if (s->r_epoch == ep && s->reader2 >= 0 && s->reader2 != me) {
        race(r, o, word, true, false, g, s->reader2, s->r2_stmt);
        return;
      }
      s->w_epoch = ep;
      s->writer = me;
      s->w_stmt = stmt;
      if (!global) continue;
      if (s->gw_group >= 0 && s->gw_group != g) {
        race(r, o, word, true, true, s->gw_group, s->gw_item, s->gw_stmt);
        return;
      }
      if (s->gr_group >= 0 && s->gr_group != g) {
        race(r, o, word, true, false, s->gr_group, s->gr_item, s->gr_stmt);
        return;
      }
      if (s->gr2_group >= 0 && s->gr2_group != g) {
        race(r, o, word, true, false, s->gr2_group, s->gr2_item, s->gr2_stmt);
        return;
      }
      s->gw_group = g;
      s->gw_item = me;
      s->gw_stmt = stmt;
    } else {
      if (s->w_epoch == ep && s->writer != me) {
        race(r, o, word, false, true, g, s->writer, s->w_stmt);
        return;
      }
      if (s->r_epoch != ep) {
        s->r_epoch = ep;
        s->reader = me;
        s->r_stmt = stmt;
        s->reader2 = -1;
      } else if (s->reader != me && s->reader2 < 0) {
        s->reader2 = me;
        s->r2_stmt = stmt;
      }
      if (!global) continue;
      if (s->gw_group >= 0 && s->gw_group != g) {
        race(r, o, word, false, true, s->gw_group, s->gw_item, s->gw_stmt);
        return;
      }
      if (s->gr_group < 0) {
        s->gr_group = g;
        s->gr_item = me;
        s->gr_stmt = stmt;
      } else if (s->gr_group != g && s->gr2_group < 0) {
        s->gr2_group = g;
        s->gr2_item = me;
        s->gr2_stmt = stmt;
      }
    }
  }
}

/* an access of n bytes at o + off: in bounds, and recorded */
bool ki_access_ok(R *r, Obj *o, int64_t off, int64_t n, bool write) {
  if (r->status != KI_OK) return false;
  if (off < 0 || off + n > o->size || !o->bytes) {
    Buf *b = r->msg;
    r->status = KI_BOUNDS;
    emit(b, "out-of-bounds access: ");
    ki_print_item(r, b, r->group_index, r->w->index);
    emit(b, " %s '%s' (%s) at ", write ? "writes" : "reads", o->name, space_words(o));
    int64_t es = o->elem_size > 0 ? o->elem_size : 1;
    if (off % es == 0)
      emit(b, "element %" PRId64, off / es);
    else
      emit(b, "byte %" PRId64, off);
    emit(b, ", outside its %" PRId64 " element%s (", o->size / es, o->size / es == 1 ? "" : "s");
    ki_print_stmt_at(r, b, ki_stmt_number(r, r->stmt));
    buf_putc(b, ')');
    return false;
  }
  if (write && o->read_only) {
    ki_fail(r, KI_ERROR, "the kernel writes the read-only '%s'", o->name);
    return false;
  }
  if (o->shadow) record(r, o, off, n, write);
  return r->status == KI_OK;
}

double ki_wrap32(double v) {
  if (isnan(v)) return v;
  if (!(fabs(v) < 9.0e18)) return (double)INT32_MIN;
  return (double)(int32_t)(uint32_t)(uint64_t)(int64_t)v;
}

static double read_scalar(const unsigned char *p, ScalarKind s) {
  switch (s) {
  case SC_FLOAT: {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  case SC_DOUBLE: {
    double d;
    memcpy(&d, p, 8);
    return d;
  }
  case SC_INT:
  case SC_BOOL: {
    int32_t i;
    memcpy(&i, p, 4);
    return s == SC_BOOL ? (i != 0) : i;
  }
  }
  return 0;
}

void ki_write_scalar(unsigned char *p, ScalarKind s, double v) {
  switch (s) {
  case SC_FLOAT: {
    float f = (float)v;
    memcpy(p, &f, 4);
    return;
  }
  case SC_DOUBLE: memcpy(p, &v, 8); return;
  case SC_INT:
  case SC_BOOL: {
    int32_t i = isnan(v) ? INT32_MIN : s == SC_BOOL ? (v != 0) : (int32_t)ki_wrap32(trunc(v));
    memcpy(p, &i, 4);
    return;
  }
  }
}

/* ---- types ---- */

static const StructLayout *struct_layout(R *r, const char *name) {
  for (int i = 0; i < r->nstructs; i++)
    if (strcmp(r->structs[i].name, name) == 0) return &r->structs[i];
  return NULL;
}

static int64_t type_align(R *r, const KirType *t);

int64_t ki_size_of(R *r, const KirType *t) {
  switch (t->kind) {
  case KTY_SCALAR: return (int64_t)ki_scalar_bytes(t->scalar) * (t->width == 3 ? 4 : t->width);
  case KTY_STRUCT: {
    const StructLayout *l = struct_layout(r, t->name);
    return l ? l->size : 0;
  }
  case KTY_POINTER: return (int64_t)sizeof(Ptr);
  }
  return 0;
}

static int64_t type_align(R *r, const KirType *t) {
  switch (t->kind) {
  case KTY_SCALAR: return ki_size_of(r, t);
  case KTY_STRUCT: {
    const StructLayout *l = struct_layout(r, t->name);
    return l ? l->align : 1;
  }
  case KTY_POINTER: return 8;
  }
  return 1;
}

/* C's layout of the typedefs, in dependency order (KirKernel.tops) */
void ki_lay_structs(R *r) {
  const KirKernel *k = r->k;
  r->structs = NEWARRAY(r->a, StructLayout, k->ntops > 0 ? k->ntops : 1);
  for (int i = 0; i < k->ntops; i++) {
    if (k->tops[i].kind != KT_STRUCT) continue;
    const KirStruct *st = &k->tops[i].st;
    StructLayout *l = &r->structs[r->nstructs];
    l->name = st->name;
    int64_t at = 0, align = 1;
    for (int f = 0; f < 2; f++) {
      int64_t fa = type_align(r, st->field[f].type), fs = ki_size_of(r, st->field[f].type);
      if (st->field[f].array_len >= 0) fs *= st->field[f].array_len;
      at = (at + fa - 1) / fa * fa;
      l->off[f] = at;
      at += fs;
      if (fa > align) align = fa;
    }
    l->align = align;
    l->size = (at + align - 1) / align * align;
    r->nstructs++;
  }
}

int64_t ki_type_size(const KirKernel *k, const KirType *t) {
  Arena a;
  arena_init(&a, NULL);
  R r = {.a = &a, .k = k};
  ki_lay_structs(&r);
  int64_t n = ki_size_of(&r, t);
  arena_free(&a);
  return n;
}

/* ---- the pass before running: names, statements, calls ---- */

static int slot_of_text(R *r, const char *name) {
  for (int i = 0; i < r->names.len; i++)
    if (strcmp(r->names.items[i], name) == 0) return i;
  return -1;
}

void ki_declare_name(R *r, const char *name) {
  if (ki_pmap_get(&r->name_ptr, (uintptr_t)name) >= 0) return;
  int s = slot_of_text(r, name);
  if (s < 0) {
    s = r->names.len;
    vec_push(r->a, &r->names, (void *)name);
  }
  ki_pmap_put(r->a, &r->name_ptr, (uintptr_t)name, s);
}

static void use_name(R *r, const char *name) {
  if (ki_pmap_get(&r->name_ptr, (uintptr_t)name) >= 0) return;
  int s = slot_of_text(r, name);
  if (s < 0) {
    ki_fail(r, KI_ERROR, "the kernel IR uses '%s', which nothing declares", name);
    return;
  }
  ki_pmap_put(r->a, &r->name_ptr, (uintptr_t)name, s);
}

static void scan_ix(R *r, const Ix *x) {
  if (!x) return;
  switch (x->kind) {
  case IX_CONST: return;
  case IX_VAR: use_name(r, x->name); return;
  case IX_EXPR: ki_scan_expr(r, x->expr); return;
  default:
    scan_ix(r, x->a);
    scan_ix(r, x->b);
    return;
  }
}

void ki_scan_expr(R *r, const KirExpr *e) {
  if (!e || r->status != KI_OK) return;
  switch (e->kind) {
  case KE_VAR: use_name(r, e->name); return;
  case KE_IX: scan_ix(r, e->ix); return;
  case KE_CALL: {
    for (int i = 0; i < r->k->nforeigns; i++)
      if (strcmp(r->k->foreigns[i]->name, e->call.fn) == 0) {
        ki_fail(r, KI_NOT_CHECKED, "it calls the foreign function '%s', which the race check cannot interpret",
                e->call.fn);
        return;
      }
    /* the kernel IR calls nothing else by name (built-ins are KE_BUILTIN) */
    ki_fail(r, KI_ERROR, "the race check cannot interpret a call of '%s'", e->call.fn);
    return;
  }
  default: break;
  }
  const KirExpr *buf[3], *const *sub;
  int n = kir_expr_children(e, buf, &sub);
  for (int i = 0; i < n; i++) ki_scan_expr(r, sub[i]);
}

void ki_scan_block(R *r, const KirBlock *b, int depth, bool declare) {
  if (depth > r->depth) r->depth = depth;
  for (const KirStmt *s = b->first; s && r->status == KI_OK; s = s->next) {
    if (declare) {
      ki_pmap_put(r->a, &r->stmt_id, (uintptr_t)s, r->stmts.len);
      vec_push(r->a, &r->stmts, (void *)s);
      if (s->kind == KS_DECL) ki_declare_name(r, s->decl.name);
      if (s->kind == KS_FOR) ki_declare_name(r, s->loop.var);
    } else {
      switch (s->kind) {
      case KS_DECL: ki_scan_expr(r, s->decl.init); break;
      case KS_ASSIGN:
        ki_scan_expr(r, s->assign.lhs);
        ki_scan_expr(r, s->assign.rhs);
        break;
      case KS_VSTORE:
        ki_scan_expr(r, s->vstore.value);
        ki_scan_expr(r, s->vstore.offset);
        ki_scan_expr(r, s->vstore.ptr);
        break;
      case KS_FOR:
        ki_scan_expr(r, s->loop.init);
        ki_scan_expr(r, s->loop.bound);
        ki_scan_expr(r, s->loop.step);
        break;
      case KS_IF: ki_scan_expr(r, s->cond.cond); break;
      case KS_EXPR: ki_scan_expr(r, s->expr); break;
      case KS_BLOCK:
      case KS_BARRIER:
      case KS_COMMENT: break;
      case KS_RUN: INTERNAL("a run of steps in a kernel out of code generation (written out by kir_write_out_runs)");
      }
    }
    const KirBlock *body = kir_body((KirStmt *)s);
    if (body) ki_scan_block(r, body, depth + 1, declare);
  }
}

/* ---- objects ---- */

Obj *ki_new_obj(R *r, const char *name, KirSpace space, const KirType *type, int64_t array_len, int64_t size,
                bool shadow) {
  Obj *o = NEW(r->a, Obj);
  int64_t es = ki_size_of(r, type);
  *o = (Obj){.name = name, .space = space, .type = type, .array_len = array_len, .elem_size = es, .size = size};
  int64_t words = (size + 3) / 4;
  r->bytes += size + (shadow ? words * (int64_t)sizeof(Shadow) : 0);
  if (r->bytes > r->lim->max_bytes) {
    ki_fail(r, KI_NOT_CHECKED,
            "its memory (%" PRId64 " bytes with the race check's records) is over the %" PRId64
            " bytes the check interprets",
            r->bytes, r->lim->max_bytes);
    return o;
  }
  o->cap = size;
  o->bytes = arena_alloc(r->a, (size_t)(size > 0 ? size : 1));
  if (shadow) {
    o->shadow = arena_alloc(r->a, sizeof(Shadow) * (size_t)(words > 0 ? words : 1));
    for (int64_t i = 0; i < words; i++)
      o->shadow[i] =
          (Shadow){.writer = -1, .reader = -1, .reader2 = -1, .gw_group = -1, .gr_group = -1, .gr2_group = -1};
  }
  return o;
}

/* an object holding one value of type t (a variable) */
Obj *ki_value_obj(R *r, const char *name, const KirType *t) {
  return ki_new_obj(r, name, KSP_PRIVATE, t, -1, ki_size_of(r, t), false);
}

void ki_store_ptr(Obj *o, Ptr p) {
  p.magic = PTR_MAGIC;
  memcpy(o->bytes, &p, sizeof p);
}

/* ---- expressions ---- */

static void num(Val *v, ScalarKind sc, int width) {
  v->vk = VK_NUM;
  v->sc = sc;
  v->width = width;
}

static bool is_int(ScalarKind s) { return s == SC_INT || s == SC_BOOL; }

int64_t ki_eval_int(R *r, const KirExpr *e, bool *ok) {
  Val v;
  ki_eval(r, e, &v);
  if (r->status != KI_OK) return *ok = false, 0;
  if (v.vk != VK_NUM || v.width != 1 || !is_int(v.sc)) {
    ki_fail(r, KI_ERROR, "an index or bound that is not an int");
    return *ok = false, 0;
  }
  if (isnan(v.l[0])) {
    /* an int read from memory nothing wrote: the index is poison */
    Buf *b = r->msg;
    r->status = KI_BOUNDS;
    buf_puts(b, "an index read from memory nothing wrote: ");
    ki_print_item(r, b, r->group_index, r->w->index);
    buf_puts(b, " (");
    ki_print_stmt_at(r, b, ki_stmt_number(r, r->stmt));
    buf_putc(b, ')');
    return *ok = false, 0;
  }
  return (int64_t)v.l[0];
}

int ki_slot(R *r, const char *name) {
  int s = ki_pmap_get(&r->name_ptr, (uintptr_t)name);
  if (s < 0) ki_fail(r, KI_ERROR, "unknown name '%s'", name);
  return s;
}

static bool var_loc(R *r, const char *name, Loc *l) {
  int s = ki_slot(r, name);
  if (s < 0) return false;
  Obj *o = r->w->vars[s];
  if (!o) {
    ki_fail(r, KI_ERROR, "'%s' is used before its declaration", name);
    return false;
  }
  *l = (Loc){o, 0, o->type, o->array_len};
  return true;
}

/* read the value at l */
static void load(R *r, const Loc *l, Val *v) {
  if (l->array_len >= 0) { /* an array decays to a pointer to its first element */
    v->vk = VK_PTR;
    v->p = (Ptr){l->obj, l->off, l->type, PTR_MAGIC};
    return;
  }
  const KirType *t = l->type;
  switch (t->kind) {
  case KTY_SCALAR: {
    int sb = ki_scalar_bytes(t->scalar);
    if (!ki_access_ok(r, l->obj, l->off, (int64_t)sb * t->width, false)) {
      num(v, t->scalar, t->width);
      return;
    }
    num(v, t->scalar, t->width);
    for (int i = 0; i < t->width; i++) v->l[i] = read_scalar(l->obj->bytes + l->off + i * sb, t->scalar);
    return;
  }
  case KTY_STRUCT:
    v->vk = VK_REF;
    v->p = (Ptr){l->obj, l->off, t, PTR_MAGIC};
    ki_access_ok(r, l->obj, l->off, ki_size_of(r, t), false);
    return;
  case KTY_POINTER:
    v->vk = VK_PTR;
    if (!ki_access_ok(r, l->obj, l->off, (int64_t)sizeof(Ptr), false)) return;
    memcpy(&v->p, l->obj->bytes + l->off, sizeof(Ptr));
    if (v->p.magic != PTR_MAGIC) {
      v->p = (Ptr){0};
      ki_fail(r, KI_ERROR, "a pointer read from '%s' that nothing set", l->obj->name);
    }
    return;
  }
}

/* v converted to scalar kind sc, lane by lane (C's conversions) */
void ki_convert(Val *v, ScalarKind sc) {
  for (int i = 0; i < v->width; i++) {
    double x = v->l[i];
    switch (sc) {
    case SC_INT: v->l[i] = isnan(x) ? x : ki_wrap32(trunc(x)); break;
    case SC_BOOL: v->l[i] = isnan(x) ? x : x != 0; break;
    case SC_FLOAT: v->l[i] = (double)(float)x; break;
    case SC_DOUBLE: break;
    }
  }
  v->sc = sc;
}

/* store v at l, converted to l's type as an assignment converts */
void ki_store(R *r, const Loc *l, const Val *v) {
  if (r->status != KI_OK) return;
  if (l->array_len >= 0) {
    ki_fail(r, KI_ERROR, "an assignment to the array '%s'", l->obj->name);
    return;
  }
  const KirType *t = l->type;
  switch (t->kind) {
  case KTY_SCALAR: {
    if (v->vk != VK_NUM || (v->width != 1 && v->width != t->width)) {
      ki_fail(r, KI_ERROR, "a value of %d lanes stored into '%s' of %d", v->width, l->obj->name, t->width);
      return;
    }
    Val c = *v;
    if (c.width == 1)
      for (int i = 1; i < t->width; i++) c.l[i] = c.l[0];
    c.width = t->width;
    ki_convert(&c, t->scalar);
    int sb = ki_scalar_bytes(t->scalar);
    if (!ki_access_ok(r, l->obj, l->off, (int64_t)sb * t->width, true)) return;
    for (int i = 0; i < t->width; i++) ki_write_scalar(l->obj->bytes + l->off + i * sb, t->scalar, c.l[i]);
    return;
  }
  case KTY_STRUCT: {
    int64_t n = ki_size_of(r, t);
    if (v->vk != VK_REF || v->p.to->kind != KTY_STRUCT || strcmp(v->p.to->name, t->name) != 0) {
      ki_fail(r, KI_ERROR, "a value that is not a %s stored into '%s'", t->name, l->obj->name);
      return;
    }
    if (!ki_access_ok(r, l->obj, l->off, n, true)) return;
    memmove(l->obj->bytes + l->off, v->p.obj->bytes + v->p.off, (size_t)n);
    return;
  }
  case KTY_POINTER:
    if (v->vk != VK_PTR) {
      ki_fail(r, KI_ERROR, "a value that is not a pointer stored into '%s'", l->obj->name);
      return;
    }
    if (!ki_access_ok(r, l->obj, l->off, (int64_t)sizeof(Ptr), true)) return;
    Ptr p = v->p;
    p.magic = PTR_MAGIC;
    memcpy(l->obj->bytes + l->off, &p, sizeof p);
    return;
  }
}

static bool is_lvalue(const KirExpr *e) {
  switch (e->kind) {
  case KE_VAR:
  case KE_INDEX:
  case KE_MEMBER: return true;
  case KE_LANE: return is_lvalue(e->lane.base);
  default: return false;
  }
}

bool ki_eval_loc(R *r, const KirExpr *e, Loc *l) {
  r->steps++;
  switch (e->kind) {
  case KE_VAR: return var_loc(r, e->name, l);
  case KE_INDEX: {
    Val b;
    ki_eval(r, e->index.base, &b);
    bool ok = true;
    int64_t at = ki_eval_int(r, e->index.at, &ok);
    if (!ok) return false;
    if (b.vk != VK_PTR) {
      ki_fail(r, KI_ERROR, "an index into a value that is not an array or pointer");
      return false;
    }
    *l = (Loc){b.p.obj, b.p.off + at * ki_size_of(r, b.p.to), b.p.to, -1};
    return true;
  }
  case KE_MEMBER: {
    Loc base;
    if (is_lvalue(e->member.base)) {
      if (!ki_eval_loc(r, e->member.base, &base)) return false;
    } else {
      Val v;
      ki_eval(r, e->member.base, &v);
      if (r->status != KI_OK) return false;
      if (v.vk != VK_REF) {
        ki_fail(r, KI_ERROR, "a field of a value that is not a struct");
        return false;
      }
      base = (Loc){v.p.obj, v.p.off, v.p.to, -1};
    }
    const StructLayout *sl = base.type->kind == KTY_STRUCT ? struct_layout(r, base.type->name) : NULL;
    if (!sl || base.array_len >= 0) {
      ki_fail(r, KI_ERROR, "a field '%s' of something that is not a struct", e->member.name);
      return false;
    }
    const KirStruct *st = NULL;
    for (int i = 0; i < r->k->ntops && !st; i++)
      if (r->k->tops[i].kind == KT_STRUCT && strcmp(r->k->tops[i].st.name, sl->name) == 0) st = &r->k->tops[i].st;
    for (int f = 0; f < 2; f++)
      if (strcmp(st->field[f].name, e->member.name) == 0) {
        *l = (Loc){base.obj, base.off + sl->off[f], st->field[f].type, st->field[f].array_len};
        return true;
      }
    ki_fail(r, KI_ERROR, "no field '%s' in %s", e->member.name, sl->name);
    return false;
  }
  case KE_LANE: {
    Loc base;
    if (!ki_eval_loc(r, e->lane.base, &base)) return false;
    if (base.type->kind != KTY_SCALAR || base.type->width <= e->lane.lane || base.array_len >= 0) {
      ki_fail(r, KI_ERROR, "lane %d of something that is not a vector of more lanes", e->lane.lane);
      return false;
    }
    *l = (Loc){base.obj, base.off + (int64_t)e->lane.lane * ki_scalar_bytes(base.type->scalar),
               r->scalar[base.type->scalar], -1};
    return true;
  }
  default: ki_fail(r, KI_ERROR, "an assignment to an expression that is not an l-value"); return false;
  }
}

static double ix_eval(R *r, const Ix *x) {
  r->steps++;
  switch (x->kind) {
  case IX_CONST: return (double)x->value;
  case IX_VAR: {
    Loc l;
    if (!var_loc(r, x->name, &l)) return 0;
    Val v;
    load(r, &l, &v);
    return v.vk == VK_NUM ? v.l[0] : 0;
  }
  case IX_EXPR: {
    Val v;
    ki_eval(r, x->expr, &v);
    if (v.vk != VK_NUM) ki_fail(r, KI_ERROR, "an index atom that is not a number");
    return v.vk == VK_NUM ? v.l[0] : 0;
  }
  default: break;
  }
  double a = ix_eval(r, x->a), b = ix_eval(r, x->b);
  if (isnan(a) || isnan(b)) return NAN;
  switch (x->kind) {
  case IX_ADD: return ki_wrap32(a + b);
  case IX_SUB: return ki_wrap32(a - b);
  case IX_MUL: return ki_wrap32(a * b);
  case IX_DIV: return b == 0 ? NAN : ki_wrap32(trunc(a / b));
  case IX_MOD: return b == 0 ? NAN : (double)((int64_t)a % (int64_t)b);
  default: return 0;
  }
}

static int64_t query(R *r, KirQuery q, int d) {
  const KiLaunch *L = &r->launch;
  bool in = d >= 0 && d < L->ndims;
  switch (q) {
  case KQ_GLOBAL_ID: return in ? r->group[d] * L->local[d] + r->w->lid[d] : 0;
  case KQ_GLOBAL_SIZE: return in ? L->global[d] : 1;
  case KQ_GROUP_ID: return in ? r->group[d] : 0;
  case KQ_NUM_GROUPS: return in ? r->ngroups[d] : 1;
  case KQ_LOCAL_ID: return in ? r->w->lid[d] : 0;
  case KQ_LOCAL_SIZE: return in ? L->local[d] : 1;
  }
  return 0;
}

/* C's usual arithmetic conversions: the kind both operands become */
static ScalarKind common_kind(ScalarKind a, ScalarKind b) {
  if (a == SC_DOUBLE || b == SC_DOUBLE) return SC_DOUBLE;
  if (a == SC_FLOAT || b == SC_FLOAT) return SC_FLOAT;
  return SC_INT;
}

/* a scalar operand broadcast to width lanes */
bool ki_widen(R *r, Val *v, int width) {
  if (v->width == width) return true;
  if (v->width != 1) {
    ki_fail(r, KI_ERROR, "an operation on vectors of %d and %d lanes", v->width, width);
    return false;
  }
  for (int i = 1; i < width; i++) v->l[i] = v->l[0];
  v->width = width;
  return true;
}

static double arith(KirBinop op, bool ints, double x, double y) {
  if (ints) {
    if (isnan(x) || isnan(y)) return NAN;
    switch (op) {
    case KB_ADD: return ki_wrap32(x + y);
    case KB_SUB: return ki_wrap32(x - y);
    case KB_MUL: return ki_wrap32(x * y);
    case KB_DIV: return y == 0 ? NAN : ki_wrap32(trunc(x / y));
    case KB_MOD: return y == 0 ? NAN : (double)((int64_t)x % (int64_t)y);
    default: return NAN;
    }
  }
  switch (op) {
  case KB_ADD: return x + y;
  case KB_SUB: return x - y;
  case KB_MUL: return x * y;
  case KB_DIV: return x / y;
  case KB_MOD: return fmod(x, y);
  default: return NAN;
  }
}

static bool compare(KirBinop op, double x, double y) {
  switch (op) {
  case KB_LT: return x < y;
  case KB_LE: return x <= y;
  case KB_GT: return x > y;
  case KB_GE: return x >= y;
  case KB_EQ: return x == y;
  case KB_NE: return x != y;
  default: return false;
  }
}

/* a test's truth: a scalar's (nonzero) */
bool ki_truth(R *r, const Val *v) {
  if (v->vk == VK_PTR) return v->p.obj != NULL;
  if (v->vk != VK_NUM || v->width != 1) {
    ki_fail(r, KI_ERROR, "a test that is not a scalar");
    return false;
  }
  return v->l[0] != 0;
}

static void eval_binary(R *r, const KirExpr *e, Val *v) {
  KirBinop op = e->bin.op;
  Val a, b;
  ki_eval(r, e->bin.lhs, &a);
  if (r->status != KI_OK) {
    num(v, SC_INT, 1);
    return;
  }
  if ((op == KB_AND || op == KB_ALL || op == KB_OR) && a.vk != VK_NUM) {
    ki_fail(r, KI_ERROR, "a logical operand");
    return;
  }
  if ((op == KB_AND || op == KB_ALL || op == KB_OR) && a.width == 1) { /* short circuit */
    bool t = ki_truth(r, &a);
    num(v, SC_INT, 1);
    if (op == KB_OR ? t : !t) {
      v->l[0] = t;
      return;
    }
    ki_eval(r, e->bin.rhs, &b);
    v->l[0] = ki_truth(r, &b);
    return;
  }
  ki_eval(r, e->bin.rhs, &b);
  if (r->status != KI_OK) {
    num(v, SC_INT, 1);
    return;
  }
  if (a.vk == VK_PTR || b.vk == VK_PTR) { /* an address plus an offset */
    if (op != KB_ADD && op != KB_PTR_ADD && op != KB_SUB) {
      ki_fail(r, KI_ERROR, "an operation on a pointer");
      return;
    }
    Val *p = a.vk == VK_PTR ? &a : &b, *n = a.vk == VK_PTR ? &b : &a;
    if (n->vk != VK_NUM || n->width != 1 || !is_int(n->sc) || (op == KB_SUB && p != &a)) {
      ki_fail(r, KI_ERROR, "a pointer plus something that is not an int");
      return;
    }
    if (isnan(n->l[0])) {
      ki_fail(r, KI_BOUNDS, "a pointer moved by an int nothing wrote");
      return;
    }
    *v = *p;
    int64_t d = (int64_t)n->l[0] * ki_size_of(r, p->p.to);
    v->p.off += op == KB_SUB ? -d : d;
    return;
  }
  if (a.vk != VK_NUM || b.vk != VK_NUM) {
    ki_fail(r, KI_ERROR, "an operation on a struct");
    return;
  }
  int width = a.width > b.width ? a.width : b.width;
  if (!ki_widen(r, &a, width) || !ki_widen(r, &b, width)) return;
  switch (op) {
  case KB_LT:
  case KB_LE:
  case KB_GT:
  case KB_GE:
  case KB_EQ:
  case KB_NE:
    num(v, SC_INT, width);
    /* OpenCL C 6.3.d: a vector comparison is -1 (all bits set) or 0 a lane */
    for (int i = 0; i < width; i++) v->l[i] = compare(op, a.l[i], b.l[i]) ? (width > 1 ? -1 : 1) : 0;
    return;
  case KB_AND:
  case KB_ALL:
  case KB_OR:
    num(v, SC_INT, width);
    for (int i = 0; i < width; i++) {
      bool x = a.l[i] != 0, y = b.l[i] != 0;
      v->l[i] = (op == KB_OR ? x || y : x && y) ? -1 : 0;
    }
    return;
  default: {
    ScalarKind k = common_kind(a.sc, b.sc);
    num(v, k, width);
    for (int i = 0; i < width; i++) v->l[i] = arith(op, k == SC_INT, a.l[i], b.l[i]);
    return;
  }
  }
}

/* the lanes of e's arguments, promoted to their common kind */
static int eval_args(R *r, const KirExpr *e, Val *args) {
  int width = 1;
  ScalarKind k = SC_INT;
  for (int i = 0; i < e->call.nargs; i++) {
    ki_eval(r, e->call.args[i], &args[i]);
    if (r->status != KI_OK) return 0;
    if (args[i].vk != VK_NUM) {
      ki_fail(r, KI_ERROR, "an argument of a built-in that is not a number");
      return 0;
    }
    if (args[i].width > width) width = args[i].width;
    k = i == 0 ? (args[i].sc == SC_BOOL ? SC_INT : args[i].sc) : common_kind(k, args[i].sc);
  }
  for (int i = 0; i < e->call.nargs; i++) {
    if (!ki_widen(r, &args[i], width)) return 0;
    args[i].sc = k;
  }
  return width;
}

/* a vector choice, lane by lane by the sign bit of the mask's lane
 * (OpenCL C 6.3.i, KBI_SELECT): then's lane where it is set, else other's */
static void eval_vector_choice(R *r, const Val *mask, const KirExpr *then, const KirExpr *other, Val *v) {
  Val a, b;
  ki_eval(r, then, &a);
  ki_eval(r, other, &b);
  if (r->status != KI_OK) return;
  if (a.vk != VK_NUM || b.vk != VK_NUM || !ki_widen(r, &a, mask->width) || !ki_widen(r, &b, mask->width)) {
    ki_fail(r, KI_ERROR, "a vector choice between values of other widths");
    return;
  }
  *v = a;
  v->sc = common_kind(a.sc, b.sc);
  for (int i = 0; i < mask->width; i++) v->l[i] = mask->l[i] < 0 ? a.l[i] : b.l[i];
}

static void eval_builtin(R *r, const KirExpr *e, Val *v) {
  Val args[3];
  if (e->call.builtin == KBI_SELECT) {
    ki_eval(r, e->call.args[0], &args[0]);
    if (r->status != KI_OK) return;
    if (args[0].vk != VK_NUM) {
      ki_fail(r, KI_ERROR, "a vector choice by something that is not a number");
      return;
    }
    eval_vector_choice(r, &args[0], e->call.args[1], e->call.args[2], v);
    return;
  }
  int width = eval_args(r, e, args);
  if (!width) {
    num(v, SC_INT, 1);
    return;
  }
  ScalarKind k = args[0].sc;
  num(v, k, width);
  for (int i = 0; i < width; i++) {
    double x = args[0].l[i], y = e->call.nargs > 1 ? args[1].l[i] : 0, z = e->call.nargs > 2 ? args[2].l[i] : 0;
    double o = 0;
    DPIA_EXHAUSTIVE_BEGIN
    switch (e->call.builtin) {
    case KBI_CLAMP: o = x < y ? y : x > z ? z : x; break;
    case KBI_MIN: o = y < x ? y : x; break;
    case KBI_MAX: o = x < y ? y : x; break;
    case KBI_FABS: o = fabs(x); break;
    case KBI_SQRT: o = sqrt(x); break;
    case KBI_RSQRT: o = 1.0 / sqrt(x); break;
    case KBI_EXP: o = exp(x); break;
    case KBI_LOG: o = log(x); break;
    case KBI_SIN: o = sin(x); break;
    case KBI_COS: o = cos(x); break;
    case KBI_FLOOR: o = floor(x); break;
    case KBI_CEIL: o = ceil(x); break;
    case KBI_POW: o = pow(x, y); break;
    case KBI_FMA: o = fma(x, y, z); break;
    case KBI_SELECT: break;
    }
    DPIA_EXHAUSTIVE_END
    v->l[i] = o;
  }
}

void ki_eval(R *r, const KirExpr *e, Val *v) {
  r->steps++;
  if (r->status != KI_OK) {
    num(v, SC_INT, 1);
    return;
  }
  switch (e->kind) {
  case KE_INT:
    num(v, SC_INT, 1);
    v->l[0] = (double)e->value;
    return;
  case KE_LIT:
    num(v, e->lit.scalar, 1);
    v->l[0] = e->lit.scalar == SC_FLOAT    ? (double)(float)e->lit.f
              : e->lit.scalar == SC_DOUBLE ? e->lit.f
                                           : (double)e->lit.i;
    return;
  case KE_IX:
    num(v, SC_INT, 1);
    v->l[0] = ix_eval(r, e->ix);
    return;
  case KE_QUERY:
    num(v, SC_INT, 1);
    v->l[0] = (double)query(r, e->query.query, e->query.dim);
    return;
  case KE_VAR:
  case KE_INDEX:
  case KE_MEMBER: {
    Loc l;
    if (!ki_eval_loc(r, e, &l)) {
      num(v, SC_INT, 1);
      return;
    }
    {
      load(r, &l, v);
      return;
    }
  }
  case KE_LANE: {
    if (is_lvalue(e->lane.base)) { /* only this lane is read */
      Loc l;
      if (!ki_eval_loc(r, e, &l)) {
        num(v, SC_INT, 1);
        return;
      }
      {
        load(r, &l, v);
        return;
      }
    }
    Val b;
    ki_eval(r, e->lane.base, &b);
    if (r->status != KI_OK) {
      num(v, SC_INT, 1);
      return;
    }
    if (b.vk != VK_NUM || b.width <= e->lane.lane) {
      ki_fail(r, KI_ERROR, "a lane of something that is not a vector");
      return;
    }
    num(v, b.sc, 1);
    v->l[0] = b.l[e->lane.lane];
    return;
  }
  case KE_UNARY: {
    if (e->un.op == '&') {
      Loc l;
      if (!ki_eval_loc(r, e->un.operand, &l)) {
        num(v, SC_INT, 1);
        return;
      }
      v->vk = VK_PTR;
      v->p = (Ptr){l.obj, l.off, l.type, PTR_MAGIC};
      return;
    }
    ki_eval(r, e->un.operand, v);
    if (r->status != KI_OK) return;
    if (v->vk != VK_NUM) {
      ki_fail(r, KI_ERROR, "a unary %c of something that is not a number", e->un.op);
      return;
    }
    for (int i = 0; i < v->width; i++) {
      double x = v->l[i];
      switch (e->un.op) {
      case '-': v->l[i] = is_int(v->sc) ? ki_wrap32(-x) : -x; break;
      case '!': v->l[i] = x == 0 ? (v->width > 1 ? -1 : 1) : 0; break;
      case '~': v->l[i] = isnan(x) ? x : (double)~(int32_t)x; break;
      default: {
        ki_fail(r, KI_ERROR, "the unary operator %c", e->un.op);
        return;
      }
      }
    }
    if (e->un.op != '-') v->sc = SC_INT;
    if (v->sc == SC_BOOL) v->sc = SC_INT;
    return;
  }
  case KE_BINARY: {
    eval_binary(r, e, v);
    return;
  }
  case KE_COND: {
    Val t;
    ki_eval(r, e->cond.test, &t);
    if (r->status != KI_OK) {
      num(v, SC_INT, 1);
      return;
    }
    if (t.vk == VK_NUM && t.width > 1) { /* OpenCL C 6.3.i: select lane by lane by the sign bit */
      eval_vector_choice(r, &t, e->cond.then, e->cond.other, v);
      return;
    }
    bool c = ki_truth(r, &t);
    ki_eval(r, c ? e->cond.then : e->cond.other, v);
    return;
  }
  case KE_VLOAD: {
    bool ok = true;
    int64_t at = ki_eval_int(r, e->vload.offset, &ok);
    Val p;
    ki_eval(r, e->vload.ptr, &p);
    if (!ok || r->status != KI_OK) {
      num(v, SC_FLOAT, e->vload.width);
      return;
    }
    if (p.vk != VK_PTR || p.p.to->kind != KTY_SCALAR || p.p.to->width != 1) {
      ki_fail(r, KI_ERROR, "vload%d from something that is not a pointer to scalars", e->vload.width);
      return;
    }
    ScalarKind sc = p.p.to->scalar;
    int sb = ki_scalar_bytes(sc), n = e->vload.width;
    int64_t off = p.p.off + at * n * sb;
    num(v, sc, n);
    if (!ki_access_ok(r, p.p.obj, off, (int64_t)n * sb, false)) return;
    for (int i = 0; i < n; i++) v->l[i] = read_scalar(p.p.obj->bytes + off + i * sb, sc);
    return;
  }
  case KE_CALL: /* the scan refused it (ki_scan_expr) */
    ki_fail(r, KI_ERROR, "a call the race check did not see before running: %s", e->call.fn);
    return;
  case KE_BUILTIN: eval_builtin(r, e, v); return;
  case KE_CAST: {
    const KirType *t = e->call.type;
    ki_eval(r, e->call.args[0], v);
    if (r->status != KI_OK) return;
    if (t->kind == KTY_POINTER) {
      if (v->vk != VK_PTR) {
        ki_fail(r, KI_ERROR, "a cast to a pointer of something that is not one");
        return;
      }
      v->p.to = t->to;
      return;
    }
    if (t->kind != KTY_SCALAR || v->vk != VK_NUM) {
      ki_fail(r, KI_ERROR, "a cast the race check cannot do");
      return;
    }
    if (!ki_widen(r, v, t->width)) return;
    ki_convert(v, t->scalar);
    return;
  }
  case KE_VECTOR: {
    const KirType *t = e->call.type;
    num(v, t->scalar, t->width);
    int n = 0;
    for (int i = 0; i < e->call.nargs; i++) {
      Val a;
      ki_eval(r, e->call.args[i], &a);
      if (r->status != KI_OK) return;
      if (a.vk != VK_NUM || n + a.width > MAX_LANES) {
        ki_fail(r, KI_ERROR, "a vector built from other values");
        return;
      }
      for (int j = 0; j < a.width; j++) v->l[n++] = a.l[j];
    }
    if (n == 1)
      for (int i = 1; i < t->width; i++) v->l[i] = v->l[0];
    else if (n != t->width) {
      ki_fail(r, KI_ERROR, "a vector of %d lanes built from %d", t->width, n);
      return;
    }
    ki_convert(v, t->scalar);
    return;
  }
  }
}
