/* lower.c: code generation's driver (spec section 8): the launch sizes,
 * the kernel's parameters and their storages, the commands lowered to the
 * kernel IR (opencl.c, access.c), then the passes over the kernel IR in
 * order: barriers (barrier_pass.c), guards sunk and partitioned loops
 * (guard_sink.c, partition.c), dead code, the in-place check (in_place.c),
 * row pointers (pointers.c) and unrolled tiles, with the invariant check
 * after them; and the kernel's header comment.
 */
#include "cgen.h"

#include <stdio.h>
#include <string.h>

#ifndef DPIA_CHECK_INVARIANTS
#define DPIA_CHECK_INVARIANTS 0
#endif

/* Has the natural launch one work-group in dimension d because no
 * mapWorkgroup or mapGlobal distributes any there (none of the kernel's
 * dimensions, or one of its mapLocal alone)?  As kernel_with_launch
 * counts them (a quotient it cannot take: one). */
static bool one_natural_group(SizeCtx *sc, const ImpKernel *k, int d) {
  if (d >= k->ndims) return true;
  if (k->grid_dims & 1u << d) return false;
  Size groups;
  int64_t n;
  return !size_div(sc, k->global_size[d], k->local_size[d], &groups) || (size_const_value(groups, &n) && n == 1);
}

static void compute_launch(CG *cg, const ImpKernel *k, const CodegenOptions *opt) {
  SizeCtx *sc = &cg->tc->sizes;
  bool user_local = false, user_global = false;
  for (int d = 0; d < 3; d++) {
    user_local = user_local || (opt && opt->local_size[d] > 0);
    user_global = user_global || (opt && opt->global_size[d] > 0);
  }
  Launch *l = &cg->launch;
  for (int d = 0; d < 3; d++) {
    if (user_local) {
      l->local_known[d] = true;
      l->local[d] = size_const(sc, opt->local_size[d] > 0 ? opt->local_size[d] : 1);
    } else if (k->has_local) {
      l->local_known[d] = true;
      l->local[d] = d < k->ndims ? k->local_size[d] : size_const(sc, 1);
    }
    if (user_global) {
      l->global_known[d] = true;
      l->global[d] = size_const(sc, opt->global_size[d] > 0 ? opt->global_size[d] : 1);
    } else if (!user_local || !k->has_local) {
      l->global_known[d] = true;
      l->global[d] = d < k->ndims ? k->global_size[d] : size_const(sc, 1);
    } else if (one_natural_group(sc, k, d)) {
      /* the user's local size alone: the number of work-groups is not
       * fixed where a mapWorkgroup or mapGlobal distributes them (their
       * loop takes any), but in a dimension no such map distributes the
       * launch keeps the natural one
       * (kernel_with_launch; `dpia run` launches it so), and the code
       * is for that one: replicas there would run its group body
       * alike, reading a global temporary group 0 wrote unordered
       * (cg_note_group_access refuses only a number it knows).  It was
       * left unknown, and taken as one only beyond the kernel's
       * dimensions, while the header said "global size not fixed": the
       * code of --local-size=8,2 for a kernel of one dimension, launched
       * with 2 groups in dimension 1, raced on its global temporary
       * (gen51; tests/structure/user_local_one_group.dpia) */
      l->global_known[d] = true;
      l->global[d] = l->local[d];
    }
    /* a dimension of one work-item a group has a group a work-item (the
     * unused dimensions of every kernel of work-groups: no division) */
    int64_t one;
    if (l->local_known[d] && l->global_known[d] && size_const_value(l->local[d], &one) && one == 1)
      l->groups_known[d] = true, l->groups[d] = l->global[d];
    else if (l->local_known[d] && l->global_known[d])
      l->groups_known[d] = size_div(sc, l->global[d], l->local[d], &l->groups[d]);
  }
}

/* the C element type of a buffer parameter: a packed array of float3 is
 * one of floats (kparam_packed3) */
static const KirType *buffer_type(CG *cg, const KParam *p) {
  if (kparam_packed3(p)) return cg_scalar_type(cg, dt_resolve(p->elem)->scalar, 1);
  return cg_type(cg, p->elem);
}

