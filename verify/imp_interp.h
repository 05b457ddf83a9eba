/* imp_interp.h: an interpreter of imperative DPIA, the program that becomes
 * OpenCL C (after stage II and hoisting: `--emit=imperative`), for the
 * semantic translation validation of `dpia verify` (semantic.h).
 *
 * Semantics (paper section 4, spec sections 4 and 7): memory is flat doubles
 * in the host layout of layout.h; `new`/`newGlobal`/`newLocal`/`newPrivate T`
 * allocate a fresh block poisoned with NaN (so a read of memory nothing
 * wrote shows up in the result), `:=` stores scalar and vector values
 * (rounded to float in float lanes, as the device's memory holds them),
 * `for n` runs its body for 0 .. n-1, `idx`/`idxAcc` and the acceptor views
 * (splitAcc joinAcc pairAcc zipAcc asScalarAcc asVectorAcc transposeAcc) and
 * the functional views (zip split join transpose slide pads reorderStride
 * take drop asVector asScalar pair fst snd) are index transformations, and
 * scalar and vector arithmetic, comparisons, math built-ins and conversions
 * are evaluated in double precision by the code the reference interpreter
 * uses (numeric.h: interp.c's precision rule).
 *
 * Parallel loops run one iteration after the other, each iteration to
 * completion, in increasing order or (ImpRun.reverse_parallel) in
 * decreasing order.  For parforLocal this is the "barrier after every
 * parallel loop" reading that the imperative program expresses: the
 * work-items of a group run the body of one parforLocal, then all of them
 * the next statement (hoisting widened every temporary that crosses such a
 * loop, so that each work-item keeps its own).  Work-groups run one after
 * the other, which is what lets a newLocal hoisted to kernel scope (never
 * widened across parforWorkgroup, spec section 7) serve every group.  A
 * SCIR-typed program computes the same in every order; a translation that
 * makes an iteration depend on another (a race, or a read before the write
 * it needs) computes something else in one of the two orders.
 *
 * Everything is allocated in the arena; a scratch stack released after
 * every loop iteration keeps the memory proportional to the buffers. */
#ifndef DPIA_IMP_INTERP_H
#define DPIA_IMP_INTERP_H

#include "dpia_front.h"
#include "layout.h"

typedef enum ImpStatus {
  IMP_OK,
  IMP_BUDGET, /* more than max_steps steps: stopped, no result */
  IMP_FAULT,  /* the program indexes outside an array: wrong code (err says where) */
  IMP_ERROR,  /* a phrase the interpreter cannot run (err says which) */
} ImpStatus;

typedef struct ImpRun {
  bool reverse_parallel; /* run parallel loops from n-1 down to 0 */
  int64_t max_steps;     /* 0: no limit; a step is one phrase evaluated */
  int64_t steps;         /* out: steps taken */
  /* a float stored keeps its double value instead of the float the device
   * holds: the reference's precision (interp.c, precision rule), which
   * semantic.c asks for to tell a rounding a comparison magnifies from a
   * wrong translation */
  bool float_stores_exact;
} ImpRun;

/* Run the imperative kernel def imp (kernel.h: first parameter the output
 * acceptor, then exp parameters, then var parameters for hoisted
 * temporaries) with the nat values nats.  inputs[j] (counts[j] doubles,
 * host layout) is the value of the j-th exp parameter; ninputs must be
 * their number.  On IMP_OK *out holds the output acceptor's final contents
 * (*out_count doubles in the host layout of its type; elements nothing
 * wrote are NaN). */
ImpStatus imp_interp_run(Arena *a, const DefInfo *imp, const NatValues *nats, int ninputs,
                         const double *const *inputs, const size_t *counts, ImpRun *run, double **out,
                         size_t *out_count, Buf *err);

#endif
