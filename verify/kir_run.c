/* kir_run.c: the kernel IR interpreter (kir_interp.h): statements as
 * resumable frames, work-groups run work-item by work-item between
 * barriers, and ki_run. */
#include "kir_interp_int.h"

#include <inttypes.h>
#include <string.h>

/* ---- statements ---- */

static void push(R *r, WI *w, const KirStmt *first, const KirStmt *owner) {
  if (w->nframes >= r->depth + 2) {
    ki_fail(r, KI_ERROR, "blocks nested deeper than the kernel IR");
    return;
  }
  w->frames[w->nframes++] = (Frame){first, owner};
}

/* the private (or local) object a declaration makes */
static void declare(R *r, WI *w, const KirStmt *s) {
  int sl = ki_slot(r, s->decl.name);
  if (sl < 0) return;
  const KirType *t = s->decl.type;
  int64_t n = s->decl.array_len >= 0 ? s->decl.array_len : 1;
  int64_t size = ki_size_of(r, t) * n;
  Obj *o;
  if (s->decl.space == KSP_LOCAL) {
    /* local memory declared in the body: one object for the group */
    int li = ki_pmap_get(&r->local_slot, (uintptr_t)sl);
    if (li < 0) {
      ki_fail(r, KI_ERROR, "a local declaration of '%s' in the body", s->decl.name);
      return;
    }
    o = r->locals[li];
  } else {
    o = &w->own[sl];
    if (o->cap < size) {
      r->bytes += size;
      if (r->bytes > r->lim->max_bytes) {
        ki_fail(r, KI_NOT_CHECKED, "its private memory is over the %" PRId64 " bytes the check interprets",
                r->lim->max_bytes);
        return;
      }
      o->bytes = arena_alloc(r->a, (size_t)(size > 0 ? size : 1));
      o->cap = size;
    }
    *o = (Obj){.bytes = o->bytes,
               .cap = o->cap,
               .size = size,
               .type = t,
               .array_len = s->decl.array_len,
               .elem_size = ki_size_of(r, t),
               .name = s->decl.name,
               .space = KSP_PRIVATE};
    memset(o->bytes, 0xff, (size_t)size); /* poison: NaN floats, -1 ints, no pointer */
  }
  w->vars[sl] = o;
  if (s->decl.init) {
    Val v;
    ki_eval(r, s->decl.init, &v);
    Loc l = {o, 0, t, -1};
    ki_store(r, &l, &v);
  }
}

static void set_int(R *r, Obj *o, int64_t v) {
  (void)r;
  int32_t i = (int32_t)v;
  memcpy(o->bytes, &i, 4);
}

static int64_t get_int(Obj *o) {
  int32_t i;
  memcpy(&i, o->bytes, 4);
  return i;
}

/* a loop's variable, an int of the work-item */
static Obj *loop_var(R *r, WI *w, const KirStmt *s) {
  int sl = ki_slot(r, s->loop.var);
  if (sl < 0) return NULL;
  Obj *o = &w->own[sl];
  if (o->cap < 4) {
    o->bytes = arena_alloc(r->a, 8);
    o->cap = 4;
  }
  *o = (Obj){.bytes = o->bytes,
             .cap = o->cap,
             .size = 4,
             .type = r->scalar[SC_INT],
             .array_len = -1,
             .elem_size = 4,
             .name = s->loop.var,
             .space = KSP_PRIVATE};
  w->vars[sl] = o;
  return o;
}

