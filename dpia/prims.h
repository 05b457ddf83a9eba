/* prims.h: the table of DPIA primitives (spec section 4, paper Figure 4).
 *
 * One X-macro row describes a primitive completely; the enum, the parser's
 * names, every printer, the checker's types and the translation's choices
 * come from it:
 *
 *   X(ID, "surface name", static sizes, takes a type, flags,
 *     FAMILY, LEVEL, LOWERED, "signature")
 *
 * Static arguments are the ones the spec says are written because nothing
 * else determines them: `split k`, `asVector k`, `slide s t`, `for n`,
 * `new T`, and both sizes of `takeAcc k r` and `dropAcc k r` (kept and
 * dropped elements: the acceptor they make is larger than the one they
 * take, so no argument tells its size).  The parser reads them right after the name, in size syntax (or
 * type syntax), so `split (N / 64) xs` is PRIM(split, sizes = [N/64]) applied
 * to xs.  Primitive names are reserved: they cannot be rebound.
 *
 * FAMILY says what kind of primitive it is (PrimFamily below), LEVEL the
 * OpenCL level it runs at or the address space it allocates in (PrimLevel),
 * and LOWERED what the translation turns it into: a map its mapI of the same
 * level (stage I, paper section 5.1), a mapI its parfor or for (stage II,
 * section 5.2), a reduction reduceI, toGlobal/toLocal/toPrivate the new of
 * their address space, a view in acceptor position its acceptor twin (zip
 * and pair: zipAcc1 and pairAcc1, whose second projection follows them in
 * the table; padCst: sliceAcc, the interior, stage I writing the borders;
 * take and drop: takeAcc and dropAcc, which drop the writes outside);
 * COUNT for none.
 *
 * The signature is the primitive's type in the language's own type syntax
 * (spec section 2, `ptype`), as shine writes its primitives.  Lower-case
 * names are implicit arguments, instantiated with fresh metavariables at
 * every use (prim_type.c): a name in a size position is a size, one in a
 * type position a data type.  The names before a leading "k." are the static
 * arguments in order (sizes; `T` the type argument of new).  Constraints
 * follow "where", separated by commas:
 *   numeric s / floating t   the data type is a scalar (or vector) of that class
 *   vector v s w             v is the vector of w elements of scalar s
 *   convert s r float        r is float (int, double) with the width of s
 *   width k                  the static size k is a vector width 2 3 4 8 16
 *   lane v s k               v is a vector of scalar s with more than k lanes
 *   positive k (what)        k >= 1, a precondition when symbolic ("what"
 *                            names it in messages; the primitive's name if absent)
 * A static size must be at least 1 when it is a constant, except with
 * PF_ZERO_SIZES (padding, take, drop).
 *
 * Adding a primitive (docs/architecture.md, "Adding a primitive"): write
 * its row, then add its ID to the PRIM_CASES_ list of its family below
 * (test_prims checks the lists against the FAMILY column).  Every decision
 * about primitives is a switch over Prim inside DPIA_EXHAUSTIVE_BEGIN/END,
 * so the build then stops at each place that must say what the new
 * primitive is there, unless that place treats its whole family alike:
 *   dpia/prims.c      prim_computes, prim_builds_vector, prim_parfor_per_item
 *   dpia/strategy.c   role_of: its place in the OpenCL hierarchy (spec section 5)
 *   dpia/scir.c       parfor_kind: whether its body is a parfor's (Promote)
 *   dpia/check.c      is_reduction (messages)
 *   dpia/invariant.c  left_over: the stage that translates it away
 *   dpia/pipeline.c   keeps_layout: a view allowed between kernels
 *   translate/        stage1.c (direct_ok, is_parallel_map, materialise,
 *                     con_tr, acc_view, acc_tr), stage2.c (rewrite),
 *                     hoist.c (role_of)
 *   codegen/access.c  its expression in a kernel
 *   verify/           interp.c, imp_interp.c, numeric.c: its meaning
 * tests/unit/new_prim_row.py checks that each file of dpia/ and translate/
 * above stops the build for a row that no list names. */
#ifndef DPIA_PRIMS_H
#define DPIA_PRIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* flags */
#define PF_FUNC 0x01       /* functional primitive (Figure 4a, section 6.2, views) */
#define PF_IMP 0x02        /* imperative primitive (Figure 4b) */
#define PF_INTER 0x04      /* intermediate combinator (Figure 4c) */
#define PF_DIM 0x08        /* takes an OpenCL dimension suffix 0, 1, 2 (mapGlobal1) */
#define PF_VIEW 0x20       /* data layout view: resolved by index code generation */
#define PF_ZERO_SIZES 0x40 /* its static sizes may be 0 */
#define PF_EXACT 0x80      /* a math built-in exact in float (no rounding: fabs, min) */

/* The row of a vector constructor: `float4` takes 4 floats (one exp[t] per
 * lane) and gives a float4. */
