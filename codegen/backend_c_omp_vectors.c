/* backend_c_omp_vectors.c: the preamble of a kernel of the C backend
 * (backend_c_omp.h): the includes, the vector types and the helpers that
 * give its vector expressions OpenCL C's meaning.
 *
 * Vectors are GCC's and Clang's vector extensions (`typedef float float4
 * __attribute__((vector_size(16)))`, docs/targets.md): their operators
 * work lane by lane, a scalar operand is broadcast, a comparison gives -1
 * or 0 in an int vector of the same size and v[i] is a lane, as OpenCL C
 * 6.3 says of its vectors; a 3-vector takes four lanes' room, as OpenCL's
 * does (6.1.5).  What C lacks is a helper here: the lane-wise built-ins
 * (dpia_min_float4, of C's math.h function on each lane), the choice of
 * select (by the sign of the mask's lane, 6.3.i), the broadcast of a
 * scalar (dpia_splat_float4), vloadN and vstoreN (6.15.7, dpia_vload_float4:
 * memcpy, so that any alignment of the address is right), and the scalar
 * built-ins math.h has not (int min, max, clamp; rsqrt).
 *
 * Only what the kernel uses is defined, each once in a program of several
 * kernels (a pipeline). */
#include "backend_c.h"
#include "backend_c_omp.h"

#include <string.h>

enum { NSCALARS = SC_BOOL + 1, NWIDTHS = 17 };
#define X(id, arity) +1
enum { NBUILTINS = 0 KIR_BUILTINS(X) };
#undef X

/* the built-ins' names in the helpers' (dpia_min_float4) */
static const char *const builtin_word[] = {
    [KBI_MIN] = "min",     [KBI_MAX] = "max",     [KBI_CLAMP] = "clamp", [KBI_SELECT] = "select", [KBI_FABS] = "fabs",
    [KBI_SQRT] = "sqrt",   [KBI_RSQRT] = "rsqrt", [KBI_EXP] = "exp",     [KBI_LOG] = "log",       [KBI_SIN] = "sin",
    [KBI_COS] = "cos",     [KBI_FLOOR] = "floor", [KBI_CEIL] = "ceil",   [KBI_POW] = "pow",       [KBI_FMA] = "fma",
};

/* C's functions of a scalar, by KirBuiltin (float, double, int); NULL:
 * none (select is ?:); dpia_: a helper of the preamble (scalar_helper) */
static const char *const scalar_builtin[][3] = {
    [KBI_MIN] = {"fminf", "fmin", "dpia_min_int"},
    [KBI_MAX] = {"fmaxf", "fmax", "dpia_max_int"},
    [KBI_CLAMP] = {"dpia_clamp_float", "dpia_clamp_double", "dpia_clamp_int"},
    [KBI_SELECT] = {NULL, NULL, NULL},
    [KBI_FABS] = {"fabsf", "fabs", "abs"},
    [KBI_SQRT] = {"sqrtf", "sqrt", NULL},
    [KBI_RSQRT] = {"dpia_rsqrt_float", "dpia_rsqrt_double", NULL},
    [KBI_EXP] = {"expf", "exp", NULL},
    [KBI_LOG] = {"logf", "log", NULL},
    [KBI_SIN] = {"sinf", "sin", NULL},
    [KBI_COS] = {"cosf", "cos", NULL},
    [KBI_FLOOR] = {"floorf", "floor", NULL},
    [KBI_CEIL] = {"ceilf", "ceil", NULL},
    [KBI_POW] = {"powf", "pow", NULL},
    [KBI_FMA] = {"fmaf", "fma", NULL},
};

static const char *scalar_spelling(KirBuiltin b, ScalarKind s) {
  const char *name = scalar_builtin[b][s == SC_DOUBLE ? 1 : s == SC_INT ? 2 : 0];
  if (!name || s == SC_BOOL) INTERNAL("no C spelling of built-in %d on %s", (int)b, scalar_name(s));
  return name;
}

void c_omp_type_name(Buf *out, ScalarKind s, int width) {
  buf_puts(out, scalar_name(s));
  if (width > 1) emit(out, "%d", width);
}

void c_omp_builtin_name(Buf *out, KirBuiltin b, ScalarKind s, int width) {
  if (width == 1) {
    buf_puts(out, scalar_spelling(b, s));
    return;
  }
  emit(out, "dpia_%s_", builtin_word[b]);
  c_omp_type_name(out, s, width);
}

/* ---- what a kernel uses ---- */

typedef struct Uses {
  bool vector[NSCALARS][NWIDTHS]; /* the type, by a typedef */
  bool builtin[NBUILTINS][NSCALARS][NWIDTHS];
  bool splat[NSCALARS][NWIDTHS];
  bool vload[NSCALARS][NWIDTHS], vstore[NSCALARS][NWIDTHS];
} Uses;

