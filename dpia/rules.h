/* rules.h: the rewrite rules of `dpia rewrite` as data (docs/language.md
 * section 21; Steuwer et al., ICFP 2015, "Generating performance portable
 * code using rewrite rules", whose last step the DPIA paper is).
 *
 * One X-macro row describes a rule completely, as the primitive table
 * (prims.h) describes a primitive: the enum, the names --apply reads, the
 * listing, the documentation and the switch of rewrite.c that applies it
 * all come from it:
 *
 *   X(ID, "name", PARAM, "left = right", "side conditions")
 *
 * PARAM is the one parameter the rule takes (RuleParam below: NONE, CHUNK,
 * WIDTH, DIM, STEPS).  The side conditions are what rewrite.c checks on the
 * syntax tree before it rewrites; every rule has one more, checked after:
 * the rewritten program must pass `dpia check --high-level` (types,
 * sizes, SCIR, the strategy rules), else --apply refuses it (E1105).  So a
 * fully lowered result of any sequence of rules either passes `dpia
 * check` or was refused (tests/unit/test_rewrite.c).
 *
 * Rules work on the source tree (ast.h) of the kernel's body, so that the
 * result prints back as source (program_print) that reads as written. */
#ifndef DPIA_RULES_H
#define DPIA_RULES_H

#include "ast.h"

/* X(ID, "name", min, max, default (-1: none), "what it is") */
#define DPIA_RULE_PARAMS(X)                                                                             \
  X(NONE, "", 0, 0, -1, "no parameter")                                                                 \
  X(CHUNK, "n", 1, 1 << 30, -1, "the chunk size, at least 1; the length must be a multiple of it")      \
  X(TILE, "n", 1, 1 << 30, -1, "the tile size, at least 1; any length (the last tile is filled up)")    \
  X(WIDTH, "n", 2, 16, -1, "a vector width: 2, 3, 4, 8 or 16")                                          \
  X(DIM, "dim", 0, 2, 0, "the OpenCL dimension: 0, 1 or 2 (default 0)")                                \
  X(STEPS, "k", 1, 30, -1, "the halving steps, 1 to 30; the length must be a multiple of 2^k")

typedef enum RuleParam {
#define X(id, name, lo, hi, dflt, doc) RPARAM_##id,
  DPIA_RULE_PARAMS(X)
#undef X
  RPARAM_COUNT
} RuleParam;

typedef struct RuleParamInfo {
  const char *name;
  long long lo, hi, dflt;
  const char *doc;
} RuleParamInfo;
extern const RuleParamInfo rule_param_info[RPARAM_COUNT];
/* is v a value of the parameter kind p? */
bool rule_param_allows(RuleParam p, long long v);

