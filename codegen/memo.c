/* memo.c: the lookup tables of memo.h. */
#include "memo.h"

enum { MEMO_INITIAL = 16 };

/* the entry of (key, scope), or the free slot where it goes */
static MemoEntry *memo_slot(const MemoTable *t, uint64_t hash, uint64_t scope, MemoSame same, const void *user,
                            const void *key) {
  uint64_t h = hash_mix(hash, scope);
  h ^= h >> 29;
  for (size_t i = (size_t)h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    MemoEntry *slot = &t->entries[i];
    if (!slot->key || (slot->hash == hash && slot->scope == scope && same(user, slot->key, key))) return slot;
  }
}

const MemoEntry *memo_find(const MemoTable *t, uint64_t hash, uint64_t scope, MemoSame same, const void *user,
                           const void *key) {
  if (t->cap == 0) return NULL;
  const MemoEntry *e = memo_slot(t, hash, scope, same, user, key);
  return e->key ? e : NULL;
}

void memo_put(Arena *arena, MemoTable *t, MemoEntry entry, MemoSame same, const void *user) {
  if (2 * (t->n + 1) > t->cap) {
    size_t cap = t->cap ? t->cap * 2 : MEMO_INITIAL;
    MemoTable grown = {cap, t->n, NEWARRAY(arena, MemoEntry, cap)};
    for (size_t i = 0; i < t->cap; i++) {
      const MemoEntry *old = &t->entries[i];
      if (old->key) *memo_slot(&grown, old->hash, old->scope, same, user, old->key) = *old;
    }
    *t = grown;
  }
  *memo_slot(t, entry.hash, entry.scope, same, user, entry.key) = entry;
  t->n++;
}

