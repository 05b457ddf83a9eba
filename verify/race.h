/* race.h: the race check of `dpia verify`, the fourth check after the
 * SCIR re-check, the libclang re-parse and the semantic check: the
 * OpenCL dpia emits, run by the kernel IR interpreter (kir_interp.h) with
 * no device, must have no data race, no access out of bounds and no
 * barrier divergence, and must compute the reference's values.
 *
 * SCIR's typing (paper section 4) proves the imperative program free of
 * interference; the races that remain possible come from code generation:
 * work-items of a dimension a stage does not use running its sequential
 * code redundantly, a barrier missing at a loop's back edge, temporaries
 * shared across work-items.  They depend on the loop forms code generation
 * picks for a launch (a parallel map as one step, a loop, or a guarded
 * step when there are fewer or more work-items than elements), so the
 * kernel is checked at several launches:
 *   - the launch the emitted code is for (the natural NDRange, or the
 *     user's --local-size/--global-size, which are then the only launch);
 *   - with a fixed local size: half the groups (loops over groups), half
 *     the local size (loops over local ids), one work-item a group and
 *     half the groups, twice the local size (guarded work-items) with half
 *     the groups of dimension 0 and with twice the groups where there are
 *     several (guarded groups);
 *   - without one: half and twice the global size (where it is more than
 *     1), and a local size of 4.
 * Each at the semantic check's sizes and inputs (semantic.h), and when
 * that was cheap again at larger sizes (every nat parameter a few
 * candidates up), where loops run more than one iteration.  Each launch
 * other than the emitted one is generated for the check and not emitted.
 * Every translation that verifies (`dpia translate`, `dpia run`, batch)
 * checks the code it emits at the smallest sizes, quickly; `dpia verify`
 * checks all the launches; `dpia run` checks besides the launch it makes,
 * at its own sizes and on its own inputs (race_check_run), so that what
 * it executes is what was checked. */
#ifndef DPIA_RACE_H
#define DPIA_RACE_H

#include "kir_interp.h"
#include "semantic.h"

typedef struct RaceBudget {
  bool variants;       /* the other launches too, else the emitted one only */
  int64_t max_steps;   /* interpreter steps of all launches together */
  int64_t raise_steps; /* larger sizes are checked too when the first took fewer steps
                          (or when the kernel launches nothing at the first) */
  int raise;           /* how many candidates up (semantic_sample) */
  KiLimits limits;     /* each launch (its max_steps is what is left) */
} RaceBudget;

/* what every translation checks: the code emitted, about a millisecond a
 * kernel, as the semantic check's quick budget (generating the code of
 * the other launches would cost as much as the translation) */
#define RACE_BUDGET_QUICK ((RaceBudget){false, 40000, 0, 3, {40000, 4096, 1024, 16 << 20}})
/* what `dpia verify` checks: up to about half a second a kernel (the
 * interpreter runs about 20 million steps a second); launches past the
 * budget are left out and said so (-v), the emitted one first */
#define RACE_BUDGET_THOROUGH ((RaceBudget){true, 10000000, 2000000, 3, {10000000, 1 << 16, 1024, 256 << 20}})

/* what `dpia run` checks besides (race_check_run): the launch it makes,
 * at its own sizes and on its own inputs, when that fits in about a
 * tenth of a second; a larger run is not checked there (-v says so) */
#define RACE_BUDGET_RUN ((RaceBudget){false, 2000000, 0, 0, {2000000, 1 << 16, 1024, 64 << 20}})

typedef enum RaceStatus {
  RACE_OK,          /* every launch ran with no finding and computed the reference's values */
  RACE_FOUND,       /* a race, an access out of bounds or barrier divergence (message) */
  RACE_MISMATCH,    /* the emitted code computes other values than the reference (message) */
  RACE_NOT_CHECKED, /* not done (message says why: a foreign function, the budget) */
  RACE_ERROR,       /* the interpreter cannot run the kernel (message): a bug of ours */
} RaceStatus;

/* One kernel as code generation made it. */
typedef struct RaceKernel {
  TypeCtx *tc;
  const ImpKernel *k;         /* as kernel_from_def made it (its natural launch) */
  const CodegenOptions *user; /* the user's launch sizes (none: all 0) */
  const KirKernel *kir;       /* the kernel IR of the emitted code */
  bool drop_barriers;         /* debug: check the code with every barrier removed */
  /* the functional kernel and its imperative program, for larger sizes */
  const DefInfo *def;
  const Phrase *body;
  const DefInfo *imp;
  const SemanticBudget *semantic;
} RaceKernel;

/* Check rk at the sample's sizes (and larger ones, budget permitting).
 * message gets one line: for RACE_OK the sizes and launches checked, else
 * the kernel, the sizes, the launch and what was found (or why not
 * checked). */
RaceStatus race_check(Arena *a, const RaceKernel *rk, const SemanticSample *sample, const RaceBudget *budget,
                      Buf *message);

/* dpia run's own launch (docs/language.md section 20.1): the code
 * emitted at run's sizes and inputs (run->nats, inputs and counts; its
 * ref NULL, so the values are not compared: the run's --check compares
 * the device's with the reference interpreter), launched as the run
 * launches it (rk->user, else the kernel's NDRange at those sizes).
 * RACE_NOT_CHECKED past the budget or when it launches nothing. */
RaceStatus race_check_run(Arena *a, const RaceKernel *rk, const SemanticSample *run, const RaceBudget *budget,
                          Buf *message);

/* The kernel IR k with every barrier statement left out (the race check's
 * own test: DPIA_DEBUG_DROP_BARRIERS). */
KirKernel *race_drop_barriers(Arena *a, const KirKernel *k);

#endif
