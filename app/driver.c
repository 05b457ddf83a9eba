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
#include "space.h"

/* the names of the emit kinds (DpiaEmit order) */
static const char *const emit_names[] = {"opencl", "intermediate", "imperative", "json", "header", "space"};
enum { NEMIT = (int)DPIA_COUNTOF(emit_names) };
_Static_assert(NEMIT == DPIA_EMIT_SPACE + 1, "a name for every DpiaEmit");

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
};

typedef struct Ctx {
  const DpiaOptions *opt;
  const Target *target; /* verifies and runs the kernels (target.h) */
  Arena *arena;
  Interner in;
  Diag diag;
  TypeCtx tc;
  Source src;
  Program *prog;
  CheckedProgram *checked;
  Phrase **normal; /* per declaration: the normalized kernel body */
  /* per declaration, for kernels being translated: the stages' results */
  DefInfo **intermediate, **imperative, **hoisted;
  ImpKernel **kernels;  /* per declaration: the generated kernel */
  ImpKernel **natural;  /* and as kernel_from_def made it, before the user's launch */
  const char **sources; /* its OpenCL C */
  KernelFacts *facts;   /* and what the kernel IR says of it (codegen/kernel.h) */
  /* -k names a pipeline (dpia/pipeline.h): its launches; the kernels it
   * launches are the ones worked on */
  const Pipeline *pipe;
  PipeDesc **pipe_descs; /* per declaration: a described pipeline */
  Buf out;
  Buf *also[NEMIT]; /* the outputs of opt->emit_also */
  bool ran;         /* pass_run launched the kernel, in these times */
  double min_ms, median_ms;
  int status; /* a verification failure (3) is not a user error (1) */
} Ctx;

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

static void print_domain(Buf *b, const Param *pa) {
  if (pa->tune_range) {
    emit(b, "tune [%llu .. %llu]", (unsigned long long)pa->tune_lo, (unsigned long long)pa->tune_hi);
    return;
  }
  buf_puts(b, "tune [");
  for (int i = 0; i < pa->ntune_values; i++) emit(b, "%s%llu", i ? ", " : "", (unsigned long long)pa->tune_values[i]);
  buf_putc(b, ']');
}

static bool mentions(const char *expr, const char *name);
static bool selected(Ctx *c, const DefInfo *def);

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
      if (!d->is_kernel || (o->kernel && strcmp(o->kernel, d->name) != 0)) continue;
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
  Buf why;
  buf_init(&why, c->arena);
  for (int i = 0; i < symbolic->ndefs; i++) {
    const DefInfo *def = symbolic->defs[i];
    if (!selected(c, def)) continue;
    for (int j = 0; j < def->nprecond; j++) {
      const char *pre = def->preconds[j];
      int64_t v;
      buf_clear(&why);
      /* one that mentions a nat parameter is decided at launch */
      if (!precond_eval(pre, &nats, &v, &why) || v) continue;
      Buf m;
      buf_init(&m, c->arena);
      for (int s = 0; s < o->nsets; s++)
        if (mentions(pre, o->set_names[s])) emit(&m, "%s%s=%lld", m.len ? " " : "--set ", o->set_names[s], o->set_values[s]);
      Span at = def->precond_spans && def->precond_spans[j].src ? def->precond_spans[j] : def->decl->name_span;
      diag_error(&c->diag, ERR_VIOLATED_PRECONDITION, at,
                 "%s violates the precondition %s of kernel '%s', which this requires", m.data, pre, def->name);
    }
  }
  return c->diag.nerrors == 0;
}

static bool pass_check(Ctx *c) {
  if (!c->opt->nsets) {
    c->checked = check_program(c->arena, &c->in, &c->diag, &c->tc, c->prog);
    return c->diag.nerrors == 0;
  }
  /* The symbolic check gives the preconditions that check_settings
   * evaluates.  Its errors are not reported: a program may need the value
   * (asVector V with V a tune parameter), and an error that does not
   * depend on it is found again by the specialised check below. */
  Diag symbolic;
  diag_init(&symbolic, c->arena);
  symbolic.depth_scale = c->diag.depth_scale;
  c->checked = check_program(c->arena, &c->in, &symbolic, &c->tc, c->prog);
  if (!check_settings(c, symbolic.nerrors ? NULL : c->checked)) return false;
  /* Specialisation: the kernel is checked again with each set parameter
   * bound to its constant (check_program_set), which is exactly checking
   * the program with the literal written in its place: every size, local
   * array and loop bound that mentions it becomes the constant, and what
   * the symbolic check left as a precondition on it is decided. */
  TuneSettings set = {c->opt->nsets, c->opt->set_names, c->opt->set_values, c->opt->kernel};
  c->checked = check_program_set(c->arena, &c->in, &c->diag, &c->tc, c->prog, &set);
  return c->diag.nerrors == 0;
}

