/* memo.h: a lookup table of (key, scope) -> value for memoising pure
 * functions of structures (codegen/index.c keeps its simplifications in
 * such tables).  Open addressing, found by the key's hash and told apart by
 * an equality the caller gives.  Tables are only looked up, never
 * iterated, so their order cannot reach any output. */
#ifndef DPIA_MEMO_H
#define DPIA_MEMO_H

#include "dpia_front.h"

#include <stdint.h>

typedef struct MemoEntry {
  const void *key; /* NULL: free */
  uint64_t hash, scope;
  const void *value;
  int cost; /* best_parts: the budget its search took */
} MemoEntry;

typedef struct MemoTable {
  size_t cap, n; /* cap 0 or a power of 2, n < cap/2 */
  MemoEntry *entries;
} MemoTable;

/* whether two keys are the same; user: the table's user's context */
typedef bool (*MemoSame)(const void *user, const void *a, const void *b);

/* one step of a structural hash (FNV-like) */
static inline uint64_t hash_mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3u + (h >> 29); }

/* the entry of (key, scope), or NULL */
const MemoEntry *memo_find(const MemoTable *t, uint64_t hash, uint64_t scope, MemoSame same, const void *user,
                           const void *key);
/* add entry (after a memo_find that found nothing); the table grows in arena */
void memo_put(Arena *arena, MemoTable *t, MemoEntry entry, MemoSame same, const void *user);

#endif