/* the table is laid out by hand */
/* clang-format off */
#define DPIA_RULES(X)                                                                                        \
  /* algorithmic rules (ICFP 2015 section 3.2) */                                                           \
  X(SPLIT_JOIN, "splitJoin", CHUNK,                                                                         \
    "map f = split n >> map (map f) >> join",                                                               \
    "a plain map")                                                                                          \
  X(PAD_SPLIT_JOIN, "padSplitJoin", TILE,                                                                   \
    "map f = mapPadClamp n (map (map f))",                                                                  \
    "a plain map, of an array of any length: the last tile is filled up by repeating the last element, "    \
    "whose results are dropped (the prelude's mapPadClamp); the program declares no mapPadClamp of its own") \
  X(FUSE_MAPS, "fuseMaps", NONE,                                                                            \
    "map f (map g xs) = map (\\x -> x |> g |> f) xs",                                                      \
    "two plain maps")                                                                                       \
  X(FISSION_MAP, "fissionMap", NONE,                                                                        \
    "map (\\x -> f e) = map (\\x -> e) >> map f",                                                          \
    "a plain map of a function whose body applies an f that does not mention the parameter x to an e that " \
    "does")                                                                                                 \
  X(PARTIAL_REDUCE, "partialReduce", CHUNK,                                                                 \
    "reduce f z = split n >> map (reduce f z) >> reduce f z",                                               \
    "a plain reduce whose operator is associative with neutral element z: \\x a -> x + a (or a + x) with "  \
    "0, \\x a -> x * a (or a * x) with 1")                                                                  \
  X(PARTIAL_REDUCE_ANY, "partialReduceAny", TILE,                                                           \
    "reduce f z (map g xs) = tileIndices n xs |> map (\\t -> xs |> reduceRange 1 (\\x a -> f (g x) a) z "   \
    "(t * n) (t * n + n)) |> reduce f z",                                                                   \
    "as partialReduce, for an array of any length: tile t reduces the elements t*n to t*n + n - 1 that "    \
    "exist (reduceRange stops at the end of xs, so the last tile is shorter and nothing is padded); a "     \
    "reduce of no plain map is the same with g the identity; the program declares no tileIndices of its "   \
    "own (the prelude's: the indices of the ceil(N/n) tiles); the array the tiles read computes nothing "   \
    "(every tile reads its range of it)")                                                                   \
  X(FUSE_REDUCE_MAP, "fuseReduceMap", NONE,                                                                 \
    "reduce f z (map g xs) = reduce (\\x a -> f (g x) a) z xs",                                            \
    "a reduce or reduceSeq of a plain map or mapSeq")                                                       \
  X(SPLIT_MAP, "splitMap", NONE,                                                                            \
    "split n (map f xs) = map (map f) (split n xs)",                                                        \
    "a split of a plain map applied to its array")                                                          \
  X(VECTORISE, "vectorise", WIDTH,                                                                          \
    "map f = asVector n >> map f >> asScalar",                                                              \
    "a plain map of a lambda that computes lane by lane (arithmetic + - * /, math built-ins, its "          \
    "parameter, other variables and literals; fst and snd of the parameter when the array is zip a b, and " \
    "of their projections when the array is a zip of zips: then each array zipped is cut into vectors)")    \
  X(REDUCE_LANES, "reduceLanes", WIDTH,                                                                     \
    "reduce f z (asScalar vs) = vs |> reduce f (vec n z) |> (\\v -> v.s0 + ... + v.s(n-1))",                 \
    "a plain reduce of the lanes of vectors of n lanes (the check refuses another n) whose operator is "    \
    "associative with neutral element z, as partialReduce, and commutative (+ and * are): lane k folds "    \
    "the elements k, k + n, ..., then the lanes are combined by the same operator")                       \
  X(ACCUMULATORS, "accumulators", CHUNK,                                                                    \
    "reduce f z (map g xs) = xs |> split n |> reduce (\\p acc -> zip p acc |> map (\\q -> f (g (fst q)) (snd "  \
    "q))) (x0 |> take 0 |> padCst n 0 z) |> reduce f z",                                                    \
    "a plain reduce (of a plain map g, or of xs itself: g the identity) whose operator is associative and "  \
    "commutative with neutral element z, as reduceLanes (+ with 0, * with 1; z may be a vector of it, vec W " \
    "0.0): accumulator k folds the elements k, k + n, k + 2n, ..., then the n accumulators are combined by " \
    "f; x0 is xs, or the first array of the zip tree xs, which computes nothing, its elements of z's type "  \
    "(else the check refuses the result): n copies of z are made from it")                                  \
  X(VECTORISE_LOOP, "vectoriseLoop", WIDTH,                                                                 \
    "map (\\x -> e) xs = xs |> asVector n |> map (\\x -> e') |> asScalar (a result of pairs: join of each "   \
    "vector's lanes, zip [v.s0, ...] ...), e' the loop of e over vectors of n lanes",                          \
    "a plain map of a lambda whose body has a loop (reduce or reduceSeq) that depends on the parameter, over " \
    "an array that does not or over one of the parameter's own (the columns of transpose m, read as map "      \
    "(asVector n) m |> transpose), with lets, fst and snd, + - * / < <= > >=, select, math built-ins, zip and " \
    "map around it: the values that depend on the parameter and the loops' accumulators become vectors, the "  \
    "others are broadcast (vec n) where they meet them, each loop's initial value broadcast; no lane of a "    \
    "value that depends on the parameter, unless the array is a kernel parameter of float2, float3 or float4 "   \
    "(or a zip with one): then it is split n, its W elements gathered, each floatK value K vectors (a "       \
    "structure of arrays), the function lets one of which is the loop, what follows it element by element")   \
  X(TRANSPOSE_MAPS, "transposeMaps", NONE,                                                                  \
    "map (map f) (transpose xs) = transpose (map (map f) xs)",                                              \
    "two plain maps, the inner one of a function, applied to a transposed array (a map of each element "    \
    "commutes with any reordering of the elements)")                                                       \
  X(TILE_2D, "tile2D", CHUNK,                                                                               \
    "map (map f) = map (split n) >> transpose >> map (map (map f)) >> transpose >> map join",               \
    "two plain maps; after splitJoin on the outer map (m rows a block), each block is cut into m x n "      \
    "tiles, a map over the tiles of the block")                                                             \
  X(TREE_REDUCE, "treeReduce", STEPS,                                                                       \
    "reduce f z = iterate k (split 2 >> map (reduce f z)) >> reduce f z",                                   \
    "a plain reduce whose operator is associative with neutral element z, as partialReduce")                \
  X(REGISTER_TILE, "registerTile", CHUNK,                                                                   \
    "map (\\x -> ys |> map (\\y -> zip x y |> map g |> reduce f z)) xs = xs |> split n |> map (\\xt -> ys |> " \
    "map (\\y -> zip (transpose xt) y |> reduce (\\p acc -> zip (fst p) acc |> map (\\q -> f (g (fst q, snd " \
    "p)) (snd q))) (y |> take 0 |> padCst n 0 z)) |> transpose) |> join",                                    \
    "a plain map of a plain map whose function reduces zip x y (or a plain map g of it) with any f and z: "   \
    "x, the outer element, and y, the inner one, appear only there (not in ys, f, g or z); each tile of n "   \
    "rows keeps its n sums in one accumulator, folded in the same order as before, so that a column y is "  \
    "read once for the n rows (register tiling, docs/language.md section 21)")                                \
  X(VECTORISE_TILE, "vectoriseTile", WIDTH,                                                                 \
    "xs |> split r |> map (\\xt -> transpose b |> map (\\y -> R) |> transpose) |> join = xs |> split r |> " \
    "map (\\xt -> b |> map (asVector n) |> transpose |> map (\\y -> R) |> transpose) |> join |> join |> "     \
    "asScalar |> split N",                                                                                  \
    "registerTile's result over the columns of a matrix b, a parameter [K][N] of the kernel (no other kernel " \
    "of the program has a parameter b of another type, no lambda or let of the body binds b); R is "          \
    "reduce (\\p acc -> zip (fst p) acc |> map (\\q -> u)) (y |> take 0 |> padCst r 0 z) (zip c y), u "     \
    "computes lane by lane (+ - * /, math built-ins, variables, literals, fst and snd of variables) and y "   \
    "appears only where shown: each work-item computes an r x n tile, its accumulator r vectors of n lanes")  \
  X(ROW_TILE, "rowTile", CHUNK,                                                                            \
    "map (\\x -> C[zip (P x) ys |> map g |> reduce f z]) xs = xs |> split n |> map (\\xt -> zip ys (xt |> "  \
    "map (\\x -> P x) |> transpose) |> reduce (\\p acc -> zip (snd p) acc |> map (\\q -> f (g (fst q, fst " \
    "p)) (snd q))) (ys |> take 0 |> padCst n 0 z) |> zip xt |> map (\\r -> C[snd r][x := fst r])) |> join", \
    "a plain map of a lambda whose body has a plain reduce (the first in preorder reached through no lambda " \
    "or let) of zip (P x) ys or zip ys (P x), or a plain map g of it, with any f and z: P x is a view of "    \
    "the element x alone (x, fst, snd, .1, .2, asVector of it), x appears in no f, g, z or ys, and ys "       \
    "computes nothing; each tile of n rows folds its n sums in one loop over ys, each in the same order "    \
    "as before, ys read once for the n rows (samples/gemv_vec.dpia's gemvVecRows)")                         \
  /* lowering rules: a level for each map and reduction, memory for results */                             \
  X(LOWER_GLOBAL, "lowerGlobal", DIM,                                                                       \
    "map = mapGlobal",                                                                                      \
    "no enclosing mapLocal, mapSeq, reduction or toPrivate, no enclosing grid map of the same dimension")  \
  X(LOWER_WORKGROUP, "lowerWorkgroup", DIM,                                                                 \
    "map = mapWorkgroup",                                                                                   \
    "no enclosing mapLocal, mapSeq, reduction or toPrivate, no enclosing grid map of the same dimension")  \
  X(LOWER_LOCAL, "lowerLocal", DIM,                                                                         \
    "map = mapLocal",                                                                                       \
    "inside a mapWorkgroup, no enclosing mapLocal or mapGlobal of the same dimension, no enclosing toPrivate") \
  X(LOWER_SEQ, "lowerSeq", NONE,                                                                            \
    "map = mapSeq",                                                                                         \
    "a plain map, whose function is no view primitive (map (asVector n) is a view, with no level)")          \
  X(LOWER_REDUCE_SEQ, "lowerReduceSeq", NONE,                                                               \
    "reduce = reduceSeq",                                                                                   \
    "a plain reduce")                                                                                       \
  X(TO_GLOBAL, "toGlobal", NONE,                                                                            \
    "m f xs = toGlobal (m f) xs",                                                                           \
    "m is a map of any level, applied to its array")                                                        \
  X(TO_LOCAL, "toLocal", NONE,                                                                              \
    "m f xs = toLocal (m f) xs",                                                                            \
    "m is a map of any level, applied to its array, inside a mapWorkgroup")                                 \
  X(TO_PRIVATE, "toPrivate", NONE,                                                                          \
    "m f xs = toPrivate (m f) xs",                                                                          \
    "m is a map, mapSeq (no parallel map makes private memory), applied to its array")
