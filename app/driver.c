/* driver.c: the pass list of one translation, behind the public API.
 *
 * A translation is one Ctx: its arena, interner, diagnostics and type
 * context.  The passes run in order over the Ctx; each may stop the
 * pipeline by reporting errors.  Out of memory longjmps back here. */
#include "dpia.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dpia_codegen.h"
#include "dpia_front.h"
#include "dpia_translate.h"
#include "dpia_verify.h"
#include "driver.h"
#include "driver_int.h"
#include "space.h"

/* the names of the emit kinds (DpiaEmit order) */
static const char *const emit_names[] = {"opencl", "intermediate", "imperative", "json", "header", "space"};
_Static_assert(DPIA_COUNTOF(emit_names) == NEMIT, "a name for every DpiaEmit");

struct DpiaResult {
  DpiaMem mem;
  Arena arena;
  int status;
  bool depth_limited; /* a nesting limit stopped it (Diag.limit_hit) */
  int nerrors;
  const char *output;
  size_t output_len;
  const char *diagnostics;
  const char *diagnostics_json;
  const char *emitted[NEMIT]; /* NULL: not asked for */
  size_t emitted_len[NEMIT];
  int ndiags;
  const DpiaDiagnostic *diags;
  bool ran; /* DPIA_RUN launched the kernel: its times */
  double min_ms, median_ms;
  int launches;              /* Ctx.launches */
  const char *not_checkable; /* Ctx.not_checkable */
  const char *explored; /* DPIA_EXPLORE: the best program ("" if none) */
  const char *tuned;    /* the values taken from the tuning cache, or NULL */
};


void dpia_options_init(DpiaOptions *opt) {
  memset(opt, 0, sizeof *opt);
  opt->action = DPIA_CHECK;
}

size_t dpia_options_size(void) { return sizeof(DpiaOptions); }

/* ---- passes ---- */

static bool pass_parse(Ctx *c) {
  c->prog = parse_program(c->arena, &c->in, &c->diag, &c->src);
  return c->diag.nerrors == 0;
}

/* The tune parameters of the kernels worked on, for messages: "WG, C"
 * (with the kernel's name when several kernels are worked on). */
static const char *tune_names(Ctx *c) {
  Buf b;
  buf_init(&b, c->arena);
  int nkernels = 0;
  for (int i = 0; i < c->prog->ndecls; i++) nkernels += c->prog->decls[i]->is_kernel;
  for (int i = 0; i < c->prog->ndecls; i++) {
    const Decl *d = c->prog->decls[i];
    if (!d->is_kernel || (c->opt->kernel && strcmp(c->opt->kernel, d->name) != 0)) continue;
    for (int j = 0; j < d->nparams; j++) {
      if (!d->params[j].tune) continue;
      emit(&b, "%s%s", b.len ? ", " : "", d->params[j].name);
      if (nkernels > 1 && !c->opt->kernel) emit(&b, " (kernel %s)", d->name);
    }
  }
  return b.len ? arena_printf(c->arena, "the tune parameters are %s", b.data)
               : "there is no tune parameter: declare one as (WG: tune [32, 64, 128])";
}

void print_domain(Buf *b, const Param *pa) { tune_domain_print(b, pa); }

static bool selected(Ctx *c, const DefInfo *def);

const char *tune_scope(const Ctx *c) {
  const char *k = c->opt->kernel;
  for (int i = 0; k && c->prog && i < c->prog->ndecls; i++)
    if (c->prog->decls[i]->is_pipeline && strcmp(c->prog->decls[i]->name, k) == 0) return NULL;
  return k;
}

/* --set NAME=VALUE (docs/language.md section 6): each name must
 * be a tune parameter of a kernel worked on and each value in its domain
 * (else a usage error); then every precondition of the symbolic check
 * (NULL when it failed) that the values decide must hold (else an error
 * quoting it, at the construct that requires it). */
static bool check_settings(Ctx *c, const CheckedProgram *symbolic) {
  const DpiaOptions *o = c->opt;
  for (int s = 0; s < o->nsets; s++) {
    const char *name = o->set_names[s];
    long long value = o->set_values[s];
    const Param *tune = NULL, *nat = NULL;
    const Decl *owner = NULL;
    for (int i = 0; i < c->prog->ndecls; i++) {
      const Decl *d = c->prog->decls[i];
      const char *scope = tune_scope(c);
      if (!d->is_kernel || (scope && strcmp(scope, d->name) != 0)) continue;
      for (int j = 0; j < d->nparams; j++) {
        const Param *pa = &d->params[j];
        if (pa->kind != PARAM_NAT || strcmp(pa->name, name) != 0) continue;
        if (pa->tune && (!tune || !param_tune_allows(pa, (uint64_t)value))) tune = pa, owner = d;
        else if (!pa->tune && !nat) nat = pa, owner = owner ? owner : d;
      }
    }
    if (!tune) {
      const char *what = nat ? arena_printf(c->arena, "%s is a nat parameter of kernel '%s', not a tune parameter%s", name,
                                            owner->name, o->action == DPIA_RUN ? " (give it with --size)" : "")
                             : arena_printf(c->arena, "no kernel %shas a tune parameter %s",
                                            o->kernel ? "worked on " : "", name);
      diag_error(&c->diag, ERR_SET_UNKNOWN, (Span){0}, "--set %s=%lld: %s; %s", name, value, what, tune_names(c));
      c->status = DPIA_EUSAGE;
      continue;
    }
    if (!param_tune_allows(tune, (uint64_t)value)) {
      Buf dom;
      buf_init(&dom, c->arena);
      print_domain(&dom, tune);
      diag_error(&c->diag, ERR_VALUE_OUT_OF_DOMAIN, tune->span,
                 "--set %s=%lld: %lld is not a value of the tune parameter %s of kernel '%s': %s", name, value, value,
                 name, owner->name, dom.data);
      c->status = DPIA_EUSAGE;
    }
  }
  if (c->status) return false;
  if (!symbolic) return true;
  /* the preconditions of the symbolic kernel that the values decide */
  NatValues nats = {o->nsets, o->set_names, NULL};
  int64_t *values = NEWARRAY(c->arena, int64_t, o->nsets);
  for (int s = 0; s < o->nsets; s++) values[s] = o->set_values[s];
  nats.values = values;
  for (int i = 0; i < symbolic->ndefs; i++) {
    const DefInfo *def = symbolic->defs[i];
    if (!selected(c, def)) continue;
    for (int j = 0; j < def->nprecond; j++) {
      const Precond *pre = &def->preconds[j];
      /* one that mentions a nat parameter (no value here) is decided at
       * launch, as is one these values cannot evaluate */
      if (precond_eval(pre, nat_lookup, &nats) != PRECOND_FAILS) continue;
      Buf m;
      buf_init(&m, c->arena);
      for (int s = 0; s < o->nsets; s++)
        if (precond_mentions(pre, o->set_names[s]))
          emit(&m, "%s%s=%lld", m.len ? " " : "--set ", o->set_names[s], o->set_values[s]);
      Span at = pre->span.src ? pre->span : def->decl->name_span;
      diag_error(&c->diag, ERR_VIOLATED_PRECONDITION, at,
                 "%s violates the precondition %s of kernel '%s', which this requires", m.data,
                 precond_text(c->arena, pre), def->name);
    }
  }
  return c->diag.nerrors == 0;
}