static void use_type(Uses *u, const KirType *t) {
  if (!t) return;
  DPIA_EXHAUSTIVE_BEGIN
  switch (t->kind) {
  case KTY_SCALAR:
    if (t->width > 1) u->vector[t->scalar][t->width] = true;
    return;
  case KTY_STRUCT: return; /* its fields are the KT_STRUCT's */
  case KTY_POINTER: use_type(u, t->to); return;
  }
  DPIA_EXHAUSTIVE_END
}

static ScalarKind pointee(const KirExpr *ptr) {
  const KirType *t = ptr->type;
  return t && t->kind == KTY_POINTER && t->to->kind == KTY_SCALAR ? t->to->scalar : SC_FLOAT;
}

static void use_builtin(Uses *u, KirBuiltin b, ScalarKind s, int w) {
  u->builtin[b][s][w] = true;
  if (w > 1 && b != KBI_SELECT) u->builtin[b][s][1] = true; /* its lanes' function */
}

/* what an expression node uses (CWalk.on_expr) */
static void use_expr(void *ctx, const KirExpr *e) {
  Uses *u = ctx;
  use_type(u, e->type);
  switch (e->kind) {
  case KE_VLOAD: u->vload[pointee(e->vload.ptr)][e->vload.width] = true; break;
  case KE_BUILTIN: {
    const KirType *t = e->call.type;
    if (t->width > 1 || e->call.builtin != KBI_SELECT) use_builtin(u, e->call.builtin, t->scalar, t->width);
    for (int i = 0; i < e->call.nargs; i++) /* a scalar argument of a vector built-in: broadcast */
      if (t->width > 1 && e->call.args[i]->type->width == 1) u->splat[t->scalar][t->width] = true;
    break;
  }
  case KE_VECTOR:
    if (e->call.nargs == 1) u->splat[e->call.type->scalar][e->call.type->width] = true;
    break;
  default: break;
  }
}

/* a vstore's helper and type (CWalk.on_stmt) */
static void use_stmt(void *ctx, const KirStmt *s) {
  Uses *u = ctx;
  if (s->kind != KS_VSTORE) return;
  u->vstore[pointee(s->vstore.ptr)][s->vstore.width] = true;
  u->vector[pointee(s->vstore.ptr)][s->vstore.width] = true;
}

static void use_type_of(void *ctx, const KirType *t) { use_type(ctx, t); }

/* ---- the definitions ---- */

typedef struct Pre {
  Buf *out;
  NameSet *defined;
  bool guard; /* each definition under #ifndef (c_omp_print_preamble) */
} Pre;

/* name is not defined yet in the program (and is from now on): its
 * definition begins (done ends it) */
static bool fresh(Pre *p, const char *name) {
  if (cprint_defined_before(p->defined, name)) return false;
  if (p->guard) emit(p->out, "#ifndef DPIA_C_HAVE_%s\n#define DPIA_C_HAVE_%s\n", name, name);
  return true;
}

static void done(Pre *p) {
  if (p->guard) buf_puts(p->out, "#endif\n");
}

static const char *type_of(Arena *a, ScalarKind s, int w) {
  Buf b;
  buf_init(&b, a);
  c_omp_type_name(&b, s, w);
  return b.data;
}

/* a scalar built-in math.h has not */
static void scalar_helper(Pre *p, KirBuiltin b, ScalarKind s) {
  const char *name = scalar_spelling(b, s), *t = scalar_name(s);
  if (strncmp(name, "dpia_", 5) != 0 || !fresh(p, name)) return;
  Buf *o = p->out;
  switch (b) {
  case KBI_MIN: emit(o, "static inline %s %s(%s a, %s b) { return a < b ? a : b; }\n", t, name, t, t); break;
  case KBI_MAX: emit(o, "static inline %s %s(%s a, %s b) { return a > b ? a : b; }\n", t, name, t, t); break;
  case KBI_CLAMP:
    if (s == SC_INT)
      emit(o, "static inline int %s(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }\n", name);
    else
      emit(o, "static inline %s %s(%s x, %s lo, %s hi) { return %s(%s(x, lo), hi); }\n", t, name, t, t, t,
           scalar_spelling(KBI_MIN, s), scalar_spelling(KBI_MAX, s));
    break;
  case KBI_RSQRT:
    emit(o, "static inline %s %s(%s x) { return %s / %s(x); }\n", t, name, t, s == SC_FLOAT ? "1.0f" : "1.0",
         scalar_spelling(KBI_SQRT, s));
    break;
  default: INTERNAL("no helper for built-in %d", (int)b);
  }
  done(p);
}

