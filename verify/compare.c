/* compare.c: random inputs and result comparison (compare.h). */
#include "compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

/* ---- PRNG: xoshiro256** with a splitmix64 seeding ---- */

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

void rng_seed(Rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
  r->inputs = RNG_SIGNED;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(Rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double rng_unit(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

double rng_value(Rng *r) {
  /* magnitude in [RNG_MIN_MAGNITUDE, 1), either sign: [-1, -m] or [m, 1) */
  uint64_t bits = rng_next(r);
  double u = (double)(bits >> 11) * 0x1.0p-53;
  double magnitude = RNG_MIN_MAGNITUDE + u * (1.0 - RNG_MIN_MAGNITUDE);
  return (bits & 1) ? -magnitude : magnitude;
}

int rng_int(Rng *r) {
  int v = (int)(rng_next(r) % (2 * RNG_INT_RANGE)); /* 0 .. 2R-1 */
  return v < RNG_INT_RANGE ? v - RNG_INT_RANGE : v - RNG_INT_RANGE + 1;
}

/* one real or int of the kind r->inputs asks for */
static double rng_real(Rng *r) {
  switch (r->inputs) {
  case RNG_POSITIVE: return fabs(rng_value(r));
  case RNG_UNIT: return rng_unit(r);
  case RNG_SIGNED: break;
  }
  return rng_value(r);
}

static int rng_integer(Rng *r) {
  switch (r->inputs) {
  case RNG_POSITIVE: return abs(rng_int(r));
  case RNG_UNIT: return (int)(rng_next(r) % RNG_INT_RANGE);
  case RNG_SIGNED: break;
  }
  return rng_int(r);
}

void rng_fill(Rng *r, const Lay *l, double *dst) {
  switch (l->kind) {
  case LAY_NUM:
    for (int j = 0; j < l->width; j++) {
      switch (l->scalar) {
      /* a float lane is a float: the device holds exactly this value, so
       * the reference sees it too (spec section 11; interp.c, precision) */
      case SC_FLOAT: dst[j] = (float)rng_real(r); break;
      case SC_DOUBLE: dst[j] = rng_real(r); break;
      /* an idx[n] input is a valid index: a gather reads xs[nbh[i]] */
      case SC_INT: dst[j] = l->bound ? (double)(rng_next(r) % (uint64_t)l->bound) : rng_integer(r); break;
      case SC_BOOL: dst[j] = (double)(rng_next(r) >> 63); break;
      }
    }
    return;
  case LAY_ARRAY:
    for (int64_t i = 0; i < l->n; i++) rng_fill(r, l->elem, dst + i * l->elem->flat);
    return;
  case LAY_PAIR:
    rng_fill(r, l->fst, dst);
    rng_fill(r, l->snd, dst + l->fst->flat);
    return;
  }
}

void rng_permutation(Rng *r, double *dst, int64_t n) {
  for (int64_t i = 0; i < n; i++) dst[i] = (double)i;
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(rng_next(r) % (uint64_t)(i + 1));
    double t = dst[i];
    dst[i] = dst[j];
    dst[j] = t;
  }
}

bool permutation_check(Arena *a, const char *name, const double *v, int64_t n, Buf *err) {
  /* where each position was first seen, -1: not yet */
  int64_t *seen = NEWARRAY(a, int64_t, n > 0 ? n : 1);
  for (int64_t i = 0; i < n; i++) seen[i] = -1;
  for (int64_t i = 0; i < n; i++) {
    double x = v[i];
    if (!(x >= 0 && x < (double)n) || x != floor(x)) {
      emit(err, "input '%s' is declared a permutation of 0 .. %" PRId64 ", but %s[%" PRId64 "] = %.17g is outside it",
           name, n - 1, name, i, x);
      return false;
    }
    int64_t k = (int64_t)x;
    if (seen[k] >= 0) {
      emit(err,
           "input '%s' is declared a permutation, but %s[%" PRId64 "] = %" PRId64 " repeats %s[%" PRId64
           "]: two elements would be written to position %" PRId64,
           name, name, i, k, name, seen[k], k);
      return false;
    }
    seen[k] = i;
  }
  return true;
}

/* ---- comparison ---- */

double compare_bound(const Lay *l) { return lay_has_scalar(l, SC_FLOAT) ? COMPARE_BOUND_FLOAT : COMPARE_BOUND_DOUBLE; }

static bool same_nonfinite(double out, double ref) {
  if (isnan(ref)) return isnan(out);
  return out == ref; /* ref is an infinity */
}

void compare_values(const double *out, const double *ref, size_t count, double bound, Comparison *c) {
  c->count = count;
  c->bound = bound;
  c->nan_count = 0;
  c->worst = -1;
  c->worst_out = c->worst_ref = c->worst_rel = 0;
  c->ref_nonfinite = -1;
  c->ref_all_zero = count > 0;
  bool nonfinite_mismatch = false;
  int64_t first_nan = -1, first_bad_nonfinite = -1;
  /* scaled 2-norms, robust against overflow of the squares */
  double diff_scale = 0, diff_sum = 1, ref_scale = 0, ref_sum = 1;
  for (size_t i = 0; i < count; i++) {
    double o = out[i], r = ref[i];
    if (r != 0) c->ref_all_zero = false;
    if (!isfinite(r)) {
      if (c->ref_nonfinite < 0) c->ref_nonfinite = (int64_t)i;
      if (!same_nonfinite(o, r)) {
        nonfinite_mismatch = true;
        if (first_bad_nonfinite < 0) first_bad_nonfinite = (int64_t)i;
        if (isnan(o)) {
          c->nan_count++;
          if (first_nan < 0) first_nan = (int64_t)i;
        }
      }
      continue;
    }
    if (!isfinite(o)) {
      nonfinite_mismatch = true;
      if (isnan(o)) {
        c->nan_count++;
        if (first_nan < 0) first_nan = (int64_t)i;
      }
      if (first_bad_nonfinite < 0) first_bad_nonfinite = (int64_t)i;
      continue;
    }
    double d = fabs(o - r), m = fabs(r);
    if (d > 0) {
      if (d > diff_scale) {
        diff_sum = 1 + diff_sum * (diff_scale / d) * (diff_scale / d);
        diff_scale = d;
      } else {
        diff_sum += (d / diff_scale) * (d / diff_scale);
      }
    }
    if (m > 0) {
      if (m > ref_scale) {
        ref_sum = 1 + ref_sum * (ref_scale / m) * (ref_scale / m);
        ref_scale = m;
      } else {
        ref_sum += (m / ref_scale) * (m / ref_scale);
      }
    }
    double rel = d / (m > 1e-30 ? m : 1e-30);
    if (d > 0 && (c->worst < 0 || rel > c->worst_rel)) {
      c->worst = (int64_t)i;
      c->worst_rel = rel;
    }
  }
  double diff_norm = diff_scale * sqrt(diff_sum), ref_norm = ref_scale * sqrt(ref_sum);
  if (nonfinite_mismatch) c->rel_error = INFINITY;
  else c->rel_error = ref_norm > 0 ? diff_norm / ref_norm : diff_norm;
  int64_t report = first_nan >= 0 ? first_nan : first_bad_nonfinite >= 0 ? first_bad_nonfinite : c->worst;
  if (report >= 0) {
    c->worst = report;
    c->worst_out = out[report];
    c->worst_ref = ref[report];
    double m = fabs(c->worst_ref);
    c->worst_rel = fabs(c->worst_out - c->worst_ref) / (m > 1e-30 ? m : 1e-30);
  }
  c->agree = !nonfinite_mismatch && c->rel_error <= bound;
  c->vacuous = c->ref_nonfinite >= 0 || (c->ref_all_zero && c->agree);
  c->ok = c->agree && !c->vacuous;
}

void compare_report(const Comparison *c, Buf *out) {
  if (c->ref_nonfinite >= 0) {
    emit(out, "the reference is not finite at element %lld: the inputs are outside the program's domain; "
              "try --inputs=positive (or --inputs=unit)", (long long)c->ref_nonfinite);
    return;
  }
  if (c->nan_count > 0) {
    emit(out, "element %lld is NaN (not written?), expected %.9g; %zu such element%s of %zu", (long long)c->worst,
         c->worst_ref, c->nan_count, c->nan_count == 1 ? "" : "s", c->count);
    return;
  }
  if (isinf(c->rel_error)) {
    emit(out, "element %lld: got %.9g, expected %.9g", (long long)c->worst, c->worst_out, c->worst_ref);
    return;
  }
  if (c->vacuous) { /* all zeros: as for a reference that is not finite, the inputs are the cause */
    emit(out, "the reference is 0 at all %zu elements, so the check shows only that the result is 0 too; try "
              "inputs that give non-zero values (--inputs=positive, --inputs=unit or another --seed)",
         c->count);
    return;
  }
  if (c->ok && c->count == 0) {
    buf_puts(out, "the result is empty, as the reference's: ok");
    return;
  }
  if (c->ok) {
    emit(out, "relative error %.3g (bound %.0e): ok", c->rel_error, c->bound);
    return;
  }
  emit(out, "relative error %.3g exceeds the bound %.0e; largest at element %lld: got %.9g, expected %.9g",
       c->rel_error, c->bound, (long long)c->worst, c->worst_out, c->worst_ref);
}
