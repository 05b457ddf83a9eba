/* numeric.h: the meaning of numbers shared by the two interpreters of
 * verify/: the reference interpreter of functional DPIA (interp.c) and the
 * interpreter of imperative DPIA (imp_interp.c).  Binary and unary
 * operators, literals, the math built-ins (fabs sqrt rsqrt exp log sin cos
 * floor ceil min max pow fma), vec and the conversions toInt toFloat
 * toDouble, each evaluated in double precision lane by lane: the
 * reference's meaning of each operator, with the precision rule of
 * interp.c (float literals are the float constant the kernel contains; a
 * conversion takes its argument as the device holds it and gives what the
 * device's conversion gives).  Both interpreters compute numbers here, so
 * their results agree to the bit.
 *
 * A number is width lanes (1: a scalar, which broadcasts to every lane of
 * an operation with a vector).  Results are written to out[] (room for
 * NUM_MAX_LANES doubles); each function returns the result's width. */
#ifndef DPIA_NUMERIC_H
#define DPIA_NUMERIC_H

#include "dpia_front.h"

enum { NUM_MAX_LANES = 16, NUM_MAX_ARGS = 3 };

/* a number read-only: width lanes at lanes[] */
typedef struct Num {
  int width;
  const double *lanes;
} Num;

/* lane j of x; a scalar broadcasts to every lane */
static inline double num_lane(Num x, int j) { return x.width == 1 ? x.lanes[0] : x.lanes[j]; }

/* The meaning of a binary operator on one lane; is_int: the operands are
 * ints (integer division and remainder, NaN on a division by zero). */
double num_arith(BinOp op, bool is_int, double x, double y);

/* a op b lane by lane (the wider width) */
int num_binop(BinOp op, bool is_int, Num a, Num b, double *out);

/* select mask a b of vectors: lane j of a where lane j of mask is
 * negative (its sign bit set, as OpenCL's select tests), else of b */
int num_select(Num mask, Num a, Num b, double *out);

/* '-' (negation) or '!' (not) lane by lane */
int num_unop(char unop, Num x, double *out);

/* The lanes of the literal p; 0 when its type is not a scalar type. */
int num_literal(const Phrase *p, double *out);

/* vec k x: x in k lanes (1 <= k <= NUM_MAX_LANES) */
int num_broadcast(double x, int64_t k, double *out);

/* clampIdx n x: the int x as an index of n elements, the nearest of
 * 0 .. n-1 (docs/language.md section 22; n >= 1) */
double num_clamp_index(double x, int64_t n);

/* reduceRange's and forRange's steps lo, lo+s, ... below hi, clamped to
 * an array of n elements (docs/language.md section 25): *from = max(lo,
 * 0), *to = min(hi, n), no step when *to <= *from */
void num_clamp_range(double lo, double hi, int64_t n, int64_t *from, int64_t *to);

/* The number of arguments of prim if it is a numeric built-in (the math
 * built-ins, min, max, pow, fma and the conversions), else 0. */
int num_prim_arity(Prim prim);

/* The numeric built-in p (a primitive phrase, num_prim_arity(p->prim) > 0)
 * applied to args (a conversion's scalar types are those of p's type). */
int num_prim(const Phrase *p, const Num *args, double *out);

#endif
