/* tune_cache.c: the tuning cache file (tune_cache.h, docs/tune.md). */
#define _POSIX_C_SOURCE 200809L
#include "tune_cache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"

#define TUNE_CACHE_FORMAT "dpia-tune-cache"
enum { TUNE_CACHE_VERSION = 1 };

const char *tune_cache_path(Arena *a, const char *explicit_path) {
  const char *p = explicit_path ? explicit_path : getenv("DPIA_TUNE_CACHE");
  if (p && *p) return strcmp(p, "off") == 0 ? NULL : p;
  const char *xdg = getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return arena_printf(a, "%s/dpia/tune.json", xdg);
  const char *home = getenv("HOME");
  return home && *home ? arena_printf(a, "%s/.cache/dpia/tune.json", home) : NULL;
}

const char *tune_source_hash(Arena *a, const char *text, size_t len) {
  uint64_t h = 14695981039346656037ull; /* FNV-1a, 64 bits */
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
  return arena_printf(a, "fnv1a64:%016llx", (unsigned long long)h);
}

/* ---- reading ---- */

static const char *member_string(const Json *o, const char *key) {
  const Json *v = json_get(o, key);
  return v && v->kind == JSON_STRING ? v->str : NULL;
}

/* {"NAME": integer, ...} into names/values; false when it is not one */
static bool read_bindings(const Json *o, const char **names, long long *values, int *n) {
  if (!o || o->kind != JSON_OBJECT || o->n > TUNE_CACHE_MAX_NAMES) return false;
  for (int i = 0; i < o->n; i++) {
    if (!json_integer(o->items[i], 1, 2147483647, &values[i])) return false;
    names[i] = o->keys[i];
  }
  *n = o->n;
  return true;
}

static bool read_entry(const Json *o, TuneEntry *e) {
  if (!o || o->kind != JSON_OBJECT) return false;
  memset(e, 0, sizeof *e);
  e->device = member_string(o, "device");
  e->driver = member_string(o, "driver");
  e->platform = member_string(o, "platform");
  e->source_hash = member_string(o, "source_hash");
  e->file = member_string(o, "file");
  e->kernel = member_string(o, "kernel");
  const Json *ms = json_get(o, "min_ms"), *tried = json_get(o, "tried");
  e->min_ms = ms && ms->kind == JSON_NUMBER ? strtod(ms->str, NULL) : 0;
  long long t = 0;
  if (tried && json_integer(tried, 0, 1 << 30, &t)) e->tried = (int)t;
  return e->device && e->driver && e->source_hash && e->kernel &&
         read_bindings(json_get(o, "sizes"), e->size_names, e->size_values, &e->nsizes) &&
         read_bindings(json_get(o, "values"), e->names, e->values, &e->nvalues);
}

/* "valid_at": [{"N": 16777216}, ...], optional (a cache written before
 * dpia tune --valid-at has none); false when it is there and not that */
static bool read_valid_at(Arena *a, const Json *o, TuneEntry *e) {
  const Json *list = json_get(o, "valid_at");
  if (!list) return true;
  if (list->kind != JSON_ARRAY || list->n > TUNE_CACHE_MAX_VALID_AT) return false;
  TuneSizes *at = NEWARRAY(a, TuneSizes, list->n ? list->n : 1);
  for (int i = 0; i < list->n; i++)
    if (!read_bindings(list->items[i], at[i].names, at[i].values, &at[i].n)) return false;
  e->nvalid_at = list->n;
  e->valid_at = at;
  return true;
}

