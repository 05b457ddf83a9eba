/* interp.h: the reference interpreter of functional DPIA (spec section 11).
 *
 * It gives a kernel its meaning directly, independently of the translation
 * (nothing of translate/ or codegen/ is used): arrays are functions from
 * indices to values (paper section 5.1), so zip, split, join, transpose,
 * slide, padClamp, padCst, reorderStride, take, drop, asVector and
 * asScalar are index transformations; every map variant applies its
 * function to each element (eagerly, into a buffer, so that a map result
 * read many times is computed once); reduce and reduceSeq fold left from
 * the initial value, calling f element accumulator; toGlobal, toLocal and
 * toPrivate are plain application.  Arithmetic is in double precision,
 * vectors are tuples of doubles; int values use integer semantics (`/`
 * truncates, `%` is C's remainder, toInt truncates; an int division by zero
 * gives NaN).  Inputs, float literals and conversions are what the device
 * holds: float lanes rounded to float (the precision rule of interp.c), so
 * results that float arithmetic does not reach match to double precision.
 *
 * Values enter and leave in the host layout of layout.h.  Everything is
 * allocated in the arena given (out of memory longjmps to its handler);
 * nothing is global, so interpreters in several threads are independent.
 *
 * Usage:
 *   NatValues nats = {1, (const char *[]){"N"}, (int64_t[]){1024}};
 *   double **in; size_t *counts;
 *   Rng rng; rng_seed(&rng, 42);
 *   if (!interp_random_inputs(arena, def, &nats, &rng, &in, &counts, &err)) ...
 *   double *ref; size_t nref;
 *   if (!interp_run(arena, def, normal_body, &nats, (const double *const *)in, counts,
 *                   &ref, &nref, &err)) ...   (err says why)
 */
#ifndef DPIA_INTERP_H
#define DPIA_INTERP_H

#include "dpia_front.h"
#include "compare.h"
#include "layout.h"

/* Evaluate the kernel def (checked, is_kernel) whose normalized body
 * (normalize_def) is body.  inputs[i] holds counts[i] doubles, the value of
 * def->params[i] in the host layout; counts[i] must be the flat size of its
 * type.  On success *out is the result in the host layout (*out_count
 * doubles, in the arena).  On failure (a missing nat value, an input of the
 * wrong size, a size that does not evaluate, a primitive that is not
 * functional) returns false after a message in err. */
bool interp_run(Arena *a, const DefInfo *def, const Phrase *body, const NatValues *nats, const double *const *inputs,
                const size_t *counts, double **out, size_t *out_count, Buf *err);
/* The same, and *int_overflow the first int operation whose exact value
 * is outside the 32-bit range (src NULL: none): OpenCL C leaves signed
 * overflow undefined, so a device result that differs from this exact
 * reference there is the program's overflow, not a wrong kernel.  On a
 * failure, *foreign_failure (if given) says why a foreign function could
 * not run on the host (its body does not compile as C, ...: the program's
 * fault), NULL when the failure is another. */
bool interp_run_overflow(Arena *a, const DefInfo *def, const Phrase *body, const NatValues *nats,
                         const double *const *inputs, const size_t *counts, double **out, size_t *out_count,
                         Span *int_overflow, const char **foreign_failure, Buf *err);

/* The relative error bound (spec section 11) for comparing a device result
 * of layout result with the reference for the normalized kernel body: the
 * float bound (COMPARE_BOUND_FLOAT) if the result has a float lane or if
 * the body does float arithmetic that the device may round differently
 * from the reference (then a double or int result can be no more accurate
 * than float), else the double bound.  Use it in place of compare_bound. */
double interp_bound(const Phrase *body, const Lay *result);

/* The layouts of a kernel's inputs (one per def->params[i]) and of its
 * result, for these nat values; NULL after a message in err. */
const Lay *interp_param_layout(Arena *a, const DefInfo *def, int i, const NatValues *nats, Buf *err);
const Lay *interp_result_layout(Arena *a, const DefInfo *def, const NatValues *nats, Buf *err);

/* Fresh random inputs for every parameter of def (rng_fill, compare.h):
 * (*inputs)[i] with (*counts)[i] doubles, in the arena. */
bool interp_random_inputs(Arena *a, const DefInfo *def, const NatValues *nats, Rng *rng, double ***inputs,
                          size_t **counts, Buf *err);

#endif
