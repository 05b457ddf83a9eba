/* util.c: the allocator, arenas, text buffers and the interner (util.h). */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the one allocation function ---- */

static void *default_alloc(void *user, size_t size) {
  (void)user;
  return malloc(size);
}

static void default_release(void *user, void *ptr) {
  (void)user;
  free(ptr);
}

void dpia_mem_default(DpiaMem *mem) {
  mem->alloc = default_alloc;
  mem->release = default_release;
  mem->user = NULL;
  mem->on_oom = NULL;
}

void *mem_alloc(DpiaMem *mem, size_t size) {
  void *p = mem->alloc(mem->user, size);
  if (!p) {
    /* Out of memory is a user-visible condition, not a bug: the driver
     * reports it and frees the arena (tests/unit/test_oom.c: allocation failure). */
    if (!mem->on_oom) INTERNAL("out of memory with no handler installed");
    longjmp(*mem->on_oom, 1);
  }
  return p;
}

void mem_release(DpiaMem *mem, void *ptr) {
  if (ptr) mem->release(mem->user, ptr);
}

/* ---- a cache of large blocks ---- */

/* before each block: its usable size, in room aligned for any type */
typedef union BlockHeader {
  size_t size;
  max_align_t align;
} BlockHeader;

static size_t block_size_of(void *ptr) { return ((BlockHeader *)ptr - 1)->size; }

void *block_cache_alloc(void *cache, size_t size) {
  BlockCache *c = cache;
  if (size >= BLOCK_CACHE_MIN_SIZE) {
    /* the last kept that fits, not more than twice too large (arena
     * blocks are all of one size; a large object's is its own) */
    for (int i = c->n - 1; i >= 0; i--) {
      size_t have = block_size_of(c->spare[i]);
      if (have < size || have / 2 > size) continue;
      void *p = c->spare[i];
      c->spare[i] = c->spare[--c->n];
      return p;
    }
  }
  if (size > SIZE_MAX - sizeof(BlockHeader)) return NULL;
  BlockHeader *h = malloc(sizeof *h + size);
  if (!h) return NULL;
  h->size = size;
  return h + 1;
}

void block_cache_release(void *cache, void *ptr) {
  BlockCache *c = cache;
  if (!ptr) return;
  if (block_size_of(ptr) >= BLOCK_CACHE_MIN_SIZE && c->n < BLOCK_CACHE_MAX) {
    c->spare[c->n++] = ptr;
    return;
  }
  free((BlockHeader *)ptr - 1);
}

void block_cache_free(BlockCache *c) {
  while (c->n > 0) free((BlockHeader *)c->spare[--c->n] - 1);
}

void dpia_internal_error(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "dpia: internal error at %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nThis is a bug in dpia; please report it with the input that caused it.\n", stderr);
  exit(70);
}

/* ---- arena ---- */

struct ArenaBlock {
  ArenaBlock *next;
  size_t size;
  max_align_t data[]; /* aligned for any type */
};

/* 1 MiB: a translation of a sample fits in one or two blocks.  With 64 KiB
 * blocks, glibc gave the heap back after every translation (its top chunk
 * grew past the trim threshold) and the next one page-faulted it in again:
 * a third of a translation's CPU time in the kernel.  A block this large is
 * first mmapped, which raises glibc's mmap and trim thresholds, and later
 * blocks are reused from the heap (translation throughput: bench/throughput). */
enum { ARENA_BLOCK_SIZE = 1024 * 1024 };

void arena_init(Arena *a, DpiaMem *mem) {
  a->mem = mem;
  a->blocks = NULL;
  a->cur = a->end = NULL;
  a->total = 0;
  a->block_size = ARENA_BLOCK_SIZE;
  a->limit = 0;
  a->over_limit = false;
}

static size_t align_up(size_t n) {
  size_t al = _Alignof(max_align_t);
  return (n + al - 1) & ~(al - 1);
}