/* inline and normalise each kernel, then apply the strategy rules */
static bool pass_strategy(Ctx *c) {
  c->normal = NEWARRAY(c->arena, Phrase *, c->checked->ndefs);
  for (int i = 0; i < c->checked->ndefs; i++) {
    DefInfo *def = c->checked->defs[i];
    if (!def->is_kernel || !def->ok) continue;
    c->normal[i] = normalize_def(c->arena, &c->tc, &c->diag, def);
    if (c->normal[i]) def->ok = strategy_check_kernel(c->arena, &c->diag, def, c->normal[i]);
    else def->ok = false;
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
    for (int j = 0; j < def->nprecond; j++) emit(&c->out, "  requires %s\n", def->preconds[j]);
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
static const char *kernel_names(Ctx *c) {
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

/* Debug builds (meson.build sets DPIA_CHECK_INVARIANTS) check each
 * stage's output before the next stage reads it, as QBE's ssacheck does:
 * a broken invariant is a bug of the stage that made it, reported there
 * (exit 70) instead of as a wrong kernel further on. */
static bool invariants_hold(Ctx *c, const DefInfo *kernel, const DefInfo *out, PhraseStage stage) {
  if (!DPIA_CHECK_INVARIANTS || !out) return true;
  const char *why = phrase_invariant_violation(c->arena, out, stage);
  if (!why) return true;
  static const char *const stage_name[] = {"stage I", "stage II", "hoisting"};
  diag_error(&c->diag, ERR_INTERNAL, kernel->decl->name_span, "internal: %s broke an invariant of kernel '%s': %s",
             stage_name[stage], kernel->name, why);
  c->status = DPIA_EINTERNAL;
  return false;
}

/* Stages I and II and hoisting, for each selected kernel. */
static bool pass_translate(Ctx *c) {
  int n = c->checked->ndefs;
  c->intermediate = NEWARRAY(c->arena, DefInfo *, n);
  c->imperative = NEWARRAY(c->arena, DefInfo *, n);
  c->hoisted = NEWARRAY(c->arena, DefInfo *, n);
  for (int i = 0; i < n; i++) {
    DefInfo *def = c->checked->defs[i];
    if (!selected(c, def)) continue;
    c->intermediate[i] = translate_stage1(c->arena, &c->tc, &c->in, def, c->normal[i]);
    if (!invariants_hold(c, def, c->intermediate[i], PHRASE_INTERMEDIATE)) return false;
    c->imperative[i] = translate_stage2(c->arena, &c->tc, &c->in, &c->diag, c->intermediate[i]);
    if (!c->imperative[i] || !invariants_hold(c, def, c->imperative[i], PHRASE_IMPERATIVE)) return false;
    c->hoisted[i] = translate_hoist(c->arena, &c->tc, &c->in, &c->diag, c->imperative[i]);
    if (!c->hoisted[i] || !invariants_hold(c, def, c->hoisted[i], PHRASE_HOISTED)) return false;
  }
  return true;
}

/* Theorem 4.1 says the translation preserves typing; check it on every
 * translation: print the imperative program (before hoisting, which is an
 * OpenCL-specific step outside the theorem), parse it and check it again
 * under the same SCIR rules.  Failing is a bug of dpia, reported as a
 * verification failure (exit 3). */
static bool pass_recheck(Ctx *c) {
  for (int i = 0; i < c->checked->ndefs; i++) {
    if (!c->imperative || !c->imperative[i]) continue;
    const DefInfo *imp = c->imperative[i];
    Buf text;
    buf_init(&text, c->arena);
    foreign_decls_print(&text, &c->imperative[i], 1);
    def_print(&text, imp, imp->name);
    Source *src = NEW(c->arena, Source);
    source_init(src, c->arena, arena_printf(c->arena, "<imperative %s>", imp->name), text.data, text.len);
    Diag d;
    diag_init(&d, c->arena);
    d.depth_scale = c->diag.depth_scale;
    int max_nesting = diag_depth_limit(&d, DPIA_MAX_NESTING * 4);
    Program *p = parse_program_deep(c->arena, &c->in, &d, src, max_nesting);
    if (!d.nerrors) check_program(c->arena, &c->in, &d, &c->tc, p);
    if (d.nerrors && d.limit_hit) {
      /* a limit of the re-check, not a fault of the translation */
      c->diag.limit_hit = true;
      diag_error(&c->diag, ERR_TOO_DEEP, imp->decl->name_span,
                 "kernel '%s' is too deep to verify: its imperative program nests more than %d levels "
                 "(every materialised stage adds a few); split it into several kernels",
                 imp->name, max_nesting);
      c->status = DPIA_EUSER;
      return false;
    }
    if (d.nerrors) {
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
    c->kernels[i] = kernel_from_def(c->arena, &c->tc, &c->diag, c->hoisted[i], generated_name(c));
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
    if (!codegen_opencl(c->arena, &c->tc, c->kernels[i], &copt, &src, &c->facts[i])) return false;
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
  DpiaVerifier *v = c->opt->verifier;
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
  DpiaVerifier *v = c->opt->verifier;
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
    if (!c->facts[i].kir) continue;
    if (st != SEM_OK) {
      if (say) emit(&c->out, "kernel %s: race check not done: the semantic check was not done\n", def->name);
      continue;
    }
    RaceKernel rk = {.tc = &c->tc,
                     .k = c->natural[i],
                     .user = &user,
                     .kir = c->facts[i].kir,
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

static void emit_stage(Ctx *c, DefInfo **stage) {
  foreign_decls_print(&c->out, stage, c->checked->ndefs);
  bool first = true;
  for (int i = 0; i < c->checked->ndefs; i++) {
    if (!stage[i]) continue;
    if (!first) buf_putc(&c->out, '\n');
    first = false;
    def_print(&c->out, stage[i], stage[i]->name);
  }
}

/* Does nat parameter name occur in the C expression expr (as a whole word)? */
static bool mentions(const char *expr, const char *name) { return expr_mentions(expr, name); }

/* every precondition of k that mentions name holds at these values */
static bool all_hold(const ImpKernel *k, const NatValues *nats, const char *name, Buf *scratch) {
  for (int i = 0; i < k->nprecond; i++) {
    int64_t v;
    if (!mentions(k->preconds[i], name)) continue;
    if (!precond_eval(k->preconds[i], nats, &v, scratch) || !v) return false;
  }
  return true;
}

enum { NEAREST_STEPS = 1 << 20 }; /* values tried each way */

/* The values of nat j nearest to its own (below and above, the others
 * fixed) at which every precondition on it holds; -1 where none is near. */
static void nearest_valid(const ImpKernel *k, const NatValues *nats, int j, int64_t *below, int64_t *above,
                          Buf *scratch) {
  int64_t *values = NEWARRAY(scratch->arena, int64_t, nats->n);
  for (int i = 0; i < nats->n; i++) values[i] = nats->values[i];
  NatValues try = {nats->n, nats->names, values};
  int64_t v = nats->values[j];
  *below = *above = -1;
  for (int64_t step = 1; step <= NEAREST_STEPS && v - step >= 1; step++) {
    values[j] = v - step;
    if (all_hold(k, &try, nats->names[j], scratch)) {
      *below = v - step;
      break;
    }
  }
  for (int64_t step = 1; step <= NEAREST_STEPS && v <= INT32_MAX - step; step++) {
    values[j] = v + step;
    if (all_hold(k, &try, nats->names[j], scratch)) {
      *above = v + step;
      break;
    }
  }
}

/* dpia run: the preconditions at the sizes given.  Each failing one is an
 * error at the construct that requires it (a split, ...; the kernel's name
 * for a launch size's), with the values and the nearest valid sizes:
 *   N = 1000 does not satisfy N % 64 == 0; nearest valid: 960 or 1024 */
static bool check_run_preconditions(Ctx *c, const DefInfo *def, const ImpKernel *k, const NatValues *nats) {
  bool ok = true;
  Buf why, scratch;
  buf_init(&why, c->arena);
  buf_init(&scratch, c->arena);
  for (int i = 0; i < k->nprecond; i++) {
    const char *pre = k->preconds[i];
    Span at = k->precond_spans && k->precond_spans[i].src ? k->precond_spans[i] : def->decl->name_span;
    int64_t v;
    buf_clear(&why);
    if (!precond_eval(pre, nats, &v, &why)) {
      diag_error(&c->diag, ERR_VIOLATED_PRECONDITION, at, "cannot evaluate the precondition %s: %s", pre, why.data);
      ok = false;
      continue;
    }
    if (v) continue;
    ok = false;
    Buf m;
    buf_init(&m, c->arena);
    int nvars = 0;
    for (int j = 0; j < nats->n; j++) {
      if (!mentions(pre, nats->names[j])) continue;
      emit(&m, "%s%s = %lld", nvars++ ? ", " : "", nats->names[j], (long long)nats->values[j]);
    }
    emit(&m, " %s %s", nvars > 1 ? "do not satisfy" : "does not satisfy", pre);
    if (!k->precond_spans || !k->precond_spans[i].src) emit(&m, " (required by the launch size)");
    bool first = true;
    for (int j = 0; j < nats->n; j++) {
      if (!mentions(pre, nats->names[j])) continue;
      int64_t lo, hi;
      buf_clear(&scratch);
      nearest_valid(k, nats, j, &lo, &hi, &scratch);
      if (lo < 0 && hi < 0) continue;
      emit(&m, "%s", first ? "; nearest valid: " : "; or ");
      first = false;
      const char *name = nvars > 1 ? arena_printf(c->arena, "%s = ", nats->names[j]) : "";
      if (lo >= 0) emit(&m, "%s%lld", name, (long long)lo);
      if (lo >= 0 && hi >= 0) buf_puts(&m, " or ");
      if (hi >= 0) emit(&m, "%s%lld", name, (long long)hi);
    }
    diag_error(&c->diag, ERR_VIOLATED_PRECONDITION, at, "%s", m.data);
  }
  return ok;
}

/* dpia run (spec section 9, section 11): run one kernel on an OpenCL device
 * with random inputs, time it, and with --check compare its output with
 * the reference interpreter of the functional program. */
/* --json (DpiaOptions.run_json): a number, or null where JSON has none
 * (an infinite relative error: a NaN in the output) */
static void json_number(Buf *out, double v) {
  if (isfinite(v)) emit(out, "%.9g", v);
  else buf_puts(out, "null");
}

/* --json: ", "sizes": {"N": 1024}" */
static void run_json_sizes(Buf *out, const DpiaOptions *o) {
  buf_puts(out, ", \"sizes\": {");
  for (int i = 0; i < o->nsizes; i++) {
    buf_puts(out, i ? ", " : "");
    emit_json_string(out, o->size_names[i]);
    emit(out, ": %lld", (long long)o->size_values[i]);
  }
  buf_putc(out, '}');
}

/* --json: a run that the sizes' preconditions stop (exit 1) is reported
 * too, on stdout as every report, so that a script reading it learns why
 * there is no time: the kernel, the sizes, "status": "precondition_failed"
 * and the errors as --diagnostics=json gives them (each failing
 * precondition at the construct requiring it, the nearest valid sizes) */
static int run_json_refused(Ctx *c, const char *what, const char *name) {
  if (!c->opt->run_json) return DPIA_EPRECONDITION;
  emit(&c->out, "{\"%s\": ", what);
  emit_json_string(&c->out, name);
  run_json_sizes(&c->out, c->opt);
  buf_puts(&c->out, ", \"status\": \"precondition_failed\", \"diagnostics\": ");
  Buf errors;
  buf_init(&errors, c->arena);
  diag_render_json(&c->diag, &errors);
  while (errors.len && errors.data[errors.len - 1] == '\n') errors.len--; /* one line, as every report */
  buf_put(&c->out, errors.data, errors.len);
  buf_puts(&c->out, "}\n");
  return DPIA_EPRECONDITION;
}

/* --json: the report up to the check, an object left open */
static void run_json_head(Buf *out, const DpiaOptions *o, const char *what, const char *kernel, const Runtime *rt,
                          const RtResult *res, double gbps) {
  emit(out, "{\"%s\": ", what); /* "kernel", or "pipeline" (its NDRange: the last launch's) */
  emit_json_string(out, kernel);
  buf_puts(out, ", \"device\": ");
  emit_json_string(out, rt->info.device_name);
  buf_puts(out, ", \"platform\": ");
  emit_json_string(out, rt->info.platform_name);
  run_json_sizes(out, o);
  buf_puts(out, ", \"global_size\": [");
  for (int d = 0; d < res->ndims; d++) emit(out, "%s%zu", d ? ", " : "", res->global_size[d]);
  buf_puts(out, "], \"local_size\": ");
  if (res->has_local) {
    buf_putc(out, '[');
    for (int d = 0; d < res->ndims; d++) emit(out, "%s%zu", d ? ", " : "", res->local_size[d]);
    buf_putc(out, ']');
  } else {
    buf_puts(out, "null");
  }
  emit(out, ", \"runs\": %d, \"min_ms\": ", res->repeat);
  json_number(out, res->min_ms);
  buf_puts(out, ", \"median_ms\": ");
  json_number(out, res->median_ms);
  buf_puts(out, ", \"gb_per_s\": ");
  json_number(out, gbps);
}

/* dpia run: the --size values, one for each nat parameter of def (a
 * kernel or a pipeline) and no other; false after a usage error */
static bool run_sizes(Ctx *c, const DefInfo *def, NatValues *nats) {
  const DpiaOptions *o = c->opt;
  const char *what = def->is_pipeline ? "pipeline" : "kernel";
  int64_t *values = NEWARRAY(c->arena, int64_t, o->nsizes + 1);
  for (int i = 0; i < o->nsizes; i++) values[i] = o->size_values[i];
  *nats = (NatValues){o->nsizes, o->size_names, values};
  for (int i = 0; i < def->nsize_params; i++) {
    bool given = false;
    for (int j = 0; j < o->nsizes; j++) given |= strcmp(o->size_names[j], def->size_params[i]) == 0;
    if (!given) {
      diag_error(&c->diag, ERR_SIZE_MISSING, (Span){0}, "%s '%s' needs a value for its size %s: add --size %s=VALUE",
                 what, def->name, def->size_params[i], def->size_params[i]);
      return false;
    }
  }
  for (int j = 0; j < o->nsizes; j++) {
    bool known = false;
    for (int i = 0; i < def->nsize_params; i++) known |= strcmp(o->size_names[j], def->size_params[i]) == 0;
    if (!known) {
      diag_error(&c->diag, ERR_SIZE_UNKNOWN, (Span){0}, "%s '%s' has no size named %s", what, def->name,
                 o->size_names[j]);
      return false;
    }
  }
  return true;
}

/* dpia run --check: the result of the kernel or pipeline def (normalized
 * body) on these inputs against the reference interpreter (spec section 11) */
static int run_compare(Ctx *c, const DefInfo *def, const Phrase *body, const NatValues *nats, double **inputs,
                       size_t *counts, const RtResult *res) {
  const DpiaOptions *o = c->opt;
  Arena *a = c->arena;
  const char *what = def->is_pipeline ? "pipeline" : "kernel";
  Buf err;
  buf_init(&err, a);
  double *ref;
  size_t nref;
  Span overflow = {0};
  if (!interp_run_overflow(a, def, body, nats, (const double *const *)inputs, counts, &ref, &nref, &overflow, &err)) {
    if (strstr(err.data, FOREIGN_FAILURE)) { /* the program's C, not a fault of the interpreter */
      diag_error(&c->diag, ERR_FOREIGN_BODY, def->decl->name_span, "the reference interpreter %s",
                 strstr(err.data, FOREIGN_FAILURE));
      return DPIA_EUSER;
    }
    diag_error(&c->diag, ERR_INTERNAL, def->decl->name_span, "reference interpreter: %s", err.data);
    return DPIA_EINTERNAL;
  }
  const Lay *rl = interp_result_layout(a, def, nats, &err);
  if (!rl || nref != res->output_count) {
    diag_error(&c->diag, ERR_RESULT_DIFFERS, def->decl->name_span, "the %s produced %zu values, the reference %zu",
               what, res->output_count, nref);
    return DPIA_EVERIFY;
  }
  Comparison cmp;
  compare_values(res->output, ref, nref, interp_bound(body, rl), &cmp);
  Buf rep;
  buf_init(&rep, a);
  compare_report(&cmp, &rep);
  if (o->run_json) {
    emit(&c->out, ", \"check\": {\"seed\": %llu, \"ok\": %s, \"relative_error\": ", (unsigned long long)o->seed,
         cmp.ok && cmp.ref_nonfinite < 0 ? "true" : "false");
    json_number(&c->out, cmp.rel_error);
    buf_puts(&c->out, ", \"bound\": ");
    json_number(&c->out, cmp.bound);
    buf_puts(&c->out, ", \"report\": ");
    emit_json_string(&c->out, rep.data);
    buf_puts(&c->out, "}}\n");
  } else {
    emit(&c->out, "  check (seed %llu): %s\n", (unsigned long long)o->seed, rep.data);
  }
  if (cmp.ref_nonfinite >= 0) {
    diag_error(&c->diag, ERR_NOT_CHECKABLE, def->decl->name_span, "%s '%s' cannot be checked: %s", what, def->name,
               rep.data);
    return DPIA_EVERIFY;
  }
  if (!cmp.ok && overflow.src) {
    diag_error(&c->diag, ERR_NOT_CHECKABLE, overflow,
               "%s '%s' cannot be checked: %s; on these inputs this int "
               "operation leaves the 32-bit range, which OpenCL C leaves undefined (the reference computes the exact "
               "value)",
               what, def->name, rep.data);
    return DPIA_EVERIFY;
  }
  if (!cmp.ok) {
    diag_error(&c->diag, ERR_RESULT_DIFFERS, def->decl->name_span, "%s '%s' differs from the reference interpreter: %s",
               what, def->name, rep.data);
    return DPIA_EVERIFY;
  }
  return DPIA_OK;
}

static int pass_run_pipeline(Ctx *c);

/* dpia run: fresh random inputs for def's data parameters (--seed, --inputs) */
static bool run_inputs(Ctx *c, const DefInfo *def, const NatValues *nats, double ***inputs, size_t **counts) {
  const DpiaOptions *o = c->opt;
  Rng rng;
  rng_seed(&rng, o->seed);
  rng.inputs = o->inputs == DPIA_INPUTS_POSITIVE ? RNG_POSITIVE : o->inputs == DPIA_INPUTS_UNIT ? RNG_UNIT : RNG_SIGNED;
  Buf err;
  buf_init(&err, c->arena);
  if (interp_random_inputs(c->arena, def, nats, &rng, inputs, counts, &err)) return true;
  diag_error(&c->diag, ERR_SIZES_TOO_LARGE, def->decl->name_span, "%s", err.data);
  return false;
}

/* the report's time line, the same for a kernel and a pipeline (first
 * enqueue to last completion) */
static void run_time_line(Ctx *c, const RtResult *res, double gbps) {
  emit(&c->out, "\n  time: min %.3f ms, median %.3f ms over %d run%s; %.2f GB/s\n", res->min_ms, res->median_ms,
       res->repeat, res->repeat == 1 ? "" : "s", gbps);
}

/* after rt_run or rt_run_pipeline: on a failure its exit status (the
 * runtime closed); else DPIA_OK, the times recorded for the result */
static int run_finished(Ctx *c, Runtime *rt, RtStatus st, const RtResult *res, const Buf *err) {
  if (st == RT_DEVICE_LIMIT) {
    /* the device cannot run the kernel at all: exit 4, as for a device
     * whose memory is too small for the buffers (E0809) */
    rt_close(rt);
    diag_error(&c->diag, ERR_DEVICE_LIMIT, (Span){0}, "%s device %s: %s", c->target->title, rt->info.device_name,
               err->data);
    return DPIA_EOPENCL;
  }
  if (st != RT_OK) {
    rt_close(rt);
    diag_error(&c->diag, ERR_OPENCL_RUNTIME, (Span){0}, "%s: %s", c->target->title, err->data);
    return st == RT_BAD_ARGS ? DPIA_EUSAGE : DPIA_EOPENCL;
  }
  c->ran = true;
  c->min_ms = res->min_ms;
  c->median_ms = res->median_ms;
  return DPIA_OK;
}

/* the bandwidth of a run of min_ms: the bytes of every input and output
 * buffer of k (a kernel, or a pipeline's interface) once */
static double run_gbps(Arena *a, const ImpKernel *k, const NatValues *nats, double min_ms) {
  Buf err;
  buf_init(&err, a);
  double bytes = 0;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->role != KP_INPUT && p->role != KP_OUTPUT) continue;
    const Lay *l = lay_of(a, p->type, nats, &err);
    if (l) bytes += (double)l->bytes;
  }
  return min_ms > 0 ? bytes / (min_ms * 1e6) : 0.0;
}
static const char *all_sources(Ctx *c);

static int pass_run(Ctx *c) {
  const DpiaOptions *o = c->opt;
  if (c->pipe) return pass_run_pipeline(c);
  int index = -1, nkernels = 0;
  for (int i = 0; i < c->checked->ndefs; i++)
    if (c->sources[i]) {
      index = i;
      nkernels++;
    }
  if (nkernels != 1) {
    diag_error(&c->diag, ERR_NO_SUCH_KERNEL, (Span){0},
               "'dpia run' runs one kernel: choose it with -k NAME (%s has %d; %s)", c->src.name, nkernels,
               kernel_names(c));
    return DPIA_EUSAGE;
  }
  DefInfo *def = c->checked->defs[index];
  ImpKernel *k = c->kernels[index];
  Arena *a = c->arena;
  Buf err;
  buf_init(&err, a);
  /* nat values, all of them given */
  NatValues nats;
  if (!run_sizes(c, def, &nats)) return DPIA_EUSAGE;
  /* a tune parameter left symbolic takes a --size in its domain */
  for (int j = 0; j < o->nsizes; j++)
    for (int i = 0; i < def->decl->nparams; i++) {
      const Param *pa = &def->decl->params[i];
      if (!pa->tune || strcmp(pa->name, o->size_names[j]) != 0 || param_tune_allows(pa, (uint64_t)o->size_values[j]))
        continue;
      Buf dom;
      buf_init(&dom, a);
      print_domain(&dom, pa);
      diag_error(&c->diag, ERR_VALUE_OUT_OF_DOMAIN, pa->span,
                 "--size %s=%lld: %lld is not a value of the tune parameter %s of kernel '%s': %s", pa->name,
                 o->size_values[j], o->size_values[j], pa->name, def->name, dom.data);
      return DPIA_EUSAGE;
    }
  if (!check_run_preconditions(c, def, k, &nats)) return run_json_refused(c, "kernel", k->name);
  Runtime rt;
  RtStatus st = rt_open(&rt, c->target, a, o->platform, o->device, &err);
  if (st != RT_OK) {
    diag_error(&c->diag, ERR_OPENCL_RUNTIME, (Span){0}, "%s: %s", c->target->title, err.data);
    return DPIA_EOPENCL;
  }
  RtLaunch launch;
  rt_launch_init(&launch);
  launch.repeat = o->repeat > 0 ? o->repeat : 1;
  /* k already holds the user's launch sizes (kernel_with_launch) */
  /* sizes the generated code's int indices and the device can take,
   * before anything is allocated (run_limits.h, tests/limits) */
  const char *source = o->opencl_source ? o->opencl_source : c->sources[index];
  RunLimit limit = run_check_limits(a, &rt, k, &c->facts[index], &nats, &launch, &err);
  if (limit != RUN_LIMIT_OK) {
    rt_close(&rt);
    diag_error(&c->diag, ERR_SIZES_TOO_LARGE, def->decl->name_span, "%s", err.data);
    return limit == RUN_LIMIT_INT ? DPIA_EUSAGE : DPIA_EOPENCL;
  }
  /* what the kernel needs of the device, whatever the sizes: its local
   * memory (from the kernel IR, unless another source runs) and its
   * work-groups; the built kernel is checked again by rt_run */
  st = run_check_kernel_fits(a, &rt, k, o->opencl_source ? NULL : c->facts[index].kir, &nats, &launch, &err);
  if (st != RT_OK) {
    diag_error(&c->diag, ERR_DEVICE_LIMIT, def->decl->name_span, "%s device %s: %s", c->target->title,
               rt.info.device_name, err.data);
    rt_close(&rt);
    return DPIA_EOPENCL;
  }
  /* the data are as large as the sizes say: the translation's memory
   * limit no longer applies */
  a->limit = 0;
  double **inputs;
  size_t *counts;
  if (!run_inputs(c, def, &nats, &inputs, &counts)) {
    rt_close(&rt);
    return DPIA_EUSER;
  }
  RtResult res;
  st = rt_run(&rt, a, k, source, &nats, def->nparams, (const double *const *)inputs, counts, &launch,
              &res, &err);
  int done = run_finished(c, &rt, st, &res, &err);
  if (done != DPIA_OK) return done;
  double gbps = run_gbps(a, k, &nats, res.min_ms);
  if (o->run_json) {
    run_json_head(&c->out, o, "kernel", k->name, &rt, &res, gbps);
  } else {
    emit(&c->out, "kernel %s on %s (%s)\n", k->name, rt.info.device_name, rt.info.platform_name);
    buf_puts(&c->out, "  sizes:");
    for (int i = 0; i < o->nsizes; i++) emit(&c->out, " %s=%lld", o->size_names[i], (long long)o->size_values[i]);
    emit(&c->out, "\n  NDRange: global");
    for (int d = 0; d < res.ndims; d++) emit(&c->out, "%s%zu", d ? "," : " ", res.global_size[d]);
    if (res.has_local) {
      buf_puts(&c->out, ", local");
      for (int d = 0; d < res.ndims; d++) emit(&c->out, "%s%zu", d ? "," : " ", res.local_size[d]);
    }
    run_time_line(c, &res, gbps);
  }
  rt_close(&rt);
  if (!o->check) {
    if (o->run_json) buf_puts(&c->out, ", \"check\": null}\n");
    return DPIA_OK;
  }
  return run_compare(c, def, c->normal[index], &nats, inputs, counts, &res);
}

/* dpia run -k PIPELINE (docs/language.md section 8): its preconditions and
 * every launch's at the given sizes, then the whole pipeline on the device
 * (pipe_run.h), its time one figure from the first kernel's start to the
 * last one's end, and with --check its output against the reference
 * interpreter of the composed program (the kernels inlined into the
 * pipeline's body). */
static int pass_run_pipeline(Ctx *c) {
  const DpiaOptions *o = c->opt;
  Arena *a = c->arena;
  DefInfo *def = c->pipe->def;
  const PipeDesc *d = NULL;
  for (int i = 0; i < c->checked->ndefs; i++)
    if (c->checked->defs[i] == def) d = c->pipe_descs[i];
  Buf err;
  buf_init(&err, a);
  NatValues nats;
  if (!run_sizes(c, def, &nats)) return DPIA_EUSAGE;
  if (!check_run_preconditions(c, def, &d->iface, &nats)) return run_json_refused(c, "pipeline", def->name);
  for (int li = 0; li < d->nlaunches; li++) {
    const PipeLaunchDesc *l = &d->launches[li];
    const char **names = NEWARRAY(a, const char *, l->k->nparams + 1);
    int64_t *values = NEWARRAY(a, int64_t, l->k->nparams + 1);
    int n = 0;
    for (int i = 0; i < l->k->nparams; i++) {
      if (l->binds[i].kind != PBIND_NAT) continue;
      names[n] = l->k->params[i].name;
      if (!nat_eval_size(l->binds[i].size, &nats, &values[n++], &err)) break;
    }
    NatValues kn = {n, names, values};
    if (err.len || !rt_check_preconditions(l->k, &kn, &err)) {
      diag_error(&c->diag, ERR_VIOLATED_PRECONDITION, l->launch->span, "launch of kernel '%s' in pipeline '%s': %s",
                 l->k->name, def->name, err.data);
      return DPIA_EPRECONDITION;
    }
  }
  Phrase *body = normalize_def(a, &c->tc, &c->diag, def);
  if (!body) return DPIA_EUSER;
  Runtime rt;
  RtStatus st = rt_open(&rt, c->target, a, o->platform, o->device, &err);
  if (st != RT_OK) {
    diag_error(&c->diag, ERR_OPENCL_RUNTIME, (Span){0}, "%s: %s", c->target->title, err.data);
    return DPIA_EOPENCL;
  }
  a->limit = 0; /* the data are as large as the sizes say */
  double **inputs;
  size_t *counts;
  RtResult res;
  if (!run_inputs(c, def, &nats, &inputs, &counts)) {
    rt_close(&rt);
    return DPIA_EUSER;
  }
  const char *source = o->opencl_source ? o->opencl_source : all_sources(c);
  st = rt_run_pipeline(&rt, a, d, source, &nats, def->nparams, (const double *const *)inputs, counts,
                       o->repeat > 0 ? o->repeat : 1, &res, &err);
  int done = run_finished(c, &rt, st, &res, &err);
  if (done != DPIA_OK) return done;
  double gbps = run_gbps(a, &d->iface, &nats, res.min_ms);
  if (o->run_json) {
    run_json_head(&c->out, o, "pipeline", def->name, &rt, &res, gbps);
  } else {
    emit(&c->out, "pipeline %s on %s (%s)\n", def->name, rt.info.device_name, rt.info.platform_name);
    buf_puts(&c->out, "  sizes:");
    for (int i = 0; i < o->nsizes; i++) emit(&c->out, " %s=%lld", o->size_names[i], (long long)o->size_values[i]);
    buf_puts(&c->out, "\n  launches:");
    for (int li = 0; li < d->nlaunches; li++) emit(&c->out, "%s%s", li ? ", " : " ", d->launches[li].k->name);
    run_time_line(c, &res, gbps);
  }
  rt_close(&rt);
  if (!o->check) {
    if (o->run_json) buf_puts(&c->out, ", \"check\": null}\n");
    return DPIA_OK;
  }
  return run_compare(c, def, body, &nats, inputs, counts, &res);
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
      codegen_program_add(&program, &defined, &c->facts[i]);
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
static const char *all_sources(Ctx *c) {
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
  int npipes = 0;
  const PipeDesc **pipes = NEWARRAY(c->arena, const PipeDesc *, c->checked->ndefs);
  for (int i = 0; i < c->checked->ndefs; i++)
    if (c->pipe_descs[i]) pipes[npipes++] = c->pipe_descs[i];
  codegen_header_pipelines(c->arena, generated_name(c), n, kernels, sources, npipes, pipes, &copt, &c->out);
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
  static const Pass check_passes[] = {pass_parse, pass_check, pass_strategy};
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
                   int depth_scale, DpiaResult **result) {
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
      r->diagnostics = opt->diagnostics_json ? r->diagnostics_json : "dpia: error: " LIMIT_MESSAGE "\n";
      r->diags = &limit_diagnostic;
    } else {
      r->diagnostics_json =
          "[{\"level\": \"error\", \"code\": \"E0903\", \"message\": \"out of memory\", \"notes\": []}]\n";
      r->diagnostics = opt->diagnostics_json ? r->diagnostics_json : "dpia: error: out of memory\n";
      r->diags = &oom_diagnostic;
    }
    r->ndiags = 1;
    for (int k = 0; k < NEMIT; k++) r->emitted[k] = NULL;
    return r->status;
  }
  c = NEW(&r->arena, Ctx);
  c->opt = opt;
  c->target = target;
  c->arena = &r->arena;
  intern_init(&c->in, c->arena);
  diag_init(&c->diag, c->arena);
  c->diag.depth_scale = depth_scale;
  type_ctx_init(&c->tc, c->arena);
  source_init(&c->src, c->arena, arena_strndup(c->arena, name, strlen(name)), arena_dup(c->arena, text, len), len);
  buf_init(&c->out, c->arena);

  r->status = run_passes(c);
  r->depth_limited = c->diag.limit_hit;
  r->nerrors = c->diag.nerrors - c->diag.nrepeats;
  r->ran = c->ran;
  r->min_ms = c->min_ms;
  r->median_ms = c->median_ms;
  r->output = c->out.data;
  r->output_len = c->out.len;
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
  if (c->diag.nerrors) diag_render_json(&c->diag, &json);
  else buf_puts(&json, "[]\n");
  r->diagnostics_json = json.data;
  if (opt->diagnostics_json) {
    r->diagnostics = json.data;
  } else if (c->diag.nerrors) {
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
  DpiaResult *result;
  int status;
} DeepCall;

static void *deep_main(void *arg) {
  DeepCall *d = arg;
  d->status = process(d->target, d->name, d->text, d->len, d->opt, DPIA_DEEP_SCALE, &d->result);
  return NULL;
}

int driver_process(const Target *target, const char *name, const char *text, size_t len, const DpiaOptions *opt,
                   DpiaResult **result) {
  int status = process(target, name, text, len, opt, 1, result);
  if (!*result || !(*result)->depth_limited) return status;
  dpia_result_free(*result); /* its memory is needed for the second try */
  DeepCall d = {target, name, text, len, opt, NULL, 0};
  pthread_attr_t attr;
  pthread_t thread;
  bool started = false;
  if (pthread_attr_init(&attr) == 0) {
    started = pthread_attr_setstacksize(&attr, DPIA_DEEP_SCALE * DPIA_BASE_STACK) == 0 &&
              pthread_create(&thread, &attr, deep_main, &d) == 0;
    pthread_attr_destroy(&attr);
  }
  /* without the thread, the limit's error again */
  if (!started) return process(target, name, text, len, opt, 1, result);
  pthread_join(thread, NULL);
  *result = d.result;
  return d.status;
}

/* The one place the library picks its target. */
int dpia_process(const char *name, const char *text, size_t len, const DpiaOptions *opt, DpiaResult **result) {
  return driver_process(target_default(), name, text, len, opt, result);
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
    all[i++] = diagnostic_of(g);
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
const char *dpia_result_diagnostics(const DpiaResult *r) { return r ? r->diagnostics : "dpia: error: out of memory\n"; }

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