bool tune_cache_read(Arena *a, const char *path, TuneEntry **entries, int *n, Buf *err) {
  *entries = NULL;
  *n = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT) return true; /* nothing tuned yet */
    emit(err, "the tuning cache %s cannot be read: %s", path, strerror(errno));
    return false;
  }
  Buf text;
  buf_init(&text, a);
  bool read = buf_read(&text, f);
  fclose(f);
  if (!read) {
    emit(err, "the tuning cache %s cannot be read", path);
    return false;
  }
  Buf perr;
  buf_init(&perr, a);
  Json *root = json_parse(a, text.data, text.len, &perr);
  if (!root) {
    emit(err, "the tuning cache %s is not valid JSON (%s)", path, perr.data);
    return false;
  }
  const char *format = member_string(root, "format");
  long long version = 0;
  const Json *list = json_get(root, "entries");
  if (!format || strcmp(format, TUNE_CACHE_FORMAT) != 0 || !json_integer(json_get(root, "version"), 1, 1000, &version) ||
      !list || list->kind != JSON_ARRAY) {
    emit(err, "the tuning cache %s is not a tuning cache: it must be an object with \"format\": \"%s\", "
              "\"version\" and \"entries\"",
         path, TUNE_CACHE_FORMAT);
    return false;
  }
  if (version != TUNE_CACHE_VERSION) {
    emit(err, "the tuning cache %s has version %lld; this dpia reads version %d", path, version, TUNE_CACHE_VERSION);
    return false;
  }
  TuneEntry *es = NEWARRAY(a, TuneEntry, list->n ? list->n : 1);
  for (int i = 0; i < list->n; i++) {
    if (!read_entry(list->items[i], &es[i]) || !read_valid_at(a, list->items[i], &es[i])) {
      emit(err, "the tuning cache %s: entry %d is not an entry (device, driver, source_hash, kernel, sizes and "
                "values, sizes and values objects of positive integers, valid_at a list of such objects)",
           path, i + 1);
      return false;
    }
  }
  *entries = es;
  *n = list->n;
  return true;
}

/* ---- lookup ---- */

static bool same_key(const TuneEntry *e, const char *device, const char *driver, const char *hash, const char *kernel) {
  return strcmp(e->device, device) == 0 && strcmp(e->driver, driver) == 0 && strcmp(e->source_hash, hash) == 0 &&
         strcmp(e->kernel, kernel) == 0;
}

/* how far e's sizes are from the given ones: the sum of |log2(ratio)|;
 * INFINITY when they are not the same names */
static double size_distance(const TuneEntry *e, int n, const char *const *names, const long long *values) {
  if (e->nsizes != n) return INFINITY;
  double d = 0;
  for (int i = 0; i < n; i++) {
    int j = 0;
    while (j < e->nsizes && strcmp(e->size_names[j], names[i]) != 0) j++;
    if (j == e->nsizes) return INFINITY;
    d += fabs(log2((double)e->size_values[j] / (double)values[i]));
  }
  return d;
}

int tune_cache_candidates(Arena *a, const TuneEntry *entries, int n, const char *device, const char *driver,
                          const char *hash, const char *kernel, int nsizes, const char *const *size_names,
                          const long long *size_values, const TuneEntry ***out) {
  const TuneEntry **list = NEWARRAY(a, const TuneEntry *, n ? n : 1);
  double *dist = NEWARRAY(a, double, n ? n : 1);
  int k = 0;
  /* the later written first, then a stable insertion by distance: of two
   * as near, the later stays first (an entry written again is last) */
  for (int i = n - 1; i >= 0; i--) {
    const TuneEntry *e = &entries[i];
    if (!same_key(e, device, driver, hash, kernel)) continue;
    double d = nsizes ? size_distance(e, nsizes, size_names, size_values) : 0;
    int j = k++;
    for (; j > 0 && dist[j - 1] > d; j--) list[j] = list[j - 1], dist[j] = dist[j - 1];
    list[j] = e;
    dist[j] = d;
  }
  *out = list;
  return k;
}

/* ---- writing ---- */

static void write_bindings(Buf *out, const char *const *names, const long long *values, int n) {
  buf_putc(out, '{');
  for (int i = 0; i < n; i++) {
    if (i) buf_puts(out, ", ");
    emit_json_string(out, names[i]);
    emit(out, ": %lld", values[i]);
  }
  buf_putc(out, '}');
}

