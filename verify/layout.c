/* layout.c: nat values and host/device data layouts (layout.h). */
#include "layout.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

bool nat_lookup(void *user, Sym v, int64_t *value) {
  const NatValues *nats = user;
  for (int i = 0; i < nats->n; i++) {
    if (strcmp(nats->names[i], v) == 0) {
      *value = nats->values[i];
      return true;
    }
  }
  return false;
}

NatRow nat_row(Arena *a, const NatValues *nats, Sym row) {
  const char **names = NEWARRAY(a, const char *, nats->n + 1);
  int64_t *values = NEWARRAY(a, int64_t, nats->n + 1);
  names[0] = row;
  values[0] = 0;
  for (int i = 0; i < nats->n; i++) names[i + 1] = nats->names[i], values[i + 1] = nats->values[i];
  return (NatRow){{nats->n + 1, names, values}, values};
}

/* the first variable of s that has no value, or NULL */
static Sym unknown_var(Arena *arena, Size s, const NatValues *nats) {
  Sym *vars;
  int n = size_vars(arena, s, &vars);
  for (int i = 0; i < n; i++) {
    int64_t v;
    if (!nat_lookup((void *)nats, vars[i], &v)) return vars[i];
  }
  return NULL;
}

bool nat_eval_size(Size s, const NatValues *nats, int64_t *value, Buf *err) {
  if (size_eval(s, nat_lookup, (void *)nats, value)) return true;
  Buf text;
  buf_init(&text, err->arena);
  size_print(&text, s);
  Sym unknown = unknown_var(err->arena, s, nats);
  if (unknown) {
    emit(err, "size %s: no value for the nat parameter %s", text.data, unknown);
  } else {
    emit(err, "size %s is not a whole number for these nat values (an inexact division, or too large)",
         text.data);
  }
  return false;
}

/* ---- layouts ---- */

/* lanes a vector occupies in the device layout (OpenCL: a 3-vector has the
 * size of a 4-vector) */
static int64_t device_lanes(int width) { return width == 3 ? 4 : width; }

static int64_t scalar_bytes(ScalarKind s) { return s == SC_DOUBLE ? 8 : 4; }

/* keep every layout small enough that byte counts of whole buffers stay far
 * from overflow */
enum { LAY_MAX_LOG2 = 48 };

static bool too_big(int64_t x) { return x < 0 || x > ((int64_t)1 << LAY_MAX_LOG2); }

static int64_t round_up(int64_t x, int64_t align) { return (x + align - 1) / align * align; }

/* in_buffer: t is the element of a buffer's arrays (not of a struct), where
 * a 3-vector is packed, 3 lanes (kparam_packed3, docs/language.md section 11);
 * in_pair: t is inside a pair (a struct), whose arrays keep OpenCL's 4-lane
 * 3-vectors (float3 fst[3]) */
static const Lay *lay_in(Arena *a, const DataType *t, const NatValues *nats, Buf *err, bool in_buffer, bool in_pair) {
  t = dt_resolve((DataType *)t);
  Lay *l = NEW(a, Lay);
  switch (t->kind) {
  case DT_SCALAR:
    l->kind = LAY_NUM;
    l->scalar = t->scalar;
    l->width = t->width;
    l->flat = t->width;
    if (in_buffer && t->width == 3) {
      l->bytes = scalar_bytes(t->scalar) * 3;
      l->align = scalar_bytes(t->scalar);
      return l;
    }
    l->bytes = scalar_bytes(t->scalar) * device_lanes(t->width);
    l->align = l->bytes;
    return l;
  case DT_ARRAY: {
    int64_t n;
    if (!nat_eval_size(t->size, nats, &n, err)) return NULL;
    if (n < 0) {
      emit(err, "array size %" PRId64 " is negative for these nat values", n);
      return NULL;
    }
    const Lay *e = lay_in(a, t->elem, nats, err, !in_pair, in_pair);
    if (!e) return NULL;
    l->kind = LAY_ARRAY;
    l->n = n;
    l->elem = e;
    if (n > 0 && (too_big(n) || e->bytes > ((int64_t)1 << LAY_MAX_LOG2) / n)) {
      emit(err, "array of %" PRId64 " elements is too large", n);
      return NULL;
    }
    l->flat = n * e->flat;
    l->bytes = n * e->bytes;
    l->align = e->align;
    return l;
  }
  case DT_PAIR: {
    const Lay *f = lay_in(a, t->fst, nats, err, false, true);
    const Lay *s = f ? lay_in(a, t->snd, nats, err, false, true) : NULL;
    if (!s) return NULL;
    l->kind = LAY_PAIR;
    l->fst = f;
    l->snd = s;
    l->flat = f->flat + s->flat;
    l->align = f->align > s->align ? f->align : s->align;
    l->snd_offset = round_up(f->bytes, s->align);
    l->bytes = round_up(l->snd_offset + s->bytes, l->align);
    if (too_big(l->bytes)) {
      emit(err, "pair value is too large");
      return NULL;
    }
    return l;
  }
  case DT_IDX: {
    int64_t n;
    if (!nat_eval_size(t->size, nats, &n, err)) return NULL;
    l->kind = LAY_NUM;
    l->scalar = SC_INT;
    l->width = 1;
    l->bound = n > 0 ? n : 1; /* idx[0] has no value: any int is out of range */
    l->flat = 1;
    l->bytes = l->align = 4;
    return l;
  }
  case DT_DEPARRAY: /* never a buffer: the checker refuses it (E0329) */
  case DT_VAR:
  case DT_META: break;
  }
  emit(err, "type %s has no data layout (only scalars, vectors, arrays and pairs do)", dt_str(a, t));
  return NULL;
}

const Lay *lay_of(Arena *a, const DataType *t, const NatValues *nats, Buf *err) {
  return lay_in(a, t, nats, err, false, false);
}

