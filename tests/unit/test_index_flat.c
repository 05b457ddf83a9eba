/* test_index_flat.c: the shortest-form check's integer search
 * (codegen/index_flat.c, factored through ix_flat_factored_lengths).
 *
 * That search keeps its answers per (terms, coefficients) within one
 * question and measures each gcd once per set of terms; both must leave
 * the answer as the plain recursion gives it.  The plain recursion is kept
 * here, as it was written before (reference_factored), and the two are
 * compared on tens of thousands of pseudo-random terms: coefficients made
 * of small primes' powers (so that pairs share gcds, nested groups and
 * repeated rests abound), some with a constant term, from a fixed-seed
 * PRNG held in a local struct.
 *
 * Prints `index_flat: P passed, F failed` and exits non-zero if anything
 * failed. */
#include "index_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { MAX_TERMS = 6 };

static int passed, failed;

static void record_at(bool ok, int line, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "test_index_flat.c:%d: FAILED: %s\n", line, what);
  }
}
#define CHECK(cond) record_at((cond), __LINE__, #cond)

typedef struct Terms {
  int n;
  size_t base[MAX_TERMS];
  bool atoms[MAX_TERMS];
} Terms;

/* ---- the reference: index_flat.c's factored before its memo ---- */

static size_t digits(int64_t v) {
  size_t n = 1;
  for (; v >= 10; v /= 10) n++;
  return n;
}

static size_t term_length(const Terms *f, int i, int64_t c) {
  if (!f->atoms[i]) return digits(c);
  return c == 1 ? f->base[i] : f->base[i] + 1 + digits(c);
}

static size_t flat_length(const Terms *f, const int64_t *c, unsigned mask) {
  size_t length = 0, parts = 0;
  for (int i = 0; i < f->n; i++) {
    if (!(mask & (1u << i))) continue;
    length += term_length(f, i, c[i]);
    parts++;
  }
  return length + 3 * (parts - 1);
}

static void reference_factored(const Terms *f, const int64_t *c, unsigned mask, size_t *single, size_t *sum);

static size_t reference_least(const Terms *f, const int64_t *c, unsigned mask) {
  size_t single, sum, flat = flat_length(f, c, mask);
  reference_factored(f, c, mask, &single, &sum);
  if (single < flat) flat = single;
  return sum < flat ? sum : flat;
}

static void reference_factored(const Terms *f, const int64_t *c, unsigned mask, size_t *single, size_t *sum) {
  *single = *sum = SIZE_MAX;
  for (int i = 0; i < f->n; i++) {
    for (int j = i + 1; j < f->n; j++) {
      if (!(mask & (1u << i)) || !(mask & (1u << j))) continue;
      int64_t g = poly_gcd(c[i], c[j]);
      if (g <= 1) continue;
      int64_t divided[MAX_TERMS];
      unsigned in = 0;
      for (int k = 0; k < f->n; k++) {
        divided[k] = c[k];
        if ((mask & (1u << k)) && c[k] % g == 0) divided[k] = c[k] / g, in |= 1u << k;
      }
      size_t inner_single, inner_sum, inner_flat = flat_length(f, divided, in) + 2;
      reference_factored(f, divided, in, &inner_single, &inner_sum);
      size_t operand = inner_sum == SIZE_MAX ? inner_flat : (inner_sum + 2 < inner_flat ? inner_sum + 2 : inner_flat);
      if (inner_single < operand) operand = inner_single;
      size_t group = operand + 1 + digits(g);
      unsigned rest = mask & ~in;
      if (!rest) {
        if (group < *single) *single = group;
      } else {
        size_t with_rest = reference_least(f, c, rest) + 3 + group;
        if (with_rest < *sum) *sum = with_rest;
      }
    }
  }
}

/* ---- pseudo-random terms ---- */

typedef struct Rng {
  uint64_t state;
} Rng;

static uint64_t next(Rng *r) { /* splitmix64 */
  uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static int below(Rng *r, int n) { return (int)(next(r) % (uint64_t)n); }

/* a coefficient of 2^a 3^b 5^c 7^d (sometimes times a larger prime), at
 * most a few million: shared factors in most pairs */
static int64_t coefficient(Rng *r) {
  static const int64_t primes[] = {2, 3, 5, 7};
  static const int most[] = {12, 5, 3, 2};
  int64_t c = 1;
  for (int p = 0; p < 4; p++)
    for (int e = below(r, most[p] + 1); e > 0; e--) c *= primes[p];
  if (below(r, 8) == 0) c *= 11;
  if (below(r, 16) == 0) c *= 101;
  return c;
}

static void random_terms(Rng *r, Terms *f, int64_t *c) {
  f->n = 2 + below(r, MAX_TERMS - 1);
  bool constant_last = below(r, 2) == 0;
  for (int i = 0; i < f->n; i++) {
    f->atoms[i] = !(constant_last && i == f->n - 1);
    f->base[i] = f->atoms[i] ? (size_t)(1 + below(r, 14)) : 1;
    c[i] = below(r, 6) == 0 ? 1 + below(r, 40) : coefficient(r);
  }
}

static void test_against_reference(void) {
  Rng rng = {0x1dc0ffee};
  int wrong = 0, grouped = 0, shorter = 0;
  const int sets = 40000;
  for (int s = 0; s < sets; s++) {
    Terms f;
    int64_t c[MAX_TERMS];
    random_terms(&rng, &f, c);
    size_t single, sum, want_single, want_sum;
    ix_flat_factored_lengths(f.n, f.base, f.atoms, c, &single, &sum);
    reference_factored(&f, c, (1u << f.n) - 1, &want_single, &want_sum);
    if ((single != want_single || sum != want_sum) && wrong++ < 10) {
      fprintf(stderr, "test_index_flat.c: n=%d c=", f.n);
      for (int i = 0; i < f.n; i++) fprintf(stderr, "%s%" PRId64 "%s", i ? "," : "", c[i], f.atoms[i] ? "" : "(k)");
      fprintf(stderr, ": single %zu sum %zu, the plain recursion %zu and %zu\n", single, sum, want_single, want_sum);
    }
    grouped += want_single != SIZE_MAX || want_sum != SIZE_MAX;
    size_t flat = flat_length(&f, c, (1u << f.n) - 1);
    shorter += want_single < flat || want_sum < flat;
  }
  record_at(wrong == 0, __LINE__, "factored with its memo answers as the plain recursion (see above)");
  /* not vacuous: most sets have groups, and a share of them win */
  CHECK(grouped > sets / 2);
  CHECK(shorter > sets / 20 && shorter < grouped);
  printf("index_flat: %d sets, %d with groups, %d with one shorter than the flat sum\n", sets, grouped, shorter);
}

int main(void) {
  test_against_reference();
  printf("index_flat: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