/* clang-format on */

typedef enum RuleId {
#define X(id, name, param, doc, side) RULE_##id,
  DPIA_RULES(X)
#undef X
  RULE_COUNT
} RuleId;

typedef struct RuleInfo {
  const char *name;
  RuleParam param;
  const char *doc;  /* left = right */
  const char *side; /* the side conditions rewrite.c checks */
} RuleInfo;
extern const RuleInfo rule_info[RULE_COUNT];

/* the rule of that name; RULE_COUNT if none */
RuleId rule_lookup(const char *name);

/* ---- positions ----
 * A position is a node of the kernel's body, named by its path: the child
 * numbers from the root, joined by '.', the root itself "." (so "1.0.1").
 * The children of a node, in order: an application's function (0) and
 * argument (1), however it is written (f x and x |> f are the same node);
 * a lambda's body (0); a let's value (0) and body (1); the two operands of
 * >>, ;, :=, a binary operator, a pair (0, 1); the operand of -, !, .1,
 * .x, an ascription (0); iterate's function (0); an array literal's
 * elements (0, 1, ...).  A path names the same node as long as the tree
 * above it is the same, whatever the layout of the text. */
typedef struct RewriteSite {
  const char *path;
  const Ast *node;
  int nrules;
  RuleId rules[RULE_COUNT];
} RewriteSite;