/* A global buffer the kernel both writes and reads (a temporary, an output
 * read back) is not declared restrict: PoCL 3.1 (loopvec) loses stores to
 * such a restrict buffer that a loop reads back, when another restrict
 * buffer is written in the loop (tests/diff/known/pocl_restrict_read_back.cl,
 * regress/pocl_restrict_read_back.dpia; seed 61 #4).  The inputs (read only)
 * and the outputs only written keep it, which already tells the compiler
 * that no load from one aliases a store to another. */
/* The output of a kernel computing in place and the input it updates are
 * one buffer (docs/language.md section 27), the input's parameter once the
 * output's is dropped (kir_in_place_one_param): not restrict, which would
 * promise the compiler that no store through another pointer changes what
 * a load through it reads (C11 6.7.3.1), and the input not const either,
 * as the output is written through it. */
static KirParam param_of(CG *cg, const KParam *p, const BinderSet *read_back, bool aliased) {
  KirParam kp = {p->role, NULL, p->name, false, false, false};
  switch (p->role) {
  case KP_OUTPUT:
  case KP_TEMP:
    kp.type = buffer_type(cg, p);
    kp.restrict_ = p->role == KP_OUTPUT && !binder_set_has(read_back, p->binder) && !aliased;
    break;
  case KP_INPUT:
    kp.type = buffer_type(cg, p);
    kp.restrict_ = !aliased;
    kp.updated = aliased;
    break;
  case KP_SCALAR: kp.type = cg_type(cg, p->type); break;
  case KP_NAT: kp.type = cg_scalar_type(cg, SC_INT, 1); break;
  case KP_LOCAL:
    kp.type = cg_type(cg, p->elem);
    kp.is_volatile = p->binder->volatile_local;
    break;
  }
  return kp;
}

/* the storage of a parameter binder: one buffer or value, or a split pair
 * of them (fields "1", "21", ...) */
static Storage *param_storage(CG *cg, const ImpKernel *k, const Binder *b, DataType *t, const char *prefix) {
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->binder != b || strcmp(p->fields, prefix) != 0) continue;
    switch (p->role) {
    case KP_SCALAR: return new_storage(cg, STORE_VALUE, SP_PRIVATE, p->name, t, b);
    case KP_LOCAL: {
      Storage *st = new_storage(cg, STORE_BUFFER, SP_LOCAL, p->name, t, b);
      st->is_volatile = b->volatile_local;
      return st;
    }
    default: {
      Storage *st = new_storage(cg, STORE_BUFFER, SP_GLOBAL, p->name, t, b);
      st->read_only = p->role == KP_INPUT;
      st->packed3 = kparam_packed3(p);
      return st;
    }
    }
  }
  t = dt_resolve(t);
  if (t->kind != DT_PAIR) INTERNAL("no kernel parameter for %s.%s", b->name, prefix);
  Storage *st = new_storage(cg, STORE_SPLIT, SP_GLOBAL, b->name, t, b);
  st->part[0] = param_storage(cg, k, b, t->fst, arena_printf(cg->arena, "%s1", prefix));
  st->part[1] = param_storage(cg, k, b, t->snd, arena_printf(cg->arena, "%s2", prefix));
  st->name = st->part[0]->name;
  return st;
}

static DataType *binder_data(const Binder *b) {
  PhraseType *t = b->type;
  if (t->kind == PT_WITH) t = t->fst; /* var[T] = acc[T] & exp[T] */
  return t->data;
}

static void comment_text(Buf *out, const char *s) {
  for (; *s; s++) {
    buf_putc(out, *s);
    if (s[0] == '*' && s[1] == '/') buf_putc(out, ' '); /* never close the comment */
  }
}

/* A launch size as size_print prints it: a constant that is not negative
 * as its digits, a variable alone as its name, and a variable over a
 * constant (one term 1/den of it, den > 1: size_print's fraction of one
 * term) as N/256, at once (most launch sizes: 64, N, N/256), any other
 * through size_print (shortcut false: every one,
 * CodegenOptions.no_shortcuts, which tests/throughput, shortcuts,
 * compares) */
