/* kernel.c: the kernel interface of an imperative def (spec section 8,
 * "Kernel interface"; codegen/kernel.h) and its natural NDRange.
 *
 * Parameters by role: acc[T] -> output (a pair type is split into
 * output_1, output_2, depth-first; a single output is named `output`, or
 * output_2 ... when a parameter of the program has that name: the
 * program's own names come first; a scalar output is a one-element
 * buffer), exp[T] with an array inside ->
 * input buffer, other exp[T] -> scalar argument, var[T] -> hoisted global
 * temporary, nat -> int, newLocal of symbolic size -> local buffer.  Order:
 * outputs; inputs and scalars in declaration order; nats; temporaries;
 * local buffers.  A parameter whose name OpenCL C reserves is renamed in
 * the kernel only (`step` is step_2): KParam.src_name keeps the program's
 * name for the interfaces (kernel.h, kparam_name).
 *
 * NDRange: per dimension d, the work-group loops (parforWorkgroup d) give
 * the number of groups and the parforLocal d loops the local size (the
 * largest trip count; see choose() when some are symbolic); a
 * dimension with only parforGlobal d loops has global size = their trip
 * count and leaves the local size to the host unless work-group loops fix
 * it in another dimension. */
#include "cgen.h"

#include <string.h>

/* a phrase type in a message (types.h: as the user writes it) */
static const char *user_phrase(Arena *a, const PhraseType *t) {
  TypeNamer tn;
  tn_init(&tn, a, NULL, 0);
  return tn_phrase(&tn, t);
}

const char *const kparam_role_name[] = {
#define X(id, s) s,
    DPIA_KPARAM_ROLES(X)
#undef X
};

typedef struct KB {
  Arena *arena;
  TypeCtx *tc;
  Diag *diag;
  DefInfo *def;
  const Backend *backend;
  bool ok;
  NameSet names;  /* C names taken (never given up) */
  Vec params;     /* KParam *, in the order they are made */
  const char *output; /* the generated name of a single output, or NULL */
} KB;

static bool kb_taken(const void *ctx, const char *name) {
  const KB *kb = ctx;
  return nameset_has(&kb->names, name);
}

static void kb_take(KB *kb, const char *name) { nameset_add(&kb->names, name); }

/* a fresh C name after base (cg_c_name: valid, not reserved, not taken) */
static const char *kb_unique(KB *kb, const char *base) {
  const char *name = cg_c_name(kb->arena, kb->backend, base, kb_taken, kb, &kb->names);
  kb_take(kb, name);
  return name;
}

static Span param_span(KB *kb, const Binder *b) { return b ? b->span : kb->def->body->span; }

/* scalars, vectors, indices and pairs of them may be stored */
static bool storable(KB *kb, DataType *t, const Binder *b, bool in_buffer) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_SCALAR:
    if (t->scalar == SC_BOOL && in_buffer) {
      diag_error(kb->diag, ERR_BAD_KERNEL_SIGNATURE, param_span(kb, b),
                 "'%s' holds bool values, which OpenCL does not allow in kernel "
                 "parameters or buffers; use int",
                 b ? b->name : "a local buffer");
      return false;
    }
    return true;
  case DT_IDX: return true;
  case DT_ARRAY: return storable(kb, t->elem, b, in_buffer);
  case DT_PAIR: return storable(kb, t->fst, b, in_buffer) && storable(kb, t->snd, b, in_buffer);
  default:
    diag_error(kb->diag, ERR_BAD_KERNEL_SIGNATURE, param_span(kb, b), "the type %s of '%s' is not a concrete data type",
               dt_str(kb->arena, t), b ? b->name : "?");
    return false;
  }
}

static KParam *kb_param(KB *kb, KParamRole role, const char *name, DataType *t, Binder *b, const char *fields) {
  KParam *p = NEW(kb->arena, KParam);
  p->role = role;
  p->name = name;
  p->type = dt_resolve(t);
  p->binder = b;
  p->fields = fields;
  SizeCtx *sc = &kb->tc->sizes;
  p->elements = size_const(sc, 1);
  DataType *e = p->type;
  for (; e->kind == DT_ARRAY; e = dt_resolve(e->elem)) p->elements = size_mul(sc, p->elements, e->size);
  p->elem = e;
  vec_push(kb->arena, &kb->params, p);
  return p;
}

