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
 * Also the index trees' side (moved from test_index.c): a flat sum read
 * once against ix_is_flat_and_shortest at every constant, equal constant
 * keys giving equal answers, and build's replay of the search against the
 * search (ix_build_form).
 *
 * Prints `index_flat: P passed, F failed` and exits non-zero if anything
 * failed. */
#include "index.h"
#include "index_int.h"

#include <inttypes.h>
#include <setjmp.h>
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

/* ---- index trees: the sum read once, the constant's key, the replay ----
 * (ix_flat_sum_read, ix_flat_constant_key, ix_flat_search_choice through
 * ix_build_form), moved here from test_index.c with their own PRNG, a
 * xorshift, so that their sums are the ones they were */

typedef struct Trees {
  Arena *arena;
  Interner *names;
} Trees;

static const char *print(Trees *t, const Ix *e) {
  Buf b;
  buf_init(&b, t->arena);
  ix_print(&b, e, NULL);
  return b.data;
}

typedef struct Xorshift {
  uint64_t state;
} Xorshift;

static int xorshift_below(Xorshift *r, int n) {
  r->state ^= r->state << 13;
  r->state ^= r->state >> 7;
  r->state ^= r->state << 17;
  return (int)(r->state % (uint64_t)n);
}

/* ix_flat_constant_key as it was written before the pairs' gcds were read
 * with the sum (IxFlatSum.pair) and each gcd(c[i], k) taken once: every
 * gcd asked afresh, the key it must equal */
static bool reference_constant_key(const IxFlatSum *sum, int64_t k, IxFlatConstantKey *key) {
  int n = sum->n;
  const int64_t *c = sum->c;
  if (n < 0 || n >= 6 || k < 0 || (n >= 2 && !sum->apart)) return false;
  for (int i = 0; i < n; i++)
    if (c[i] <= 0) return false;
  memset(key, 0, sizeof *key);
  int v = 0;
  key->v[v++] = n;
  bool apart_from_k = k > 0;
  for (int i = 0; i < n && apart_from_k; i++) apart_from_k = poly_gcd(c[i], k) == 1;
  if (apart_from_k) {
    key->v[v++] = -1;
    return true;
  }
  key->v[v++] = k == 0 ? 0 : (int64_t)digits(k);
  for (int i = 0; i < n && k > 0; i++) {
    int64_t g = poly_gcd(c[i], k);
    key->v[v++] = g;
    key->v[v++] = (int64_t)digits(k / g);
    for (int j = i + 1; j < n; j++) {
      int64_t pair = poly_gcd(c[i], c[j]);
      key->v[v++] = k % pair == 0 ? (int64_t)digits(k / pair) : 0;
    }
  }
  return true;
}

/* ix_flat_sum_shortest and ix_flat_constant_key: one flat sum s with a
 * constant k, k the step of an unrolled loop (codegen/unroll_step.c reads
 * s once, and takes the answer of the first constant of a key for every
 * other).  For many s whose coefficients share factors, so that groups
 * with the constant win at some constants and not at others, the sum read
 * once must answer as ix_is_flat_and_shortest(s + k), and every constant
 * of a key seen before must have that constant's answer. */