/* Every position of body at which at least one rule's left side and side
 * conditions hold, in preorder (a node before its children, children in
 * order): *sites gets an arena array of *nsites. */
void rewrite_sites(Arena *a, const Program *prog, const Ast *body, RewriteSite **sites, int *nsites);

/* The node of body at path (parsed as above); NULL if path is not one
 * (why says what is wrong with it). */
const Ast *rewrite_node_at(Arena *a, const Ast *body, const char *path, Buf *why);

/* body with rule applied at path, its parameter (when it takes one) value;
 * NULL if the rule's left side or side conditions do not hold there (why
 * says which).  body is not changed: the result shares what is not
 * rewritten.  prog gives the names that fresh variables must avoid. */
Ast *rewrite_apply(Arena *a, Interner *in, const Program *prog, const Ast *body, RuleId rule, const char *path,
                   long long param, Buf *why);

/* The stage boundary of a whole reduction, which no rule of the table
 * makes (OpenCL has no barrier across work-groups): k's body is `reduce f
 * z E`, parts_body the partial sums derived from it (a map over chunks of
 * E, each reduced by f from z).  out gets the declarations of a pipeline
 * (docs/language.md section 8) computing k: [0] the kernel KParts, k's
 * parameters and parts_body; [1] the kernel KSum (M: nat) (ps: [M]T) =
 * ps |> split M |> mapGlobal (reduceSeq f z), one work-item summing them,
 * T the type of the literal z; [2] the pipeline named k with k's
 * parameters, KParts applied to them |> KSum.  False (why says why)
 * when the body is no reduce or z no float or int literal. */
bool rewrite_reduction_pipeline(Arena *a, Interner *in, const Program *prog, const Decl *k, Ast *parts_body,
                                Decl *out[3], Buf *why);

/* Are a and b the same tree: equal kinds, names, literals, primitives,
 * sizes and types, whatever their spans and however an application is
 * written (f x or x |> f)?  The round trip of printing (tests). */
bool ast_equal(const Ast *a, const Ast *b);

#endif