/* a buffer parameter, split into its components if it is a pair that
 * cannot be one struct (an output always, spec section 8) */
static void kb_buffer(KB *kb, KParamRole role, Binder *b, DataType *t, const char *name, const char *fields) {
  t = dt_resolve(t);
  if (t->kind == DT_PAIR && (role == KP_OUTPUT || dt_holds_array(t))) {
    kb_buffer(kb, role, b, t->fst, kb_unique(kb, arena_printf(kb->arena, "%s_1", name)),
              arena_printf(kb->arena, "%s1", fields));
    kb_buffer(kb, role, b, t->snd, kb_unique(kb, arena_printf(kb->arena, "%s_2", name)),
              arena_printf(kb->arena, "%s2", fields));
    return;
  }
  if (role == KP_INPUT && !dt_holds_array(t)) role = KP_SCALAR;
  if (!storable(kb, t, b, true)) {
    kb->ok = false;
    return;
  }
  KParam *p = kb_param(kb, role, name, t, b, fields);
  /* a parameter the program names keeps that name in every interface
   * (kparam_name): `step`, an OpenCL built-in, is step_2 in the C only.
   * The generated names (output, the parts name_1, name_2 of a split
   * pair) are the interface's own. */
  if (!fields[0] && b && name != kb->output && strcmp(b->name, name) != 0) p->src_name = b->name;
}

typedef struct Trips {
  Vec wg[3], loc[3], glob[3]; /* Size * trip counts per dimension */
} Trips;

/* The launch size of one dimension from the trip counts of its loops: the
 * largest when they are all constants.  Mixed with symbolic ones (whose
 * maximum is unknown), a local size takes the largest constant (a work-group
 * of fixed size that the device can run; the other loops stride) and a
 * group count or global size the first symbolic one (the large one). */
/* Is s a size over the kernel's tune parameters only (bounded by their
 * domains, docs/language.md section 6)? */
static bool over_tune_params(const KB *kb, Size s) {
  const Decl *d = kb->def->decl;
  if (!d) return false;
  for (int i = 0; i < d->nparams; i++)
    if (d->params[i].kind == PARAM_NAT && !d->params[i].tune && size_has_var(s, d->params[i].name)) return false;
  return true;
}

static Size choose(KB *kb, const Vec *v, bool local, const Size **collapsed) {
  if (v->len == 0) return size_const(&kb->tc->sizes, 1);
  int64_t best = -1, c;
  const Size *sym = NULL, *tuned = NULL;
  for (int i = 0; i < v->len; i++) {
    const Size *s = v->items[i];
    if (!size_const_value(*s, &c)) {
      if (!sym) sym = s;
      if (!tuned && over_tune_params(kb, *s)) tuned = s;
    } else if (c > best) {
      best = c;
    }
  }
  /* A mapLocal over a tune parameter (split WG |> mapLocal) sets
   * the work-group size, symbolic (launch shape WG in the metadata, no
   * reqd_work_group_size), rather than a mapLocal over one element making
   * it 1 and the work-items of the WG loop run one after the other. */
  if (local && tuned && best <= 1) return *tuned;
  if (sym && (!local || best < 0)) return *sym;
  if (local && sym && best == 1 && collapsed) *collapsed = sym;
  return size_const(&kb->tc->sizes, best);
}

/* One walk of the body's commands (issue 35: two walks before): a
 * newLocal of symbolic size outside per-work-item code, a KP_LOCAL
 * parameter; and each parallel loop's trip count, by level and
 * dimension, for the natural NDRange */
