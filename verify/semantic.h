/* semantic.h: semantic translation validation, the third check
 * of `dpia verify` after the SCIR re-check and the libclang re-parse.
 *
 * For one kernel: choose small values of its nat parameters that satisfy
 * its preconditions (DefInfo req_sizes), make random inputs with a fixed
 * seed (interp_random_inputs), run the reference interpreter of the
 * functional program (interp.c, spec section 11) and the interpreter of
 * the imperative program that becomes OpenCL (imp_interp.c) with parallel
 * loops in increasing and in decreasing order, and compare the results
 * with the bounds of spec section 11 (compare.c, interp_bound).  No OpenCL
 * device is needed.
 *
 * The check is bounded (SemanticBudget): if the smallest valid sizes need
 * more interpreter steps or values of memory than the budget, it is not
 * done (SEM_SKIPPED, never reported as passing). */
#ifndef DPIA_SEMANTIC_H
#define DPIA_SEMANTIC_H

#include "dpia_front.h"
#include "layout.h"

/* The bounds of one kernel's check.  Steps are phrases evaluated by the
 * imperative interpreter in one loop order (it runs about 40 million a
 * second); the reference interpreter does about the same work.  A second,
 * larger size assignment is tried only when the first took fewer than
 * second_steps (both orders). */
typedef struct SemanticBudget {
  int64_t max_steps, second_steps, max_elements;
} SemanticBudget;
/* what every translation checks: a few milliseconds a kernel, so that a
 * search driver's thousands of translations stay fast */
#define SEMANTIC_BUDGET_QUICK ((SemanticBudget){40000, 10000, 1 << 18})
/* what `dpia verify` checks: up to about a second a kernel, enough for the
 * fixed tiles of the BLAS samples (asum's 2048 * 128 elements) */
#define SEMANTIC_BUDGET_THOROUGH ((SemanticBudget){20000000, 10000, 1 << 22})
#define SEMANTIC_SEED 0x13

typedef enum SemStatus {
  SEM_OK,       /* the imperative program computes the reference's values */
  SEM_MISMATCH, /* it does not: a wrong translation (message) */
  SEM_SKIPPED,  /* not checked: no small valid sizes (message says why) */
  SEM_ERROR,    /* an interpreter could not run the program (message): a bug */
} SemStatus;

/* What a check at one size assignment works with: the nat values, the
 * random inputs (seed SEMANTIC_SEED; inputs[j] holds counts[j] doubles in
 * the host layout, one per parameter of the functional kernel), the
 * reference interpreter's result and the bound to compare with (spec
 * section 11).  The race check (race.h) runs the generated kernel on the
 * same. */
typedef struct SemanticSample {
  NatValues nats;
  int ninputs;
  double **inputs;
  size_t *counts;
  double *ref;
  size_t nref;
  double bound;
  /* the imperative program agreed only with its floats kept in double
   * (semantic.c, agrees_in_reference_precision) */
  bool float_rounding;
} SemanticSample;

/* Check the imperative kernel imp (after stage II and hoisting) against
 * the checked functional kernel def whose normalized body is body.
 * message gets one line (no newline): for SEM_OK the sizes used, for the
 * others what happened, naming the kernel, the sizes and for a mismatch
 * the first differing element.  For SEM_OK, *sample (NULL: not wanted)
 * holds the first size assignment the check used. */
SemStatus semantic_check(Arena *a, const DefInfo *def, const Phrase *body, const DefInfo *imp,
                         const SemanticBudget *budget, SemanticSample *sample, Buf *message);

/* The sample at the smallest sizes that satisfy the preconditions with
 * every nat parameter raise candidates above its smallest valid value
 * (raise 0: the semantic check's first sizes); sizes where the reference
 * has no meaning are passed over as the check does.  SEM_OK, or
 * SEM_SKIPPED with message saying why (no such sizes, over the budget's
 * memory, an int overflow of the reference). */
SemStatus semantic_sample(Arena *a, const DefInfo *def, const Phrase *body, const DefInfo *imp, int raise,
                          const SemanticBudget *budget, SemanticSample *sample, Buf *message);

/* When the code's values disagree with sample's reference: the values the
 * imperative program imp computes on the sample with its floats stored as
 * the device stores them, provided it computes the reference's values
 * once they are kept in double (its difference is then the program's own
 * float arithmetic, semantic.c), which the code must compute; else NULL
 * (a wrong translation or wrong code).  Runs of at most max_steps (> 0)
 * steps. */
double *semantic_device_values(Arena *a, const DefInfo *imp, const SemanticSample *sample, int64_t max_steps);

/* out (nout values) against expected (sample->nref values; NULL: none) by
 * sample's bound */
bool semantic_agree_with(const double *out, size_t nout, const double *expected, const SemanticSample *sample);

/* Does out (nout doubles, host layout) agree with the sample's reference
 * within its bound (non-finite reference values matched exactly)?  If not,
 * why gets the first differing element. */
bool semantic_agree(const double *out, size_t nout, const SemanticSample *sample, Buf *why);

/* "N=8, M=2" */
void semantic_print_sizes(Buf *b, const NatValues *nats);

#endif