/* dpia_min_float4(a, b): the scalar function on each lane */
static void vector_helper(Pre *p, Arena *a, KirBuiltin b, ScalarKind s, int w) {
  const char *v = type_of(a, s, w);
  const char *name = arena_printf(a, "dpia_%s_%s", builtin_word[b], v);
  if (!fresh(p, name)) return;
  Buf *o = p->out;
  int n = kir_builtin_arity[b];
  if (b == KBI_SELECT) {
    emit(o, "static inline %s %s(%s m, %s a, %s b) {\n  %s r = {0};\n"
            "  for (int i = 0; i < %d; i++) r[i] = m[i] < 0 ? a[i] : b[i];\n  return r;\n}\n",
         v, name, type_of(a, SC_INT, w), v, v, v, w);
    done(p);
    return;
  }
  static const char *const arg[] = {"a", "b", "c"};
  emit(o, "static inline %s %s(", v, name);
  for (int i = 0; i < n; i++) emit(o, "%s%s %s", i ? ", " : "", v, arg[i]);
  emit(o, ") {\n  %s r = {0};\n  for (int i = 0; i < %d; i++) r[i] = %s(", v, w, scalar_spelling(b, s));
  for (int i = 0; i < n; i++) emit(o, "%s%s[i]", i ? ", " : "", arg[i]);
  buf_puts(o, ");\n  return r;\n}\n");
  done(p);
}

void c_omp_print_preamble(const KirKernel *k, NameSet *defined, bool guard, Buf *out) {
  Arena *a = out->arena;
  Uses *u = NEW(a, Uses);
  memset(u, 0, sizeof *u);
  cwalk_kernel(&(CWalk){.on_type = use_type_of, .on_expr = use_expr, .on_stmt = use_stmt, .ctx = u}, k);
  /* a vector's helpers use their type's (a select its mask's) */
  for (int b = 0; b < NBUILTINS; b++)
    for (int s = 0; s < NSCALARS; s++)
      for (int w = 2; w < NWIDTHS; w++)
        if (u->builtin[b][s][w] && b == KBI_SELECT) u->vector[SC_INT][w] = true;

  Pre ps = {out, defined, false}, *p = &ps;
  if (fresh(p, "<includes>"))
    buf_puts(out, "#include <math.h>\n#include <stdbool.h>\n#include <stddef.h>\n#include <stdlib.h>\n"
                  "#include <string.h>\n\n");
  p->guard = guard;
  size_t before = out->len;
  for (int s = 0; s < NSCALARS; s++)
    for (int w = 2; w < NWIDTHS; w++) {
      if (!u->vector[s][w]) continue;
      const char *v = type_of(a, (ScalarKind)s, w);
      if (!fresh(p, v)) continue;
      int lanes = w == 3 ? 4 : w; /* a 3-vector has a fourth lane's room (OpenCL C 6.1.5) */
      emit(out, "typedef %s %s __attribute__((vector_size(%d * sizeof(%s))));\n", scalar_name((ScalarKind)s), v,
           lanes, scalar_name((ScalarKind)s));
      done(p);
    }
  for (int b = 0; b < NBUILTINS; b++)
    for (int s = 0; s < NSCALARS; s++)
      if (u->builtin[b][s][1]) scalar_helper(p, (KirBuiltin)b, (ScalarKind)s);
  for (int s = 0; s < NSCALARS; s++)
    for (int w = 2; w < NWIDTHS; w++) {
      const char *v = type_of(a, (ScalarKind)s, w), *t = scalar_name((ScalarKind)s);
      if (u->splat[s][w] && fresh(p, arena_printf(a, "dpia_splat_%s", v))) {
        emit(out, "static inline %s dpia_splat_%s(%s x) { return (%s){", v, v, t, v);
        for (int i = 0; i < w; i++) buf_puts(out, i ? ", x" : "x");
        buf_puts(out, "}; }\n");
        done(p);
      }
      for (int b = 0; b < NBUILTINS; b++)
        if (u->builtin[b][s][w]) vector_helper(p, a, (KirBuiltin)b, (ScalarKind)s, w);
      if (u->vload[s][w] && fresh(p, arena_printf(a, "dpia_vload_%s", v))) {
        emit(out, "static inline %s dpia_vload_%s(int offset, const %s *p) {\n  %s v = {0};\n"
                  "  memcpy(&v, p + (size_t)offset * %d, %d * sizeof(%s));\n  return v;\n}\n",
             v, v, t, v, w, w, t);
        done(p);
      }
      if (u->vstore[s][w] && fresh(p, arena_printf(a, "dpia_vstore_%s", v))) {
        emit(out, "static inline void dpia_vstore_%s(%s v, int offset, %s *p) {\n"
                  "  memcpy(p + (size_t)offset * %d, &v, %d * sizeof(%s));\n}\n",
             v, v, t, w, w, t);
        done(p);
      }
    }
  if (out->len > before) buf_putc(out, '\n');
}