static void collect_local_params_and_trips(KB *kb, const Phrase *p, bool per_item, Trips *trips) {
  switch (p->kind) {
  case PH_SEQ:
  case PH_PAIR: /* the sides of an if (PRIM_IF) */
    collect_local_params_and_trips(kb, p->fst, per_item, trips);
    collect_local_params_and_trips(kb, p->snd, per_item, trips);
    return;
  case PH_LAM: collect_local_params_and_trips(kb, p->body, per_item, trips); return;
  case PH_APP: {
    Spine s;
    if (!spine_of(kb->arena, p, &s)) return;
    const Phrase *h = s.head;
    Vec *v = NULL;
    if (prim_family(h->prim) == PFAM_PARFOR) {
      DPIA_EXHAUSTIVE_BEGIN
      switch (prim_level(h->prim)) {
      case PLVL_GLOBAL: v = trips->glob; break;
      case PLVL_WORKGROUP: v = trips->wg; break;
      case PLVL_LOCAL: v = trips->loc; break;
      case PLVL_NONE: /* parfor: refused by code generation */
      case PLVL_SEQ:
      case PLVL_PRIVATE: break;
      }
      DPIA_EXHAUSTIVE_END
    }
    if (v && s.nargs == 2) {
      Size *n = NEW(kb->arena, Size);
      *n = fn_param(h->type, 0)->data->size;
      vec_push(kb->arena, &v[h->dim], n);
    }
    Prim pr = h->prim;
    if (pr == PRIM_NEW_LOCAL && !per_item && s.nargs == 1 && s.args[0]->kind == PH_LAM) {
      DataType *t = dt_resolve(s.head->type_arg);
      Binder *b = s.args[0]->lam_binder;
      Size n = size_const(&kb->tc->sizes, 1);
      for (DataType *e = t; e->kind == DT_ARRAY; e = dt_resolve(e->elem)) n = size_mul(&kb->tc->sizes, n, e->size);
      int64_t c;
      if (!size_const_value(n, &c)) {
        if (storable(kb, t, b, true)) kb_param(kb, KP_LOCAL, kb_unique(kb, b->name), t, b, "");
        else kb->ok = false;
      }
    }
    if (pr == PRIM_NEW_GLOBAL) {
      diag_error(kb->diag, ERR_BAD_TEMPORARY, p->span,
                 "newGlobal inside a kernel body cannot be generated: global temporaries are "
                 "kernel parameters (docs/reference.md section 8.2, hoisting)");
      kb->ok = false;
    }
    bool inner = per_item || prim_parfor_per_item(pr);
    for (int i = 0; i < s.nargs; i++)
      if (s.args[i]->kind == PH_LAM || s.args[i]->kind == PH_PAIR)
        collect_local_params_and_trips(kb, s.args[i], inner, trips);
    return;
  }
  default: return;
  }
}