static void test_flat_constant_key(Trees *t) {
  static const int64_t coefficients[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 30, 32, 48, 64, 100, 128, 512, 1000, 4096};
  static const char *const names[] = {"wg", "lid", "i", "j", "gid"};
  enum { SUMS = 400, CONSTANTS = 260 };
  Xorshift rng = {0x2545f4914f6cdd1du};
  IxCtx ix;
  ix_init(&ix, t->arena);
  int shared = 0, wrong = 0, shortest = 0, not_shortest = 0, aparts = 0;
  for (int n = 0; n < SUMS; n++) {
    int terms = (int)xorshift_below(&rng, 5) + (n < 10 ? 0 : 1);
    const Ix *s = NULL;
    for (int i = 0; i < terms; i++) {
      const Ix *term = ix_var(&ix, intern_cstr(t->names, names[i]));
      /* now and then a product of two variables, a longer term (N in two
       * terms: a sum whose variables are not apart) */
      if (xorshift_below(&rng, 4) == 0) term = ix_mul(&ix, term, ix_var(&ix, intern_cstr(t->names, "N")));
      int64_t c = coefficients[xorshift_below(&rng, (int)DPIA_COUNTOF(coefficients))];
      term = ix_mul(&ix, term, ix_const(&ix, c));
      s = s ? ix_add(&ix, s, term) : term;
    }
    IxFlatSum read;
    ix_flat_sum_read(s, &read);
    if (read.n < 0) continue;
    IxFlatConstantKey *keys = NEWARRAY(t->arena, IxFlatConstantKey, CONSTANTS);
    bool *answers = NEWARRAY(t->arena, bool, CONSTANTS);
    int nkeys = 0;
    for (int m = 0; m < CONSTANTS; m++) {
      int64_t k = m < 200 ? m : (int64_t)xorshift_below(&rng, 100000);
      const Ix *made = !s ? ix_const(&ix, k) : k ? ix_add(&ix, s, ix_const(&ix, k)) : s;
      bool answer = ix_is_flat_and_shortest(made);
      /* the sum read once answers as the sum made */
      if (ix_flat_sum_shortest(&read, k) != answer && wrong++ < 10)
        fprintf(stderr, "test_index_flat.c: %s + %lld: shortest %d, read once %d\n", s ? print(t, s) : "0", (long long)k,
                answer, !answer);
      IxFlatConstantKey key, reference;
      bool keyed = ix_flat_constant_key(&read, k, &key);
      /* apart exactly where the key says so (unroll_step.c asks it first) */
      bool apart = keyed && key.v[1] == -1;
      if (ix_flat_constant_apart(&read, k) != apart && wrong++ < 10)
        fprintf(stderr, "test_index_flat.c: %s + %lld: apart %d, the key's %d\n", s ? print(t, s) : "0", (long long)k,
                !apart, apart);
      aparts += apart;
      if ((keyed != reference_constant_key(&read, k, &reference) || (keyed && memcmp(&key, &reference, sizeof key) != 0)) &&
          wrong++ < 10)
        fprintf(stderr, "test_index_flat.c: %s + %lld: a key not the reference's\n", s ? print(t, s) : "0", (long long)k);
      if (!keyed) continue;
      int seen = -1;
      for (int q = 0; q < nkeys && seen < 0; q++)
        if (memcmp(&keys[q], &key, sizeof key) == 0) seen = q;
      if (seen < 0) {
        keys[nkeys] = key;
        answers[nkeys++] = answer;
        continue;
      }
      shared++;
      answer ? shortest++ : not_shortest++;
      if (answers[seen] != answer && wrong++ < 10)
        fprintf(stderr, "test_index_flat.c: %s + %lld: shortest %d, another constant of its key %d\n",
                s ? print(t, s) : "0", (long long)k, answer, answers[seen]);
    }
  }
  record_at(wrong == 0, __LINE__, "the sum read once and a constant's key tell ix_is_flat_and_shortest's answer (see above)");
  /* not vacuous: keys shared, with answers of both kinds */
  CHECK(shared > SUMS * CONSTANTS / 2);
  CHECK(shortest > 1000 && not_shortest > 1000 && aparts > 1000);
  printf("index_flat: flat constant keys: %d constants answered by a key seen before (%d shortest, %d not), %d apart\n",
         shared, shortest, not_shortest, aparts);
}

/* ix_flat_constant_profile: a constant's answer told by another's of its
 * profile (ix_flat_profile_tells: a yes at as many digits or more, a no at
 * as many or fewer), as codegen/unroll_step.c takes it for the steps of a
 * loop, must be ix_is_flat_and_shortest's; many constants told, with
 * answers of both kinds, and some of them at another number of digits
 * than the constant that tells them */
