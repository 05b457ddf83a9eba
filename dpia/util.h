/* util.h: memory, growable text buffers and interned identifiers.
 *
 * Every allocation of a translation goes through one DpiaMem (so tests can
 * swap in an allocator that fails after n calls) into one Arena, freed all at
 * once.  Running out of memory longjmps to the handler installed by the
 * driver (dpia_ctx_run): callers never check for NULL.  Nothing here is
 * global: two threads with two contexts never share state. */
#ifndef DPIA_UTIL_H
#define DPIA_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__GNUC__)
#define DPIA_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define DPIA_NORETURN __attribute__((noreturn))
/* a function kept out of its callers: the rarer paths of a hot one, so
 * that the hot path's registers need not be saved on every call */
#define DPIA_NOINLINE __attribute__((noinline))
/* a small function put into each caller (one called for every node of a
 * parse, where the call costs as much as its body) */
#define DPIA_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define DPIA_PRINTF(f, a)
#define DPIA_NORETURN
#define DPIA_NOINLINE
#define DPIA_ALWAYS_INLINE inline
#endif

#define DPIA_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

/* Scanning text many bytes at a time (JSON escaping and unescaping, batch
 * requests and answers): the tests of "Bit Twiddling Hacks" (haszero,
 * hasless) set bit 7 of every byte that matches and may set it wrongly only
 * in bytes after the first match (a borrow starts at a match), so the
 * first byte marked is exactly the first match.  The index, in memory
 * order, of the first byte whose bit 7 is set in marks (nonzero) of the
 * word read from those 8 bytes by memcpy. */
static inline unsigned first_marked_byte(uint64_t marks) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return (unsigned)__builtin_ctzll(marks) / 8;
#elif defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return (unsigned)__builtin_clzll(marks) / 8;
#else
  unsigned char bytes[8];
  memcpy(bytes, &marks, sizeof bytes);
  unsigned i = 0;
  while (!(bytes[i] & 0x80)) i++;
  return i;
#endif
}

/* The bytes of w that end a run a JSON string holds as it is, bit 7 of
 * each set, exact up to the first: below 0x20, '"', '\\', and with
 * high_stops 0x80 and above (the decoder checks UTF-8 a sequence at a
 * time). */
static inline uint64_t json_stops_in8(uint64_t w, bool high_stops) {
  const uint64_t ones = 0x0101010101010101u;
  uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
  uint64_t t = ((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash);
  return (high_stops ? t | w : t) & ones * 0x80;
}

/* How many bytes of s[0, n) come before the first json_stops_in8 stops
 * at: 16 bytes at a time where SSE2 is (x86-64 always), then 8, then 1
 * (translation throughput: a batch request is mostly a program's text, an
 * answer a kernel's, issue 35). */
static inline size_t json_plain_run(const char *s, size_t n, bool high_stops) {
  size_t at = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20),
                minus_one = _mm_set1_epi8(-1);
  for (; n - at >= 16; at += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + at));
    /* as signed bytes: below 0x20 is 0 to 0x1f, 0x80 and above negative */
    __m128i low = _mm_cmplt_epi8(x, space);
    if (!high_stops) low = _mm_and_si128(low, _mm_cmpgt_epi8(x, minus_one));
    __m128i stops = _mm_or_si128(low, _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)));
    unsigned mask = (unsigned)_mm_movemask_epi8(stops);
    if (mask) {
#if defined(__GNUC__)
      return at + (unsigned)__builtin_ctz(mask);
#else
      unsigned i = 0;
      while (!((mask >> i) & 1)) i++;
      return at + i;
#endif
    }
  }
#endif
  for (uint64_t w, stops; n - at >= 8; at += 8) {
    memcpy(&w, s + at, sizeof w);
    if ((stops = json_stops_in8(w, high_stops)) != 0) return at + first_marked_byte(stops);
  }
  while (at < n) {
    unsigned char c = (unsigned char)s[at];
    if (c < 0x20 || c == '"' || c == '\\' || (high_stops && c >= 0x80)) break;
    at++;
  }
  return at;
}