/* The space of a kernel (--emit=space -k KERNEL) is the kernel's alone:
 * a pipeline that launches it passes the kernel's tune parameters only
 * when they are constants (they are not its arguments), so with them
 * symbolic it would not check, and nothing of it enters the kernel's
 * translation.  The program less its pipelines is checked then. */
static Program *without_pipelines(Arena *a, const Program *p) {
  Program *q = NEW(a, Program);
  *q = *p;
  q->decls = NEWARRAY(a, Decl *, p->ndecls > 0 ? p->ndecls : 1);
  q->ndecls = 0;
  for (int i = 0; i < p->ndecls; i++)
    if (!p->decls[i]->is_pipeline) q->decls[q->ndecls++] = p->decls[i];
  return q;
}

static bool pass_check(Ctx *c) {
  const DpiaOptions *o = c->opt;
  /* the space lists the tune parameters as declared, defaults or not */
  bool declared = o->action == DPIA_TRANSLATE &&
                  (o->emit == DPIA_EMIT_SPACE || (o->emit_also & DPIA_EMIT_BIT(DPIA_EMIT_SPACE)));
  TuneSettings set = {o->nsets, o->set_names, o->set_values, tune_scope(c), declared};
  /* So too with values bound to -k KERNEL's tune parameters (--set, the
   * tuning cache's): they are the kernel's alone (tune_scope), and a
   * pipeline launching it with another kernel of a parameter of the same
   * name (samples/gemm_any.dpia's BP, V and CP, of both its stages) would
   * see two values of it and not check, though nothing of it enters the
   * kernel's translation: every point of the kernel's --emit=space must
   * translate, verify, run and tune with -k KERNEL (a search driver's
   * need, docs/language.md section 6).  The program worked on is then the
   * one checked (c->checked's definitions stay c->prog's, index for index);
   * rewrite and explore print programs, and keep the whole text. */
  bool bound = o->nsets && (o->action == DPIA_TRANSLATE || o->action == DPIA_VERIFY || o->action == DPIA_RUN ||
                            o->action == DPIA_CHECK || o->action == DPIA_TUNE);
  const Program *prog = c->prog;
  if ((declared || bound) && set.kernel) {
    Program *alone = without_pipelines(c->arena, c->prog);
    if (!declared) c->prog = alone;
    prog = alone;
  }
  if (!o->nsets) {
    c->checked = check_program_set(c->arena, &c->in, &c->diag, &c->tc, prog, &c->backend->names, &set);
    return c->diag.nerrors == 0;
  }
  /* The symbolic check gives the preconditions that check_settings
   * evaluates.  Its errors are not reported: a program may need the value
   * (asVector V with V a tune parameter), and an error that does not
   * depend on it is found again by the specialised check below. */
  Diag symbolic;
  diag_init(&symbolic, c->arena);
  symbolic.depth_scale = c->diag.depth_scale;
  c->checked = check_program_for(c->arena, &c->in, &symbolic, &c->tc, prog, &c->backend->names);
  if (!check_settings(c, symbolic.nerrors ? NULL : c->checked)) return false;
  /* Specialisation: the kernel is checked again with each set parameter
   * bound to its constant (check_program_set), which is exactly checking
   * the program with the literal written in its place: every size, local
   * array and loop bound that mentions it becomes the constant, and what
   * the symbolic check left as a precondition on it is decided. */
  c->checked = check_program_set(c->arena, &c->in, &c->diag, &c->tc, prog, &c->backend->names, &set);
  return c->diag.nerrors == 0;
}

/* inline and normalise each kernel, then apply the strategy rules */
static bool pass_strategy(Ctx *c) {
  c->normal = NEWARRAY(c->arena, Phrase *, c->checked->ndefs);
  c->unlowered = NEWARRAY(c->arena, bool, c->checked->ndefs);
  bool high_level = c->opt->high_level || c->opt->action == DPIA_REWRITE || c->opt->action == DPIA_EXPLORE;
  for (int i = 0; i < c->checked->ndefs; i++) {
    DefInfo *def = c->checked->defs[i];
    if (!def->is_kernel || !def->ok) continue;
    Span unlowered = {0};
    /* a kernel normal as checked, accepted as it is, in one walk */
    c->normal[i] = strategy_check_normal_as_is(c->arena, &c->tc, &c->diag, def, high_level, &unlowered);
    if (!c->normal[i]) {
      c->normal[i] = normalize_def(c->arena, &c->tc, &c->diag, def);
      if (c->normal[i]) def->ok = strategy_check_high_level(c->arena, &c->diag, def, c->normal[i], high_level, &unlowered);
      else def->ok = false;
    }
    c->unlowered[i] = def->ok && unlowered.src;
    if (c->unlowered[i] && c->opt->action == DPIA_CHECK)
      diag_remark(&c->diag, ERR_NEEDS_STRATEGY, unlowered,
                  "kernel '%s' is a high-level program: this 'map' computes and has no OpenCL level, so the kernel "
                  "needs a strategy before it translates (`dpia rewrite FILE -k %s --list` shows the rules that "
                  "lower it)",
                  def->name, def->name);
  }
  return c->diag.nerrors == 0;
}

/* -v: each declaration's type, and a kernel's preconditions */
static void emit_types(Ctx *c) {
  for (int i = 0; i < c->checked->ndefs; i++) {
    DefInfo *def = c->checked->defs[i];
    if (def->decl->from_prelude) continue;
    if (def->is_kernel || def->is_pipeline) {
      emit(&c->out, "%s %s : ", def->is_kernel ? "kernel" : "pipeline", def->name);
      dt_print(&c->out, def->result->data);
      /* in place: written into the input (docs/language.md section 27) */
      if (def->updates) emit(&c->out, ", in place of %s%s", def->updates->name, def->nregions > 1 ? " (regions)" : def->nregions ? " (a region)" : "");
      for (int k = 1; k < def->nupdated; k++)
        emit(&c->out, "%s%s", k + 1 == def->nupdated ? " and " : ", ", def->updated[k]->name);
    } else if (def->is_foreign) {
      /* its declared type, as its parameters are written */
      emit(&c->out, "foreign %s : ", def->name);
      if (def->ok) {
        for (int j = 0; j < def->nparams; j++) {
          dt_print(&c->out, def->params[j]->type->data);
          buf_puts(&c->out, " -> ");
        }
        dt_print(&c->out, def->result->data);
      }
    } else if (decl_is_template(def->decl)) {
      /* no type of its own: typed at each use (check.c, templates) */
      emit(&c->out, "def %s", def->name);
      for (int j = 0; j < def->decl->nparams; j++) emit(&c->out, " %s", def->decl->params[j].name);
      buf_puts(&c->out, " : typed at each use");
    } else {
      emit(&c->out, "def %s : ", def->name);
      for (int j = 0; j < def->nsize_params; j++) emit(&c->out, "(%s: nat) -> ", def->size_params[j]);
      for (int j = 0; j < def->ndata_params; j++) emit(&c->out, "(%s: data) -> ", def->data_params[j]);
      pt_print(&c->out, def->type);
    }
    buf_putc(&c->out, '\n');
    for (int j = 0; def->is_kernel && j < def->decl->nparams; j++) {
      const Param *pa = &def->decl->params[j];
      if (!pa->tune) continue;
      emit(&c->out, "  %s: ", pa->name);
      print_domain(&c->out, pa);
      buf_putc(&c->out, '\n');
    }
    for (int j = 0; j < def->nprecond; j++) emit(&c->out, "  requires %s\n", precond_text(c->arena, &def->preconds[j]));
    if (def->pipeline) pipeline_print_launches(c->arena, &c->out, def->pipeline);
  }
}

