/* prims.c: the primitive table (prims.h, spec section 4) and name lookup. */
/* prims.h uses size_t without including <stddef.h>, so it comes first */
#include <stddef.h>

#include "prims.h"
#include "util.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

const PrimInfo prim_info[PRIM_COUNT] = {
#define X(id, name, nsizes, ntype, flags, family, level, lowered, sig) \
  [PRIM_##id] = {name, nsizes, ntype, flags, PFAM_##family, PLVL_##level, PRIM_##lowered, sig},
    DPIA_PRIMS(X)
#undef X
};

/* Does the table name `full` spell exactly the len bytes at `name`? */
static bool spells(const char *full, const char *name, size_t len) {
  return full[0] == name[0] && strncmp(full, name, len) == 0 && full[len] == '\0';
}

/* The names' index: open addressing over the table's positions, built once
 * per process (as prim_type.c's signatures are) and only read after, so
 * that lookups stay reentrant (the checker and the printers ask by name;
 * a scan of the whole table was costly). */
enum { PRIM_INDEX_SIZE = 512 }; /* a power of two, under half full */
_Static_assert(PRIM_COUNT * 2 <= PRIM_INDEX_SIZE, "the primitives' name index is too small");
static short prim_index[PRIM_INDEX_SIZE]; /* a primitive + 1, 0: empty */
static pthread_once_t prim_index_once = PTHREAD_ONCE_INIT;

/* FNV-1a, the interner's hash (util.h) */
static uint32_t name_hash(const char *s, size_t n) {
  uint32_t h = INTERN_HASH_START;
  for (size_t i = 0; i < n; i++) h = intern_hash_step(h, (unsigned char)s[i]);
  return h;
}

static void build_prim_index(void) {
  for (int p = 0; p < PRIM_COUNT; p++) {
    size_t len = strlen(prim_info[p].name);
    uint32_t h = name_hash(prim_info[p].name, len) & (PRIM_INDEX_SIZE - 1);
    /* a name listed twice keeps its first row, as the scan found it */
    while (prim_index[h] && !spells(prim_info[prim_index[h] - 1].name, prim_info[p].name, len))
      h = (h + 1) & (PRIM_INDEX_SIZE - 1);
    if (!prim_index[h]) prim_index[h] = (short)(p + 1);
  }
}

static Prim find_name(const char *name, size_t len, uint32_t hash) {
  for (uint32_t h = hash & (PRIM_INDEX_SIZE - 1); prim_index[h]; h = (h + 1) & (PRIM_INDEX_SIZE - 1))
    if (spells(prim_info[prim_index[h] - 1].name, name, len)) return (Prim)(prim_index[h] - 1);
  return PRIM_COUNT;
}

static Prim prim_lookup_hashed(const char *name, size_t len, uint32_t hash, int *dim) {
  *dim = 0;
  if (len == 0) return PRIM_COUNT;
  pthread_once(&prim_index_once, build_prim_index);
  Prim p = find_name(name, len, hash);
  if (p != PRIM_COUNT) return p;
  /* Spec section 4: mapGlobal, mapWorkgroup, mapLocal (and their parfor and
   * mapI forms) take an optional OpenCL dimension suffix 0, 1 or 2; no other
   * primitive does, so `mapSeq1` is an ordinary identifier. */
  char last = name[len - 1];
  if (len < 2 || last < '0' || last > '2') return PRIM_COUNT;
  p = find_name(name, len - 1, name_hash(name, len - 1));
  if (p == PRIM_COUNT || !(prim_info[p].flags & PF_DIM)) return PRIM_COUNT;
  *dim = last - '0';
  return p;
}

Prim prim_lookup(const char *name, size_t len, int *dim) {
  return prim_lookup_hashed(name, len, name_hash(name, len), dim);
}

const char *prim_level_index_name(PrimLevel level) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (level) {
  case PLVL_GLOBAL: return "gid";
  case PLVL_WORKGROUP: return "wg";
  case PLVL_LOCAL: return "lid";
  case PLVL_NONE:
  case PLVL_SEQ:
  case PLVL_PRIVATE: break;
  }
  DPIA_EXHAUSTIVE_END
  return "i";
}

bool prim_computes(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  PRIM_CASES_MAP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_WINDOW:
  PRIM_CASES_MEMORY: return true;
  PRIM_CASES_VIEW:
  PRIM_CASES_SCALAR:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN:
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

bool prim_builds_vector(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  PRIM_CASES_VECTOR: return true;
  case PRIM_SELECT:
  case PRIM_VEC:
  case PRIM_CLAMP_IDX:
  PRIM_CASES_MAP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_VIEW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN:
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

bool prim_converts(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  PRIM_CASES_CONVERT: return true;
  PRIM_CASES_MAP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_VIEW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_SCALAR:
  PRIM_CASES_MATH:
  PRIM_CASES_FOREIGN:
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

bool prim_parfor_per_item(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  case PRIM_PARFOR_GLOBAL:
  case PRIM_PARFOR_LOCAL: return true;
  case PRIM_PARFOR:           /* one work-item's sequence */
  case PRIM_PARFOR_WORKGROUP: /* its iterations are work-groups */
  PRIM_CASES_MAP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_VIEW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_SCALAR:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN:
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* Counts the arrows outside parentheses and brackets, after the static
 * arguments' "k." prefix and before the "where" clause (the signature
 * syntax of prims.h). */
int prim_arity_of(Prim p) {
  const char *s = prim_info[p].signature;
  const char *dot = strchr(s, '.');
  if (dot && strcspn(s, "([") > (size_t)(dot - s)) s = dot + 1;
  const char *where = strstr(s, " where ");
  size_t len = where ? (size_t)(where - s) : strlen(s);
  int depth = 0, arrows = 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (c == '(' || c == '[')
      depth++;
    else if (c == ')' || c == ']')
      depth--;
    else if (c == '-' && s[i + 1] == '>' && depth == 0)
      arrows++;
  }
  return arrows;
}