static void header_size(Buf *out, Size s, bool shortcut) {
  int64_t v;
  Sym name = NULL;
  const SizeTerm *t = s.nterms == 1 ? &s.terms[0] : NULL;
  if (shortcut && t && t->num == 1 && t->den > 1 && t->nfactors == 1 && t->factors[0].exp == 1)
    name = size_factor_var(&t->factors[0]);
  if (name) {
    buf_puts(out, name);
    buf_putc(out, '/');
    buf_put_int(out, t->den);
  } else if (shortcut && size_const_value(s, &v) && v >= 0) {
    buf_put_int(out, v);
  } else if (shortcut && (name = size_lone_var(s))) {
    buf_puts(out, name);
  } else {
    size_print(out, s);
  }
}

/* ix_from_size of a launch size: a constant's index at once (what
 * ix_from_size makes of one: the unused dimensions' 1) */
static const Ix *launch_ix(CG *cg, Size s) {
  int64_t v;
  if (s.nterms == 1 && size_const_value(s, &v) && v != INT64_MIN && !cg->no_shortcuts) return ix_const(&cg->ix, v);
  return ix_from_size(&cg->ix, s);
}

static void emit_sizes(Buf *out, int n, const Size *s, const int64_t *user, bool shortcut) {
  if (n > 1) buf_putc(out, '(');
  for (int d = 0; d < n; d++) {
    if (d) buf_puts(out, ", ");
    if (user) buf_put_int(out, user[d] > 0 ? user[d] : 1);
    else header_size(out, s[d], shortcut);
  }
  if (n > 1) buf_putc(out, ')');
}