/* the kernels the command works on: -k NAME, the kernels of pipeline
 * -k NAME, or every kernel */
static bool selected(Ctx *c, const DefInfo *def) {
  if (!def->is_kernel) return false;
  if (!c->opt->kernel || strcmp(def->name, c->opt->kernel) == 0) return true;
  for (int i = 0; c->pipe && i < c->pipe->nlaunches; i++)
    if (c->pipe->launches[i].kernel == def) return true;
  return false;
}

/* "its kernels: a, b" (or "it has no kernel") for messages about -k */
const char *kernel_names(Ctx *c) {
  Buf b;
  buf_init(&b, c->arena);
  int n = 0;
  for (int i = 0; i < c->checked->ndefs; i++) {
    const DefInfo *def = c->checked->defs[i];
    if (!def->is_kernel) continue;
    emit(&b, "%s%s", n++ ? ", " : "its kernels: ", def->name);
  }
  if (!n) buf_puts(&b, "it has no kernel");
  int np = 0;
  for (int i = 0; i < c->checked->ndefs; i++)
    if (c->checked->defs[i]->is_pipeline)
      emit(&b, "%s%s", np++ ? ", " : "; its pipelines: ", c->checked->defs[i]->name);
  return b.data;
}

static bool pass_select(Ctx *c) {
  if (!c->opt->kernel) return true;
  for (int i = 0; i < c->checked->ndefs; i++) {
    const DefInfo *def = c->checked->defs[i];
    if (def->is_pipeline && strcmp(def->name, c->opt->kernel) == 0) {
      c->pipe = def->pipeline;
      return true;
    }
  }
  for (int i = 0; i < c->checked->ndefs; i++)
    if (selected(c, c->checked->defs[i])) return true;
  diag_error(&c->diag, ERR_NO_SUCH_KERNEL, (Span){0}, "no kernel named '%s' in %s; %s", c->opt->kernel, c->src.name,
             kernel_names(c));
  return false;
}

#ifndef DPIA_CHECK_INVARIANTS
#define DPIA_CHECK_INVARIANTS 0
#endif

/* why (NULL: nothing) the output of stage broke an invariant, reported */
static bool invariant_reported(Ctx *c, const DefInfo *kernel, PhraseStage stage, const char *why) {
  if (!why) return true;
  static const char *const stage_name[] = {"stage I", "stage II", "hoisting"};
  diag_error(&c->diag, ERR_INTERNAL, kernel->decl->name_span, "internal: %s broke an invariant of kernel '%s': %s",
             stage_name[stage], kernel->name, why);
  c->status = DPIA_EINTERNAL;
  return false;
}

/* Debug builds (meson.build sets DPIA_CHECK_INVARIANTS) check each
 * stage's output before the next stage reads it, as QBE's ssacheck does:
 * a broken invariant is a bug of the stage that made it, reported there
 * (exit 70) instead of as a wrong kernel further on. */
static bool invariants_hold(Ctx *c, const DefInfo *kernel, const DefInfo *out, PhraseStage stage) {
  if (!DPIA_CHECK_INVARIANTS || !out) return true;
  const char *why = phrase_invariant_violation(c->arena, out, stage);
  return invariant_reported(c, kernel, stage, why);
}

/* the same for out, made by its stage from before, the output of the
 * stage before, whose invariants held: where out is that very program
 * (hoisting without memory to hoist), only the primitives its stage
 * removes are looked for (phrase_invariant_violation_after) */
static bool invariants_hold_after(Ctx *c, const DefInfo *kernel, const DefInfo *out, PhraseStage stage,
                                  const DefInfo *before, const PhraseFound *in_before, PhraseFound *found) {
  if (!DPIA_CHECK_INVARIANTS || !out) return true;
  const char *why =
      phrase_invariant_violation_noting(c->arena, out, stage, before, (PhraseStage)(stage - 1), in_before, found);
  return invariant_reported(c, kernel, stage, why);
}

/* Stages I and II and hoisting, for each selected kernel. */
static bool pass_translate(Ctx *c) {
  int n = c->checked->ndefs;
  c->intermediate = NEWARRAY(c->arena, DefInfo *, n);
  c->imperative = NEWARRAY(c->arena, DefInfo *, n);
  c->hoisted = NEWARRAY(c->arena, DefInfo *, n);
  for (int i = 0; i < n; i++) {
    DefInfo *def = c->checked->defs[i];
    if (!selected(c, def) || c->unlowered[i]) continue;
    /* the invariants checked next hold stage I's own last check */
    c->intermediate[i] = DPIA_CHECK_INVARIANTS ? translate_stage1_checked_after(c->arena, &c->tc, &c->in, def, c->normal[i])
                                               : translate_stage1(c->arena, &c->tc, &c->in, def, c->normal[i]);
    if (!invariants_hold(c, def, c->intermediate[i], PHRASE_INTERMEDIATE)) return false;
    c->imperative[i] = translate_stage2(c->arena, &c->tc, &c->in, &c->diag, c->intermediate[i]);
    /* what the check of stage II's output meets, which hoisting's then
     * need not look for again */
    PhraseFound imperative = {false, false};
    if (!c->imperative[i] ||
        !invariants_hold_after(c, def, c->imperative[i], PHRASE_IMPERATIVE, c->intermediate[i], NULL, &imperative))
      return false;
    c->hoisted[i] = translate_hoist(c->arena, &c->tc, &c->in, &c->diag, c->imperative[i]);
    if (!c->hoisted[i] ||
        !invariants_hold_after(c, def, c->hoisted[i], PHRASE_HOISTED, c->imperative[i], &imperative, NULL))
      return false;
  }
  return true;
}

/* Print the imperative def imp (ascribing its joinAcc's or not:
 * def_print_ascribing_joins), parse the text and check it again under the
 * same SCIR rules, into d; does it check? */
static bool recheck_printed(Ctx *c, const DefInfo *imp, bool ascribe_joins, Diag *d) {
  DefInfo *defs[] = {(DefInfo *)imp};
  Buf text;
  buf_init(&text, c->arena);
  foreign_decls_print(&text, defs, 1);
  def_print_ascribing_joins(&text, imp, imp->name, ascribe_joins);
  Source *src = NEW(c->arena, Source);
  source_init(src, c->arena, arena_printf(c->arena, "<imperative %s>", imp->name), text.data, text.len);
  diag_init(d, c->arena);
  d->depth_scale = c->diag.depth_scale;
  int max_nesting = diag_depth_limit(d, DPIA_MAX_NESTING * 4);
  Program *p = parse_program_deep(c->arena, &c->in, d, src, max_nesting);
  if (!d->nerrors) check_program(c->arena, &c->in, d, &c->tc, p);
  return !d->nerrors;
}