ImpKernel *kernel_from_def(Arena *a, TypeCtx *tc, Diag *diag, const Backend *backend, DefInfo *def,
                           const char *source_name) {
  KB kbs = {0}, *kb = &kbs;
  kb->backend = backend;
  kb->arena = a;
  kb->names.arena = a;
  kb->tc = tc;
  kb->diag = diag;
  kb->def = def;
  kb->ok = true;
  Span where = def->decl ? def->decl->name_span : def->body->span;
  if (!def->ok || !def->body) INTERNAL("kernel_from_def on a def with errors");
  if (def->ndata_params) {
    diag_error(diag, ERR_BAD_KERNEL_SIGNATURE, where, "'%s' has data type parameters: a kernel needs concrete types",
               def->name);
    return NULL;
  }
  if (def->result->kind != PT_COMM) {
    TypeNamer tn;
    tn_init(&tn, a, NULL, 0);
    diag_error(diag, ERR_BAD_KERNEL_SIGNATURE, where,
               "'%s' is not an imperative procedure (its result is %s, not comm)", def->name,
               tn_phrase(&tn, def->result));
    return NULL;
  }

  /* names (spec section 8): the kernel and its nat parameters keep theirs
   * (sizes in types refer to them; the checker rejects reserved ones in a
   * functional kernel, a hand-written def is checked here) */
  if (backend->names.kernel_use(def->name)) {
    diag_error(diag, ERR_RESERVED_NAME, where,
               "kernel name '%s' is not free in %s (a keyword, type, built-in or reserved name); rename it",
               def->name, backend->names.language);
    return NULL;
  }
  for (int i = 0; i < def->nsize_params; i++) {
    Sym n = def->size_params[i];
    if (backend_reserved(backend, n) || kb_taken(kb, n)) {
      Span at = where;
      for (int j = 0; def->decl && j < def->decl->nparams; j++)
        if (def->decl->params[j].kind == PARAM_NAT && strcmp(def->decl->params[j].name, n) == 0)
          at = def->decl->params[j].span;
      diag_error(diag, ERR_RESERVED_NAME, at,
                 "nat parameter name '%s' is not a free C name in %s; a kernel's nat parameters "
                 "keep their names: rename it",
                 n, backend->names.language);
      return NULL;
    }
    kb_take(kb, n);
  }
  int nout = 0;
  for (int i = 0; i < def->nparams; i++) nout += def->params[i]->type->kind == PT_ACC;
  /* then the other parameters' own names, made C names, in declaration
   * order; only then the generated ones: a single output is `output` (the
   * kernel interface) if no parameter has that name, else output_2 ...
   * (as in the imperative program, translate/stage1.c), and the parts of a
   * split pair are name_1, name_2 */
  /* Program names that are free C names are taken first, before any is
   * made: a renamed parameter's C name (dot_2, xs_p for xs') is then no
   * program name of the kernel, so that the launchers, which use program
   * names (kparam_name) and C names where a program name is not a C
   * identifier, cannot give two parameters one name. */
  const char **own = NEWARRAY(a, const char *, def->nparams > 0 ? def->nparams : 1);
  for (int i = 0; i < def->nparams; i++) {
    const char *n = def->params[i]->name;
    if (!(nout == 1 && def->params[i]->type->kind == PT_ACC) && !strchr(n, '\'') && !cg_is_reserved(backend, n) &&
        !kb_taken(kb, n)) {
      own[i] = n;
      kb_take(kb, n);
    }
  }
  for (int i = 0; i < def->nparams; i++)
    if (!(nout == 1 && def->params[i]->type->kind == PT_ACC) && !own[i]) own[i] = kb_unique(kb, def->params[i]->name);
  const char *output = kb->output = nout == 1 ? kb_unique(kb, "output") : NULL;

  /* outputs first, then inputs and scalars, then temporaries */
  for (int pass = 0; pass < 3; pass++) {
    for (int i = 0; i < def->nparams; i++) {
      Binder *b = def->params[i];
      PhraseType *t = b->type;
      bool is_var = t->kind == PT_WITH && t->fst->kind == PT_ACC && t->snd->kind == PT_EXP &&
                    dt_equal(t->fst->data, t->snd->data);
      if (pass == 0 && t->kind == PT_ACC) {
        kb_buffer(kb, KP_OUTPUT, b, t->data, nout == 1 ? output : own[i], "");
      } else if (pass == 1 && t->kind == PT_EXP) {
        kb_buffer(kb, KP_INPUT, b, t->data, own[i], "");
      } else if (pass == 2 && is_var) {
        kb_buffer(kb, KP_TEMP, b, t->fst->data, own[i], "");
      } else if (pass == 0 && t->kind != PT_ACC && t->kind != PT_EXP && !is_var) {
        diag_error(diag, ERR_BAD_KERNEL_SIGNATURE, b->span,
                   "parameter '%s' of type %s cannot be a kernel parameter (expected acc[T], exp[T] "
                   "or var[T])",
                   b->name, user_phrase(a, t));
        kb->ok = false;
      }
    }
    if (pass == 1) {
      for (int i = 0; i < def->nsize_params; i++) {
        KParam *p = kb_param(kb, KP_NAT, def->size_params[i], tc->t_int, NULL, "");
        p->elements = size_const(&tc->sizes, 0);
      }
    }
  }
  Trips tr = {0};
  collect_local_params_and_trips(kb, def->body, false, &tr);
  if (!kb->ok) return NULL;

  ImpKernel *k = NEW(a, ImpKernel);
  k->name = def->name;
  k->backend = backend;
  k->source_name = source_name;
  k->def = def;
  k->diag = diag;
  k->nparams = kb->params.len;
  k->params = NEWARRAY(a, KParam, k->nparams);
  for (int i = 0; i < k->nparams; i++) k->params[i] = *(KParam *)kb->params.items[i];
  k->nprecond = def->nprecond;
  k->preconds = def->preconds;
  /* in place: output j (output_1, output_2, ... depth-first, as the
   * result's tuple) is the buffer of the j-th input `updates` names */
  int nupdated = def->updates ? (def->nupdated > 1 ? def->nupdated : 1) : 0;
  int found = 0;
  for (int j = 0; j < nupdated; j++) {
    const Binder *want = def->nupdated > 1 ? def->updated[j] : def->updates;
    for (int i = 0; i < k->nparams; i++)
      if (k->params[i].role == KP_INPUT && k->params[i].binder == want) {
        k->updated[j] = i;
        found++;
      }
  }
  if (nupdated > 0 && found == nupdated) {
    k->in_place = true;
    k->nupdated = nupdated;
  }

  /* the natural NDRange, of the trip counts */
  SizeCtx *sc = &tc->sizes;
  k->ndims = 1;
  for (int d = 0; d < 3; d++) {
    if (tr.wg[d].len || tr.loc[d].len || tr.glob[d].len) k->ndims = d + 1;
    k->has_local = k->has_local || tr.wg[d].len || tr.loc[d].len;
    if (tr.wg[d].len || tr.glob[d].len) k->grid_dims |= 1u << d;
  }
  for (int d = 0; d < 3; d++) {
    Size one = size_const(sc, 1);
    k->global_size[d] = k->local_size[d] = one;
    if (d >= k->ndims) continue;
    if (tr.wg[d].len || tr.loc[d].len) {
      k->local_size[d] = choose(kb, &tr.loc[d], true, &k->local_collapsed[d]);
      k->global_size[d] = size_mul(sc, choose(kb, &tr.wg[d], false, NULL), k->local_size[d]);
    } else {
      k->global_size[d] = choose(kb, &tr.glob[d], false, NULL);
    }
  }
  if (sc->overflow) {
    diag_error(diag, ERR_SIZE_OVERFLOW, where, "the launch size of '%s' does not fit in 64 bits", def->name);
    return NULL;
  }

  /* a dry run with the natural NDRange reports what cannot be generated */
  Buf source;
  buf_init(&source, a);
  KernelFacts *facts = NEW(a, KernelFacts);
  if (!cg_generate(a, tc, k, NULL, &source, facts)) return NULL;
  k->natural_source = source.data;
  k->natural_facts = facts;
  return k;
}