static void test_flat_constant_profile(Trees *t) {
  static const int64_t coefficients[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 30, 32, 48, 64, 100, 128, 512, 1000, 4096};
  static const char *const names[] = {"wg", "lid", "i", "j", "gid"};
  enum { SUMS = 400, CONSTANTS = 260 };
  Xorshift rng = {0x9e3779b97f4a7c15u};
  IxCtx ix;
  ix_init(&ix, t->arena);
  int told = 0, across = 0, wrong = 0, yes = 0, no = 0;
  for (int n = 0; n < SUMS; n++) {
    int terms = (int)xorshift_below(&rng, 5) + 1;
    const Ix *s = NULL;
    for (int i = 0; i < terms; i++) {
      const Ix *term = ix_var(&ix, intern_cstr(t->names, names[i]));
      if (xorshift_below(&rng, 4) == 0) term = ix_mul(&ix, term, ix_var(&ix, intern_cstr(t->names, "N")));
      int64_t c = coefficients[xorshift_below(&rng, (int)DPIA_COUNTOF(coefficients))];
      s = s ? ix_add(&ix, s, ix_mul(&ix, term, ix_const(&ix, c))) : ix_mul(&ix, term, ix_const(&ix, c));
    }
    IxFlatSum read;
    ix_flat_sum_read(s, &read);
    if (read.n < 0) continue;
    IxFlatConstantKey *profiles = NEWARRAY(t->arena, IxFlatConstantKey, CONSTANTS);
    int *digits = NEWARRAY(t->arena, int, CONSTANTS);
    bool *answers = NEWARRAY(t->arena, bool, CONSTANTS);
    int nprofiles = 0;
    for (int m = 0; m < CONSTANTS; m++) {
      /* the larger constants first, as the steps are asked */
      int64_t k = m < 200 ? 200 - m : (int64_t)xorshift_below(&rng, 100000) + 1;
      bool answer = ix_is_flat_and_shortest(ix_add(&ix, s, ix_const(&ix, k)));
      IxFlatConstantKey profile;
      int kdigits;
      if (!ix_flat_constant_profile(&read, k, &profile, &kdigits)) continue;
      /* every answer kept that tells this one (kept once per profile,
       * digits and answer) */
      bool kept = false;
      for (int q = 0; q < nprofiles; q++) {
        if (memcmp(&profiles[q], &profile, sizeof profile) != 0) continue;
        kept = kept || (digits[q] == kdigits && answers[q] == answer);
        if (!ix_flat_profile_tells(answers[q], digits[q], kdigits)) continue;
        told++;
        across += digits[q] != kdigits;
        answer ? yes++ : no++;
        if (answers[q] != answer && wrong++ < 10)
          fprintf(stderr, "test_index_flat.c: %s + %lld: shortest %d, told %d by a constant of %d digits\n",
                  print(t, s), (long long)k, answer, answers[q], digits[q]);
      }
      if (kept) continue;
      profiles[nprofiles] = profile;
      digits[nprofiles] = kdigits;
      answers[nprofiles++] = answer;
    }
  }
  record_at(wrong == 0, __LINE__, "a constant's profile tells ix_is_flat_and_shortest's answer (see above)");
  CHECK(told > 10000 && across > 1000 && yes > 1000 && no > 1000);
  printf("index_flat: flat constant profiles: %d answers told (%d at other digits; %d shortest, %d not)\n", told,
         across, yes, no);
}

/* build's replay of its search on integers (index_flat.c,
 * ix_flat_search_choice) against the search itself (ix_build_form with
 * its shortcuts off): the same node, for the bench's grouped offsets
 * (wg*G + lid)*C + i*V + k and thousands of random sums of two to six
 * terms whose coefficients share factors, so that factorings, nested
 * ones and the flat sum all win, with products and shared variables now
 * and then (terms the replay leaves to the search) */
