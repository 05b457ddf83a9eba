/* compare.h: random inputs and the comparison of a device result with the
 * reference interpreter's (spec section 11).
 *
 * Both work on values in the host layout of layout.h (flat doubles). */
#ifndef DPIA_COMPARE_H
#define DPIA_COMPARE_H

#include "layout.h"

/* ---- random inputs ---- */

/* A small PRNG (xoshiro256**, seeded through splitmix64).  All its state is
 * in the struct: two generators with the same seed give the same values. */
/* what rng_fill gives (dpia run --inputs=...) */
typedef enum RngInputs {
  RNG_SIGNED,   /* rng_value, rng_int: either sign, never near zero */
  RNG_POSITIVE, /* their magnitudes: in [RNG_MIN_MAGNITUDE, 1), 1..RNG_INT_RANGE */
  RNG_UNIT,     /* rng_unit: [0, 1); ints 0..RNG_INT_RANGE-1 */
} RngInputs;

typedef struct Rng {
  uint64_t s[4];
  RngInputs inputs; /* rng_seed sets RNG_SIGNED */
} Rng;

void rng_seed(Rng *r, uint64_t seed);
uint64_t rng_next(Rng *r);
/* uniform in [0, 1) */
double rng_unit(Rng *r);
/* in [-1, 1) but never close to zero: |x| >= RNG_MIN_MAGNITUDE */
double rng_value(Rng *r);
/* a non-zero integer in [-RNG_INT_RANGE, RNG_INT_RANGE] */
int rng_int(Rng *r);
#define RNG_MIN_MAGNITUDE 0.0625
#define RNG_INT_RANGE 8

/* Fill one value of layout l (l->flat doubles at dst): float and double
 * lanes with rng_value (r->inputs: RNG_SIGNED; float lanes rounded to float, so that the host value
 * is exactly the device's: lay_device_exact holds; a float lane may be -1
 * or 1), int lanes with rng_int, bool lanes with 0 or 1. */
void rng_fill(Rng *r, const Lay *l, double *dst);

/* An input declared a permutation (docs/language.md section 29): dst[0 ..
 * n) a random permutation of 0 .. n-1 (Fisher-Yates, from r). */
void rng_permutation(Rng *r, double *dst, int64_t n);

/* Whether v[0 .. n) is a permutation of 0 .. n-1; if not, a message in err
 * naming the input `name` and its first element that is out of range or
 * repeats an earlier one (which it names).  Every interpreter and `dpia
 * run` check inputs declared permutations with it (E0812). */
bool permutation_check(Arena *a, const char *name, const double *v, int64_t n, Buf *err);

/* ---- comparison ---- */

/* Relative error bounds of spec section 11. */
#define COMPARE_BOUND_FLOAT 1e-4
#define COMPARE_BOUND_DOUBLE 1e-12

/* The bound for results of layout l: the float bound if any lane is float,
 * else the double bound (int results are compared to the double bound, so
 * in effect exactly).  It looks at the result type only; interp_bound
 * (interp.h) also knows whether float arithmetic fed a double result. */
double compare_bound(const Lay *l);

typedef struct Comparison {
  size_t count;      /* elements compared */
  double rel_error;  /* ||out - ref||_2 / ||ref||_2 over the finite ref
                        elements (the absolute error if ||ref|| is 0);
                        infinite if out has a non-finite element where ref
                        is finite */
  double bound;
  bool agree;        /* rel_error <= bound and every non-finite ref element
                        matched exactly (NaN with NaN, inf with the same inf) */
  bool ok;           /* agree, and the comparison is not vacuous (below):
                        what `dpia run --check` passes */
  size_t nan_count;  /* elements of out that are NaN where ref is not:
                        unwritten (poisoned) or wrong */
  /* the element to report, -1 if out and ref are identical: the first NaN
   * of out where ref is not NaN if there is one, else the first element
   * with the largest relative difference |out - ref| / max(|ref|, 1e-30) */
  int64_t worst;
  double worst_out, worst_ref, worst_rel;
  /* the first element where ref itself is not finite, -1 if none: the
   * inputs are outside the program's domain and nothing can be compared
   * there (ok is then false) */
  int64_t ref_nonfinite;
  /* every element of ref is 0 (count > 0): out within the bound of 0 shows
   * only that the program wrote zeros, not that it computes its values (a
   * cutoff that no random input reaches, a comparison never true), so ok is
   * then false too */
  bool ref_all_zero;
  /* the comparison verified nothing: ref is not finite somewhere, or it is
   * 0 everywhere and out is within the bound of it.  Not a wrong result but
   * inputs that cannot show one (E0006); a result that differs from an
   * all-zero reference is still a difference. */
  bool vacuous;
} Comparison;

void compare_values(const double *out, const double *ref, size_t count, double bound, Comparison *c);

/* One line, no newline:
 *   relative error 3.1e-07 (bound 1e-04): ok
 *   relative error 0.5 exceeds the bound 1e-04; largest at element 17: got 1.5, expected 2.5
 *   element 1023 is NaN (not written?), expected 0.25; 1 such element of 1024
 *   element 5: got inf, expected 2                 (a non-finite mismatch)
 *   the reference is not finite at element 3: the inputs are outside the program's domain; try --inputs=positive
 *   the reference is 0 at all 1024 elements: ... (vacuous: no "ok") */
void compare_report(const Comparison *c, Buf *out);

#endif