/* "(G) % L == 0" for a global size that must be a multiple of a local
 * size, unless that is evident (an integer polynomial quotient); no
 * construct of the program requires it: its Span is zero */
static void launch_multiple(Arena *a, SizeCtx *sc, Vec *pre, Size g, Size l) {
  Size q;
  if (!size_div(sc, g, l, &q) || size_is_polynomial(q)) return;
  Precond *p = NEW(a, Precond);
  *p = (Precond){PRECOND_DIVIDES, g, l, (Span){0}};
  vec_push(a, pre, p);
}

ImpKernel *kernel_with_launch(Arena *a, TypeCtx *tc, const ImpKernel *k, const CodegenOptions *opt) {
  bool ul = false, ug = false;
  int nd = k->ndims > 0 ? k->ndims : 1;
  for (int d = 0; d < 3 && opt; d++) {
    if (opt->local_size[d] > 0) ul = true, nd = d + 1 > nd ? d + 1 : nd;
    if (opt->global_size[d] > 0) ug = true, nd = d + 1 > nd ? d + 1 : nd;
  }
  if (!ul && !ug) return (ImpKernel *)k;
  SizeCtx *sc = &tc->sizes;
  ImpKernel *e = NEW(a, ImpKernel);
  *e = *k;
  e->natural_source = NULL;
  e->natural_facts = NULL;
  e->ndims = nd;
  e->has_local = ul || k->has_local;
  Vec pre = {0};
  for (int i = 0; i < k->nprecond; i++) vec_push(a, &pre, (void *)&k->preconds[i]);
  for (int d = 0; d < 3; d++) {
    Size one = size_const(sc, 1);
    Size ng = d < k->ndims ? k->global_size[d] : one;
    Size nl = d < k->ndims && k->has_local ? k->local_size[d] : one;
    /* as codegen/opencl.c's compute_launch assumes */
    Size l = ul ? size_const(sc, opt->local_size[d] > 0 ? opt->local_size[d] : 1) : nl;
    Size g;
    if (ug) {
      g = size_const(sc, opt->global_size[d] > 0 ? opt->global_size[d] : 1);
    } else if (ul && k->has_local) {
      /* the code does not depend on the global size: keep the natural
       * number of work-groups */
      Size groups;
      if (!size_div(sc, ng, nl, &groups)) groups = one;
      g = size_mul(sc, groups, l);
    } else {
      g = ng;
    }
    e->global_size[d] = d < nd ? g : one;
    e->local_size[d] = d < nd ? l : one;
    if (d < nd && e->has_local && (ug || !k->has_local)) launch_multiple(a, sc, &pre, g, l);
  }
  Precond *all = NEWARRAY(a, Precond, pre.len > 0 ? pre.len : 1);
  for (int i = 0; i < pre.len; i++) all[i] = *(const Precond *)pre.items[i];
  e->nprecond = pre.len;
  e->preconds = all;
  return e;
}