static void test_search_replay(Trees *t) {
  static const int64_t coefficients[] = {1, 2, 3, 4, 6, 8, 10, 12, 15, 16, 30, 32, 64, 100, 128, 256, 1000, 1024, 4096, 131072};
  static const char *const names[] = {"wg", "lid", "i", "j", "gid", "l"};
  IxCtx ix;
  ix_init(&ix, t->arena);
  const Ix *wg = ix_var(&ix, intern_cstr(t->names, "wg")), *lid = ix_var(&ix, intern_cstr(t->names, "lid"));
  const Ix *i = ix_var(&ix, intern_cstr(t->names, "i"));
  int wrong = 0, sums = 0, grouped = 0;
  Xorshift rng = {0x9e3779b97f4a7c15u};
  enum { RANDOM = 6000, SMOOTH = 3000 };
  for (int n = 0; n < RANDOM + SMOOTH + 5 * 8 * 5 * 3; n++) {
    const Ix *e = NULL;
    if (n >= RANDOM && n < RANDOM + SMOOTH) {
      /* six terms, coefficients of 2, 3, 5 and 7 squared at most
       * ([140, 6300, 22050, 441, 2450, 294]): so many common factors that
       * the search runs out of its budget on some, where it keeps what it had */
      for (int k = 0; k < 6; k++) {
        int64_t c = 1;
        for (int q = 0; q < 4; q++)
          for (int m = xorshift_below(&rng, 4); m > 0; m--) c *= (int64_t[]){2, 3, 5, 7}[q];
        const Ix *term = ix_mul(&ix, ix_var(&ix, intern_cstr(t->names, names[k])), ix_const(&ix, c));
        e = e ? ix_add(&ix, e, term) : term;
      }
    } else if (n >= RANDOM) { /* the bench's offsets: work-group 32..512, chunk 16..2048, vector 1..16, lane 0..2 */
      int m = n - RANDOM - SMOOTH;
      int64_t group = 32 << (m % 5), chunk = 16 << (m / 5 % 8), width = 1 << (m / 40 % 5);
      const Ix *row = ix_add(&ix, ix_mul(&ix, wg, ix_const(&ix, group)), lid);
      e = ix_add(&ix, ix_mul(&ix, row, ix_const(&ix, chunk)), ix_mul(&ix, i, ix_const(&ix, width)));
      if (m / 200) e = ix_add(&ix, e, ix_const(&ix, m / 200));
    } else {
      int terms = xorshift_below(&rng, 5) + 2;
      for (int k = 0; k < terms; k++) {
        const Ix *term = ix_var(&ix, intern_cstr(t->names, names[k]));
        if (xorshift_below(&rng, 12) == 0) term = ix_mul(&ix, term, ix_var(&ix, intern_cstr(t->names, "N")));
        if (xorshift_below(&rng, 30) == 0) term = ix_var(&ix, intern_cstr(t->names, names[0]));
        int64_t c = coefficients[xorshift_below(&rng, (int)DPIA_COUNTOF(coefficients))];
        if (xorshift_below(&rng, 3) == 0) c *= coefficients[xorshift_below(&rng, 10)];
        term = k == terms - 1 && xorshift_below(&rng, 3) == 0 ? ix_const(&ix, c) : ix_mul(&ix, term, ix_const(&ix, c));
        e = e ? ix_add(&ix, e, term) : term;
      }
    }
    const Ix *replayed = ix_build_form(&ix, e, true), *searched = ix_build_form(&ix, e, false);
    sums++;
    grouped += strchr(print(t, searched), '(') != NULL;
    if (!ix_equal(replayed, searched) && wrong++ < 10)
      fprintf(stderr, "test_index_flat.c: %s: replayed `%s`, searched `%s`\n", print(t, e), print(t, replayed),
              print(t, searched));
  }
  record_at(wrong == 0, __LINE__, "the replayed search builds the search's form (see above)");
  CHECK(grouped > sums / 3 && grouped < sums - sums / 10); /* not vacuous: groups and flat sums */
  printf("index_flat: search replay: %d sums, %d grouped\n", sums, grouped);
}