/* Only sizes it cannot infer (E0303)? */
static bool only_uninferred_sizes(const Diag *d) {
  for (const Diagnostic *e = d->first; e; e = e->next)
    if (e->level == DIAG_ERROR && e->code != ERR_CANNOT_INFER) return false;
  return !d->limit_hit;
}

static bool is_join_acc(Prim prim) { return prim == PRIM_JOIN_ACC; }

/* Must imp be printed with its joinAcc's ascribed to check again?  When
 * nothing in it reads the input through a loop's index (a map of a
 * constant function: its `split 64 xs` was dropped), nothing gives the
 * sizes of `joinAcc output` (n*m == N/4), which the source had from the
 * split (dpia/check.h, def_print_ascribing_joins).  Only the defs whose
 * plain printout fails so are ascribed: every other printout stays as it
 * was. */
static bool needs_joins_ascribed(Ctx *c, const DefInfo *imp, Diag *plain) {
  /* a def without joinAcc (or a template, printed as written) is printed
   * plainly without checking it first */
  if (!imp->body || decl_is_template(imp->decl) || !phrase_has_prim(imp->body, is_join_acc)) return false;
  if (recheck_printed(c, imp, false, plain) || !only_uninferred_sizes(plain)) return false;
  Diag ascribed;
  return recheck_printed(c, imp, true, &ascribed);
}

/* Theorem 4.1 says the translation preserves typing; check it on every
 * translation: print the imperative program (before hoisting, which is an
 * OpenCL-specific step outside the theorem), parse it and check it again
 * under the same SCIR rules (its joinAcc's ascribed where the printout
 * needs it: needs_joins_ascribed).  Failing is a bug of dpia, reported as
 * a verification failure (exit 3). */
static bool pass_recheck(Ctx *c) {
  for (int i = 0; i < c->checked->ndefs; i++) {
    if (!c->imperative || !c->imperative[i]) continue;
    const DefInfo *imp = c->imperative[i];
    Diag d;
    if (recheck_printed(c, imp, false, &d)) continue;
    if (d.limit_hit) {
      /* a limit of the re-check, not a fault of the translation */
      c->diag.limit_hit = true;
      diag_error(&c->diag, ERR_TOO_DEEP, imp->decl->name_span,
                 "kernel '%s' is too deep to verify: its imperative program nests more than %d levels "
                 "(every materialised stage adds a few); split it into several kernels",
                 imp->name, diag_depth_limit(&d, DPIA_MAX_NESTING * 4));
      c->status = DPIA_EUSER;
      return false;
    }
    Diag ascribed;
    if (only_uninferred_sizes(&d) && recheck_printed(c, imp, true, &ascribed)) continue;
    Buf why;
    buf_init(&why, c->arena);
    diag_render_text(&d, &why);
    diag_error(&c->diag, ERR_INTERNAL, imp->decl->name_span,
               "internal: the imperative program of kernel '%s' does not type check again (translation "
               "must preserve typing, paper Theorem 4.1):\n%s",
               imp->name, why.data);
    c->status = DPIA_EVERIFY;
    return false;
  }
  return true;
}

/* the source's name in generated text (DpiaOptions.source_name) */
static const char *generated_name(const Ctx *c) {
  return c->opt->source_name ? c->opt->source_name : c->src.name;
}

