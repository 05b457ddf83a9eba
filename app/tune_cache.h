/* tune_cache.h: the tuning cache (docs/tune.md): the values `dpia tune`
 * found fastest for a kernel on a device, kept in one JSON file so that
 * later translations and runs on that device use them without the user
 * naming them, as CLBlast's tuning database and Kernel Tuner's cache files
 * keep theirs.
 *
 * An entry is keyed by the device's name and driver version, a hash of the
 * source text, the kernel (or pipeline) and the sizes it was tuned at.  A
 * lookup with sizes lists the entries nearest first (exactly these sizes,
 * else the least sum of |log2(ratio)| over the sizes), and app/tune.c
 * takes the first whose values meet the kernel's preconditions at them;
 * without sizes (a translation), the entry written last. */
#ifndef DPIA_TUNE_CACHE_H
#define DPIA_TUNE_CACHE_H

#include "dpia_front.h"

enum {
  TUNE_CACHE_MAX_NAMES = 32,
  TUNE_CACHE_MAX_VALID_AT = 16, /* dpia tune --valid-at */
};

/* sizes by name: {"M": 4096, "N": 4096} */
typedef struct TuneSizes {
  int n;
  const char *names[TUNE_CACHE_MAX_NAMES];
  long long values[TUNE_CACHE_MAX_NAMES];
} TuneSizes;

typedef struct TuneEntry {
  const char *device, *driver, *platform; /* the device's, as the runtime names them */
  const char *source_hash;                /* tune_source_hash of the program's text */
  const char *file;                       /* the source's name when tuned: for people only */
  const char *kernel;                     /* the kernel or pipeline (-k) */
  int nsizes;
  const char *size_names[TUNE_CACHE_MAX_NAMES];
  long long size_values[TUNE_CACHE_MAX_NAMES];
  int nvalues; /* the tune parameters' values */
  const char *names[TUNE_CACHE_MAX_NAMES];
  long long values[TUNE_CACHE_MAX_NAMES];
  double min_ms; /* the winner's time */
  int tried;     /* points timed */
  /* the further sizes whose preconditions the values were checked to meet
   * (dpia tune --valid-at); "valid_at" in the file, optional */
  int nvalid_at;
  const TuneSizes *valid_at;
} TuneEntry;

/* The cache's path: explicit (DpiaOptions.tune_cache) if not NULL, else
 * $DPIA_TUNE_CACHE, else $XDG_CACHE_HOME/dpia/tune.json, else
 * ~/.cache/dpia/tune.json; NULL when it is "off" (or there is no home). */
const char *tune_cache_path(Arena *a, const char *explicit_path);

/* "fnv1a64:0123456789abcdef" of the text */
const char *tune_source_hash(Arena *a, const char *text, size_t len);

/* The entries of the file at path (none when it does not exist), each
 * copied into the arena.  False with a message in err when the file is not
 * a tuning cache (not JSON, or not of the form docs/tune.md gives). */
bool tune_cache_read(Arena *a, const char *path, TuneEntry **entries, int *n, Buf *err);

/* The entries of entries[0..n) for (device, driver, hash, kernel), the
 * nearest to the sizes first (of two as near, the later written first;
 * nsizes 0: the last written first), in *out (an arena array); how many. */
int tune_cache_candidates(Arena *a, const TuneEntry *entries, int n, const char *device, const char *driver,
                          const char *hash, const char *kernel, int nsizes, const char *const *size_names,
                          const long long *size_values, const TuneEntry ***out);

/* Add e to the file at path (making its directory), replacing the entry of
 * the same key and sizes; written to a temporary file then renamed, so
 * that a reader never sees half of it.  False with a message in err. */
bool tune_cache_store(Arena *a, const char *path, const TuneEntry *e, Buf *err);

/* "KS=256 AP=16, tuned by dpia tune on DEVICE (driver D) at M=1024 N=1024"
 * (and ", valid at M=512 N=512" for each of valid_at) */
const char *tune_entry_text(Arena *a, const TuneEntry *e);

#endif