/* a vector's offset (ix_exact_quotient) with the element index's terms
 * read once (index_flat.c, ix_flat_quotient_choice: p's flat length and
 * the replay of the quotient's search on p's coefficients over k) against
 * the same computed the long way (the flat sum's parts measured, the
 * quotient's form by the search itself): the same answer, the same node
 * or none, for thousands of random multiples of k of two to six terms
 * whose coefficients share factors (so that the quotient's form is
 * grouped or flat, shorter than the inner form or not), and the bench's
 * offsets (wg*G + lid)*C + i*V + c times k */
static void test_quotient_read_once(Trees *t) {
  static const int64_t coefficients[] = {1, 2, 3, 4, 6, 8, 10, 12, 15, 16, 30, 32, 64, 100, 128, 256, 1000, 1024, 4096};
  static const int64_t widths[] = {2, 3, 4, 8, 16};
  static const char *const names[] = {"wg", "lid", "i", "j", "gid", "l"};
  IxCtx ix;
  ix_init(&ix, t->arena);
  const Ix *wg = ix_var(&ix, intern_cstr(t->names, "wg")), *lid = ix_var(&ix, intern_cstr(t->names, "lid"));
  const Ix *i = ix_var(&ix, intern_cstr(t->names, "i"));
  int wrong = 0, answered = 0, grouped = 0, declined = 0;
  Xorshift rng = {0x853c49e6748fea9bu};
  enum { RANDOM = 8000, BENCH = 5 * 8 * 5 * 3 };
  for (int n = 0; n < RANDOM + BENCH; n++) {
    int64_t k = widths[xorshift_below(&rng, (int)DPIA_COUNTOF(widths))];
    const Ix *e = NULL;
    if (n >= RANDOM) {
      int m = n - RANDOM;
      int64_t group = 32 << (m % 5), chunk = 16 << (m / 5 % 8), width = 1 << (m / 40 % 5);
      const Ix *row = ix_add(&ix, ix_mul(&ix, wg, ix_const(&ix, group)), lid);
      e = ix_add(&ix, ix_mul(&ix, row, ix_const(&ix, chunk)), ix_mul(&ix, i, ix_const(&ix, width)));
      if (m / 200) e = ix_add(&ix, e, ix_const(&ix, m / 200));
    } else {
      int terms = xorshift_below(&rng, 5) + 2;
      for (int q = 0; q < terms; q++) {
        const Ix *term = ix_var(&ix, intern_cstr(t->names, names[q]));
        if (xorshift_below(&rng, 12) == 0) term = ix_mul(&ix, term, ix_var(&ix, intern_cstr(t->names, "N")));
        if (xorshift_below(&rng, 30) == 0) term = ix_var(&ix, intern_cstr(t->names, names[0]));
        int64_t c = coefficients[xorshift_below(&rng, (int)DPIA_COUNTOF(coefficients))];
        if (xorshift_below(&rng, 3) == 0) c *= coefficients[xorshift_below(&rng, 10)];
        term = q == terms - 1 && xorshift_below(&rng, 3) == 0 ? ix_const(&ix, c) : ix_mul(&ix, term, ix_const(&ix, c));
        e = e ? ix_add(&ix, e, term) : term;
      }
    }
    const Ix *at = ix_mul(&ix, e, ix_const(&ix, k));
    const Ix *read_once = ix_exact_quotient_form(&ix, at, k, true), *long_way = ix_exact_quotient_form(&ix, at, k, false);
    bool same = read_once && long_way ? ix_equal(read_once, long_way) : read_once == long_way;
    if (!same && wrong++ < 10)
      fprintf(stderr, "test_index_flat.c: %s in vectors of %lld: read once `%s`, the long way `%s`\n", print(t, at),
              (long long)k, read_once ? print(t, read_once) : "(none)", long_way ? print(t, long_way) : "(none)");
    if (!long_way) {
      declined++;
      continue;
    }
    answered++;
    grouped += strchr(print(t, long_way), '(') != NULL;
  }
  record_at(wrong == 0, __LINE__, "the offset with the index read once is the long way's (see above)");
  /* not vacuous: offsets answered, grouped and flat, and some declined */
  CHECK(answered > RANDOM / 3 && grouped > 100 && grouped < answered - answered / 10 && declined > 0);
  printf("index_flat: vector offsets read once: %d answered (%d grouped), %d declined\n", answered, grouped, declined);
}

