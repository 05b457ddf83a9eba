/* prims.h: the table of DPIA primitives (spec section 4, paper Figure 4).
 *
 * One X-macro row per primitive, so the enum, the names the parser knows and
 * every printer come from one place:
 *   X(ID, "surface name", static size arguments, takes a type argument, flags)
 * Static arguments are the ones the spec says are written because nothing
 * else determines them: `split k`, `asVector k`, `slide s t`, `for n`,
 * `new T`.  The parser reads them right after the name, in size syntax (or
 * type syntax), so `split (N / 64) xs` is PRIM(split, sizes = [N/64]) applied
 * to xs.  Primitive names are reserved: they cannot be rebound. */
#ifndef DPIA_PRIMS_H
#define DPIA_PRIMS_H

#include <stdbool.h>
#include <stddef.h>

/* flags */
#define PF_FUNC 0x01   /* functional primitive (Figure 4a, section 6.2, views) */
#define PF_IMP 0x02    /* imperative primitive (Figure 4b) */
#define PF_INTER 0x04  /* intermediate combinator (Figure 4c) */
#define PF_DIM 0x08    /* takes an OpenCL dimension suffix 0, 1, 2 (mapGlobal1) */
#define PF_MATH 0x10   /* OpenCL math built-in, elementwise over float vectors */
#define PF_VIEW 0x20   /* data layout view: resolved by index code generation */

