/* test_util.c: tests of the block cache (dpia/util.h, BlockCache): the
 * large blocks one translation's arenas free are the next one's, so that
 * `dpia batch` does not page-fault them in again for every line; and of
 * the interner and name sets against lists kept by hand; and of the
 * integers the printers write (buf_put_int, emit's %d family) against the
 * C library's.
 *
 * Prints `util: P passed, F failed` and exits non-zero if anything failed. */
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

static void record_at(bool ok, int line, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "test_util.c:%d: FAILED: %s\n", line, what);
  }
}
#define CHECK(cond) record_at((cond), __LINE__, #cond)

enum { MIB = 1024 * 1024 };

static void test_reuse(void) {
  BlockCache c = {0};
  char *a = block_cache_alloc(&c, MIB);
  CHECK(a != NULL);
  memset(a, 1, MIB); /* usable for its whole size */
  block_cache_release(&c, a);
  CHECK(c.n == 1);
  CHECK(block_cache_alloc(&c, MIB) == a); /* the same block again */
  CHECK(c.n == 0);
  /* a smaller request of at least half the size takes it too */
  block_cache_release(&c, a);
  CHECK(block_cache_alloc(&c, MIB / 2 + 1) == a);
  block_cache_release(&c, a);
  /* but not one that would leave more than half of it unused */
  char *small = block_cache_alloc(&c, MIB / 4);
  CHECK(small != a && c.n == 1);
  /* nor a larger one */
  char *big = block_cache_alloc(&c, 2 * MIB);
  CHECK(big != a && big != NULL && c.n == 1);
  block_cache_release(&c, small);
  block_cache_release(&c, big);
  CHECK(c.n == 3);
  block_cache_free(&c);
  CHECK(c.n == 0);
}

static void test_small_and_limit(void) {
  BlockCache c = {0};
  /* small allocations are not kept */
  void *p = block_cache_alloc(&c, 100);
  CHECK(p != NULL);
  block_cache_release(&c, p);
  CHECK(c.n == 0);
  block_cache_release(&c, NULL);
  CHECK(c.n == 0);
  /* at most BLOCK_CACHE_MAX blocks kept; the rest are freed */
  void *blocks[BLOCK_CACHE_MAX + 4];
  for (int i = 0; i < BLOCK_CACHE_MAX + 4; i++) blocks[i] = block_cache_alloc(&c, BLOCK_CACHE_MIN_SIZE);
  for (int i = 0; i < BLOCK_CACHE_MAX + 4; i++) block_cache_release(&c, blocks[i]);
  CHECK(c.n == BLOCK_CACHE_MAX);
  block_cache_free(&c);
  CHECK(c.n == 0);
}

/* An arena over the cache: a second arena's first block is the first's,
 * zeroed where handed out (arena_alloc zeroes every object). */
static void test_arena(void) {
  BlockCache c = {0};
  DpiaMem mem = {block_cache_alloc, block_cache_release, &c, NULL};
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    CHECK(!"out of memory");
    return;
  }
  Arena a;
  arena_init(&a, &mem);
  char *first = arena_alloc(&a, 64);
  memset(first, 7, 64);
  arena_free(&a);
  CHECK(c.n == 1);
  arena_init(&a, &mem);
  char *again = arena_alloc(&a, 64);
  CHECK(again == first);
  bool zero = true;
  for (int i = 0; i < 64; i++) zero = zero && again[i] == 0;
  CHECK(zero);
  arena_free(&a);
  block_cache_free(&c);
}

/* nameset_add_once and nameset_remove_if_has against nameset_has followed
 * by nameset_add or nameset_remove (dead.c's marks), on a fixed
 * pseudo-random sequence over 40 names (the sets grow past 64 slots, and
 * names are added again after they are taken out) */
static void test_nameset_once(void) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    CHECK(!"out of memory");
    return;
  }
  Arena a;
  arena_init(&a, &mem);
  enum { NAMES = 40 };
  const char *names[NAMES];
  for (int i = 0; i < NAMES; i++) names[i] = arena_printf(&a, "v%d", i);
  NameSet once = {.arena = &a}, general = {.arena = &a};
  uint64_t x = 0x9E3779B97F4A7C15u;
  bool same = true;
  for (int step = 0; step < 4000; step++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    /* the same name, written again: equal text at another address */
    const char *name = x % 3 ? names[x % NAMES] : arena_printf(&a, "v%d", (int)(x % NAMES));
    if (x & 1024) {
      nameset_add_once(&once, name);
      if (!nameset_has(&general, name)) nameset_add(&general, name);
    } else {
      nameset_remove_if_has(&once, name);
      if (nameset_has(&general, name)) nameset_remove(&general, name);
    }
    for (int i = 0; i < NAMES; i++) same = same && nameset_has(&once, names[i]) == nameset_has(&general, names[i]);
  }
  CHECK(same);
  /* and the same table: a name put where nameset_add puts it, the table
   * grown when it grows (nameset_add_once hashes a new name once) */
  CHECK(once.used == general.used && once.cap == general.cap);
  bool layout = once.cap == general.cap;
  for (uint32_t i = 0; layout && i < once.cap; i++)
    layout = !once.slots[i].name == !general.slots[i].name &&
             (!once.slots[i].name || strcmp(once.slots[i].name, general.slots[i].name) == 0);
  CHECK(layout);
  arena_free(&a);
}