KirKernel *cg_lower(Arena *a, TypeCtx *tc, const ImpKernel *k, const CodegenOptions *opt) {
  CG cgs = {0}, *cg = &cgs;
  cg->arena = a;
  cg->visible.arena = a;
  cg->tc = tc;
  cg->diag = k->diag;
  cg->k = k;
  cg->backend = k->backend;
  cg->program = opt ? opt->program : NULL;
  cg->unroll_directly = opt && opt->unroll_directly;
  cg->runs_written_out = opt && opt->runs_written_out;
  cg->scan_each_site = opt && opt->scan_each_site;
  cg->no_shortcuts = opt && opt->no_shortcuts;
  cg->probe_lanes = opt && opt->probe_lanes;
  cg->walk_each_read = opt && opt->walk_each_read;
  cg->compare_sites = opt && opt->compare_sites;
  cg->where = k->def->body->span;
  ix_init(&cg->ix, a);
  cg->ix.print_expr = k->backend->print_expr;
  compute_launch(cg, k, opt);
  /* preconditions of the form NAME % C == 0 */
  cg->multiple_var = NEWARRAY(a, const char *, k->nprecond > 0 ? k->nprecond : 1);
  cg->multiple_of = NEWARRAY(a, int64_t, k->nprecond > 0 ? k->nprecond : 1);
  for (int i = 0; i < k->nprecond; i++) {
    Sym name;
    int64_t m;
    if (precond_multiple_of(&k->preconds[i], &name, &m) && m > 1) {
      cg->multiple_var[cg->nmultiples] = name;
      cg->multiple_of[cg->nmultiples++] = m;
    }
  }

  /* parameters: names in the outermost scope, storages in the environment */
  for (int i = 0; i < k->nparams; i++) cg_declare(cg, k->params[i].name);
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (!p->binder) continue;
    if (env_index_get(&cg->by_binder, p->binder)) continue; /* seen */
    env_add(cg, p->binder, ENV_STORAGE, param_storage(cg, k, p->binder, binder_data(p->binder), ""), NULL, NULL);
    DataType *pt = dt_resolve(p->type);
    if (pt->kind == DT_IDX) /* an index parameter: 0 <= i < n */
      ix_push_range(&cg->ix, ix_var(&cg->ix, p->name), NULL, ix_from_size(&cg->ix, pt->size));
  }
  /* the reads of the whole body (the sites' commands take theirs from
   * this walk: barriers.c); none, and no walk, while no variable a command
   * may read is bound to shared memory (CG.reads_shared) */
  BinderSet read_back = {0};
  scan_reads(cg, k->def->body, &read_back);
  KirKernel *kk = NEW(a, KirKernel);
  *kk = (KirKernel){.name = k->name, .runs_arena = a};
  kk->nparams = k->nparams;
  kk->params = NEWARRAY(a, KirParam, k->nparams > 0 ? k->nparams : 1);
  for (int i = 0; i < k->nparams; i++)
    kk->params[i] = param_of(cg, &k->params[i], &read_back, k->in_place && (i < k->nupdated || kparam_is_updated(k, i)));

  if (!cg_collect_program_scope(cg, k->def->body)) kk->shortcuts |= KIR_SHORTCUT_SCOPE;
  collect_locals(cg, k->def->body, &kk->locals);
  cg->block = &kk->body;
  gen_comm(cg, k->def->body);
  if (cg->command_depth) INTERNAL("a command site left open");
  kk->steps_copied = cg->steps_copied;
  if (!cg->no_shortcuts && !cg->reads_shared) kk->shortcuts |= KIR_SHORTCUT_READS;
  if (!cg->no_shortcuts && !cg->writes_matter) kk->shortcuts |= KIR_SHORTCUT_WRITES;
  kk->plain_vectors = cg->plain_vectors;
  kk->runs_made = cg->runs_made;
  kk->halves_shared = cg->halves_shared;
  kk->sites_compared = cg->sites_compared;
  kk->sites_differing = cg->sites_differing;
  kk->site_difference = cg->site_difference;
  /* the local size the code is for, fixed when known (the barrier pass's
   * pointwise rule needs it: own_elements.c) */
  kk->reqd_local = cg->launch.local_known[0];
  for (int d = 0; d < 3; d++) kk->local_size[d] = 1;
  for (int d = 0; d < 3 && kk->reqd_local; d++)
    kk->reqd_local = size_const_value(cg->launch.local[d], &kk->local_size[d]);
  /* the barriers, and where one is needed and none can go the errors,
   * even after the lowering's own: each E0604 of the kernel is reported */
  bool placed = kir_place_barriers(a, cg->diag, kk, k->ndims, !k->backend->no_pocl_barriers, cg->no_shortcuts);
  if (cg->failed || !placed) return NULL;

  /* header comment (spec section 8) */
  Buf c;
  buf_init(&c, a);
  if (opt && opt->stamp)
    emit(&c, "Kernel %s, generated by dpia %s from ", k->name, DPIA_VERSION);
  else
    emit(&c, "Kernel %s, generated by dpia from ", k->name);
  comment_text(&c, k->source_name ? k->source_name : "<input>");
  emit(&c, "\nPreconditions:");
  precond_print_list(&c, k->nprecond, k->preconds);
  /* the launch sizes the code was generated for: the natural NDRange or
   * the user's */
  bool ul = false, ug = false;
  int nd = k->ndims;
  for (int d = 0; d < 3; d++) {
    if (opt && opt->local_size[d] > 0) ul = true, nd = d + 1 > nd ? d + 1 : nd;
    if (opt && opt->global_size[d] > 0) ug = true, nd = d + 1 > nd ? d + 1 : nd;
  }
  emit(&c, "\nNDRange: global size ");
  bool some_fixed = false;
  for (int d = 0; d < nd && !ug && ul && k->has_local; d++) some_fixed |= cg->launch.global_known[d];
  if (ug || !(ul && k->has_local)) {
    emit_sizes(&c, nd, k->global_size, ug ? opt->global_size : NULL, !cg->no_shortcuts);
  } else if (some_fixed) {
    /* fixed in the dimensions of one work-group (compute_launch) */
    if (nd > 1) buf_putc(&c, '(');
    for (int d = 0; d < nd; d++) {
      if (d) buf_puts(&c, ", ");
      if (cg->launch.global_known[d]) header_size(&c, cg->launch.global[d], !cg->no_shortcuts);
      else emit(&c, "not fixed");
    }
    if (nd > 1) buf_putc(&c, ')');
  } else {
    emit(&c, "not fixed");
  }
  if (ul || k->has_local) {
    emit(&c, ", local size ");
    emit_sizes(&c, nd, k->local_size, ul ? opt->local_size : NULL, !cg->no_shortcuts);
  } else {
    emit(&c, ", local size not fixed");
  }
  if (ul || ug) emit(&c, " (given by the user)");
  /* the precondition of a scatter's positions (docs/language.md section
   * 29), which the host must keep: two equal elements would be a race;
   * after the in-place line, which the proof below decides */
  Buf perms;
  buf_init(&perms, a);
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->role != KP_INPUT || !p->binder || !p->binder->permutation) continue;
    Buf n;
    buf_init(&n, a);
    size_print(&n, p->elements);
    emit(&perms, "\nPermutation: %s holds each of 0 .. %s - 1 once", p->name, n.data);
  }
  kk->uses_double = cg->uses_double;
  Vec tops = {0};
  for (int i = 0; i < cg->structs.len; i++) {
    KirTop *t = NEW(a, KirTop);
    *t = (KirTop){.kind = KT_STRUCT, .st = cg_struct_of(cg, cg->structs.items[i])};
    t->name = t->st.name;
    vec_push(a, &tops, t);
  }
  cg_program_scope(cg, &tops);
  kk->ntops = tops.len;
  kk->tops = NEWARRAY(a, KirTop, tops.len > 0 ? tops.len : 1);
  for (int i = 0; i < tops.len; i++) kk->tops[i] = *(KirTop *)tops.items[i];
  kk->foreigns = (const DefInfo *const *)cg->foreigns.items;
  kk->nforeigns = cg->foreigns.len;

  KirIdBounds ids = {.ix = &cg->ix};
  for (int d = 0; d < 3; d++) {
    const Launch *l = &cg->launch;
    if (l->global_known[d]) ids.global_known[d] = true, ids.global[d] = l->global[d];
    if (l->groups_known[d]) ids.groups[d] = l->groups_ix[d] ? l->groups_ix[d] : launch_ix(cg, l->groups[d]);
    if (l->local_known[d]) ids.local[d] = l->local_ix[d] ? l->local_ix[d] : launch_ix(cg, l->local[d]);
  }
  const Ix **lhs = NEWARRAY(a, const Ix *, k->nprecond > 0 ? k->nprecond : 1);
  const Ix **rhs = NEWARRAY(a, const Ix *, k->nprecond > 0 ? k->nprecond : 1);
  for (int i = 0; i < k->nprecond; i++) {
    const Precond *pc = &k->preconds[i];
    DPIA_EXHAUSTIVE_BEGIN
    switch (pc->kind) {
    case PRECOND_AT_LEAST:
      lhs[ids.nleast] = ix_from_size(&cg->ix, pc->lhs);
      rhs[ids.nleast++] = ix_from_size(&cg->ix, pc->rhs);
      break;
    case PRECOND_DIVIDES: break; /* the multiples: cg->multiple_of */
    }
    DPIA_EXHAUSTIVE_END
  }
  ids.least_lhs = lhs, ids.least_rhs = rhs;
  kir_sink_into_guards(a, kk);
  kir_partition_loops(a, k->backend, kk, &ids, cg->no_shortcuts);
  kir_drop_dead(a, kk);
  kir_hoist_guards(&kk->body);
  bool one_group = true; /* the staged rule of in_place.c: no other group to race with */
  for (int d = 0; d < 3; d++) one_group = one_group && ids.groups[d] && ids.groups[d]->kind == IX_CONST && ids.groups[d]->value == 1;
  /* each in-place output against the input whose buffer it is (the
   * buffers are distinct: the launchers refuse any overlap) */
  bool staged = false;
  Buf into;
  buf_init(&into, a);
  /* the in-place check compares each read with the write of its own
   * statement, index by index: every step's own */
  if (k->in_place) kir_write_out_runs(a, kk);
  for (int j = 0; k->in_place && j < k->nupdated; j++) {
    bool staged_j = false;
    const char *in = k->params[k->updated[j]].name;
    if (!kir_check_in_place(a, k->diag, kk, k->params[j].name, in, one_group, k->def->groups_own,
                            k->def->groups_culprit, &staged_j, k->def->decl->updates_span, k->backend->print_expr))
      return NULL;
    staged = staged || staged_j;
    emit(&into, "%s%s", j == 0 ? "" : j + 1 == k->nupdated ? " and " : ", ", in);
  }
  const char *what = k->in_place && k->nupdated > 1 ? "outputs are" : "output is";
  if (k->in_place && staged)
    emit(&c, "\nIn place: the %s written into %s, which the work-group reads before a barrier and each "
             "work-item after it only where it writes (not restrict)",
         what, into.data);
  else if (k->in_place)
    emit(&c, "\nIn place: the %s written into %s, which each work-item reads only where it writes (not restrict)",
         what, into.data);
  buf_puts(&c, perms.data ? perms.data : "");
  kk->comment = c.data;
  for (int j = 0; k->in_place && j < k->nupdated; j++)
    kir_in_place_one_param(a, kk, k->params[j].name, k->params[k->updated[j]].name);
  kir_row_pointers(a, k->backend, kk, cg->no_shortcuts);
  kir_unroll_tiles(a, kk);
  /* a backend's refusal looks at each step */
  if (k->backend->refusal) kir_write_out_runs(a, kk);
  const char *refused = k->backend->refusal ? k->backend->refusal(a, kk) : NULL;
  if (refused) {
    diag_error(k->diag, ERR_BARRIER_NOT_SPLIT, k->def->body->span, "kernel '%s' cannot be written in %s: %s", k->name,
               k->backend->names.language, refused);
    return NULL;
  }
  if (DPIA_CHECK_INVARIANTS) {
    const char *why = kir_invariant_violation(a, kk);
    if (why) INTERNAL("code generation broke an invariant of kernel '%s': %s", k->name, why);
  }
  /* The runs of steps (KS_RUN) end here: the passes above took each run
   * as its template once (or wrote it out where they could not).  A
   * backend that prints a run from its template (Backend.prints_runs:
   * the steps' text differs only in their indices) gets them kept, and
   * whatever reads the kernel after printing (kernel_facts_kir) has them
   * written out then; any other printer sees the steps written out here,
   * as lowering each on its own writes them. */
  if (kk->runs_made && !k->backend->prints_runs) kir_write_out_runs(a, kk);
  return kk;
}