/* run w until it reaches a barrier (w->at) or its end (w->done) */
static void run_item(R *r, WI *w) {
  r->w = w;
  while (w->nframes > 0 && r->status == KI_OK) {
    if (r->steps > r->lim->max_steps) {
      ki_fail(r, KI_NOT_CHECKED, "it takes more than the %" PRId64 " interpreter steps the check allows",
              r->lim->max_steps);
      return;
    }
    Frame *f = &w->frames[w->nframes - 1];
    const KirStmt *s = f->next;
    if (!s) { /* the end of a block: a loop's body steps and runs again */
      const KirStmt *owner = f->owner;
      w->nframes--;
      if (owner) {
        r->stmt = owner;
        bool ok = true;
        Obj *var = w->vars[ki_pmap_get(&r->name_ptr, (uintptr_t)owner->loop.var)];
        int64_t step = ki_eval_int(r, owner->loop.step, &ok);
        if (!ok) return;
        set_int(r, var, ki_wrap32((double)(get_int(var) + step)));
        int64_t bound = ki_eval_int(r, owner->loop.bound, &ok);
        if (!ok) return;
        if (get_int(var) < bound) push(r, w, owner->loop.body.first, owner);
      }
      continue;
    }
    f->next = s->next;
    r->stmt = s;
    r->steps++;
    switch (s->kind) {
    case KS_DECL: declare(r, w, s); break;
    case KS_ASSIGN: {
      Val v;
      ki_eval(r, s->assign.rhs, &v);
      Loc l;
      if (r->status != KI_OK || !ki_eval_loc(r, s->assign.lhs, &l)) break;
      const KirExpr *lhs = s->assign.lhs;
      if (lhs->kind == KE_LANE && l.obj->shadow) {
        /* `v.s1 = x` with v in global or local memory: clang (PoCL, the GPU
         * compilers built on it) loads the whole vector, sets the lane and
         * stores the whole vector back, so the other lanes are read and
         * written too (tests/diff/regress/vector_lane_store_race.dpia) */
        Loc whole;
        if (!ki_eval_loc(r, lhs->lane.base, &whole)) break;
        int64_t n = ki_size_of(r, whole.type);
        if (!ki_access_ok(r, whole.obj, whole.off, n, false) || !ki_access_ok(r, whole.obj, whole.off, n, true)) break;
      }
      ki_store(r, &l, &v);
      break;
    }
    case KS_EXPR: { /* a foreign function's call, kept for its effect (codegen/dead.c) */
      Val v;
      ki_eval(r, s->expr, &v);
      break;
    }
    case KS_VSTORE: {
      Val v, p;
      ki_eval(r, s->vstore.value, &v);
      bool ok = true;
      int64_t at = ki_eval_int(r, s->vstore.offset, &ok);
      ki_eval(r, s->vstore.ptr, &p);
      if (!ok || r->status != KI_OK) break;
      int n = s->vstore.width;
      if (p.vk != VK_PTR || p.p.to->kind != KTY_SCALAR || p.p.to->width != 1 || v.vk != VK_NUM || !ki_widen(r, &v, n)) {
        ki_fail(r, KI_ERROR, "vstore%d of something the race check cannot store", n);
        break;
      }
      ScalarKind sc = p.p.to->scalar;
      ki_convert(&v, sc);
      int sb = ki_scalar_bytes(sc);
      int64_t off = p.p.off + at * n * sb;
      if (!ki_access_ok(r, p.p.obj, off, (int64_t)n * sb, true)) break;
      for (int i = 0; i < n; i++) ki_write_scalar(p.p.obj->bytes + off + i * sb, sc, v.l[i]);
      break;
    }
    case KS_FOR: {
      bool ok = true;
      int64_t init = ki_eval_int(r, s->loop.init, &ok);
      Obj *var = ok ? loop_var(r, w, s) : NULL;
      if (!var) break;
      set_int(r, var, init);
      int64_t bound = ki_eval_int(r, s->loop.bound, &ok);
      if (ok && init < bound) push(r, w, s->loop.body.first, s);
      break;
    }
    case KS_IF: {
      Val c;
      ki_eval(r, s->cond.cond, &c);
      if (r->status == KI_OK && ki_truth(r, &c)) push(r, w, s->cond.body.first, NULL);
      break;
    }
    case KS_BLOCK: push(r, w, s->block.body.first, NULL); break;
    case KS_BARRIER: w->at = s; return;
    case KS_COMMENT: break;
    case KS_RUN: INTERNAL("a run of steps in a kernel out of code generation (written out by kir_write_out_runs)");
    }
  }
  if (w->nframes == 0) w->done = true;
}

/* ---- launch ---- */