static void write_entry(Buf *out, const TuneEntry *e) {
  static const char *const keys[] = {"device", "driver", "platform", "source_hash", "file", "kernel"};
  const char *vals[] = {e->device, e->driver, e->platform, e->source_hash, e->file, e->kernel};
  buf_puts(out, "  {");
  for (size_t i = 0; i < DPIA_COUNTOF(keys); i++) {
    emit(out, "%s\"%s\": ", i ? ", " : "", keys[i]);
    emit_json_string(out, vals[i] ? vals[i] : "");
  }
  buf_puts(out, ",\n   \"sizes\": ");
  write_bindings(out, e->size_names, e->size_values, e->nsizes);
  buf_puts(out, ", \"values\": ");
  write_bindings(out, e->names, e->values, e->nvalues);
  if (e->nvalid_at) { /* only when given: a cache without is as before */
    buf_puts(out, ", \"valid_at\": [");
    for (int i = 0; i < e->nvalid_at; i++) {
      if (i) buf_puts(out, ", ");
      write_bindings(out, e->valid_at[i].names, e->valid_at[i].values, e->valid_at[i].n);
    }
    buf_putc(out, ']');
  }
  emit(out, ", \"min_ms\": %.6g, \"tried\": %d}", e->min_ms, e->tried);
}

static bool same_sizes(const TuneEntry *a, const TuneEntry *b) {
  return size_distance(a, b->nsizes, b->size_names, b->size_values) == 0;
}

/* mkdir -p of path's directory */
static void make_parent(Arena *a, const char *path) {
  char *dir = arena_strndup(a, path, strlen(path));
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(dir, 0777); /* an existing one is fine; a real failure shows at fopen */
    *p = '/';
  }
}

bool tune_cache_store(Arena *a, const char *path, const TuneEntry *e, Buf *err) {
  TuneEntry *old;
  int n;
  if (!tune_cache_read(a, path, &old, &n, err)) return false;
  Buf out;
  buf_init(&out, a);
  emit(&out, "{\"format\": \"%s\", \"version\": %d,\n \"entries\": [\n", TUNE_CACHE_FORMAT, TUNE_CACHE_VERSION);
  int written = 0;
  for (int i = 0; i < n; i++) {
    if (same_key(&old[i], e->device, e->driver, e->source_hash, e->kernel) && same_sizes(&old[i], e)) continue;
    if (written++) buf_puts(&out, ",\n");
    write_entry(&out, &old[i]);
  }
  if (written) buf_puts(&out, ",\n");
  write_entry(&out, e); /* last: the one a translation without sizes takes */
  buf_puts(&out, "\n]}\n");
  make_parent(a, path);
  const char *tmp = arena_printf(a, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  bool ok = f && fwrite(out.data, 1, out.len, f) == out.len;
  if (f && fclose(f) != 0) ok = false;
  if (!ok || rename(tmp, path) != 0) {
    emit(err, "the tuning cache %s cannot be written: %s", path, strerror(errno));
    remove(tmp);
    return false;
  }
  return true;
}

const char *tune_entry_text(Arena *a, const TuneEntry *e) {
  Buf b;
  buf_init(&b, a);
  for (int i = 0; i < e->nvalues; i++) emit(&b, "%s%s=%lld", i ? " " : "", e->names[i], e->values[i]);
  emit(&b, ", tuned by dpia tune on %s (driver %s) at", e->device, e->driver);
  for (int i = 0; i < e->nsizes; i++) emit(&b, " %s=%lld", e->size_names[i], e->size_values[i]);
  for (int v = 0; v < e->nvalid_at; v++) {
    buf_puts(&b, v ? " and" : ", valid at");
    for (int i = 0; i < e->valid_at[v].n; i++) emit(&b, " %s=%lld", e->valid_at[v].names[i], e->valid_at[v].values[i]);
  }
  return b.data;
}