/* Code generation (spec section 8) for each translated kernel. */
static bool pass_codegen(Ctx *c) {
  int n = c->checked->ndefs;
  c->kernels = NEWARRAY(c->arena, ImpKernel *, n);
  c->natural = NEWARRAY(c->arena, ImpKernel *, n);
  c->sources = NEWARRAY(c->arena, const char *, n);
  c->facts = NEWARRAY(c->arena, KernelFacts, n);
  CodegenOptions copt = {0};
  for (int d = 0; d < 3; d++) {
    copt.local_size[d] = c->opt->local_size[d];
    copt.global_size[d] = c->opt->global_size[d];
  }
  copt.stamp = c->opt->stamp;
  /* a pipeline's kernels are one program: their constant arrays' names
   * are the program's (ProgramNames) */
  ProgramNames program = {.taken = {.arena = c->arena}};
  if (c->pipe) {
    for (int i = 0; i < n; i++) nameset_add(&program.taken, c->checked->defs[i]->name);
    copt.program = &program;
  }
  for (int i = 0; i < n; i++) {
    if (!c->hoisted[i]) continue;
    c->kernels[i] = kernel_from_def(c->arena, &c->tc, &c->diag, c->backend, c->hoisted[i], generated_name(c));
    if (!c->kernels[i]) return false;
    /* A work-group size that the program leaves symbolic never
     * silently becomes 1 (every work-item of its mapLocal one after the
     * other in a single one): refused unless the user chose the launch */
    for (int d = 0; d < 3 && !c->opt->local_size[0]; d++) {
      const Size *s = c->kernels[i]->local_collapsed[d];
      if (!s) continue;
      Buf m;
      buf_init(&m, c->arena);
      size_print(&m, *s);
      diag_error(&c->diag, ERR_WORKGROUP_SIZE_NOT_FIXED,
                 c->hoisted[i]->decl ? c->hoisted[i]->decl->name_span : (Span){0},
                 "the work-group size of kernel '%s' (dimension %d) is not fixed: a mapLocal runs over %s work-items "
                 "and another over one, so it would be 1; %s",
                 c->kernels[i]->name, d, m.data,
                 strspn(m.data, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") == m.len
                     ? arena_printf(c->arena,
                                    "declare %s as a tune parameter ((%s: tune [32, 64, 128])) or give the "
                                    "work-group size with --local-size",
                                    m.data, m.data)
                     : "give the work-group size with --local-size");
      return false;
    }
    Buf src;
    buf_init(&src, c->arena);
    if (!codegen_kernel(c->arena, &c->tc, c->kernels[i], &copt, &src, &c->facts[i])) return false;
    c->sources[i] = src.data;
    c->natural[i] = c->kernels[i];
    /* from here on the kernel is the one launched as generated: metadata,
     * header and dpia run all describe that launch */
    c->kernels[i] = kernel_with_launch(c->arena, &c->tc, c->kernels[i], &copt);
  }
  return c->diag.nerrors == 0;
}

/* The body of each foreign function a kernel calls, parsed alone as the
 * OpenCL C it is emitted as (docs/language.md section 14): an error or
 * warning there is the program's, reported at the declaration (exit 1),
 * not a verification failure of dpia's own output. */
/* The caller's verifier (DpiaOptions.verifier): the library's verifiers
 * are the default target's (dpia_verifier_new), so another target makes
 * its own. */
static DpiaVerifier *given_verifier(const Ctx *c) {
  return c->target == target_default() ? c->opt->verifier : NULL;
}

static bool pass_foreign(Ctx *c) {
  Vec used = {0};
  for (int i = 0; i < c->checked->ndefs; i++) {
    const DefInfo *d = c->checked->defs[i];
    if (!d->is_foreign || !d->ok) continue;
    bool called = false;
    for (int k = 0; k < c->checked->ndefs && !called; k++)
      for (int f = 0; c->sources[k] && f < c->facts[k].nforeigns && !called; f++) called = c->facts[k].foreigns[f] == d;
    if (called) vec_push(c->arena, &used, (void *)d);
  }
  if (!used.len) return true;
  DpiaVerifier *v = given_verifier(c);
  bool own = !v;
  if (own && !(v = c->target->verifier_new())) {
    diag_error(&c->diag, ERR_VERIFIER_UNAVAILABLE, (Span){0},
               "cannot start %s to check the %s of the foreign functions", c->target->parser, c->target->language);
    c->status = DPIA_EVERIFY;
    return false;
  }
  bool ok = true;
  for (int i = 0; i < used.len; i++) {
    const DefInfo *f = used.items[i];
    Buf text, report;
    buf_init(&text, c->arena);
    buf_init(&report, c->arena);
    c->target->foreign_preamble(&text, foreign_uses_double(f));
    foreign_c_definition(&text, f, "");
    const char *name = arena_printf(c->arena, "foreign %s", f->name);
    if (!c->target->verify(v, name, text.data, text.len, &report)) {
      while (report.len > 0 && report.data[report.len - 1] == '\n') report.data[--report.len] = '\0';
      diag_error(&c->diag, ERR_FOREIGN_BODY, f->decl->foreign_body_span,
                 "the body of foreign function '%s' is not valid %s (as %s parses it, warnings included):\n%s", f->name,
                 c->target->language, c->target->language_std, report.data);
      ok = false;
    }
  }
  if (own) c->target->verifier_free(v);
  return ok;
}

/* Re-parse every generated kernel as the target's language (for OpenCL:
 * libclang, -x cl -cl-std=CL1.2); any warning or error is a verification
 * failure (exit 3). */
static bool pass_clang(Ctx *c) {
  DpiaVerifier *v = given_verifier(c);
  bool own = false;
  bool ok = true;
  for (int i = 0; i < c->checked->ndefs && ok; i++) {
    if (!c->sources[i]) continue;
    if (!v) {
      v = c->target->verifier_new();
      own = true;
      if (!v) {
        diag_error(&c->diag, ERR_VERIFIER_UNAVAILABLE, (Span){0}, "cannot start %s to verify the generated %s",
                   c->target->parser, c->target->title);
        c->status = DPIA_EVERIFY;
        return false;
      }
    }
    Buf report;
    buf_init(&report, c->arena);
    const char *name = arena_printf(c->arena, "%s%s", c->kernels[i]->name, c->target->source_ext);
    if (!c->target->verify(v, name, c->sources[i], strlen(c->sources[i]), &report)) {
      diag_error(&c->diag, ERR_INTERNAL, c->checked->defs[i]->decl->name_span,
                 "internal: the %s generated for kernel '%s' does not compile cleanly:\n%s", c->target->title,
                 c->kernels[i]->name, report.data);
      c->status = DPIA_EVERIFY;
      ok = false;
    }
  }
  if (own) c->target->verifier_free(v);
  return ok;
}

/* Semantic translation validation (semantic.h): the imperative
 * program that becomes OpenCL, interpreted at small sizes with parallel
 * loops in both orders, must compute what the reference interpreter of the
 * functional program computes (spec section 11).  Then the race check
 * (race.h): the OpenCL emitted, and the code generated for other launches,
 * interpreted on the same inputs, must have no data race, no access out of
 * bounds and no barrier divergence, and compute the same values.  A
 * difference is a wrong translation and a finding a race (exit 3); a
 * check too large for its budget is skipped and said so with -v, never
 * counted as passing. */
static bool pass_semantic(Ctx *c) {
  if (c->opt->skip_semantic_check) return true;
  /* dpia verify checks thoroughly; a translation (often one of thousands
   * a search driver makes) quickly */
  bool thorough = c->opt->action == DPIA_VERIFY;
  SemanticBudget budget = thorough ? SEMANTIC_BUDGET_THOROUGH : SEMANTIC_BUDGET_QUICK;
  RaceBudget race_budget = thorough ? RACE_BUDGET_THOROUGH : RACE_BUDGET_QUICK;
  CodegenOptions user = {0};
  for (int d = 0; d < 3; d++) {
    user.local_size[d] = c->opt->local_size[d];
    user.global_size[d] = c->opt->global_size[d];
  }
  bool say = c->opt->verbose && thorough;
  for (int i = 0; i < c->checked->ndefs; i++) {
    if (!c->hoisted[i]) continue;
    DefInfo *def = c->checked->defs[i];
    Buf msg;
    buf_init(&msg, c->arena);
    SemanticSample sample;
    SemStatus st = semantic_check(c->arena, def, c->normal[i], c->hoisted[i], &budget, &sample, &msg);
    if (st == SEM_MISMATCH) {
      diag_error(&c->diag, ERR_WRONG_TRANSLATION, def->decl->name_span, "wrong translation: %s", msg.data);
      c->status = DPIA_EVERIFY;
      return false;
    }
    if (st == SEM_ERROR) {
      diag_error(&c->diag, ERR_INTERNAL, def->decl->name_span, "internal: semantic check of kernel '%s': %s", def->name,
                 msg.data);
      c->status = DPIA_EINTERNAL;
      return false;
    }
    if (say)
      emit(&c->out, "kernel %s: semantic check %s: %s\n", def->name, st == SEM_OK ? "passed" : "not done", msg.data);
    if (!c->facts[i].printed_kir) continue;
    if (st != SEM_OK) {
      if (say) emit(&c->out, "kernel %s: race check not done: the semantic check was not done\n", def->name);
      continue;
    }
    RaceKernel rk = {.tc = &c->tc,
                     .k = c->natural[i],
                     .user = &user,
                     .kir = kernel_facts_kir(&c->facts[i]),
                     .drop_barriers = c->opt->debug_drop_barriers != 0,
                     .def = def,
                     .body = c->normal[i],
                     .imp = c->hoisted[i],
                     .semantic = &budget};
    buf_clear(&msg);
    RaceStatus rs = race_check(c->arena, &rk, &sample, &race_budget, &msg);
    switch (rs) {
    case RACE_OK:
    case RACE_NOT_CHECKED:
      if (say)
        emit(&c->out, "kernel %s: race check %s: %s\n", def->name, rs == RACE_OK ? "passed" : "not done", msg.data);
      break;
    case RACE_FOUND:
      diag_error(&c->diag, ERR_RACE, def->decl->name_span, "%s", msg.data);
      c->status = DPIA_EVERIFY;
      return false;
    case RACE_MISMATCH:
      diag_error(&c->diag, ERR_WRONG_TRANSLATION, def->decl->name_span, "wrong code: %s", msg.data);
      c->status = DPIA_EVERIFY;
      return false;
    case RACE_ERROR:
      diag_error(&c->diag, ERR_INTERNAL, def->decl->name_span, "internal: race check of kernel '%s': %s", def->name,
                 msg.data);
      c->status = DPIA_EINTERNAL;
      return false;
    }
  }
  return true;
}

/* every stage's printout checks again (dpia/check.h), its joinAcc's
 * ascribed where it needs them (needs_joins_ascribed) */
static void emit_stage(Ctx *c, DefInfo **stage) {
  foreign_decls_print(&c->out, stage, c->checked->ndefs);
  bool first = true;
  for (int i = 0; i < c->checked->ndefs; i++) {
    if (!stage[i]) continue;
    if (!first) buf_putc(&c->out, '\n');
    first = false;
    Diag plain;
    def_print_ascribing_joins(&c->out, stage[i], stage[i]->name, needs_joins_ascribed(c, stage[i], &plain));
  }
}

static void emit_sources(Ctx *c) {
  bool first = true;
  Buf program;
  buf_init(&program, c->arena);
  NameSet defined = {.arena = c->arena};
  for (int i = 0; i < c->checked->ndefs; i++) {
    if (!c->sources[i]) continue;
    /* a pipeline's kernels are one program: each definition once */
    if (c->pipe) {
      codegen_program_add(c->backend, &program, &defined, &c->facts[i]);
      continue;
    }
    if (!first) buf_putc(&c->out, '\n');
    first = false;
    buf_puts(&c->out, c->sources[i]);
  }
  if (c->pipe) buf_puts(&c->out, program.data);
}

/* Each pipeline worked on (-k names it, or no -k) against its generated
 * kernels (pipeline_emit.h). */
static bool pass_pipelines(Ctx *c) {
  c->pipe_descs = NEWARRAY(c->arena, PipeDesc *, c->checked->ndefs);
  for (int i = 0; i < c->checked->ndefs; i++) {
    const DefInfo *def = c->checked->defs[i];
    if (!def->pipeline || (c->opt->kernel && def->pipeline != c->pipe)) continue;
    c->pipe_descs[i] = pipeline_describe(c->arena, &c->tc, &c->diag, def->pipeline, c->kernels);
    if (!c->pipe_descs[i]) return false;
  }
  return true;
}

/* the OpenCL C of every kernel worked on, as one program */
const char *all_sources(Ctx *c) {
  Buf saved = c->out;
  buf_init(&c->out, c->arena);
  emit_sources(c);
  const char *all = c->out.data;
  c->out = saved;
  return all;
}

/* one object with -k (a kernel or a pipeline), else an array of one object
 * per kernel (spec 9, docs/language.md section 8) */
static void emit_metadata(Ctx *c) {
  bool array = !c->opt->kernel;
  if (array) buf_puts(&c->out, "[");
  bool first = true;
  for (int i = 0; i < c->checked->ndefs && !c->pipe; i++) {
    if (!c->sources[i]) continue;
    if (!first) buf_puts(&c->out, ",\n ");
    first = false;
    codegen_metadata(c->arena, c->kernels[i], c->sources[i], &c->out);
  }
  for (int i = 0; i < c->checked->ndefs && c->pipe; i++) {
    if (!c->pipe_descs[i]) continue;
    if (!first) buf_puts(&c->out, ",\n ");
    first = false;
    codegen_pipeline_metadata(c->arena, c->pipe_descs[i], generated_name(c), all_sources(c), &c->out);
  }
  if (array) buf_puts(&c->out, "]");
  buf_putc(&c->out, '\n');
}

/* one C header for every selected kernel of the file (spec section 9) */
static void emit_header(Ctx *c) {
  int n = 0;
  const ImpKernel **kernels = NEWARRAY(c->arena, const ImpKernel *, c->checked->ndefs);
  const char **sources = NEWARRAY(c->arena, const char *, c->checked->ndefs);
  for (int i = 0; i < c->checked->ndefs; i++) {
    if (!c->sources[i]) continue;
    kernels[n] = c->kernels[i];
    sources[n++] = c->sources[i];
  }
  CodegenOptions copt = {0};
  for (int d = 0; d < 3; d++) {
    copt.local_size[d] = c->opt->local_size[d];
    copt.global_size[d] = c->opt->global_size[d];
  }
  copt.stamp = c->opt->stamp;
  copt.tuned = c->tuned;
  int npipes = 0;
  const PipeDesc **pipes = NEWARRAY(c->arena, const PipeDesc *, c->checked->ndefs);
  for (int i = 0; i < c->checked->ndefs; i++)
    if (c->pipe_descs[i]) pipes[npipes++] = c->pipe_descs[i];
  codegen_header_pipelines(c->arena, c->backend, generated_name(c), n, kernels, sources, npipes, pipes, &copt, &c->out);
}

/* the search space of each selected kernel (app/space.c): as the
 * metadata, one object with -k, else an array of one object per kernel
 * (also with -k PIPELINE: its kernels') */
static void emit_space(Ctx *c) {
  bool array = !c->opt->kernel || c->pipe;
  bool first = true;
  if (array) buf_puts(&c->out, "[");
  for (int i = 0; i < c->checked->ndefs; i++) {
    if (!c->sources[i]) continue;
    if (!first) buf_puts(&c->out, ",\n ");
    first = false;
    space_emit(c->arena, c->kernels[i], &c->out);
  }
  if (array) buf_puts(&c->out, "]\n");
}

/* one output of DPIA_TRANSLATE into c->out */
static void emit_kind(Ctx *c, DpiaEmit kind) {
  switch (kind) {
  case DPIA_EMIT_INTERMEDIATE: emit_stage(c, c->intermediate); break;
  case DPIA_EMIT_IMPERATIVE: emit_stage(c, c->hoisted); break;
  case DPIA_EMIT_OPENCL: emit_sources(c); break;
  case DPIA_EMIT_JSON: emit_metadata(c); break;
  case DPIA_EMIT_HEADER: emit_header(c); break;
  case DPIA_EMIT_SPACE: emit_space(c); break;
  }
}

typedef bool (*Pass)(Ctx *);

/* Are the errors all vector widths that are not constants (E0310), which
 * values of tune parameters may give?  Only then does dpia check try them
 * (check_split runs a check per value: a typo is reported at once). */
static bool only_width_errors(const Diag *d) {
  for (const Diagnostic *e = d->first; e; e = e->next)
    if (e->code != ERR_BAD_VECTOR_WIDTH) return false;
  return d->first != NULL;
}

static int run_passes(Ctx *c) {
  if (!c->target) { /* the target is chosen once, here (backend.h) */
    diag_error(&c->diag, ERR_UNKNOWN_TARGET, (Span){0}, "unknown target '%s'; dpia generates code for: %s",
               c->opt->target, backend_names(c->arena));
    return DPIA_EUSAGE;
  }
  static const Pass check_passes[] = {pass_parse, pass_tune_values, pass_check, pass_strategy};
  for (size_t i = 0; i < DPIA_COUNTOF(check_passes); i++) {
    if (check_passes[i](c)) continue;
    /* --emit=space of a kernel whose tune parameter must be a constant
     * (a vector width): the spaces of its values, merged; dpia check of
     * it: each value checked (app/space.c) */
    if (i > 0 && !c->status &&
        (space_split(c->arena, c->prog, c->opt, &c->out) ||
         (only_width_errors(&c->diag) && check_split(c->arena, c->prog, c->opt, &c->out)))) {
      int scale = c->diag.depth_scale;
      diag_init(&c->diag, c->arena);
      c->diag.depth_scale = scale;
      return DPIA_OK;
    }
    return c->status ? c->status : DPIA_EUSER;
  }
  if (!pass_select(c)) return DPIA_EUSAGE;
  if (c->opt->action == DPIA_REWRITE) return pass_rewrite(c);
  if (c->opt->action == DPIA_EXPLORE) return pass_explore(c);
  if (c->opt->action == DPIA_TUNE) return pass_tune(c);
  /* check translates and generates code too, without printing either: a
   * program check accepts must translate, so the rules only translation
   * and code generation can decide (a work-group size the program leaves
   * open, pass_codegen) reject it at check, with the same message */
  if (!pass_translate(c)) return c->status ? c->status : DPIA_EUSER;
  bool verify = c->opt->action == DPIA_VERIFY || c->opt->verify;
  if (verify && !pass_recheck(c)) return c->status;
  if (!pass_codegen(c) || !pass_pipelines(c)) return c->status ? c->status : DPIA_EUSER;
  if ((verify || c->opt->action == DPIA_CHECK) && !pass_foreign(c)) return c->status ? c->status : DPIA_EUSER;
  if (c->opt->action == DPIA_CHECK) {
    if (c->opt->verbose) emit_types(c);
    return DPIA_OK;
  }
  if (verify && !pass_clang(c)) return c->status;
  if (verify && !pass_semantic(c)) return c->status;
  if (c->opt->action == DPIA_VERIFY) return DPIA_OK;
  if (c->opt->action == DPIA_RUN) return pass_run(c);
  emit_kind(c, c->opt->emit);
  /* the other outputs asked for, each into its own buffer */
  for (int k = 0; k < NEMIT; k++) {
    if (k == (int)c->opt->emit || !(c->opt->emit_also & DPIA_EMIT_BIT(k))) continue;
    Buf primary = c->out;
    buf_init(&c->out, c->arena);
    emit_kind(c, (DpiaEmit)k);
    c->also[k] = NEW(c->arena, Buf);
    *c->also[k] = c->out;
    c->out = primary;
  }
  return DPIA_OK;
}

static void flatten_diagnostics(DpiaResult *r, const Diag *diag);
static const DpiaDiagnostic oom_diagnostic = {0, NULL, 0, 0, 0, 0, "out of memory", "E0903"};
#define LIMIT_MESSAGE                                                                                            \
  "program too large: translating it needs more memory than the limit (DpiaOptions.memory_limit, by default "   \
  "1 GiB)"
static const DpiaDiagnostic limit_diagnostic = {0, NULL, 0, 0, 0, 0, LIMIT_MESSAGE, "E0902"};

/* One translation on the current stack, with the nesting limits scaled by
 * depth_scale (Diag.depth_scale). */
static int process(const Target *target, const char *name, const char *text, size_t len, const DpiaOptions *opt,
                   const RunHooks *hooks, int depth_scale, DpiaResult **result) {
  DpiaMem boot;
  dpia_mem_default(&boot);
  if (opt->alloc) {
    boot.alloc = opt->alloc;
    boot.release = opt->release;
    boot.user = opt->alloc_user;
  }
  *result = NULL;
  DpiaResult *r = boot.alloc(boot.user, sizeof *r);
  if (!r) return DPIA_EUSER; /* dpia_result_diagnostics(NULL) says why */
  memset(r, 0, sizeof *r);
  r->mem = boot;
  jmp_buf oom;
  r->mem.on_oom = &oom;
  arena_init(&r->arena, &r->mem);
  if (opt->arena_block_size) r->arena.block_size = opt->arena_block_size;
  r->arena.limit = opt->memory_limit ? opt->memory_limit : DPIA_DEFAULT_MEMORY_LIMIT;
  *result = r;
  r->output = "";
  r->diagnostics = "";

  Ctx *volatile c = NULL;
  if (setjmp(oom)) {
    /* out of memory (or over the memory limit): drop everything but the
     * result itself */
    bool over_limit = r->arena.over_limit;
    arena_free(&r->arena);
    r->status = DPIA_EUSER;
    r->nerrors = 1;
    r->output = "";
    r->output_len = 0;
    if (over_limit) {
      r->diagnostics_json =
          "[{\"level\": \"error\", \"code\": \"E0902\", \"message\": \"" LIMIT_MESSAGE "\", \"notes\": []}]\n";
      r->diagnostics = opt->diagnostics_json ? r->diagnostics_json : "dpia: error[E0902]: " LIMIT_MESSAGE "\n";
      r->diags = &limit_diagnostic;
    } else {
      r->diagnostics_json =
          "[{\"level\": \"error\", \"code\": \"E0903\", \"message\": \"out of memory\", \"notes\": []}]\n";
      r->diagnostics = opt->diagnostics_json ? r->diagnostics_json : "dpia: error[E0903]: out of memory\n";
      r->diags = &oom_diagnostic;
    }
    r->ndiags = 1;
    for (int k = 0; k < NEMIT; k++) r->emitted[k] = NULL;
    return r->status;
  }
  c = NEW(&r->arena, Ctx);
  c->opt = opt;
  c->hooks = hooks;
  c->target = target;
  c->backend = target ? backend_of(target->id) : NULL;
  c->arena = &r->arena;
  intern_init(&c->in, c->arena);
  diag_init(&c->diag, c->arena);
  c->diag.depth_scale = depth_scale;
  type_ctx_init(&c->tc, c->arena);
  c->tc.no_shortcuts = opt->debug_no_shortcuts != 0;
  /* NUL-terminated: tune and explore run points on src.text as a C string (app/explore.c, search_run) */
  source_init_lazy(&c->src, c->arena, arena_strndup(c->arena, name, strlen(name)), arena_strndup(c->arena, text, len), len);
  buf_init(&c->out, c->arena);

  r->status = run_passes(c);
  r->depth_limited = c->diag.limit_hit;
  r->nerrors = c->diag.nerrors - c->diag.nrepeats;
  r->ran = c->ran;
  r->min_ms = c->min_ms;
  r->median_ms = c->median_ms;
  r->launches = c->launches;
  r->not_checkable = c->not_checkable;
  r->output = c->out.data;
  r->output_len = c->out.len;
  r->explored = c->explored ? c->explored : "";
  r->tuned = c->tuned;
  if (r->status == DPIA_OK && opt->action == DPIA_TRANSLATE) {
    r->emitted[opt->emit] = r->output;
    r->emitted_len[opt->emit] = r->output_len;
    for (int k = 0; k < NEMIT; k++)
      if (c->also[k]) {
        r->emitted[k] = c->also[k]->data;
        r->emitted_len[k] = c->also[k]->len;
      }
  }
  Buf json;
  buf_init(&json, c->arena);
  if (c->diag.first) diag_render_json(&c->diag, &json);
  else buf_puts(&json, "[]\n");
  r->diagnostics_json = json.data;
  if (opt->diagnostics_json) {
    r->diagnostics = json.data;
  } else if (c->diag.first) {
    Buf d;
    buf_init(&d, c->arena);
    diag_render_text(&c->diag, &d);
    r->diagnostics = d.data;
  }
  flatten_diagnostics(r, &c->diag);
  return r->status;
}

/* Deep programs (a chain of thousands of stages).  Every pass recurses on
 * the tree, and the caller's stack may be no more than the usual 8 MiB, for
 * which the base nesting limits are made.  A program that hits one is
 * translated again from the start on a thread of dpia's own, whose stack is
 * DPIA_DEEP_SCALE times as large, with limits that many times higher.  Only
 * such programs pay for the thread (and for the first attempt); the stack
 * is reserved address space, touched only as deep as the program goes. */
enum { DPIA_DEEP_SCALE = 32 };
#define DPIA_BASE_STACK ((size_t)8 << 20)

typedef struct DeepCall {
  const Target *target;
  const char *name, *text;
  size_t len;
  const DpiaOptions *opt;
  const RunHooks *hooks;
  DpiaResult *result;
  int status;
} DeepCall;

static void *deep_main(void *arg) {
  DeepCall *d = arg;
  d->status = process(d->target, d->name, d->text, d->len, d->opt, d->hooks, DPIA_DEEP_SCALE, &d->result);
  return NULL;
}

int driver_process(const Target *target, const char *name, const char *text, size_t len, const DpiaOptions *opt,
                   DpiaResult **result) {
  return driver_process_hooked(target, name, text, len, opt, NULL, result);
}

int driver_process_hooked(const Target *target, const char *name, const char *text, size_t len, const DpiaOptions *opt,
                          const RunHooks *hooks, DpiaResult **result) {
  int status = process(target, name, text, len, opt, hooks, 1, result);
  if (!*result || !(*result)->depth_limited) return status;
  dpia_result_free(*result); /* its memory is needed for the second try */
  DeepCall d = {target, name, text, len, opt, hooks, NULL, 0};
  pthread_attr_t attr;
  pthread_t thread;
  bool started = false;
  if (pthread_attr_init(&attr) == 0) {
    started = pthread_attr_setstacksize(&attr, DPIA_DEEP_SCALE * DPIA_BASE_STACK) == 0 &&
              pthread_create(&thread, &attr, deep_main, &d) == 0;
    pthread_attr_destroy(&attr);
  }
  /* without the thread, the limit's error again */
  if (!started) return process(target, name, text, len, opt, hooks, 1, result);
  pthread_join(thread, NULL);
  *result = d.result;
  return d.status;
}

/* The one place the library picks its target (NULL: opt->target names
 * none, which the translation reports). */
int dpia_process(const char *name, const char *text, size_t len, const DpiaOptions *opt, DpiaResult **result) {
  const Target *target = opt->target ? target_named(opt->target) : target_default();
  return driver_process(target, name, text, len, opt, result);
}

/* the errors and their notes as DpiaDiagnostics */
static DpiaDiagnostic diagnostic_of(const Diagnostic *g) {
  DpiaDiagnostic d = {
      g->level == DIAG_NOTE, NULL, 0, 0, 0, 0, g->message, g->level == DIAG_NOTE ? NULL : diag_code_name(g->code)};
  if (g->span.src) {
    uint32_t line, col, eline, ecol;
    source_position(g->span.src, g->span.begin, &line, &col);
    source_position(g->span.src, g->span.end, &eline, &ecol);
    d.file = g->span.src->name;
    d.line = (int)line;
    d.column = (int)col;
    d.end_line = (int)eline;
    d.end_column = (int)ecol;
  }
  return d;
}

static void flatten_diagnostics(DpiaResult *r, const Diag *diag) {
  int n = 0;
  for (const Diagnostic *g = diag->first; g; g = g->next) {
    n++;
    for (const Diagnostic *note = g->notes; note; note = note->next) n++;
  }
  DpiaDiagnostic *all = NEWARRAY(&r->arena, DpiaDiagnostic, n > 0 ? n : 1);
  int i = 0;
  for (const Diagnostic *g = diag->first; g; g = g->next) {
    all[i] = diagnostic_of(g);
    /* a remark (diag_remark) is a note with a code of its own */
    if (g->level == DIAG_NOTE) all[i].code = diag_code_name(g->code);
    i++;
    for (const Diagnostic *note = g->notes; note; note = note->next) all[i++] = diagnostic_of(note);
  }
  r->ndiags = n;
  r->diags = all;
}

int dpia_result_status(const DpiaResult *r) { return r ? r->status : DPIA_EUSER; }

const char *dpia_result_output(const DpiaResult *r, size_t *len) {
  if (len) *len = r ? r->output_len : 0;
  return r ? r->output : "";
}

/* a NULL result means even the result could not be allocated */
const char *dpia_result_diagnostics(const DpiaResult *r) {
  return r ? r->diagnostics : "dpia: error[E0903]: out of memory\n";
}

int dpia_result_error_count(const DpiaResult *r) { return r ? r->nerrors : 1; }

const char *dpia_result_emitted(const DpiaResult *r, DpiaEmit kind, size_t *len) {
  bool ok = r && (int)kind >= 0 && (int)kind < NEMIT && r->emitted[kind];
  if (len) *len = ok ? r->emitted_len[kind] : 0;
  return ok ? r->emitted[kind] : NULL;
}

const char *dpia_result_diagnostics_json(const DpiaResult *r) {
  return r ? r->diagnostics_json
           : "[{\"level\": \"error\", \"code\": \"E0903\", \"message\": \"out of memory\", \"notes\": []}]\n";
}

/* a NULL result is the out of memory error */
int dpia_result_diagnostic_count(const DpiaResult *r) { return r ? r->ndiags : 1; }

const DpiaDiagnostic *dpia_result_diagnostic(const DpiaResult *r, int i) {
  if (!r) return i == 0 ? &oom_diagnostic : NULL;
  return i >= 0 && i < r->ndiags ? &r->diags[i] : NULL;
}

const char *search_not_checkable(const DpiaResult *r) { return r ? r->not_checkable : NULL; }

int search_launches(const DpiaResult *r) { return r && r->ran ? r->launches : 0; }

int dpia_result_run_time(const DpiaResult *r, double *min_ms, double *median_ms) {
  bool ran = r && r->ran;
  if (min_ms) *min_ms = ran ? r->min_ms : 0;
  if (median_ms) *median_ms = ran ? r->median_ms : 0;
  return ran;
}

const char *dpia_emit_name(DpiaEmit kind) {
  return (int)kind >= 0 && (int)kind < NEMIT ? emit_names[kind] : NULL;
}

int dpia_emit_from_name(const char *name) {
  for (int k = 0; k < NEMIT; k++)
    if (strcmp(name, emit_names[k]) == 0) return k;
  return -1;
}

const char *dpia_result_explore_best(const DpiaResult *r, size_t *len) {
  const char *best = r && r->explored ? r->explored : "";
  if (len) *len = strlen(best);
  return best;
}

const char *dpia_result_tuned(const DpiaResult *r) { return r ? r->tuned : NULL; }

void dpia_result_free(DpiaResult *r) {
  if (!r) return;
  arena_free(&r->arena);
  r->mem.release(r->mem.user, r);
}

/* the library's verifiers are the default target's: the driver verifies
 * with that target (dpia_process) */
DpiaVerifier *dpia_verifier_new(void) { return target_default()->verifier_new(); }

void dpia_verifier_free(DpiaVerifier *v) { target_default()->verifier_free(v); }

DpiaVerifier *dpia_verifier_new_helper(const char *path) { return target_default()->verifier_new_helper(path); }

void dpia_verifier_free_at_exit(DpiaVerifier *v) { target_default()->verifier_free_at_exit(v); }

DpiaPreload *dpia_preload_start(void) { return target_default()->preload_start(); }

void dpia_preload_finish(DpiaPreload *p) { target_default()->preload_finish(p); }