/* JSON_BLOCK bytes at a time (translation throughput: an answer's kernel
 * text, and a request's program, are lines of a few dozen characters, and
 * each line's newline is escaped): the index of the first byte of
 * s[0, JSON_BLOCK) that json_plain_run stops at, or JSON_BLOCK; all
 * JSON_BLOCK bytes must be readable.  The caller copies the whole block
 * where the text goes, then keeps the bytes before the stop: one pass
 * for the scan and the copy. */
enum { JSON_BLOCK = 16 };
static inline unsigned json_block_stop(const char *s, bool high_stops) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20),
                minus_one = _mm_set1_epi8(-1);
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
  __m128i low = _mm_cmplt_epi8(x, space);
  if (!high_stops) low = _mm_and_si128(low, _mm_cmpgt_epi8(x, minus_one));
  __m128i stops = _mm_or_si128(low, _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)));
  unsigned mask = (unsigned)_mm_movemask_epi8(stops) | 1u << JSON_BLOCK;
#if defined(__GNUC__)
  return (unsigned)__builtin_ctz(mask);
#else
  unsigned i = 0;
  while (!((mask >> i) & 1)) i++;
  return i;
#endif
#else
  for (unsigned at = 0; at < JSON_BLOCK; at += 8) {
    uint64_t w, stops;
    memcpy(&w, s + at, sizeof w);
    if ((stops = json_stops_in8(w, high_stops)) != 0) return at + first_marked_byte(stops);
  }
  return JSON_BLOCK;
#endif
}

/* The one allocation function of a translation.  alloc(user, n) returns n
 * bytes or NULL; release(user, p) frees what alloc returned. */
typedef struct DpiaMem {
  void *(*alloc)(void *user, size_t size);
  void (*release)(void *user, void *ptr);
  void *user;
  jmp_buf *on_oom; /* where to go when alloc returns NULL; must be set */
} DpiaMem;

void dpia_mem_default(DpiaMem *mem);
void *mem_alloc(DpiaMem *mem, size_t size); /* never returns NULL */
void mem_release(DpiaMem *mem, void *ptr);

/* An allocator over malloc that keeps large blocks freed for the next
 * allocations instead of giving them back (a DpiaMem's alloc and release,
 * user a BlockCache).  A process that translates one program after
 * another (dpia batch) frees every arena between them: glibc then trims
 * the heap and the next translation page-faults the same megabytes in
 * again, most of a small translation's time.  At most BLOCK_CACHE_MAX
 * blocks are kept; block_cache_free gives them back. */
enum { BLOCK_CACHE_MAX = 32, BLOCK_CACHE_MIN_SIZE = 64 * 1024 };
typedef struct BlockCache {
  int n;
  void *spare[BLOCK_CACHE_MAX]; /* each with its size in a header before it */
} BlockCache;
void *block_cache_alloc(void *cache, size_t size);
void block_cache_release(void *cache, void *ptr);
void block_cache_free(BlockCache *c);

/* Abort on a bug in dpia itself (spec section 9: exit code 70). */
DPIA_NORETURN void dpia_internal_error(const char *file, int line, const char *fmt, ...)
    DPIA_PRINTF(3, 4);
#define INTERNAL(...) dpia_internal_error(__FILE__, __LINE__, __VA_ARGS__)
#define ASSERT(c) ((c) ? (void)0 : INTERNAL("assertion failed: %s", #c))

/* Bump allocator; every object of a translation lives here. */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
  DpiaMem *mem;
  ArenaBlock *blocks;
  char *cur, *end;
  size_t total;      /* bytes handed out, for limits and benchmarks */
  size_t block_size; /* bytes asked from the allocator at a time */
  /* Most bytes it may hand out (0: no limit).  Past it, arena_alloc sets
   * over_limit and longjmps to mem->on_oom like an allocation failure. */
  size_t limit;
  bool over_limit;
} Arena;