const KirKernel *kernel_facts_kir(const KernelFacts *facts) {
  /* the text was printed from this kernel: writing its runs out changes
   * no step's meaning, only its form (unroll_step.c), so the kernel is
   * the one printed to every reader */
  KirKernel *k = (KirKernel *)facts->printed_kir;
  if (k && k->runs_made && !k->runs_out) kir_write_out_runs(k->runs_arena, k);
  return k;
}

bool cg_generate(Arena *a, TypeCtx *tc, const ImpKernel *k, const CodegenOptions *opt, Buf *out, KernelFacts *facts) {
  KirKernel *kk = cg_lower(a, tc, k, opt);
  if (!kk) return false;
  k->backend->print_kernel(kk, NULL, out);
  if (facts) {
    kir_stepping_loops(kk, &facts->global_steps, &facts->local_steps);
    facts->nforeigns = kk->nforeigns;
    facts->foreigns = kk->foreigns;
    facts->printed_kir = kk;
  }
  return true;
}

bool codegen_kernel(Arena *a, TypeCtx *tc, const ImpKernel *k, const CodegenOptions *opt, Buf *out,
                    KernelFacts *facts) {
  /* the natural NDRange: kernel_from_def generated this text already */
  bool natural = true;
  for (int d = 0; d < 3 && opt; d++) natural = natural && opt->local_size[d] <= 0 && opt->global_size[d] <= 0;
  if (natural && k->natural_source && !(opt && (opt->stamp || opt->program))) {
    buf_puts(out, k->natural_source);
    if (facts) *facts = *k->natural_facts;
    return true;
  }
  return cg_generate(a, tc, k, opt, out, facts);
}