#define DPIA_PRIMS(X)                                          \
  /* functional: maps and reductions */                        \
  X(MAP, "map", 0, 0, PF_FUNC)                                 \
  X(MAP_SEQ, "mapSeq", 0, 0, PF_FUNC)                          \
  X(MAP_GLOBAL, "mapGlobal", 0, 0, PF_FUNC | PF_DIM)           \
  X(MAP_WORKGROUP, "mapWorkgroup", 0, 0, PF_FUNC | PF_DIM)     \
  X(MAP_LOCAL, "mapLocal", 0, 0, PF_FUNC | PF_DIM)             \
  X(REDUCE, "reduce", 0, 0, PF_FUNC)                           \
  X(REDUCE_SEQ, "reduceSeq", 0, 0, PF_FUNC)                    \
  /* functional: data layout */                                \
  X(ZIP, "zip", 0, 0, PF_FUNC | PF_VIEW)                       \
  X(SPLIT, "split", 1, 0, PF_FUNC | PF_VIEW)                   \
  X(JOIN, "join", 0, 0, PF_FUNC | PF_VIEW)                     \
  X(PAIR, "pair", 0, 0, PF_FUNC | PF_VIEW)                     \
  X(FST, "fst", 0, 0, PF_FUNC | PF_VIEW)                       \
  X(SND, "snd", 0, 0, PF_FUNC | PF_VIEW)                       \
  X(AS_VECTOR, "asVector", 1, 0, PF_FUNC | PF_VIEW)            \
  X(AS_SCALAR, "asScalar", 0, 0, PF_FUNC | PF_VIEW)            \
  X(TRANSPOSE, "transpose", 0, 0, PF_FUNC | PF_VIEW)           \
  X(SLIDE, "slide", 2, 0, PF_FUNC | PF_VIEW)                   \
  X(PAD_CLAMP, "padClamp", 2, 0, PF_FUNC | PF_VIEW)            \
  X(PAD_CST, "padCst", 2, 0, PF_FUNC | PF_VIEW)                \
  X(REORDER_STRIDE, "reorderStride", 1, 0, PF_FUNC | PF_VIEW)  \
  X(TAKE, "take", 1, 0, PF_FUNC | PF_VIEW)                     \
  X(DROP, "drop", 1, 0, PF_FUNC | PF_VIEW)                     \
  /* functional: memory (section 6.2) */                       \
  X(TO_GLOBAL, "toGlobal", 0, 0, PF_FUNC)                      \
  X(TO_LOCAL, "toLocal", 0, 0, PF_FUNC)                        \
  X(TO_PRIVATE, "toPrivate", 0, 0, PF_FUNC)                    \
  /* functional: scalars */                                    \
  X(SELECT, "select", 0, 0, PF_FUNC)                           \
  X(VEC, "vec", 1, 0, PF_FUNC)                                 \
  X(FABS, "fabs", 0, 0, PF_FUNC | PF_MATH)                     \
  X(SQRT, "sqrt", 0, 0, PF_FUNC | PF_MATH)                     \
  X(RSQRT, "rsqrt", 0, 0, PF_FUNC | PF_MATH)                   \
  X(EXP, "exp", 0, 0, PF_FUNC | PF_MATH)                       \
  X(LOG, "log", 0, 0, PF_FUNC | PF_MATH)                       \
  X(SIN, "sin", 0, 0, PF_FUNC | PF_MATH)                       \
  X(COS, "cos", 0, 0, PF_FUNC | PF_MATH)                       \
  X(FLOOR, "floor", 0, 0, PF_FUNC | PF_MATH)                   \
  X(CEIL, "ceil", 0, 0, PF_FUNC | PF_MATH)                     \
  X(MIN, "min", 0, 0, PF_FUNC | PF_MATH)                       \
  X(MAX, "max", 0, 0, PF_FUNC | PF_MATH)                       \
  X(POW, "pow", 0, 0, PF_FUNC | PF_MATH)                       \
  X(FMA, "fma", 0, 0, PF_FUNC | PF_MATH)                       \
  X(TO_FLOAT, "toFloat", 0, 0, PF_FUNC)                        \
  X(TO_INT, "toInt", 0, 0, PF_FUNC)                            \
  X(TO_DOUBLE, "toDouble", 0, 0, PF_FUNC)                      \
  /* imperative (Figure 4b) */                                 \
  X(SKIP, "skip", 0, 0, PF_IMP)                                \
  X(NEW, "new", 0, 1, PF_IMP)                                  \
  X(NEW_GLOBAL, "newGlobal", 0, 1, PF_IMP)                     \
  X(NEW_LOCAL, "newLocal", 0, 1, PF_IMP)                       \
  X(NEW_PRIVATE, "newPrivate", 0, 1, PF_IMP)                   \
  X(FOR, "for", 1, 0, PF_IMP)                                  \
  X(PARFOR, "parfor", 0, 0, PF_IMP)                            \
  X(PARFOR_GLOBAL, "parforGlobal", 0, 0, PF_IMP | PF_DIM)      \
  X(PARFOR_WORKGROUP, "parforWorkgroup", 0, 0, PF_IMP | PF_DIM) \
  X(PARFOR_LOCAL, "parforLocal", 0, 0, PF_IMP | PF_DIM)        \
  X(IDX, "idx", 0, 0, PF_IMP | PF_VIEW)                        \
  X(IDX_ACC, "idxAcc", 0, 0, PF_IMP | PF_VIEW)                 \
  X(SPLIT_ACC, "splitAcc", 1, 0, PF_IMP | PF_VIEW)             \
  X(JOIN_ACC, "joinAcc", 0, 0, PF_IMP | PF_VIEW)               \
  X(PAIR_ACC1, "pairAcc1", 0, 0, PF_IMP | PF_VIEW)             \
  X(PAIR_ACC2, "pairAcc2", 0, 0, PF_IMP | PF_VIEW)             \
  X(ZIP_ACC1, "zipAcc1", 0, 0, PF_IMP | PF_VIEW)               \
  X(ZIP_ACC2, "zipAcc2", 0, 0, PF_IMP | PF_VIEW)               \
  X(AS_SCALAR_ACC, "asScalarAcc", 1, 0, PF_IMP | PF_VIEW)      \
  X(AS_VECTOR_ACC, "asVectorAcc", 0, 0, PF_IMP | PF_VIEW)      \
  X(TRANSPOSE_ACC, "transposeAcc", 0, 0, PF_IMP | PF_VIEW)     \
  /* intermediate (Figure 4c) */                               \
  X(MAP_I, "mapI", 0, 0, PF_INTER)                             \
  X(MAP_I_SEQ, "mapISeq", 0, 0, PF_INTER)                      \
  X(MAP_I_GLOBAL, "mapIGlobal", 0, 0, PF_INTER | PF_DIM)       \
  X(MAP_I_WORKGROUP, "mapIWorkgroup", 0, 0, PF_INTER | PF_DIM) \
  X(MAP_I_LOCAL, "mapILocal", 0, 0, PF_INTER | PF_DIM)         \
  X(REDUCE_I, "reduceI", 0, 0, PF_INTER)

typedef enum Prim {
#define X(id, name, nsizes, ntype, flags) PRIM_##id,
  DPIA_PRIMS(X)
#undef X
  PRIM_COUNT
} Prim;

typedef struct PrimInfo {
  const char *name;
  int nsizes;   /* static size arguments written after the name */
  int takes_type; /* a type argument written after the sizes (new T) */
  int flags;
} PrimInfo;

extern const PrimInfo prim_info[PRIM_COUNT];

/* The functional primitives that compute: the maps, the reductions and
 * toGlobal, toLocal, toPrivate.  Each runs the function that is its first
 * argument, and stage I translates every one of them away. */
bool prim_computes(Prim p);

/* Look a name up, accepting a dimension suffix 0-2 on PF_DIM primitives.
 * Returns PRIM_COUNT if the name is not a primitive; *dim gets the suffix
 * (0 when absent). */
Prim prim_lookup(const char *name, size_t len, int *dim);

#endif