void arena_init(Arena *a, DpiaMem *mem);
/* zeroed, aligned for any type.  The common case (a small object, room in
 * the current block and under the limit) is inline: a translation makes
 * tens of thousands of small allocations (translation throughput: bench/throughput). */
void *arena_alloc_slow(Arena *a, size_t size); /* every other case */
static inline void *arena_alloc(Arena *a, size_t size) {
  size_t align = _Alignof(max_align_t);
  size_t rounded = (size + align - 1) & ~(align - 1);
  if (size - 1 < 4096 && rounded <= (size_t)(a->end - a->cur) && (!a->limit || rounded <= a->limit - a->total)) {
    void *p = a->cur;
    a->cur += rounded;
    a->total += rounded;
    return memset(p, 0, rounded);
  }
  return arena_alloc_slow(a, size);
}
/* size bytes as arena_alloc gives them but not zeroed where they come
 * from the current block: for a buffer that keeps its own length and
 * never reads past it (Buf: its growth zeroed each new block of text it
 * then overwrote, a kernel's 4 KiB every answer; issue 35) */
static inline void *arena_alloc_unzeroed(Arena *a, size_t size) {
  size_t align = _Alignof(max_align_t);
  size_t rounded = (size + align - 1) & ~(align - 1);
  if (size - 1 < 4096 && rounded <= (size_t)(a->end - a->cur) && (!a->limit || rounded <= a->limit - a->total)) {
    void *p = a->cur;
    a->cur += rounded;
    a->total += rounded;
    return p;
  }
  return arena_alloc_slow(a, size);
}
/* a copy of p[0, size): inline like arena_alloc (phrase copies are the most
 * common allocation), with no zeroing before the copy */
void *arena_dup_slow(Arena *a, const void *p, size_t size);
static inline void *arena_dup(Arena *a, const void *p, size_t size) {
  size_t align = _Alignof(max_align_t);
  size_t rounded = (size + align - 1) & ~(align - 1);
  if (size - 1 < 4096 && rounded <= (size_t)(a->end - a->cur) && (!a->limit || rounded <= a->limit - a->total)) {
    char *q = a->cur;
    a->cur += rounded;
    a->total += rounded;
    memcpy(q, p, size);
    memset(q + size, 0, rounded - size);
    return q;
  }
  return arena_dup_slow(a, p, size);
}
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) DPIA_PRINTF(2, 3);
void arena_free(Arena *a);
#define NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define NEWARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* Growable byte buffer: all generated text goes through emit(). data is
 * always NUL-terminated.  Storage comes from the arena (old chunks are
 * abandoned on growth, reclaimed with the arena). */
typedef struct Buf {
  Arena *arena;
  char *data;
  size_t len, cap;
} Buf;

void buf_init(Buf *b, Arena *a);
void emit(Buf *b, const char *fmt, ...) DPIA_PRINTF(2, 3);
void vemit(Buf *b, const char *fmt, va_list ap);
void buf_put_slow(Buf *b, const char *s, size_t n);
/* room for extra more bytes (and the NUL) without another allocation: a
 * printer that knows about how much it writes grows the buffer once, not
 * by doubling from 64 bytes with a copy each time */
void buf_reserve(Buf *b, size_t extra);
/* n bytes of s, then s as a C string: inline where there is room, so
 * that a literal's length and copy are the compiler's (the printers write
 * their fixed text so: translation throughput, BENCHMARKS.md) */
static inline void buf_put(Buf *b, const char *s, size_t n) {
  if (b->len + n + 1 <= b->cap) {
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
    return;
  }
  buf_put_slow(b, s, n);
}
static inline void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }
void buf_putc_slow(Buf *b, char c);
/* one character: inline where there is room (generated text is mostly
 * written a character at a time) */
