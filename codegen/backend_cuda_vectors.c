/* backend_cuda_vectors.c: the preamble of a CUDA kernel (backend_cuda.h):
 * the definitions that give its vector expressions the meaning OpenCL C
 * gives them (OpenCL C 6.3: operators lane by lane, a vector and a scalar
 * mixed; a comparison gives -1 or 0 in an int vector; ?: of vectors picks
 * by the sign of the mask's lane; 6.15.7 vloadN and vstoreN), which CUDA's
 * vector types lack.  CUDA C is C++: operators are overloaded, so the
 * kernel's vector arithmetic prints as OpenCL's does.
 *
 * Only what the kernel uses is defined, by type: its kernel IR carries no
 * type on an operator, so the vector types are those of its declarations,
 * parameters, casts, literals and built-ins, and every scalar kind of the
 * kernel at every width it loads, stores or reads a lane of (an int vector
 * of each width too: the comparisons' results).  The lane-wise built-ins,
 * conversions and selects are those its expressions name.  In a program of
 * several kernels (a pipeline) each definition is printed once. */
#include "backend_c.h"
#include "backend_cuda.h"

#include <string.h>

enum { NSCALARS = SC_BOOL, NWIDTHS = 5 };
#define X(id, arity) +1
enum { NBUILTINS = 0 KIR_BUILTINS(X) };
#undef X
static const int widths[NWIDTHS] = {2, 3, 4, 8, 16};

static int width_index(int w) {
  for (int i = 0; i < NWIDTHS; i++)
    if (widths[i] == w) return i;
  INTERNAL("vector width %d", w);
}

/* what a kernel uses, by [scalar][width index] */
typedef struct Uses {
  bool scalar[NSCALARS];
  bool width[NWIDTHS];
  bool vector[NSCALARS][NWIDTHS];      /* named by a type */
  bool memory[NWIDTHS];                /* vloadN or vstoreN */
  bool builtin[NBUILTINS][NSCALARS][NWIDTHS];
  bool clamp[NSCALARS];                /* scalar dpia_clamp (of a vector's too) */
  bool convert[NSCALARS][NWIDTHS];     /* dpia_convert_ to this type */
} Uses;

static void use_width(Uses *u, int w) {
  if (w > 1) u->width[width_index(w)] = true;
}

static void use_type(Uses *u, const KirType *t) {
  if (!t) return;
  DPIA_EXHAUSTIVE_BEGIN
  switch (t->kind) {
  case KTY_SCALAR:
    if (t->scalar == SC_BOOL) return;
    u->scalar[t->scalar] = true;
    if (t->width > 1) {
      use_width(u, t->width);
      u->vector[t->scalar][width_index(t->width)] = true;
    }
    return;
  case KTY_STRUCT: return; /* its fields are the KT_STRUCT's */
  case KTY_POINTER: use_type(u, t->to); return;
  }
  DPIA_EXHAUSTIVE_END
}

/* what an expression node uses (CWalk.on_expr) */
static void use_expr(void *ctx, const KirExpr *e) {
  Uses *u = ctx;
  switch (e->kind) {
  case KE_LIT:
    if (e->lit.scalar != SC_BOOL) u->scalar[e->lit.scalar] = true;
    return;
  case KE_LANE: use_width(u, e->lane.width); break;
  case KE_VLOAD:
    use_width(u, e->vload.width);
    u->memory[width_index(e->vload.width)] = true;
    break;
  case KE_BUILTIN: {
    const KirType *t = e->call.type;
    use_type(u, t);
    if (t->kind == KTY_SCALAR && t->scalar != SC_BOOL) {
      if (t->width > 1) u->builtin[e->call.builtin][t->scalar][width_index(t->width)] = true;
      if (e->call.builtin == KBI_CLAMP) u->clamp[t->scalar] = true;
    }
    break;
  }
  case KE_CAST:
    use_type(u, e->call.type);
    if (e->call.type->kind == KTY_SCALAR && e->call.type->width > 1)
      u->convert[e->call.type->scalar][width_index(e->call.type->width)] = true;
    break;
  case KE_VECTOR: use_type(u, e->call.type); break;
  default: break;
  }
}