/* a vector's offset where its element index is q*k, q a flat sum of
 * build's form (index_flat.c, ix_flat_product_quotient: q's terms added
 * left to right, told from the nodes) against the long way (the element
 * index's polynomial divided by k and its form searched:
 * ix_exact_quotient_form without shortcuts): the same node wherever it
 * answers, and the shortcut path as a whole (ix_exact_quotient_form with
 * them) the long way's answer everywhere.  The sums: two to six terms,
 * variables times coefficients that share factors (so that a factoring of
 * q is shorter about as often as not) and a constant last or none, in
 * decreasing order of their coefficients (build's, where no two are
 * equal) or in random order, nested left (assemble's), right (a split's
 * i*n + j of the inner i*n + j: wg*4096 + (lid*64 + i)) or at random, with
 * ranges pushed for some variables (the atoms' order, which no tie of
 * coefficients leaves to decide here) */
static const Ix *nested_sum(IxCtx *ix, const Ix *const *terms, int n, int how, Xorshift *rng) {
  if (n == 1) return terms[0];
  int left = how == 0 ? n - 1 : how == 1 ? 1 : 1 + xorshift_below(rng, n - 1);
  return ix_add(ix, nested_sum(ix, terms, left, how, rng), nested_sum(ix, terms + left, n - left, how, rng));
}

static void test_product_quotient(Trees *t) {
  static const int64_t coefficients[] = {1, 2, 3, 4, 6, 8, 12, 16, 30, 32, 64, 100, 512, 1000, 1024, 4096, 65536};
  static const int64_t widths[] = {2, 3, 4, 8, 16};
  static const char *const names[] = {"wg", "lid", "i", "j", "gid", "$step"};
  int wrong = 0, answered = 0, grouped = 0, declined = 0, rebuilt = 0;
  Xorshift rng = {0x9e3779b97f4a7c15u};
  enum { SUMS = 12000 };
  for (int m = 0; m < SUMS; m++) {
    IxCtx ix;
    ix_init(&ix, t->arena);
    int n = xorshift_below(&rng, 5) + 2;
    bool constant = xorshift_below(&rng, 3) == 0;
    int64_t c[MAX_TERMS];
    for (int q = 0; q < n; q++) {
      c[q] = coefficients[xorshift_below(&rng, (int)DPIA_COUNTOF(coefficients))];
      if (xorshift_below(&rng, 4) == 0) c[q] *= coefficients[xorshift_below(&rng, 8)];
    }
    int atoms = constant ? n - 1 : n;
    if (xorshift_below(&rng, 4) != 0) /* build's order: decreasing coefficients */
      for (int a = 1; a < atoms; a++)
        for (int b = a; b > 0 && c[b] > c[b - 1]; b--) {
          int64_t swap = c[b];
          c[b] = c[b - 1], c[b - 1] = swap;
        }
    const Ix *terms[MAX_TERMS];
    int first_name = xorshift_below(&rng, 2);
    for (int q = 0; q < n; q++) {
      if (q == atoms) {
        terms[q] = ix_const(&ix, c[q]);
        continue;
      }
      int name = q > 0 && xorshift_below(&rng, 16) == 0 ? first_name : (first_name + q) % (int)DPIA_COUNTOF(names);
      const Ix *v = ix_var(&ix, intern_cstr(t->names, names[name])); /* now and then a variable of two terms */
      terms[q] = ix_mul(&ix, v, ix_const(&ix, c[q]));
      if (xorshift_below(&rng, 3) == 0) ix_push_range(&ix, v, NULL, ix_const(&ix, 1 + xorshift_below(&rng, 100)));
    }
    const Ix *q = nested_sum(&ix, terms, n, xorshift_below(&rng, 3), &rng);
    int64_t k = widths[xorshift_below(&rng, (int)DPIA_COUNTOF(widths))];
    const Ix *at = ix_mul(&ix, q, ix_const(&ix, k));
    const Ix *told = ix_flat_product_quotient(&ix, at, k), *long_way = ix_exact_quotient_form(&ix, at, k, false);
    const Ix *shortcuts = ix_exact_quotient_form(&ix, at, k, true);
    bool same = told ? long_way && ix_equal(told, long_way) : true;
    same &= shortcuts && long_way ? ix_equal(shortcuts, long_way) : shortcuts == long_way;
    if (!same && wrong++ < 10)
      fprintf(stderr, "test_index_flat.c: %s in vectors of %lld: told `%s`, with shortcuts `%s`, the long way `%s`\n",
              print(t, at), (long long)k, told ? print(t, told) : "(none)", shortcuts ? print(t, shortcuts) : "(none)",
              long_way ? print(t, long_way) : "(none)");
    if (told) {
      answered++;
      rebuilt += told != q;
    } else {
      declined++;
      grouped += long_way && strchr(print(t, long_way), '(') != NULL;
    }
  }
  record_at(wrong == 0, __LINE__, "the offset told from q*k's nodes is the long way's (see above)");
  /* not vacuous: answered, some of them nested otherwise than build's
   * sum; declined, some where the long way groups */
  CHECK(answered > SUMS / 8 && rebuilt > answered / 10 && declined > SUMS / 4 && grouped > 100);
  printf("index_flat: offsets of q*k told: %d (%d added again), %d declined (%d grouped)\n", answered, rebuilt,
         declined, grouped);
}