static inline void buf_putc(Buf *b, char c) {
  if (b->len + 2 <= b->cap) {
    b->data[b->len++] = c;
    b->data[b->len] = 0;
    return;
  }
  buf_putc_slow(b, c);
}
/* v in decimal, as emit's %lld: without the format (generated code prints
 * an integer for every constant of an index); a digit inline, as most of a
 * kernel's are (dimensions, vector widths, steps) */
void buf_put_int_slow(Buf *b, long long v);
static inline void buf_put_int(Buf *b, long long v) {
  if ((unsigned long long)v < 10) {
    buf_putc(b, (char)('0' + v));
    return;
  }
  buf_put_int_slow(b, v);
}
void buf_indent(Buf *b, int level); /* 2 spaces a level (spec section 8) */
void buf_clear(Buf *b);
/* Append the rest of f (for tools reading whole files: dpia test,
 * dpia-filecheck); false if reading failed. */
bool buf_read(Buf *b, FILE *f);

/* Growable array of pointers, arena-backed. */
typedef struct Vec {
  void **items;
  int len, cap;
} Vec;
void vec_push(Arena *a, Vec *v, void *item);

/* Interned identifiers: equal names are equal pointers. */
typedef const char *Sym;
typedef struct Interner {
  Arena *arena;
  Sym *slots;
  uint32_t count, cap;
} Interner;

/* What the interner keeps of each name, just before its text: its hash
 * and length (a lookup compares them before any byte, and growing the
 * table hashes nothing again). */
typedef struct SymInfo {
  uint32_t hash; /* FNV-1a, INTERN_HASH_* below */
  size_t len;    /* 16 bytes in all: the text after it is aligned as any arena object */
} SymInfo;
_Static_assert(sizeof(SymInfo) % 16 == 0, "an interned name's text starts aligned as the arena's objects");
/* the SymInfo of a name interned by an Interner (of no other string) */
static inline SymInfo *sym_info(Sym s) { return (SymInfo *)(void *)((char *)(uintptr_t)s - sizeof(SymInfo)); }

void intern_init(Interner *in, Arena *a);
Sym intern(Interner *in, const char *s, size_t n);
Sym intern_cstr(Interner *in, const char *s);
/* intern with the FNV-1a hash of s[0, n) already computed (INTERN_HASH_*,
 * the lexer's, as it scans an identifier): no second pass over it */
#define INTERN_HASH_START 2166136261u
#define INTERN_HASH_PRIME 16777619u
static inline uint32_t intern_hash_step(uint32_t h, unsigned char c) { return (h ^ c) * INTERN_HASH_PRIME; }
Sym intern_hashed(Interner *in, const char *s, size_t n, uint32_t hash);

/* A multiset of names (a zeroed NameSet is empty), for choosing fresh
 * names in constant time: base, base_2, base_3 ...  Each entry also keeps
 * a hint, the next suffix worth trying after base, for sets that never
 * remove a name (then every suffix below the hint is taken). */
typedef struct NameEntry {
  const char *name;
  int count; /* how many times it is in the set */
  int hint;  /* as base: the next suffix to try (0: 2) */
} NameEntry;
typedef struct NameSet {
  Arena *arena;
  NameEntry *slots;
  uint32_t used, cap;
} NameSet;

void nameset_add(NameSet *s, const char *name);
/* nameset_add, saying whether name was in the set before (nameset_has
 * then nameset_add, with one hash: the KIR check's declarations) */
bool nameset_add_had(NameSet *s, const char *name);
void nameset_remove(NameSet *s, const char *name);
bool nameset_has(const NameSet *s, const char *name);
/* as a set: name added where nameset_has says it is not, taken out (once)
 * where it says it is, each with one look-up where it need not change */
void nameset_add_once(NameSet *s, const char *name);
void nameset_remove_if_has(NameSet *s, const char *name);
/* the hint of base (created at 0) */
int *nameset_hint(NameSet *s, const char *base);

#endif