/* what a statement uses itself: a vstore's width (CWalk.on_stmt) */
static void use_stmt(void *ctx, const KirStmt *s) {
  Uses *u = ctx;
  if (s->kind != KS_VSTORE) return;
  use_width(u, s->vstore.width);
  u->memory[width_index(s->vstore.width)] = true;
}

static void use_type_of(void *ctx, const KirType *t) { use_type(ctx, t); }

static void uses_of(Uses *u, const KirKernel *k) {
  memset(u, 0, sizeof *u);
  cwalk_kernel(&(CWalk){.on_type = use_type_of, .on_expr = use_expr, .on_stmt = use_stmt, .ctx = u}, k);
  /* every scalar at every width in use, and int at each (masks) */
  for (int w = 0; w < NWIDTHS; w++) {
    if (!u->width[w]) continue;
    u->vector[SC_INT][w] = true;
    for (int s = 0; s < NSCALARS; s++) u->vector[s][w] |= u->scalar[s];
  }
}

/* ---- printing ---- */

typedef struct P {
  Buf *out;
  NameSet *defined;
  ScalarKind s;
  int w;
  const char *t, *sc; /* the vector type's name, its scalar's */
} P;

static const char *vector_name(Arena *a, ScalarKind s, int w) {
  Buf b;
  buf_init(&b, a);
  cuda_vector_name(&b, s, w);
  return b.data;
}

/* a definition of this key once in the program (key: what it defines) */
static bool fresh(P *p, const char *what) {
  return !cprint_defined_before(p->defined, arena_printf(p->out->arena, "dpia %s %s", what, p->t));
}

/* the lane i of a vector of width w: .x or .s[i] */
static const char *lane(Arena *a, int w, int i) {
  static const char *const xyzw[] = {".x", ".y", ".z", ".w"};
  return w <= 4 ? xyzw[i] : arena_printf(a, ".s[%d]", i);
}

/* tmpl with each # replaced by lane i's accessor and each @ by i */
static void put_lane(Buf *out, const char *tmpl, int w, int i) {
  for (const char *c = tmpl; *c; c++) {
    if (*c == '#') buf_puts(out, w <= 4 ? lane(out->arena, w, i) : ".s[i]");
    else if (*c == '@') emit(out, w <= 4 ? "%d" : "i", i);
    else buf_putc(out, *c);
  }
}

/* __device__ inline SIG { return R of tmpl at each lane; } for a result
 * of type r (scalar rs, width w) */
static void lanewise(P *p, const char *r, const char *sig, const char *tmpl) {
  Buf *o = p->out;
  emit(o, "__device__ inline %s %s {", r, sig);
  if (p->w <= 4) {
    emit(o, " return make_%s(", r);
    for (int i = 0; i < p->w; i++) {
      if (i) buf_puts(o, ", ");
      put_lane(o, tmpl, p->w, i);
    }
    buf_puts(o, "); }\n");
    return;
  }
  emit(o, "\n  %s r;\n  for (int i = 0; i < %d; i++) r.s[i] = ", r, p->w);
  put_lane(o, tmpl, p->w, 0);
  buf_puts(o, ";\n  return r;\n}\n");
}

/* the struct of a vector CUDA does not have, and its make_ */
static void print_struct(P *p) {
  if (cuda_builtin_vector(p->s, p->w) || !fresh(p, "type")) return;
  Buf *o = p->out;
  if (p->w <= 4) { /* double4 */
    emit(o, "struct __align__(16) %s { %s x, y, z, w; };\n", p->t, p->sc);
    emit(o, "__device__ inline %s make_%s(%s x, %s y, %s z, %s w) { return {x, y, z, w}; }\n", p->t, p->t, p->sc,
         p->sc, p->sc, p->sc);
    return;
  }
  emit(o, "struct __align__(16) %s { %s s[%d]; };\n", p->t, p->sc, p->w);
  emit(o, "__device__ inline %s make_%s(", p->t, p->t);
  for (int i = 0; i < p->w; i++) emit(o, "%s%s a%d", i ? ", " : "", p->sc, i);
  buf_puts(o, ") {\n  return {{");
  for (int i = 0; i < p->w; i++) emit(o, "%sa%d", i ? ", " : "", i);
  buf_puts(o, "}};\n}\n");
}

