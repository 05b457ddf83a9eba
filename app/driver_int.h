/* driver_int.h: what the driver's files share (driver.c, run.c): the
 * context of one translation, which the passes run over. */
#ifndef DPIA_DRIVER_INT_H
#define DPIA_DRIVER_INT_H

#include "dpia.h"
#include "dpia_codegen.h"
#include "dpia_front.h"
#include "dpia_translate.h"
#include "dpia_verify.h"
#include "driver.h"

enum { NEMIT = DPIA_EMIT_SPACE + 1 }; /* the DpiaEmit kinds */

/* The random inputs of a search's runs (dpia explore: every candidate
 * is the one kernel, or pipeline, with the same parameters, run at the
 * same sizes on the same seed's inputs), made by the first run that
 * needs them and read by the others: at the benchmark's sizes (two 64 MB
 * matrices) making them took longer than the launches.  key: the
 * parameters' layouts, seed and kind they were made for (a run whose key
 * differs makes its own, as without a share); NULL: none made yet.  The
 * values are never written after they are made: each run packs its own
 * device copies from them (an in-place candidate updates its buffer,
 * not these). */
typedef struct SharedInputs {
  /* theirs, with no limit: they are as large as the sizes say; out of
   * memory in it goes to the run making them (its mem.on_oom) */
  DpiaMem mem;
  Arena arena;
  const char *key;
  double **inputs;
  size_t *counts;
  RtPackCache packs; /* their device layout (runtime.h), packed by the first run of each layout */
} SharedInputs;

/* what a search gives the runs of its candidates (search_run), through
 * driver_process_hooked; NULL for any other run */
struct RunHooks {
  /* > 0: a first timed launch longer than this ends the timing (the
   * probe of docs/explore.md "The search"; RtLaunch.cut_ms) */
  double cut_ms;
  SharedInputs *inputs; /* NULL: the run makes its own */
};

typedef struct Ctx {
  const DpiaOptions *opt;
  const RunHooks *hooks;  /* a search's run (search_run), or NULL */
  const Target *target;   /* verifies and runs the kernels (target.h); NULL: an unknown one was asked for */
  const Backend *backend; /* prints them: the target's (backend.h) */
  Arena *arena;
  Interner in;
  Diag diag;
  TypeCtx tc;
  Source src;
  Program *prog;
  CheckedProgram *checked;
  Phrase **normal; /* per declaration: the normalized kernel body */
  /* per declaration: a high-level kernel (a computing plain map) that
   * DpiaOptions.high_level or DPIA_REWRITE accepted; it is not translated */
  bool *unlowered;
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
  int launches; /* and this many timed launches: fewer than the repeat when RunHooks.cut_ms cut them short */
  /* pass_run's check said E0006: why the reference cannot be compared on
   * these inputs (compare_report's text, and the int overflow when one
   * is the cause); NULL otherwise */
  const char *not_checkable;
  int status; /* a verification failure (3) is not a user error (1) */
  const char *explored; /* DPIA_EXPLORE: the best program, dpia source */
  /* the tune parameters' values taken from the tuning cache and where they
   * were tuned (tune_entry_text); NULL: none */
  const char *tuned;
  int nuser_sets; /* the first of opt's set_names are the caller's, the rest the tuning cache's */
} Ctx;

/* a tune parameter's domain, for messages (driver.c) */
void print_domain(Buf *b, const Param *pa);
/* the kernels and pipelines of the program, for messages (driver.c) */
const char *kernel_names(Ctx *c);
/* the OpenCL C of every kernel worked on, as one program (driver.c) */
const char *all_sources(Ctx *c);
/* run.c: dpia run: the sizes, their preconditions, the launch on the
 * device and the comparison with the reference interpreter */
int pass_run(Ctx *c);
/* rewrite_pass.c: DPIA_REWRITE: list the positions of -k's body and their
 * rules, or apply one and check the result (docs/language.md section 21) */
int pass_rewrite(Ctx *c);
/* explore.c: DPIA_EXPLORE: derive strategies for -k by the rules, time
 * them, check the best (docs/explore.md) */
int pass_explore(Ctx *c);
/* explore.c, for the searches (explore.c, tune.c): every size of def
 * given by --size, and no other (else an error of code, "to be WHAT") */
/* every size of k given by --size, and no other; a name of tuned (a tune
 * parameter with no default, which the check leaves a size) is the
 * search's to give, not the user's */
bool search_sizes_given(Ctx *c, const Decl *k, const DefInfo *def, const char *what, DiagCode code,
                        const Param *const *tuned, int ntuned);
/* run program's kernel as `dpia run` does at c's sizes, with these tune
 * values and no others from the tuning cache: timed repeat times, or
 * checked against the reference interpreter and verified */
/* the not_checkable of the Ctx that made r (a search_run's), or NULL */
const char *search_not_checkable(const DpiaResult *r);
/* the timed launches of a search_run's run (Ctx.launches), 0 if none ran */
int search_launches(const DpiaResult *r);
DpiaResult *search_run(const Ctx *c, const char *program, const char *kernel, int nsets, const char *const *set_names,
                       const long long *set_values, bool check, int repeat, const RunHooks *hooks);
/* explore.c: 0 .. n-1 in the order the seed draws them (the searches'
 * sample, reproducible from the printed seed) */
int *seed_order(Arena *a, int n, uint64_t seed);
/* the kernel --set values apply to: -k, or NULL (every kernel) when -k
 * names a pipeline, whose kernels share their tune parameters by name
 * (driver.c) */
const char *tune_scope(const Ctx *c);
/* tune.c: after the parse, the values of the tune parameters the options
 * leave unset that the tuning cache keeps for this device (docs/tune.md);
 * c->opt becomes a copy with them.  False after an error (a tuning cache
 * that cannot be read). */
bool pass_tune_values(Ctx *c);
/* tune.c: DPIA_TUNE: time the points of -k's tune parameters, check the
 * fastest and store it in the tuning cache (docs/tune.md) */
int pass_tune(Ctx *c);

#endif