void *arena_alloc_slow(Arena *a, size_t size) {
  if (size > SIZE_MAX / 2) longjmp(*a->mem->on_oom, 1); /* align_up would wrap */
  size = align_up(size ? size : 1);
  if (a->limit && size > a->limit - a->total) {
    a->over_limit = true;
    longjmp(*a->mem->on_oom, 1);
  }
  if ((size_t)(a->end - a->cur) < size) {
    size_t want = size > a->block_size / 4 ? size : a->block_size;
    if (want > SIZE_MAX - sizeof(ArenaBlock)) longjmp(*a->mem->on_oom, 1);
    ArenaBlock *b = mem_alloc(a->mem, sizeof(ArenaBlock) + want);
    b->size = want;
    if (size > a->block_size / 4 && a->blocks) {
      /* a large object gets a block of its own; keep filling the current one */
      b->next = a->blocks->next;
      a->blocks->next = b;
      memset(b->data, 0, size);
      a->total += size;
      return b->data;
    }
    b->next = a->blocks;
    a->blocks = b;
    a->cur = (char *)b->data;
    a->end = a->cur + want;
  }
  void *p = a->cur;
  a->cur += size;
  a->total += size;
  memset(p, 0, size);
  return p;
}

void *arena_dup_slow(Arena *a, const void *p, size_t size) {
  void *q = arena_alloc(a, size);
  if (size) memcpy(q, p, size);
  return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *q = arena_alloc(a, n + 1);
  memcpy(q, s, n);
  q[n] = 0;
  return q;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  Buf b;
  buf_init(&b, a);
  va_list ap;
  va_start(ap, fmt);
  vemit(&b, fmt, ap);
  va_end(ap);
  return b.data;
}

void arena_free(Arena *a) {
  ArenaBlock *b = a->blocks;
  while (b) {
    ArenaBlock *next = b->next;
    mem_release(a->mem, b);
    b = next;
  }
  a->blocks = NULL;
  a->cur = a->end = NULL;
}

/* ---- Buf ---- */

void buf_init(Buf *b, Arena *a) {
  b->arena = a;
  b->data = "";
  b->len = 0;
  b->cap = 0;
}

void buf_reserve(Buf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  /* past len + 1 nothing is read before it is written */
  char *data = arena_alloc_unzeroed(b->arena, cap);
  memcpy(data, b->data, b->len + 1);
  b->data = data;
  b->cap = cap;
}