/* a flat sum read once in build's order (IxFlatSum.ordered) plus a
 * constant k where ix_flat_sum_shortest tells no factoring shorter: what
 * ix_simplify gives for the same polynomial however written as a flat sum
 * (its terms in any order and nesting, k split into two constants
 * anywhere among them), node for node, under ranges pushed or not: an
 * unrolled step's index, whose check against ix_simplify at step 1
 * (codegen/unroll_step.c) is spared where this holds.  The sums: one to
 * five variables times coefficients that share factors, in decreasing
 * order or not, now and then a coefficient before its variable or a
 * variable of two terms (neither ordered) */
static const Ix *written_sum(IxCtx *ix, const Ix *const *terms, int n, int64_t k, Xorshift *rng) {
  const Ix *parts[MAX_TERMS + 2];
  int np = 0;
  for (int i = 0; i < n; i++) parts[np++] = terms[i];
  int64_t split = k > 1 ? xorshift_below(rng, (int)(k < 1000 ? k : 1000)) : 0;
  parts[np++] = ix_const(ix, k - split);
  if (split) parts[np++] = ix_const(ix, split);
  for (int i = np - 1; i > 0; i--) { /* shuffled */
    int j = xorshift_below(rng, i + 1);
    const Ix *swap = parts[i];
    parts[i] = parts[j], parts[j] = swap;
  }
  const Ix *sum = parts[0];
  for (int i = 1; i < np; i++) sum = xorshift_below(rng, 2) ? ix_add(ix, sum, parts[i]) : ix_add(ix, parts[i], sum);
  return sum;
}