const Lay *lay_of_buffer_element(Arena *a, const DataType *t, const NatValues *nats, Buf *err) {
  return lay_in(a, t, nats, err, true, false);
}

static void pack_lane(ScalarKind s, double v, unsigned char *dst) {
  switch (s) {
  case SC_FLOAT: {
    float f = (float)v;
    memcpy(dst, &f, sizeof f);
    return;
  }
  case SC_DOUBLE: memcpy(dst, &v, sizeof v); return;
  case SC_INT:
  case SC_BOOL: {
    int32_t i;
    if (isnan(v)) i = INT32_MIN;
    else if (v >= 2147483647.0) i = INT32_MAX;
    else if (v <= -2147483648.0) i = INT32_MIN;
    else i = (int32_t)v;
    memcpy(dst, &i, sizeof i);
    return;
  }
  }
}

static double unpack_lane(ScalarKind s, const unsigned char *src) {
  switch (s) {
  case SC_FLOAT: {
    float f;
    memcpy(&f, src, sizeof f);
    return f;
  }
  case SC_DOUBLE: {
    double d;
    memcpy(&d, src, sizeof d);
    return d;
  }
  case SC_INT:
  case SC_BOOL: break;
  }
  int32_t i;
  memcpy(&i, src, sizeof i);
  return i == INT32_MIN ? NAN : (double)i;
}

void lay_pack(const Lay *l, const double *src, unsigned char *dst) {
  switch (l->kind) {
  case LAY_NUM: {
    int64_t lane = scalar_bytes(l->scalar);
    memset(dst, 0, (size_t)l->bytes);
    for (int j = 0; j < l->width; j++) pack_lane(l->scalar, src[j], dst + j * lane);
    return;
  }
  case LAY_ARRAY:
    for (int64_t i = 0; i < l->n; i++) lay_pack(l->elem, src + i * l->elem->flat, dst + i * l->elem->bytes);
    return;
  case LAY_PAIR:
    memset(dst, 0, (size_t)l->bytes);
    lay_pack(l->fst, src, dst);
    lay_pack(l->snd, src + l->fst->flat, dst + l->snd_offset);
    return;
  }
}

const Lay *lay_copy(Arena *a, const Lay *l) {
  Lay *c = NEW(a, Lay);
  *c = *l;
  if (l->elem) c->elem = lay_copy(a, l->elem);
  if (l->fst) c->fst = lay_copy(a, l->fst);
  if (l->snd) c->snd = lay_copy(a, l->snd);
  return c;
}

bool lay_same(const Lay *l, const Lay *m) {
  if (l->kind != m->kind || l->flat != m->flat || l->bytes != m->bytes || l->align != m->align) return false;
  switch (l->kind) {
  case LAY_NUM: return l->scalar == m->scalar && l->width == m->width && l->bound == m->bound;
  case LAY_ARRAY: return l->n == m->n && lay_same(l->elem, m->elem);
  case LAY_PAIR: return l->snd_offset == m->snd_offset && lay_same(l->fst, m->fst) && lay_same(l->snd, m->snd);
  }
  return false;
}

void lay_unpack(const Lay *l, const unsigned char *src, double *dst) {
  switch (l->kind) {
  case LAY_NUM: {
    int64_t lane = scalar_bytes(l->scalar);
    for (int j = 0; j < l->width; j++) dst[j] = unpack_lane(l->scalar, src + j * lane);
    return;
  }
  case LAY_ARRAY:
    for (int64_t i = 0; i < l->n; i++) lay_unpack(l->elem, src + i * l->elem->bytes, dst + i * l->elem->flat);
    return;
  case LAY_PAIR:
    lay_unpack(l->fst, src, dst);
    lay_unpack(l->snd, src + l->snd_offset, dst + l->fst->flat);
    return;
  }
}

double lay_round_lane(ScalarKind s, double v) {
  unsigned char bytes[8] = {0}; /* = {0}: gcc -O2 sees a path past both switches */
  if (isnan(v)) return v; /* unpack_lane would read an int NaN back as NaN too */
  pack_lane(s, v, bytes);
  return unpack_lane(s, bytes);
}

void lay_round(const Lay *l, double *vals) {
  switch (l->kind) {
  case LAY_NUM:
    for (int j = 0; j < l->width; j++) vals[j] = lay_round_lane(l->scalar, vals[j]);
    return;
  case LAY_ARRAY:
    for (int64_t i = 0; i < l->n; i++) lay_round(l->elem, vals + i * l->elem->flat);
    return;
  case LAY_PAIR:
    lay_round(l->fst, vals);
    lay_round(l->snd, vals + l->fst->flat);
    return;
  }
}

bool lay_device_exact(const Lay *l, const double *vals) {
  switch (l->kind) {
  case LAY_NUM:
    for (int j = 0; j < l->width; j++) {
      double v = lay_round_lane(l->scalar, vals[j]);
      if (!(v == vals[j] || (isnan(v) && isnan(vals[j])))) return false;
    }
    return true;
  case LAY_ARRAY:
    for (int64_t i = 0; i < l->n; i++)
      if (!lay_device_exact(l->elem, vals + i * l->elem->flat)) return false;
    return true;
  case LAY_PAIR: return lay_device_exact(l->fst, vals) && lay_device_exact(l->snd, vals + l->fst->flat);
  }
  return true;
}

bool lay_has_scalar(const Lay *l, ScalarKind s) {
  switch (l->kind) {
  case LAY_NUM: return l->scalar == s;
  case LAY_ARRAY: return lay_has_scalar(l->elem, s);
  case LAY_PAIR: return lay_has_scalar(l->fst, s) || lay_has_scalar(l->snd, s);
  }
  return false;
}