#define DPIA_LANES_2(t) "exp[" t "] -> exp[" t "] -> "
#define DPIA_LANES_3(t) DPIA_LANES_2(t) "exp[" t "] -> "
#define DPIA_LANES_4(t) DPIA_LANES_2(t) DPIA_LANES_2(t)
#define DPIA_LANES_8(t) DPIA_LANES_4(t) DPIA_LANES_4(t)
#define DPIA_LANES_16(t) DPIA_LANES_8(t) DPIA_LANES_8(t)
#define DPIA_VECTOR_ROW(X, id, t, w) \
  X(id, #t #w, 0, 0, PF_FUNC, SCALAR, NONE, COUNT, DPIA_LANES_##w(#t) "exp[" #t #w "]")

/* the table and the case lists are laid out by hand */
/* clang-format off */
#define DPIA_PRIMS(X)                                          \
  /* functional: maps and reductions */ \
  X(MAP, "map", 0, 0, PF_FUNC, MAP, NONE, MAP_I, \
    "(exp[a] -> exp[b]) -> exp[[n]a] -> exp[[n]b]") \
  X(MAP_SEQ, "mapSeq", 0, 0, PF_FUNC, MAP, SEQ, MAP_I_SEQ, \
    "(exp[a] -> exp[b]) -> exp[[n]a] -> exp[[n]b]") \
  X(MAP_GLOBAL, "mapGlobal", 0, 0, PF_FUNC | PF_DIM, MAP, GLOBAL, MAP_I_GLOBAL, \
    "(exp[a] -> exp[b]) -> exp[[n]a] -> exp[[n]b]") \
  X(MAP_WORKGROUP, "mapWorkgroup", 0, 0, PF_FUNC | PF_DIM, MAP, WORKGROUP, MAP_I_WORKGROUP, \
    "(exp[a] -> exp[b]) -> exp[[n]a] -> exp[[n]b]") \
  X(MAP_LOCAL, "mapLocal", 0, 0, PF_FUNC | PF_DIM, MAP, LOCAL, MAP_I_LOCAL, \
    "(exp[a] -> exp[b]) -> exp[[n]a] -> exp[[n]b]") \
  /* depMapSeq f xs over a dependent array [n](\i -> d1) (shine's \
     depMapSeq): f is checked once for row k, a size of its own that is \
     the loop's index, so a row's sizes use it (docs/language.md section \
     30); the signature is the shape, the checker gives f its row type \
     (check.c, dep_map_type) and the result d, [n]b, or the dependent \
     array [n](\k -> b) when b uses k (dep_map_result, section 30.2).  Lowered to the mapI of its level, whose \
     loop binds the row's size to its index (Phrase.dep_index) */ \
  X(DEP_MAP_SEQ, "depMapSeq", 0, 0, PF_FUNC, MAP, SEQ, MAP_I_SEQ, \
    "(exp[a] -> exp[b]) -> exp[c] -> exp[d]") \
  X(DEP_MAP_GLOBAL, "depMapGlobal", 0, 0, PF_FUNC | PF_DIM, MAP, GLOBAL, MAP_I_GLOBAL, \
    "(exp[a] -> exp[b]) -> exp[c] -> exp[d]") \
  X(DEP_MAP_WORKGROUP, "depMapWorkgroup", 0, 0, PF_FUNC | PF_DIM, MAP, WORKGROUP, MAP_I_WORKGROUP, \
    "(exp[a] -> exp[b]) -> exp[c] -> exp[d]") \
  X(REDUCE, "reduce", 0, 0, PF_FUNC, REDUCE, NONE, REDUCE_I, \
    "(exp[a] -> exp[b] -> exp[b]) -> exp[b] -> exp[[n]a] -> exp[b]") \
  X(REDUCE_SEQ, "reduceSeq", 0, 0, PF_FUNC, REDUCE, SEQ, REDUCE_I, \
    "(exp[a] -> exp[b] -> exp[b]) -> exp[b] -> exp[[n]a] -> exp[b]") \
  /* the inclusive sequential scan: element i of its result is the \
     accumulator after step i (shine's scanSeq, lowered to scanI) */ \
  X(SCAN_SEQ, "scanSeq", 0, 0, PF_FUNC, SCAN, SEQ, SCAN_I, \
    "(exp[a] -> exp[b] -> exp[b]) -> exp[b] -> exp[[n]a] -> exp[[n]b]") \
  /* reduceRange s f init lo hi xs: reduceSeq over the elements lo, lo+s, \
     ... below hi of xs, a trip count read from data, the range clamped to \
     the array so that nothing outside it is read (docs/language.md \
     section 25; lowered to reduceRangeI, then to a forRange) */ \
  X(REDUCE_RANGE, "reduceRange", 1, 0, PF_FUNC, REDUCE_RANGE, SEQ, REDUCE_RANGE_I, \
    "s. (exp[a] -> exp[b] -> exp[b]) -> exp[b] -> exp[int] -> exp[int] -> exp[[n]a] -> exp[b] where positive s (reduceRange step)") \
  /* the sequential sliding window (shine's slideSeq with value rotation): \
     mapSeq f (slide s 1 xs) computed with the last s elements of xs kept \
     in private memory, one new element loaded a step and the window \
     rotated (docs/language.md section 26; lowered to slideSeqI) */ \
  X(SLIDE_SEQ, "slideSeq", 1, 0, PF_FUNC, WINDOW, SEQ, SLIDE_SEQ_I, \
    "s. (exp[[s]a] -> exp[b]) -> exp[[n+s]a] -> exp[[n+1]b] where positive s (slideSeq window)") \
  /* functional: data layout (views) */ \
  X(ZIP, "zip", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, ZIP_ACC1, \
    "exp[[n]a] -> exp[[n]b] -> exp[[n](a, b)]") \
  X(SPLIT, "split", 1, 0, PF_FUNC | PF_VIEW, VIEW, NONE, SPLIT_ACC, \
    "k. exp[[n*k]a] -> exp[[n][k]a] where positive k") \
  X(JOIN, "join", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, JOIN_ACC, \
    "exp[[n][m]a] -> exp[[n*m]a]") \
  X(PAIR, "pair", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, PAIR_ACC1, \
    "exp[a] -> exp[b] -> exp[(a, b)]") \
  X(FST, "fst", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, COUNT, \
    "exp[(a, b)] -> exp[a]") \
  X(SND, "snd", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, COUNT, \
    "exp[(a, b)] -> exp[b]") \
  /* v.x, v.s7: lane k of a vector (docs/language.md section 11); written \
     only as a projection, so its name is no identifier */ \
  X(LANE, ".lane", 1, 0, PF_FUNC | PF_VIEW | PF_ZERO_SIZES, VIEW, NONE, COUNT, \
    "k. exp[v] -> exp[s] where lane v s k") \
  X(AS_VECTOR, "asVector", 1, 0, PF_FUNC | PF_VIEW, VIEW, NONE, AS_VECTOR_ACC, \
    "k. exp[[n*k]s] -> exp[[n]v] where width k, numeric s, vector v s k") \
  X(AS_SCALAR, "asScalar", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, AS_SCALAR_ACC, \
    "exp[[n]v] -> exp[[n*w]s] where numeric s, vector v s w") \
  X(TRANSPOSE, "transpose", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, TRANSPOSE_ACC, \
    "exp[[n][m]a] -> exp[[m][n]a]") \
  X(SLIDE, "slide", 2, 0, PF_FUNC | PF_VIEW, VIEW, NONE, COUNT, \
    "s t. exp[[t*n+s]a] -> exp[[n+1][s]a] where positive s (slide window), positive t (slide step)") \
  X(PAD_CLAMP, "padClamp", 2, 0, PF_FUNC | PF_VIEW | PF_ZERO_SIZES, VIEW, NONE, COUNT, \
    "l r. exp[[n]a] -> exp[[l+n+r]a]") \
  X(PAD_CST, "padCst", 2, 0, PF_FUNC | PF_VIEW | PF_ZERO_SIZES, VIEW, NONE, SLICE_ACC, \
    "l r. exp[a] -> exp[[n]a] -> exp[[l+n+r]a]") \
  X(REORDER_STRIDE, "reorderStride", 1, 0, PF_FUNC | PF_VIEW, VIEW, NONE, COUNT, \
    "s. exp[[m*s]a] -> exp[[m*s]a] where positive s") \
  X(TAKE, "take", 1, 0, PF_FUNC | PF_VIEW | PF_ZERO_SIZES, VIEW, NONE, TAKE_ACC, \
    "k. exp[[k+r]a] -> exp[[k]a]") \
  X(DROP, "drop", 1, 0, PF_FUNC | PF_VIEW | PF_ZERO_SIZES, VIEW, NONE, DROP_ACC, \
    "k. exp[[k+r]a] -> exp[[r]a]") \
  /* unzip: an array of pairs seen as the pair of its two arrays \
     (docs/language.md section 24); written through, a map whose \
     elements are pairs fills two arrays in one loop (unzipAcc) */ \
  X(UNZIP, "unzip", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, UNZIP_ACC, \
    "exp[[n](a, b)] -> exp[([n]a, [n]b)]") \
  /* indices n: the positions 0 .. n-1 of an array of n elements, each \
     the index itself (docs/language.md section 22): a view with no \
     memory, so a map's body can see its element's position (zip xs \
     (indices n)); it has no acceptor form, being nothing to write */ \
  X(INDICES, "indices", 1, 0, PF_FUNC | PF_VIEW, VIEW, NONE, COUNT, \
    "k. exp[[k]idx[k]]") \
  /* triangle xs: the pairs of the upper triangle of xs with itself, \
     row i the n - i pairs (xs[i], xs[i + j]) (docs/language.md section \
     30): a view with no memory, the producer of a dependent array (the \
     pairs PolyBench's covariance sums, j2 = j1 .. n-1); it has no \
     acceptor form */ \
  X(TRIANGLE, "triangle", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, COUNT, \
    "exp[[n]a] -> exp[[n](\\i -> [n - i](a, a))]") \
  /* depJoin xs: the rows of a dependent array [n](\i -> [f i]t) one \
     after another, row k at the offset sum_{i<k} f i (shine's depJoin; \
     docs/language.md section 30.2): f is linear in i, a + b*i, so the \
     offset is a*k + b*k*(k-1)/2 and the count the offset at n, sizes \
     (dt_dep_offset).  The signature is the shape, the checker gives the \
     count (check_dep.c, dep_join_result); written through, its acceptor \
     is depJoinAcc */ \
  X(DEP_JOIN, "depJoin", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, DEP_JOIN_ACC, \
    "exp[c] -> exp[[m]a]") \
  /* scatter p xs: element i of xs at position p[i] of the result, p an \
     input the kernel declares a permutation (docs/language.md section \
     29); written through, element i of its acceptor is element p[i] of \
     the acceptor it is given (scatterAcc); it has no read form */ \
  X(SCATTER, "scatter", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, SCATTER_ACC, \
    "exp[[n]idx[n]] -> exp[[n]a] -> exp[[n]a]") \
  /* mirror xs: the symmetric square of xs's upper triangle, element \
     (i, j) of the result xs[min(i, j)][max(i, j)] (docs/language.md \
     section 29.1); written through, element (i, j), j >= i, of its \
     acceptor writes (i, j) and (j, i) of the acceptor it is given and \
     j < i writes nothing (mirrorAcc); it has no read form */ \
  X(MIRROR, "mirror", 0, 0, PF_FUNC | PF_VIEW, VIEW, NONE, MIRROR_ACC, \
    "exp[[n][n]a] -> exp[[n][n]a]") \
  /* functional: memory (section 6.2) */ \
  X(TO_GLOBAL, "toGlobal", 0, 0, PF_FUNC, MEMORY, GLOBAL, NEW_GLOBAL, \
    "(exp[a] -> exp[b]) -> exp[a] -> exp[b]") \
  X(TO_LOCAL, "toLocal", 0, 0, PF_FUNC, MEMORY, LOCAL, NEW_LOCAL, \
    "(exp[a] -> exp[b]) -> exp[a] -> exp[b]") \
  X(TO_PRIVATE, "toPrivate", 0, 0, PF_FUNC, MEMORY, PRIVATE, NEW_PRIVATE, \
    "(exp[a] -> exp[b]) -> exp[a] -> exp[b]") \
  /* toLocal whose buffer is declared volatile (docs/language.md section \
     32): the same value, the same barriers; each access of the buffer a \
     load or store of its own, which keeps a tree of halving steps scalar \
     where a compiler vectorising across work-items would gather and \
     scatter (SHOC's spmv_csr_vector).  Its newLocal's variable carries \
     the qualifier (Binder.volatile_local) */ \
  X(TO_LOCAL_VOLATILE, "toLocalVolatile", 0, 0, PF_FUNC, MEMORY, LOCAL, NEW_LOCAL, \
    "(exp[a] -> exp[b]) -> exp[a] -> exp[b]") \
  /* functional: scalars */ \
  X(SELECT, "select", 0, 0, PF_FUNC, SCALAR, NONE, COUNT, \
    "exp[bool] -> exp[a] -> exp[a] -> exp[a]") \
  X(VEC, "vec", 1, 0, PF_FUNC, SCALAR, NONE, COUNT, \
    "k. exp[s] -> exp[v] where width k, numeric s, vector v s k") \
  /* clampIdx n e: the int e as an index of an array of n elements, \
     clamped to 0 .. n-1, so that every int is one and no read it makes \
     is out of range (docs/language.md section 22) */ \
  X(CLAMP_IDX, "clampIdx", 1, 0, PF_FUNC, SCALAR, NONE, COUNT, \
    "k. exp[int] -> exp[idx[k]] where positive k (clampIdx size)") \
  /* float4 a b c d: a vector from its lanes, one row per vector type \
     (docs/language.md section 11) */ \
  DPIA_VECTOR_ROW(X, FLOAT2, float, 2) DPIA_VECTOR_ROW(X, FLOAT3, float, 3) \
  DPIA_VECTOR_ROW(X, FLOAT4, float, 4) DPIA_VECTOR_ROW(X, FLOAT8, float, 8) \
  DPIA_VECTOR_ROW(X, FLOAT16, float, 16) \
  DPIA_VECTOR_ROW(X, INT2, int, 2) DPIA_VECTOR_ROW(X, INT3, int, 3) \
  DPIA_VECTOR_ROW(X, INT4, int, 4) DPIA_VECTOR_ROW(X, INT8, int, 8) \
  DPIA_VECTOR_ROW(X, INT16, int, 16) \
  DPIA_VECTOR_ROW(X, DOUBLE2, double, 2) DPIA_VECTOR_ROW(X, DOUBLE3, double, 3) \
  DPIA_VECTOR_ROW(X, DOUBLE4, double, 4) DPIA_VECTOR_ROW(X, DOUBLE8, double, 8) \
  DPIA_VECTOR_ROW(X, DOUBLE16, double, 16) \
  X(FABS, "fabs", 0, 0, PF_FUNC | PF_EXACT, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] where floating t") \
  X(SQRT, "sqrt", 0, 0, PF_FUNC, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] where floating t") \
  X(RSQRT, "rsqrt", 0, 0, PF_FUNC, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] where floating t") \
  X(EXP, "exp", 0, 0, PF_FUNC, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] where floating t") \
  X(LOG, "log", 0, 0, PF_FUNC, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] where floating t") \
  X(SIN, "sin", 0, 0, PF_FUNC, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] where floating t") \
  X(COS, "cos", 0, 0, PF_FUNC, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] where floating t") \
  X(FLOOR, "floor", 0, 0, PF_FUNC | PF_EXACT, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] where floating t") \
  X(CEIL, "ceil", 0, 0, PF_FUNC | PF_EXACT, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] where floating t") \
  X(MIN, "min", 0, 0, PF_FUNC | PF_EXACT, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] -> exp[t] where numeric t") \
  X(MAX, "max", 0, 0, PF_FUNC | PF_EXACT, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] -> exp[t] where numeric t") \
  X(POW, "pow", 0, 0, PF_FUNC, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] -> exp[t] where floating t") \
  X(FMA, "fma", 0, 0, PF_FUNC, MATH, NONE, COUNT, \
    "exp[t] -> exp[t] -> exp[t] -> exp[t] where floating t") \
  X(TO_FLOAT, "toFloat", 0, 0, PF_FUNC, CONVERT, NONE, COUNT, \
    "exp[s] -> exp[r] where numeric s, convert s r float") \
  X(TO_INT, "toInt", 0, 0, PF_FUNC, CONVERT, NONE, COUNT, \
    "exp[s] -> exp[r] where numeric s, convert s r int") \
  X(TO_DOUBLE, "toDouble", 0, 0, PF_FUNC, CONVERT, NONE, COUNT, \
    "exp[s] -> exp[r] where numeric s, convert s r double") \
  /* a use of a foreign function (docs/language.md section 14): its type is \
   * its declaration's, Phrase.foreign; the signature only fixes the family \
   * of scalar functions it belongs to.  `foreign` is a keyword, so no \
   * program names this row. */ \
  X(FOREIGN, "foreign", 0, 0, PF_FUNC, FOREIGN, NONE, COUNT, \
    "exp[s] -> exp[r] where numeric s, numeric r") \
  /* imperative (Figure 4b) */ \
  X(SKIP, "skip", 0, 0, PF_IMP, SKIP, NONE, COUNT, \
    "comm") \
  X(NEW, "new", 0, 1, PF_IMP, NEW, NONE, COUNT, \
    "T. (var[T] -> comm) -> comm") \
  X(NEW_GLOBAL, "newGlobal", 0, 1, PF_IMP, NEW, GLOBAL, COUNT, \
    "T. (var[T] -> comm) -> comm") \
  X(NEW_LOCAL, "newLocal", 0, 1, PF_IMP, NEW, LOCAL, COUNT, \
    "T. (var[T] -> comm) -> comm") \
  X(NEW_PRIVATE, "newPrivate", 0, 1, PF_IMP, NEW, PRIVATE, COUNT, \
    "T. (var[T] -> comm) -> comm") \
  X(FOR, "for", 1, 0, PF_IMP | PF_ZERO_SIZES, FOR, SEQ, COUNT, \
    "n. (exp[idx[n]] -> comm) -> comm") \
  /* forRange n s lo hi body: for (i = max(lo, 0); i < min(hi, n); i += s), \
     bounds read from data, each i an index of n elements (reduceRange) */ \
  X(FOR_RANGE, "forRange", 2, 0, PF_IMP, FOR_RANGE, SEQ, COUNT, \
    "n s. exp[int] -> exp[int] -> (exp[idx[n]] -> comm) -> comm where positive s (forRange step)") \
  /* if c {t, e}: t when c holds, else e; what a select whose sides \
     compute in one work-item becomes, so that only the chosen side is \
     computed (a triangle's half, docs/language.md section 28).  The sides \
     are a phrase pair, whose components may share (both write the \
     select's acceptor), as SCI types Reynolds' conditional */ \
  X(IF, "if", 0, 0, PF_IMP, IF, NONE, COUNT, \
    "exp[bool] -> comm & comm -> comm") \
  X(PARFOR, "parfor", 0, 0, PF_IMP, PARFOR, NONE, COUNT, \
    "acc[[n]a] -> (exp[idx[n]] -> acc[a] ->p comm) -> comm") \
  X(PARFOR_GLOBAL, "parforGlobal", 0, 0, PF_IMP | PF_DIM, PARFOR, GLOBAL, COUNT, \
    "acc[[n]a] -> (exp[idx[n]] -> acc[a] ->p comm) -> comm") \
  X(PARFOR_WORKGROUP, "parforWorkgroup", 0, 0, PF_IMP | PF_DIM, PARFOR, WORKGROUP, COUNT, \
    "acc[[n]a] -> (exp[idx[n]] -> acc[a] ->p comm) -> comm") \
  X(PARFOR_LOCAL, "parforLocal", 0, 0, PF_IMP | PF_DIM, PARFOR, LOCAL, COUNT, \
    "acc[[n]a] -> (exp[idx[n]] -> acc[a] ->p comm) -> comm") \
  X(IDX, "idx", 0, 0, PF_IMP | PF_VIEW, VIEW, NONE, COUNT, \
    "exp[[n]a] -> exp[idx[n]] -> exp[a]") \
  X(IDX_ACC, "idxAcc", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[[n]a] -> exp[idx[n]] -> acc[a]") \
  X(SPLIT_ACC, "splitAcc", 1, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "k. acc[[n][k]a] -> acc[[n*k]a] where positive k") \
  X(JOIN_ACC, "joinAcc", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[[n*m]a] -> acc[[n][m]a]") \
  X(PAIR_ACC1, "pairAcc1", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[(a, b)] -> acc[a]") \
  X(PAIR_ACC2, "pairAcc2", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[(a, b)] -> acc[b]") \
  X(ZIP_ACC1, "zipAcc1", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[[n](a, b)] -> acc[[n]a]") \
  X(ZIP_ACC2, "zipAcc2", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[[n](a, b)] -> acc[[n]b]") \
  /* element i of unzipAcc A is the pair of acceptors (idxAcc A.1 i, \
     idxAcc A.2 i) */ \
  X(UNZIP_ACC, "unzipAcc", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[([n]a, [n]b)] -> acc[[n](a, b)]") \
  /* element i of scatterAcc A p is idxAcc A p[i]: a bijection of the \
     elements, p being a permutation (scir.c checks it is one declared); \
     the acceptor first, as every acceptor view takes it (idxAcc A i) */ \
  X(SCATTER_ACC, "scatterAcc", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[[n]a] -> exp[[n]idx[n]] -> acc[[n]a]") \
  /* element (i, j) of mirrorAcc A is the pair of elements (i, j) and \
     (j, i) of A for j >= i, nothing for j < i: not a bijection but an \
     injection of the upper triangle into disjoint pairs of elements, \
     which covers A (scir.c, docs/language.md section 29.1) */ \
  X(MIRROR_ACC, "mirrorAcc", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[[n][n]a] -> acc[[n][n]a]") \
  /* pairAcc A B: the acceptor of a pair whose first component is written \
     through A and its second through B (pairAcc1 (pairAcc A B) is A): \
     the result of a kernel updating several regions of one buffer \
     (docs/language.md section 27), A and B region views of it that \
     scir.c shows disjoint */ \
  X(PAIR_ACC, "pairAcc", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[a] -> acc[b] -> acc[(a, b)]") \
  X(AS_SCALAR_ACC, "asScalarAcc", 1, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "k. acc[[n*k]s] -> acc[[n]v] where width k, numeric s, vector v s k") \
  X(AS_VECTOR_ACC, "asVectorAcc", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[[n]v] -> acc[[n*w]s] where numeric s, vector v s w") \
  /* depJoinAcc T A: the flat acceptor A of depJoin's result seen as the \
     dependent array T = [n](\i -> [f i]t) it joins, element (k, j) being \
     A[offset(k) + j]; T is written (the acceptor it takes does not tell \
     it), and gives A its size (prim_type.c) */ \
  X(DEP_JOIN_ACC, "depJoinAcc", 0, 1, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "T. acc[[m]a] -> acc[T]") \
  X(TRANSPOSE_ACC, "transposeAcc", 0, 0, PF_IMP | PF_VIEW, VIEW_ACC, NONE, COUNT, \
    "acc[[m][n]a] -> acc[[n][m]a]") \
  X(SLICE_ACC, "sliceAcc", 3, 0, PF_IMP | PF_VIEW | PF_ZERO_SIZES, VIEW_ACC, NONE, COUNT, \
    "o m r. acc[[o+m+r]a] -> acc[[m]a]") \
  X(TAKE_ACC, "takeAcc", 2, 0, PF_IMP | PF_VIEW | PF_ZERO_SIZES, VIEW_ACC, NONE, COUNT, \
    "k r. acc[[k]a] -> acc[[k+r]a]") \
  X(DROP_ACC, "dropAcc", 2, 0, PF_IMP | PF_VIEW | PF_ZERO_SIZES, VIEW_ACC, NONE, COUNT, \
    "k r. acc[[r]a] -> acc[[k+r]a]") \
  /* intermediate (Figure 4c) */ \
  X(MAP_I, "mapI", 0, 0, PF_INTER, MAP_I, NONE, FOR, \
    "(exp[a] -> acc[b] ->p comm) -> exp[[n]a] -> acc[[n]b] -> comm") \
  X(MAP_I_SEQ, "mapISeq", 0, 0, PF_INTER, MAP_I, SEQ, FOR, \
    "(exp[a] -> acc[b] ->p comm) -> exp[[n]a] -> acc[[n]b] -> comm") \
  X(MAP_I_GLOBAL, "mapIGlobal", 0, 0, PF_INTER | PF_DIM, MAP_I, GLOBAL, PARFOR_GLOBAL, \
    "(exp[a] -> acc[b] ->p comm) -> exp[[n]a] -> acc[[n]b] -> comm") \
  X(MAP_I_WORKGROUP, "mapIWorkgroup", 0, 0, PF_INTER | PF_DIM, MAP_I, WORKGROUP, PARFOR_WORKGROUP, \
    "(exp[a] -> acc[b] ->p comm) -> exp[[n]a] -> acc[[n]b] -> comm") \
  X(MAP_I_LOCAL, "mapILocal", 0, 0, PF_INTER | PF_DIM, MAP_I, LOCAL, PARFOR_LOCAL, \
    "(exp[a] -> acc[b] ->p comm) -> exp[[n]a] -> acc[[n]b] -> comm") \
  X(REDUCE_I, "reduceI", 0, 0, PF_INTER, REDUCE_I, NONE, COUNT, \
    "(exp[a] -> exp[b] -> acc[b] -> comm) -> exp[b] -> exp[[n]a] -> (exp[b] -> comm) -> comm") \
  /* reduceRange's: reduceI with its loop a forRange (stage II) */ \
  X(REDUCE_RANGE_I, "reduceRangeI", 1, 0, PF_INTER, REDUCE_I, NONE, COUNT, \
    "s. (exp[a] -> exp[b] -> acc[b] -> comm) -> exp[b] -> exp[int] -> exp[int] -> exp[[n]a] -> (exp[b] -> comm) -> comm where positive s (reduceRangeI step)") \
  /* shine's ScanSeqI: step i's accumulator written to element i of the acceptor */ \
  X(SCAN_I, "scanI", 0, 0, PF_INTER, SCAN_I, NONE, COUNT, \
    "(exp[a] -> exp[b] -> acc[b] -> comm) -> exp[b] -> exp[[n]a] -> acc[[n]b] -> comm") \
  /* shine's SlideSeqI (SlideSeq.Values): step i runs F on the window of \
     elements i .. i+s-1 and element i of the acceptor, the window a \
     private variable loaded one element a step and rotated (stage II, \
     lower_slide_seq_i) */ \
  X(SLIDE_SEQ_I, "slideSeqI", 1, 0, PF_INTER, WINDOW_I, NONE, COUNT, \
    "s. (exp[[s]a] -> acc[b] ->p comm) -> exp[[n+s]a] -> acc[[n+1]b] -> comm where positive s (slideSeqI window)")

/* What kind of primitive a row is. */
#define DPIA_PRIM_FAMILIES(X)                                                   \
  X(MAP)      /* map, mapSeq, mapGlobal, mapWorkgroup, mapLocal */              \
  X(REDUCE)   /* reduce, reduceSeq */                                           \
  X(SCAN)     /* scanSeq */                                                     \
  X(REDUCE_RANGE) /* reduceRange: a reduction over a range read from data */    \
  X(WINDOW)   /* slideSeq */                                                    \
  X(VIEW)     /* a data layout view of expressions (zip, split, ..., idx) */    \
  X(MEMORY)   /* toGlobal, toLocal, toPrivate, toLocalVolatile */               \
  X(SCALAR)   /* select, vec */                                                 \
  X(MATH)     /* an OpenCL math built-in of the same name, lane-wise */         \
  X(CONVERT)  /* toFloat, toInt, toDouble */                                    \
  X(FOREIGN)  /* a foreign function: OpenCL C of the program's own */          \
  X(SKIP)     /* skip */                                                        \
  X(NEW)      /* new, newGlobal, newLocal, newPrivate */                        \
  X(FOR)      /* for */                                                         \
  X(FOR_RANGE) /* forRange: a sequential loop whose bounds are data */          \
  X(IF)       /* if */                                                          \
  X(PARFOR)   /* parfor, parforGlobal, parforWorkgroup, parforLocal */          \
  X(VIEW_ACC) /* a data layout view of acceptors (idxAcc, splitAcc, ...) */     \
  X(MAP_I)    /* mapI and its levels */                                         \
  X(REDUCE_I) /* reduceI, reduceRangeI */                                     \
  X(SCAN_I)   /* scanI */                                                      \
  X(WINDOW_I) /* slideSeqI */

typedef enum PrimFamily {
#define X(id) PFAM_##id,
  DPIA_PRIM_FAMILIES(X)
#undef X
} PrimFamily;

/* The OpenCL level a loop runs at (SEQ: sequential in one work-item; NONE:
 * a level the strategy leaves open, translated sequentially), or the address
 * space a memory primitive allocates in. */
typedef enum PrimLevel { PLVL_NONE, PLVL_SEQ, PLVL_GLOBAL, PLVL_WORKGROUP, PLVL_LOCAL, PLVL_PRIVATE } PrimLevel;

typedef enum Prim {
#define X(id, name, nsizes, ntype, flags, family, level, lowered, sig) PRIM_##id,
  DPIA_PRIMS(X)
#undef X
  PRIM_COUNT
} Prim;

/* the most static size arguments a primitive takes (sliceAcc o m r) */
enum { PRIM_MAX_SIZES = 3 };

typedef struct PrimInfo {
  const char *name;
  int nsizes;     /* static size arguments written after the name */
  int takes_type; /* a type argument written after the sizes (new T) */
  int flags;
  PrimFamily family;
  PrimLevel level;
  Prim lowered;
  const char *signature;
} PrimInfo;

extern const PrimInfo prim_info[PRIM_COUNT];

static inline PrimFamily prim_family(Prim p) { return prim_info[p].family; }
static inline PrimLevel prim_level(Prim p) { return prim_info[p].level; }
static inline Prim prim_lowered(Prim p) { return prim_info[p].lowered; }

/* The number of arguments a primitive takes after its static ones: the
 * arrows of its signature's spine (map: 2, fma: 3, skip: 0). */
int prim_arity_of(Prim p);

/* The properties below are exhaustive switches over Prim (prims.c), so
 * that a new row must say what it is for each of them.  PRIM_COUNT (no
 * primitive: prim_lookup's answer for other names) has none of them. */

/* The name of the index of a loop at this level, as a person writing
 * OpenCL would name it (gid, wg, lid; i for a sequential loop): stage II
 * names loops so, and code generation a dependent map's, whose binder is
 * named as its row (Phrase.dep_index). */
const char *prim_level_index_name(PrimLevel level);

/* A vector constructor, float4 a b c d (its width is its arity). */
bool prim_builds_vector(Prim p);

/* A conversion, toFloat toInt toDouble (an index converts too: the
 * checker's index_conversion). */
bool prim_converts(Prim p);

/* A parfor whose iterations are work-items (parforGlobal, parforLocal),
 * not work-groups or one work-item's sequence. */
bool prim_parfor_per_item(Prim p);

/* The functional primitives that compute: the maps, the reductions and
 * toGlobal, toLocal, toPrivate.  Each runs the function that is its first
 * argument, and stage I translates every one of them away. */
bool prim_computes(Prim p);

/* Look a name up, accepting a dimension suffix 0-2 on PF_DIM primitives.
 * Returns PRIM_COUNT if the name is not a primitive; *dim gets the suffix
 * (0 when absent).  (The lexer finds the primitives a program's names
 * spell in its own table of reserved names, lex.c, made from this one.) */
Prim prim_lookup(const char *name, size_t len, int *dim);

/* A switch over Prim (or PrimFamily) between these has no default and
 * names every value, so that a new row breaks the build at each place that
 * must decide what the new primitive does there. */
#define DPIA_EXHAUSTIVE_BEGIN                                                        \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic error \"-Wswitch\"") \
      _Pragma("GCC diagnostic error \"-Wswitch-enum\"")
#define DPIA_EXHAUSTIVE_END _Pragma("GCC diagnostic pop")

/* The case labels of each family, for exhaustive switches that treat a
 * whole family alike: `PRIM_CASES_VIEW: return false;`.  A switch that
 * names a family's primitives one by one breaks when a row is added to it;
 * one that uses these lists does not need to.  tests/unit/test_prims.c
 * checks each list against the FAMILY column, so they cannot drift. */
#define PRIM_CASES_MAP \
  case PRIM_MAP: case PRIM_MAP_SEQ: case PRIM_MAP_GLOBAL: case PRIM_MAP_WORKGROUP: \
  case PRIM_MAP_LOCAL: case PRIM_DEP_MAP_SEQ: case PRIM_DEP_MAP_GLOBAL: case PRIM_DEP_MAP_WORKGROUP
#define PRIM_CASES_REDUCE case PRIM_REDUCE: case PRIM_REDUCE_SEQ
#define PRIM_CASES_SCAN case PRIM_SCAN_SEQ
#define PRIM_CASES_REDUCE_RANGE case PRIM_REDUCE_RANGE
#define PRIM_CASES_WINDOW case PRIM_SLIDE_SEQ
#define PRIM_CASES_VIEW \
  case PRIM_ZIP: case PRIM_SPLIT: case PRIM_JOIN: case PRIM_PAIR: case PRIM_FST: case PRIM_SND: \
  case PRIM_AS_VECTOR: case PRIM_AS_SCALAR: case PRIM_TRANSPOSE: case PRIM_SLIDE: \
  case PRIM_PAD_CLAMP: case PRIM_PAD_CST: case PRIM_REORDER_STRIDE: case PRIM_TAKE: case PRIM_DROP: \
  case PRIM_IDX: case PRIM_LANE: case PRIM_INDICES: case PRIM_UNZIP: case PRIM_SCATTER: \
  case PRIM_TRIANGLE: case PRIM_MIRROR: case PRIM_DEP_JOIN
#define PRIM_CASES_MEMORY case PRIM_TO_GLOBAL: case PRIM_TO_LOCAL: case PRIM_TO_PRIVATE: case PRIM_TO_LOCAL_VOLATILE
/* the vector constructors (float4 a b c d), a part of the scalar family */
#define PRIM_CASES_VECTOR \
  case PRIM_FLOAT2: case PRIM_FLOAT3: case PRIM_FLOAT4: case PRIM_FLOAT8: case PRIM_FLOAT16: \
  case PRIM_INT2: case PRIM_INT3: case PRIM_INT4: case PRIM_INT8: case PRIM_INT16: \
  case PRIM_DOUBLE2: case PRIM_DOUBLE3: case PRIM_DOUBLE4: case PRIM_DOUBLE8: case PRIM_DOUBLE16
#define PRIM_CASES_SCALAR case PRIM_SELECT: case PRIM_VEC: case PRIM_CLAMP_IDX: PRIM_CASES_VECTOR
#define PRIM_CASES_MATH \
  case PRIM_FABS: case PRIM_SQRT: case PRIM_RSQRT: case PRIM_EXP: case PRIM_LOG: case PRIM_SIN: \
  case PRIM_COS: case PRIM_FLOOR: case PRIM_CEIL: case PRIM_MIN: case PRIM_MAX: case PRIM_POW: \
  case PRIM_FMA
#define PRIM_CASES_CONVERT case PRIM_TO_FLOAT: case PRIM_TO_INT: case PRIM_TO_DOUBLE
#define PRIM_CASES_FOREIGN case PRIM_FOREIGN
#define PRIM_CASES_SKIP case PRIM_SKIP
#define PRIM_CASES_NEW case PRIM_NEW: case PRIM_NEW_GLOBAL: case PRIM_NEW_LOCAL: case PRIM_NEW_PRIVATE
#define PRIM_CASES_FOR case PRIM_FOR
#define PRIM_CASES_FOR_RANGE case PRIM_FOR_RANGE
#define PRIM_CASES_IF case PRIM_IF
#define PRIM_CASES_PARFOR \
  case PRIM_PARFOR: case PRIM_PARFOR_GLOBAL: case PRIM_PARFOR_WORKGROUP: case PRIM_PARFOR_LOCAL
#define PRIM_CASES_VIEW_ACC \
  case PRIM_IDX_ACC: case PRIM_SPLIT_ACC: case PRIM_JOIN_ACC: case PRIM_PAIR_ACC1: \
  case PRIM_PAIR_ACC2: case PRIM_ZIP_ACC1: case PRIM_ZIP_ACC2: case PRIM_UNZIP_ACC: case PRIM_AS_SCALAR_ACC: \
  case PRIM_SCATTER_ACC: case PRIM_AS_VECTOR_ACC: case PRIM_TRANSPOSE_ACC: case PRIM_SLICE_ACC: \
  case PRIM_TAKE_ACC: case PRIM_DROP_ACC: case PRIM_MIRROR_ACC: case PRIM_DEP_JOIN_ACC: case PRIM_PAIR_ACC
#define PRIM_CASES_MAP_I \
  case PRIM_MAP_I: case PRIM_MAP_I_SEQ: case PRIM_MAP_I_GLOBAL: case PRIM_MAP_I_WORKGROUP: \
  case PRIM_MAP_I_LOCAL
#define PRIM_CASES_REDUCE_I case PRIM_REDUCE_I: case PRIM_REDUCE_RANGE_I
#define PRIM_CASES_SCAN_I case PRIM_SCAN_I
#define PRIM_CASES_WINDOW_I case PRIM_SLIDE_SEQ_I

/* clang-format on */

#endif