static bool group_done(R *r, WI *items, int n) {
  const KirStmt *at = NULL;
  int waiting = -1, ended = -1;
  for (int i = 0; i < n; i++) {
    if (items[i].done) {
      ended = i;
    } else if (!at) {
      at = items[i].at;
      waiting = i;
    } else if (items[i].at != at) {
      r->w = &items[i];
      r->stmt = items[i].at;
      Buf *b = r->msg;
      r->status = KI_DIVERGENCE;
      buf_puts(b, "barrier divergence: ");
      ki_print_item(r, b, r->group_index, i);
      buf_puts(b, " waits at ");
      ki_print_stmt_at(r, b, ki_stmt_number(r, items[i].at));
      buf_puts(b, " while ");
      ki_print_item(r, b, r->group_index, waiting);
      buf_puts(b, " waits at ");
      ki_print_stmt_at(r, b, ki_stmt_number(r, at));
      return true;
    }
  }
  if (at && ended >= 0) {
    Buf *b = r->msg;
    r->status = KI_DIVERGENCE;
    buf_puts(b, "barrier divergence: ");
    ki_print_item(r, b, r->group_index, waiting);
    buf_puts(b, " waits at ");
    ki_print_stmt_at(r, b, ki_stmt_number(r, at));
    buf_puts(b, ", which ");
    ki_print_item(r, b, r->group_index, ended);
    buf_puts(b, " never reaches: it ended");
    return true;
  }
  if (!at) return true;
  /* all wait at one barrier: it closes the intervals of the memory it
   * fences, and everyone resumes */
  if (at->barrier.local) r->local_epoch++;
  if (at->barrier.global) r->global_epoch++;
  for (int i = 0; i < n; i++) items[i].at = NULL;
  return false;
}

/* parameters and constant arrays, bound once */
static void bind_base(R *r) {
  const KirKernel *k = r->k;
  r->base = NEWARRAY(r->a, Obj *, r->nslots);
  r->group_vars = NEWARRAY(r->a, Obj *, r->nslots);
  for (int i = 0; i < k->nparams && r->status == KI_OK; i++) {
    const KirParam *p = &k->params[i];
    const KiArg *arg = &r->args[i];
    int sl = ki_slot(r, p->name);
    Obj *var = NULL;
    switch ((KParamRole)p->role) {
    case KP_INPUT:
    case KP_OUTPUT:
    case KP_TEMP: {
      /* an input updated in place is the output's buffer too (docs/language.md section 27) */
      bool written = p->role != KP_INPUT || p->updated;
      Obj *buf = ki_new_obj(r, p->name, KSP_GLOBAL, p->type, -1, arg->size, written);
      if (r->status != KI_OK) return;
      buf->buffer = true;
      buf->read_only = !written;
      if (arg->size) memcpy(buf->bytes, arg->bytes, (size_t)arg->size);
      var = ki_value_obj(r, p->name, kir_pointer_type(r->a, p->type, KSP_GLOBAL, !written));
      ki_store_ptr(var, (Ptr){buf, 0, p->type, 0});
      var->read_only = true;
      break;
    }
    case KP_SCALAR:
      var = ki_value_obj(r, p->name, p->type);
      if (arg->size != var->size) {
        ki_fail(r, KI_ERROR, "scalar argument %s of %" PRId64 " bytes for a %" PRId64 "-byte parameter", p->name,
                arg->size, var->size);
        return;
      }
      memcpy(var->bytes, arg->bytes, (size_t)arg->size);
      var->read_only = true;
      break;
    case KP_NAT:
      var = ki_value_obj(r, p->name, r->scalar[SC_INT]);
      set_int(r, var, arg->nat);
      var->read_only = true;
      break;
    case KP_LOCAL: {
      /* a local buffer whose size the host gives: one per group */
      Obj *buf = ki_new_obj(r, p->name, KSP_LOCAL, p->type, -1, arg->size, true);
      var = ki_value_obj(r, p->name, kir_pointer_type(r->a, p->type, KSP_LOCAL, false));
      ki_store_ptr(var, (Ptr){buf, 0, p->type, 0});
      var->read_only = true;
      ki_pmap_put(r->a, &r->local_slot, (uintptr_t)sl, r->nlocals);
      r->locals[r->nlocals++] = buf;
      break;
    }
    }
    if (sl >= 0) r->base[sl] = var;
  }
  for (int i = 0; i < k->ntops && r->status == KI_OK; i++) {
    const KirTop *t = &k->tops[i];
    if (t->kind != KT_CONST) continue;
    int sl = ki_slot(r, t->name);
    int64_t es = ki_size_of(r, t->table.elem);
    Obj *o = ki_new_obj(r, t->name, KSP_CONSTANT, t->table.elem, t->table.n, es * t->table.n, false);
    if (r->status != KI_OK) return;
    for (int j = 0; j < t->table.n && r->status == KI_OK; j++) {
      Val v;
      ki_eval(r, t->table.values[j], &v);
      ki_store(r, &(Loc){o, es * j, t->table.elem, -1}, &v);
    }
    o->read_only = true;
    if (sl >= 0) r->base[sl] = o;
  }
  /* local memory of kernel scope */
  for (const KirStmt *s = k->locals.first; s && r->status == KI_OK; s = s->next) {
    if (s->kind != KS_DECL) continue;
    int sl = ki_slot(r, s->decl.name);
    int64_t n = s->decl.array_len >= 0 ? s->decl.array_len : 1;
    Obj *o = ki_new_obj(r, s->decl.name, s->decl.space, s->decl.type, s->decl.array_len,
                        ki_size_of(r, s->decl.type) * n, s->decl.space == KSP_LOCAL);
    if (r->status != KI_OK) return;
    if (sl >= 0) r->base[sl] = o;
    if (s->decl.space == KSP_LOCAL) {
      ki_pmap_put(r->a, &r->local_slot, (uintptr_t)sl, r->nlocals);
      r->locals[r->nlocals++] = o;
    }
  }
  /* local memory declared in the body */
  for (int i = 0; i < r->stmts.len && r->status == KI_OK; i++) {
    const KirStmt *s = r->stmts.items[i];
    if (s->kind != KS_DECL || s->decl.space != KSP_LOCAL) continue;
    int sl = ki_slot(r, s->decl.name);
    if (sl < 0 || ki_pmap_get(&r->local_slot, (uintptr_t)sl) >= 0) continue;
    int64_t n = s->decl.array_len >= 0 ? s->decl.array_len : 1;
    Obj *o =
        ki_new_obj(r, s->decl.name, KSP_LOCAL, s->decl.type, s->decl.array_len, ki_size_of(r, s->decl.type) * n, true);
    ki_pmap_put(r->a, &r->local_slot, (uintptr_t)sl, r->nlocals);
    r->locals[r->nlocals++] = o;
  }
}