/* The interner against a list of distinct texts kept by hand: equal text
 * is the same name (also after the table grew), distinct text another,
 * each name's SymInfo (util.h) its length and the hash intern_hashed was
 * given; texts that share prefixes, differ in length only, or are empty. */
static void test_interner(void) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    CHECK(!"out of memory");
    return;
  }
  Arena a;
  arena_init(&a, &mem);
  Interner in;
  intern_init(&in, &a);
  enum { TEXTS = 3000 };
  static char texts[TEXTS][16];
  static Sym syms[TEXTS];
  int ntexts = 0;
  bool same = true, distinct = true, info = true;
  uint64_t x = 0x2545F4914F6CDD1Du;
  for (int step = 0; step < 20000; step++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    char text[16];
    size_t n = x % 7;
    for (size_t i = 0; i < n; i++) text[i] = "ab_1"[(x >> (8 + 2 * i)) & 3];
    text[n] = 0;
    int known = -1;
    for (int i = 0; i < ntexts; i++)
      if (strcmp(texts[i], text) == 0) known = i;
    /* an unterminated copy: intern reads n bytes only */
    char copy[16];
    memset(copy, 'z', sizeof copy);
    memcpy(copy, text, n);
    Sym s = step & 1 ? intern(&in, copy, n) : intern_cstr(&in, text);
    info = info && strcmp(s, text) == 0 && sym_info(s)->len == n;
    uint32_t h = INTERN_HASH_START;
    for (size_t i = 0; i < n; i++) h = intern_hash_step(h, (unsigned char)text[i]);
    info = info && sym_info(s)->hash == h;
    if (known >= 0) {
      same = same && syms[known] == s;
    } else if (ntexts < TEXTS) {
      for (int i = 0; i < ntexts; i++) distinct = distinct && syms[i] != s;
      strcpy(texts[ntexts], text);
      syms[ntexts++] = s;
    }
  }
  for (int i = 0; i < ntexts; i++) same = same && intern_cstr(&in, texts[i]) == syms[i];
  CHECK(same);
  CHECK(distinct);
  CHECK(info);
  CHECK(ntexts > 1000 && in.cap > 512); /* the table grew */
  arena_free(&a);
}

/* v as buf_put_int writes it (inline for a digit, two digits a division
 * otherwise), as emit's %lld, %d and %zu write it, and as snprintf does,
 * after text already in the buffer */
static bool integer_as_printf(Arena *a, long long v) {
  char want[32];
  snprintf(want, sizeof want, "%lld", v);
  Buf b;
  buf_init(&b, a);
  buf_puts(&b, "x=");
  buf_put_int(&b, v);
  bool ok = strcmp(b.data + 2, want) == 0 && b.len == 2 + strlen(want);
  buf_clear(&b);
  emit(&b, "%lld", v);
  ok = ok && strcmp(b.data, want) == 0;
  if (v >= INT_MIN && v <= INT_MAX) {
    buf_clear(&b);
    emit(&b, "%d", (int)v);
    ok = ok && strcmp(b.data, want) == 0;
  }
  if (v >= 0) {
    buf_clear(&b);
    emit(&b, "%zu", (size_t)v);
    ok = ok && strcmp(b.data, want) == 0;
  }
  if (!ok) fprintf(stderr, "test_util.c: %lld printed as '%s'\n", v, b.data);
  return ok;
}

static void test_integers(void) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  Arena a;
  arena_init(&a, &mem);
  bool all = true;
  /* every number of up to four digits, each power of ten and its
   * neighbours, the extremes */
  for (long long v = -10000; v <= 10000; v++) all &= integer_as_printf(&a, v);
  for (long long p = 10; p <= LLONG_MAX / 10; p *= 10)
    for (long long d = -1; d <= 1; d++) all &= integer_as_printf(&a, p + d) & integer_as_printf(&a, -p - d);
  all &= integer_as_printf(&a, LLONG_MAX) & integer_as_printf(&a, LLONG_MIN) & integer_as_printf(&a, LLONG_MIN + 1);
  all &= integer_as_printf(&a, INT_MAX) & integer_as_printf(&a, INT_MIN);
  CHECK(all);
  arena_free(&a);
}

int main(void) {
  test_interner();
  test_integers();
  test_nameset_once();
  test_reuse();
  test_small_and_limit();
  test_arena();
  printf("util: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