/* splat, arithmetic with vectors and scalars, comparisons */
static void print_operators(P *p, const char *mask) {
  if (!fresh(p, "operators")) return;
  Arena *a = p->out->arena;
  lanewise(p, p->t, arena_printf(a, "dpia_splat_%s(%s a)", p->t, p->sc), "a");
  static const char *const arith[] = {"+", "-", "*", "/", "%"};
  for (size_t i = 0; i < DPIA_COUNTOF(arith); i++) {
    const char *op = arith[i];
    if (op[0] == '%' && p->s != SC_INT) continue;
    lanewise(p, p->t, arena_printf(a, "operator%s(%s a, %s b)", op, p->t, p->t), arena_printf(a, "a# %s b#", op));
    lanewise(p, p->t, arena_printf(a, "operator%s(%s a, %s b)", op, p->t, p->sc), arena_printf(a, "a# %s b", op));
    lanewise(p, p->t, arena_printf(a, "operator%s(%s a, %s b)", op, p->sc, p->t), arena_printf(a, "a %s b#", op));
  }
  lanewise(p, p->t, arena_printf(a, "operator-(%s a)", p->t), "-a#");
  static const char *const compare[] = {"<", "<=", ">", ">=", "==", "!="};
  for (size_t i = 0; i < DPIA_COUNTOF(compare); i++)
    lanewise(p, mask, arena_printf(a, "operator%s(%s a, %s b)", compare[i], p->t, p->t),
             arena_printf(a, "a# %s b# ? -1 : 0", compare[i]));
}

/* vloadN and vstoreN: through a pointer to the vector type where the
 * address is aligned as that type, else lane by lane */
static void print_memory(P *p) {
  if (!fresh(p, "memory")) return;
  Buf *o = p->out;
  Arena *a = o->arena;
  bool whole = cuda_builtin_vector(p->s, p->w) && p->w != 3; /* sizeof == alignment */
  const char *aligned = arena_printf(a, "reinterpret_cast<size_t>(p + n * %d) %% sizeof(%s) == 0", p->w, p->t);
  if (whole) {
    emit(o, "__device__ inline %s dpia_vload%d(int n, const %s *p) {\n", p->t, p->w, p->sc);
    emit(o, "  if (%s) return *reinterpret_cast<const %s *>(p + n * %d);\n", aligned, p->t, p->w);
    emit(o, "  return make_%s(", p->t);
    for (int i = 0; i < p->w; i++) emit(o, "%sp[n * %d + %d]", i ? ", " : "", p->w, i);
    buf_puts(o, ");\n}\n");
  } else {
    lanewise(p, p->t, arena_printf(a, "dpia_vload%d(int n, const %s *p)", p->w, p->sc),
             arena_printf(a, "p[n * %d + @]", p->w));
  }
  emit(o, "__device__ inline void dpia_vstore%d(%s v, int n, %s *p) {\n", p->w, p->t, p->sc);
  if (whole) {
    emit(o, "  if (%s) {\n    *reinterpret_cast<%s *>(p + n * %d) = v;\n    return;\n  }\n", aligned, p->t, p->w);
  }
  if (p->w <= 4) {
    for (int i = 0; i < p->w; i++) emit(o, "  p[n * %d + %d] = v%s;\n", p->w, i, lane(a, p->w, i));
  } else {
    emit(o, "  for (int i = 0; i < %d; i++) p[n * %d + i] = v.s[i];\n", p->w, p->w);
  }
  buf_puts(o, "}\n");
}