static void test_ordered_sum(Trees *t) {
  static const int64_t coefficients[] = {1, 2, 3, 4, 6, 8, 12, 16, 32, 48, 64, 100, 512, 1000, 4096};
  static const char *const names[] = {"wg", "lid", "i", "j", "gid"};
  int wrong = 0, told = 0, longer = 0, unordered = 0, by_nodes = 0;
  Xorshift rng = {0xd1b54a32d192ed03u};
  for (int m = 0; m < 3000; m++) {
    /* ix: the simplifier with its shortcuts; general: without
     * (IxCtx.general_polys), under the same ranges */
    IxCtx ix, general;
    ix_init(&ix, t->arena);
    ix_init(&general, t->arena);
    general.general_polys = true;
    int n = xorshift_below(&rng, 5) + 1;
    int64_t c[MAX_TERMS];
    for (int q = 0; q < n; q++) c[q] = coefficients[xorshift_below(&rng, (int)DPIA_COUNTOF(coefficients))];
    if (xorshift_below(&rng, 3) != 0)
      for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && c[b] > c[b - 1]; b--) {
          int64_t swap = c[b];
          c[b] = c[b - 1], c[b - 1] = swap;
        }
    const Ix *terms[MAX_TERMS], *s = NULL;
    for (int q = 0; q < n; q++) {
      int name = q > 0 && xorshift_below(&rng, 20) == 0 ? 0 : q;
      const Ix *v = ix_var(&ix, intern_cstr(t->names, names[name]));
      terms[q] = xorshift_below(&rng, 20) == 0 ? ix_mul(&ix, ix_const(&ix, c[q]), v) : ix_mul(&ix, v, ix_const(&ix, c[q]));
      if (xorshift_below(&rng, 3) == 0) {
        const Ix *hi = ix_const(&ix, 1 + xorshift_below(&rng, 64));
        ix_push_range(&ix, v, NULL, hi);
        ix_push_range(&general, v, NULL, hi);
      }
      s = s ? ix_add(&ix, s, terms[q]) : terms[q];
    }
    IxFlatSum read;
    ix_flat_sum_read(s, &read);
    unordered += !read.ordered;
    for (int64_t k = 1; k <= 48; k += 1 + xorshift_below(&rng, 4)) {
      const Ix *written = written_sum(&ix, terms, n, k, &rng), *simplified = ix_simplify(&ix, written);
      /* the shortcuts' form is the general way's, node for node */
      const Ix *long_way = ix_simplify(&general, written);
      by_nodes += ix_flat_sum_form(&ix, written) != NULL;
      if (!ix_equal(simplified, long_way) && wrong++ < 10)
        fprintf(stderr, "test_index_flat.c: `%s` simplifies to `%s`, the general way to `%s`\n", print(t, written),
                print(t, simplified), print(t, long_way));
      if (!read.ordered) continue;
      if (!ix_flat_sum_shortest(&read, k)) {
        longer++;
        continue;
      }
      told++;
      const Ix *made = ix_add(&ix, s, ix_const(&ix, k));
      if (!ix_equal(long_way, made) && wrong++ < 10)
        fprintf(stderr, "test_index_flat.c: %s + %lld read in build's order, but `%s` simplifies to `%s`\n", print(t, s),
                (long long)k, print(t, written), print(t, long_way));
    }
  }
  record_at(wrong == 0, __LINE__, "a sum read in build's order plus a constant is ix_simplify's form (see above)");
  CHECK(told > 10000 && longer > 100 && unordered > 300 && by_nodes > 1000); /* not vacuous */
  printf("index_flat: sums in build's order: %d told, %d with a shorter form, %d sums not in order; %d simplified "
         "from their nodes\n",
         told, longer, unordered, by_nodes);
}

int main(void) {
  test_against_reference();
  DpiaMem mem;
  jmp_buf on_oom;
  dpia_mem_default(&mem);
  mem.on_oom = &on_oom;
  if (setjmp(on_oom) != 0) {
    fprintf(stderr, "index_flat: out of memory\n");
    return 1;
  }
  Arena arena;
  arena_init(&arena, &mem);
  Interner names;
  intern_init(&names, &arena);
  Trees trees = {&arena, &names};
  test_flat_constant_key(&trees);
  test_flat_constant_profile(&trees);
  test_search_replay(&trees);
  test_quotient_read_once(&trees);
  test_product_quotient(&trees);
  test_ordered_sum(&trees);
  arena_free(&arena);
  printf("index_flat: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