static void print_launch(Buf *b, const KiLaunch *l) {
  buf_puts(b, "global ");
  ki_print_ids(b, l->ndims, l->global);
  buf_puts(b, " local ");
  ki_print_ids(b, l->ndims, l->local);
}

KiStatus ki_run(Arena *a, const KirKernel *k, const KiLaunch *launch, const KiArg *args, KiRun *run, Buf *msg) {
  R rs = {.a = a, .k = k, .args = args, .launch = *launch, .lim = run->limits, .backend = run->backend, .want_lines = run->lines, .msg = msg};
  R *r = &rs;
  for (int s = 0; s < 4; s++) r->scalar[s] = kir_scalar_type(a, (ScalarKind)s, 1);
  int64_t items = 1, group = 1;
  for (int d = 0; d < launch->ndims; d++) {
    if (launch->local[d] < 1 || launch->global[d] < 0 || launch->global[d] % launch->local[d] != 0) {
      emit(msg, "launch ");
      print_launch(msg, launch);
      emit(msg, ": not a valid NDRange");
      return KI_ERROR;
    }
    r->ngroups[d] = launch->global[d] / launch->local[d];
    items *= launch->global[d];
    group *= launch->local[d];
  }
  for (int d = launch->ndims; d < 3; d++) r->launch.global[d] = r->launch.local[d] = r->ngroups[d] = 1;
  r->launch.ndims = launch->ndims > 0 ? launch->ndims : 1;
  if (launch->ndims == 0) r->launch.ndims = 1;
  if (items > r->lim->max_work_items || group > r->lim->max_group) {
    emit(msg, "launch ");
    print_launch(msg, launch);
    emit(msg,
         " has %" PRId64 " work-items (%" PRId64 " a group), more than the %" PRId64 " (%" PRId64
         ") the check interprets",
         items, group, r->lim->max_work_items, r->lim->max_group);
    return KI_NOT_CHECKED;
  }
  /* names: declared, then used */
  ki_lay_structs(r);
  for (int i = 0; i < k->nparams; i++) ki_declare_name(r, k->params[i].name);
  for (int i = 0; i < k->ntops; i++)
    if (k->tops[i].kind == KT_CONST) ki_declare_name(r, k->tops[i].name);
  ki_scan_block(r, &k->locals, 0, true);
  ki_scan_block(r, &k->body, 0, true);
  for (int i = 0; i < k->ntops; i++)
    if (k->tops[i].kind == KT_CONST)
      for (int j = 0; j < k->tops[i].table.n; j++) ki_scan_expr(r, k->tops[i].table.values[j]);
  ki_scan_block(r, &k->locals, 0, false);
  ki_scan_block(r, &k->body, 0, false);
  r->nslots = r->names.len;
  if (r->status != KI_OK) {
    run->steps = 0;
    return r->status;
  }
  /* locals: kernel-scope declarations, local parameters, local
   * declarations in the body */
  r->locals = NEWARRAY(a, Obj *, r->stmts.len + k->nparams + 1);
  WI dummy = {0};
  dummy.vars = NEWARRAY(a, Obj *, r->nslots + 1);
  r->w = &dummy;
  bind_base(r);
  if (r->status != KI_OK) return r->status;
  WI *wis = NEWARRAY(a, WI, group);
  for (int64_t i = 0; i < group; i++) {
    WI *w = &wis[i];
    w->index = (int)i;
    int64_t li = i;
    for (int d = 0; d < 3; d++) {
      w->lid[d] = li % r->launch.local[d];
      li /= r->launch.local[d];
    }
    w->frames = NEWARRAY(a, Frame, r->depth + 2);
    w->vars = NEWARRAY(a, Obj *, r->nslots + 1);
    w->own = NEWARRAY(a, Obj, r->nslots + 1);
  }
  r->bytes += group * (int64_t)(sizeof(WI) + (sizeof(Obj *) + sizeof(Obj)) * (size_t)(r->nslots + 1));
  if (r->bytes > r->lim->max_bytes) {
    emit(msg, "its work-items' state is over the %" PRId64 " bytes the check interprets", r->lim->max_bytes);
    return KI_NOT_CHECKED;
  }
  r->local_epoch = r->global_epoch = 1;
  int64_t ngroups = r->ngroups[0] * r->ngroups[1] * r->ngroups[2];
  for (int64_t g = 0; g < ngroups && r->status == KI_OK; g++) {
    r->group_index = g;
    int64_t gi = g;
    for (int d = 0; d < 3; d++) {
      r->group[d] = gi % r->ngroups[d];
      gi /= r->ngroups[d];
    }
    /* a new group: fresh intervals, local memory poisoned (its contents
     * are undefined when a group starts) */
    r->local_epoch++;
    r->global_epoch++;
    for (int i = 0; i < r->nlocals; i++) memset(r->locals[i]->bytes, 0xff, (size_t)r->locals[i]->size);
    for (int64_t i = 0; i < group; i++) {
      WI *w = &wis[i];
      memcpy(w->vars, r->base, sizeof(Obj *) * (size_t)r->nslots);
      w->nframes = 0;
      w->frames[w->nframes++] = (Frame){k->body.first, NULL};
      w->at = NULL;
      w->done = false;
    }
    for (;;) {
      for (int64_t i = 0; i < group && r->status == KI_OK; i++)
        if (!wis[i].done) run_item(r, &wis[i]);
      if (r->status != KI_OK || group_done(r, wis, (int)group)) break;
    }
  }
  run->steps += r->steps;
  if (r->status == KI_OK) {
    /* the buffers written back */
    for (int i = 0; i < k->nparams; i++) {
      const KirParam *p = &k->params[i];
      if (p->role != KP_OUTPUT && p->role != KP_TEMP && !p->updated) continue;
      int sl = ki_slot(r, p->name);
      Ptr ptr;
      memcpy(&ptr, r->base[sl]->bytes, sizeof ptr);
      if (args[i].size) memcpy(args[i].bytes, ptr.obj->bytes, (size_t)args[i].size);
    }
  }
  return r->status;
}