/* the lane-wise built-ins of this type the kernel calls */
static void print_builtins(P *p, const Uses *u, const char *mask) {
  Arena *a = p->out->arena;
  int wi = width_index(p->w);
  for (int b = 0; b < NBUILTINS; b++) {
    if (!u->builtin[b][p->s][wi] || !fresh(p, arena_printf(a, "builtin %d", b))) continue;
    const char *t = p->t, *sc = p->sc;
    if (b == KBI_SELECT) {
      lanewise(p, t, arena_printf(a, "dpia_select(%s m, %s a, %s b)", mask, t, t), "m# < 0 ? a# : b#");
      continue;
    }
    /* the vector's helper, and the scalar function of each lane */
    const char *fn = cuda_builtin_spelling((KirBuiltin)b, p->s, p->w);
    const char *name = cuda_builtin_spelling((KirBuiltin)b, p->s, 1);
    switch (kir_builtin_arity[b]) {
    case 1: lanewise(p, t, arena_printf(a, "%s(%s a)", fn, t), arena_printf(a, "%s(a#)", name)); break;
    case 2:
      lanewise(p, t, arena_printf(a, "%s(%s a, %s b)", fn, t, t), arena_printf(a, "%s(a#, b#)", name));
      lanewise(p, t, arena_printf(a, "%s(%s a, %s b)", fn, t, sc), arena_printf(a, "%s(a#, b)", name));
      break;
    case 3:
      lanewise(p, t, arena_printf(a, "%s(%s a, %s b, %s c)", fn, t, t, t), arena_printf(a, "%s(a#, b#, c#)", name));
      lanewise(p, t, arena_printf(a, "%s(%s a, %s b, %s c)", fn, t, sc, sc), arena_printf(a, "%s(a#, b, c)", name));
      break;
    default: INTERNAL("built-in %d of %d arguments", b, kir_builtin_arity[b]);
    }
  }
}

/* dpia_convert_T from each vector type of its width */
static void print_converts(P *p, const Uses *u) {
  int wi = width_index(p->w);
  if (!u->convert[p->s][wi] || !fresh(p, "convert")) return;
  Arena *a = p->out->arena;
  for (int s = 0; s < NSCALARS; s++) {
    if (!u->vector[s][wi]) continue;
    lanewise(p, p->t, arena_printf(a, "dpia_convert_%s(%s a)", p->t, vector_name(a, (ScalarKind)s, p->w)),
             arena_printf(a, "(%s)a#", p->sc));
  }
}

void cuda_print_preamble(const KirKernel *k, NameSet *defined, Buf *out) {
  Uses u;
  uses_of(&u, k);
  size_t start = out->len;
  Arena *a = out->arena;
  /* the scalar clamp (OpenCL's clamp: min(max(x, lo), hi)) */
  static const char *const minmax[NSCALARS][2] = {[SC_INT] = {"min", "max"}, [SC_FLOAT] = {"fminf", "fmaxf"},
                                                  [SC_DOUBLE] = {"fmin", "fmax"}};
  for (int s = 0; s < NSCALARS; s++) {
    if (!u.clamp[s] || cprint_defined_before(defined, arena_printf(a, "dpia clamp %s", scalar_name((ScalarKind)s))))
      continue;
    const char *sc = scalar_name((ScalarKind)s);
    emit(out, "__device__ inline %s dpia_clamp(%s x, %s lo, %s hi) { return %s(%s(x, lo), hi); }\n", sc, sc, sc, sc,
         minmax[s][0], minmax[s][1]);
  }
  /* the types first: a comparison's mask may be a later one */
  for (int pass = 0; pass < 2; pass++)
    for (int s = 0; s < NSCALARS; s++)
      for (int w = 0; w < NWIDTHS; w++) {
        if (!u.vector[s][w]) continue;
        P p = {out, defined, (ScalarKind)s, widths[w], vector_name(a, (ScalarKind)s, widths[w]),
               scalar_name((ScalarKind)s)};
        if (pass == 0) {
          print_struct(&p);
          continue;
        }
        const char *mask = vector_name(a, SC_INT, widths[w]);
        print_operators(&p, mask);
        if (u.memory[w]) print_memory(&p);
        print_converts(&p, &u);
        print_builtins(&p, &u, mask);
      }
  if (out->len > start) buf_putc(out, '\n');
}