void buf_put_slow(Buf *b, const char *s, size_t n) {
  buf_reserve(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void buf_putc_slow(Buf *b, char c) { buf_put(b, &c, 1); }

/* "00" "01" ... "99": two digits a division (put_unsigned) */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

static void put_unsigned(Buf *b, unsigned long long v, bool negative) {
  char digits[24];
  int n = 0;
  while (v >= 100) {
    n += 2;
    memcpy(digits + sizeof digits - n, digit_pairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) {
    n += 2;
    memcpy(digits + sizeof digits - n, digit_pairs + 2 * v, 2);
  } else {
    digits[sizeof digits - 1 - n++] = (char)('0' + v);
  }
  if (negative) digits[sizeof digits - 1 - n++] = '-';
  buf_put(b, digits + sizeof digits - n, (size_t)n);
}

void buf_put_int_slow(Buf *b, long long v) {
  put_unsigned(b, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, v < 0);
}

/* The conversions of the formats generated text uses most: %s %c %d %u
 * %ld %lu %lld %llu %zu %% with no flags, width or precision, written as
 * the format is read.  At anything else the text written so far is taken
 * back and the whole format goes to vsnprintf.  (Translation throughput,
 * bench/throughput and BENCHMARKS.md: emit was a fifth of a translation's
 * instructions, half of them measuring; a first pass telling the format
 * simple was a fifth of what remained.) */
void vemit(Buf *b, const char *fmt, va_list ap) {
  size_t start = b->len;
  va_list ap2;
  va_copy(ap2, ap); /* the arguments as given, for vsnprintf */
  for (const char *p = fmt;;) {
    const char *q = strchr(p, '%');
    if (!q) {
      buf_puts(b, p);
      va_end(ap2);
      return;
    }
    if (q > p) buf_put(b, p, (size_t)(q - p));
    q++; /* the conversion */
    if (*q == '%') {
      buf_putc(b, '%');
    } else if (*q == 's') {
      buf_puts(b, va_arg(ap, const char *));
    } else if (*q == 'c') {
      buf_putc(b, (char)va_arg(ap, int));
    } else {
      int longs = 0;
      bool size = false;
      if (q[0] == 'l' && q[1] == 'l') longs = 2, q += 2;
      else if (*q == 'l') longs = 1, q++;
      else if (*q == 'z') size = true, q++;
      if (*q == 'd') {
        buf_put_int_slow(b, size         ? (long long)va_arg(ap, ptrdiff_t)
                            : longs == 2 ? va_arg(ap, long long)
                            : longs      ? va_arg(ap, long)
                                         : va_arg(ap, int));
      } else if (*q == 'u') {
        put_unsigned(b, size ? va_arg(ap, size_t)
                             : longs == 2 ? va_arg(ap, unsigned long long)
                                          : longs ? va_arg(ap, unsigned long) : va_arg(ap, unsigned),
                     false);
      } else {
        break; /* not one of those: vsnprintf, from the start */
      }
    }
    p = q + 1;
  }
  b->len = start;
  if (b->cap) b->data[start] = 0;
  /* format into the room left; measure and grow only if it does not fit */
  buf_reserve(b, 64);
  va_list ap3;
  va_copy(ap3, ap2);
  int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap3);
  va_end(ap3);
  if (n < 0) INTERNAL("bad format string '%s'", fmt);
  if ((size_t)n >= b->cap - b->len) {
    buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
  }
  va_end(ap2);
  b->len += (size_t)n;
}

void emit(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vemit(b, fmt, ap);
  va_end(ap);
}

void buf_indent(Buf *b, int level) {
  for (int i = 0; i < level; i++) buf_put(b, "  ", 2);
}

void buf_clear(Buf *b) {
  b->len = 0;
  if (b->cap) b->data[0] = 0;
}

bool buf_read(Buf *b, FILE *f) {
  buf_reserve(b, 0); /* data NUL-terminated and writable even for an empty file */
  for (;;) {
    buf_reserve(b, 1 << 16);
    size_t got = fread(b->data + b->len, 1, b->cap - b->len - 1, f);
    b->len += got;
    b->data[b->len] = 0;
    if (got == 0) return !ferror(f);
  }
}

/* ---- Vec ---- */

void vec_push(Arena *a, Vec *v, void *item) {
  if (v->len == v->cap) {
    int cap = v->cap ? v->cap * 2 : 8;
    void **items = NEWARRAY(a, void *, cap);
    if (v->len) memcpy(items, v->items, sizeof(void *) * (size_t)v->len);
    v->items = items;
    v->cap = cap;
  }
  v->items[v->len++] = item;
}

/* ---- interner: open addressing, FNV-1a ---- */

static uint32_t hash_bytes(const char *s, size_t n) {
  uint32_t h = INTERN_HASH_START;
  for (size_t i = 0; i < n; i++) h = intern_hash_step(h, (unsigned char)s[i]);
  return h;
}

void intern_init(Interner *in, Arena *a) {
  in->arena = a;
  in->count = 0;
  in->cap = 256;
  in->slots = NEWARRAY(a, Sym, in->cap);
}

static void intern_grow(Interner *in) {
  uint32_t cap = in->cap * 2;
  Sym *slots = NEWARRAY(in->arena, Sym, cap);
  for (uint32_t i = 0; i < in->cap; i++) {
    Sym s = in->slots[i];
    if (!s) continue;
    uint32_t h = sym_info(s)->hash & (cap - 1);
    while (slots[h]) h = (h + 1) & (cap - 1);
    slots[h] = s;
  }
  in->slots = slots;
  in->cap = cap;
}

Sym intern(Interner *in, const char *s, size_t n) { return intern_hashed(in, s, n, hash_bytes(s, n)); }

Sym intern_hashed(Interner *in, const char *s, size_t n, uint32_t hash) {
  if ((in->count + 1) * 2 > in->cap) intern_grow(in);
  uint32_t h = hash & (in->cap - 1);
  for (;;) {
    Sym t = in->slots[h];
    if (!t) break;
    const SymInfo *info = sym_info(t);
    if (info->hash == hash && info->len == n) {
      /* names are short: a loop, not a call (translation throughput) */
      size_t i = 0;
      while (i < n && t[i] == s[i]) i++;
      if (i == n) return t;
    }
    h = (h + 1) & (in->cap - 1);
  }
  /* the SymInfo, then the text (aligned for it: the arena's blocks are) */
  SymInfo *info = arena_alloc(in->arena, sizeof(SymInfo) + n + 1);
  info->hash = hash;
  info->len = n;
  char *t = (char *)(info + 1);
  memcpy(t, s, n);
  t[n] = 0;
  in->slots[h] = t;
  in->count++;
  return t;
}

Sym intern_cstr(Interner *in, const char *s) { return intern(in, s, strlen(s)); }

/* ---- name sets ---- */

/* hash_bytes(s, strlen(s)), in one pass */
static uint32_t hash_cstr(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* The code generator's passes ask about a name at every statement
 * (translation throughput, BENCHMARKS.md): the same string is most often
 * the same pointer, and a slot of another name most often differs in its
 * first character, so both are looked at before any call.  Inlined into
 * each of its four callers: as a call of its own, saving and restoring
 * its registers was a third of its instructions. */
static inline __attribute__((always_inline)) NameEntry *nameset_find(const NameSet *s, const char *name) {
  if (!s->cap) return NULL;
  for (uint32_t i = hash_cstr(name) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    NameEntry *e = &s->slots[i];
    if (!e->name || e->name == name || (e->name[0] == name[0] && strcmp(e->name, name) == 0)) return e;
  }
}

static NameEntry *nameset_entry(NameSet *s, const char *name) {
  if (2 * (s->used + 1) > s->cap) {
    NameEntry *old = s->slots;
    uint32_t old_cap = s->cap;
    s->cap = old_cap ? 2 * old_cap : 64;
    s->slots = NEWARRAY(s->arena, NameEntry, s->cap);
    for (uint32_t i = 0; i < old_cap; i++)
      if (old[i].name) *nameset_find(s, old[i].name) = old[i];
  }
  NameEntry *e = nameset_find(s, name);
  if (!e->name) {
    e->name = name;
    s->used++;
  }
  return e;
}

void nameset_add(NameSet *s, const char *name) { nameset_entry(s, name)->count++; }

bool nameset_add_had(NameSet *s, const char *name) { return nameset_entry(s, name)->count++ > 0; }

void nameset_remove(NameSet *s, const char *name) {
  NameEntry *e = nameset_find(s, name);
  if (!e || !e->name || e->count == 0) INTERNAL("removing the name '%s', which is not in the set", name);
  e->count--;
}

bool nameset_has(const NameSet *s, const char *name) {
  const NameEntry *e = nameset_find(s, name);
  return e && e->name && e->count > 0;
}

void nameset_add_once(NameSet *s, const char *name) {
  NameEntry *e = nameset_find(s, name);
  if (e && e->name && e->count > 0) return;
  /* where nameset_entry would not grow the table, the slot found is the
   * one it would find (the name's, or the empty one a new name goes in):
   * one hash, not two; the table the same as nameset_add makes */
  if (!e || 2 * (s->used + 1) > s->cap) {
    nameset_entry(s, name)->count++;
    return;
  }
  if (!e->name) {
    e->name = name;
    s->used++;
  }
  e->count++;
}

void nameset_remove_if_has(NameSet *s, const char *name) {
  NameEntry *e = nameset_find(s, name);
  if (e && e->name && e->count > 0) e->count--;
}

int *nameset_hint(NameSet *s, const char *base) { return &nameset_entry(s, base)->hint; }
