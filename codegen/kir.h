/* kir.h: the kernel IR, between imperative DPIA and a backend's text.
 *
 * Code generation (opencl.c, access.c) lowers an imperative
 * kernel to a tree of statements and expressions, the barrier pass
 * (barrier_pass.c) puts the barriers in it; a Backend (backend.h)
 * prints it.  Statements: declarations, assignments, vector stores, loops,
 * ifs, barriers with their fences, blocks, expressions evaluated for their
 * effect (a foreign call whose value nothing reads).  Expressions: variables,
 * literals, index polynomials (codegen/index.h), work-item queries by kind
 * and dimension, operators, conditionals, array elements, struct fields
 * and vector lanes (by number), vector loads, calls of built-ins, casts
 * and vector constructions.
 * What reads the kernel afterwards (where a barrier goes at the top of a
 * loop body, which loops step by a launch size, whether the lanes of a
 * vector are consecutive elements of one buffer, whether a padded element
 * is read twice) compares and walks the tree (kir_expr_equal), never the
 * printed text.
 *
 * Index atoms that are not variables (a clamped index, an index read
 * from data) hold their expression (index.h, IX_EXPR).  Types are
 * structured (KirType: a scalar or vector of a scalar kind, a struct
 * typedef by name, a pointer into a memory space), literals are typed
 * values (KirLit), a vector conversion is a cast to a vector type: the
 * backend spells them all (float4, 0.5f, INFINITY, (float4)(0.0f),
 * convert_float4(v), const global float *, v.x or v.s5, vload4).
 *
 * Built-in functions are KE_BUILTIN nodes by KirBuiltin (min, max,
 * clamp, the math functions, the lane-wise choice of vectors): a
 * backend's name table spells them (clamp, fmin or std::min, c ? a : b).
 * Still text: a KE_CALL's function (a foreign function of the program, by
 * its name), its definition (the program's own OpenCL C) and the kernel's
 * header comment. */
#ifndef DPIA_KIR_H
#define DPIA_KIR_H

#include "index.h"

/* The tables are laid out by hand. */
/* clang-format off */

/* work-item functions (OpenCL C 6.15.1), by kind; a backend spells them */
#define KIR_QUERIES(X) \
  X(GLOBAL_ID)         \
  X(GLOBAL_SIZE)       \
  X(GROUP_ID)          \
  X(NUM_GROUPS)        \
  X(LOCAL_ID)          \
  X(LOCAL_SIZE)

typedef enum KirQuery {
#define X(id) KQ_##id,
  KIR_QUERIES(X)
#undef X
} KirQuery;

/* memory spaces (OpenCL C 6.7): of a declaration, of what a pointer
 * points to */
typedef enum KirSpace { KSP_PRIVATE, KSP_LOCAL, KSP_GLOBAL, KSP_CONSTANT } KirSpace;

#define KIR_TYPE_KINDS(X)                                                   \
  X(SCALAR)  /* scalar, width: a scalar (width 1) or a vector of width */   \
  X(STRUCT)  /* name: a pair type's typedef (KT_STRUCT) */                  \
  X(POINTER) /* to, space, is_const: a pointer to a to in memory space */

typedef enum KirTypeKind {
#define X(id) KTY_##id,
  KIR_TYPE_KINDS(X)
#undef X
} KirTypeKind;

/* C's operator precedences, higher binds tighter: no redundant
 * parentheses are printed. */
enum {
  PREC_COMMA = 1,
  PREC_ASSIGN = 2,
  PREC_COND = 3,
  PREC_OR = 4,
  PREC_AND = 5,
  PREC_EQ = 9,
  PREC_REL = 10,
  PREC_ADD = 12,
  PREC_MUL = 13,
  PREC_UNARY = 14,
  PREC_POSTFIX = 16,
};

/* C's binary operators, with their precedence.  AND is
 * the program's &&; ALL a conjunction of tests the lowering builds (write
 * guards), printed flat (a && b && c, however nested); PTR_ADD an address
 * plus an offset, printed flat too (xs + i + 1). */
#define KIR_BINOPS(X)     \
  X(MUL, "*", PREC_MUL)         \
  X(DIV, "/", PREC_MUL)         \
  X(MOD, "%", PREC_MUL)         \
  X(ADD, "+", PREC_ADD)         \
  X(SUB, "-", PREC_ADD)         \
  X(PTR_ADD, "+", PREC_ADD)     \
  X(LT, "<", PREC_REL)          \
  X(LE, "<=", PREC_REL)         \
  X(GT, ">", PREC_REL)          \
  X(GE, ">=", PREC_REL)         \
  X(EQ, "==", PREC_EQ)          \
  X(NE, "!=", PREC_EQ)          \
  X(AND, "&&", PREC_AND)         \
  X(ALL, "&&", PREC_AND)         \
  X(OR, "||", PREC_OR)

typedef enum KirBinop {
#define X(id, text, prec) KB_##id,
  KIR_BINOPS(X)
#undef X
} KirBinop;
extern const char *const kir_binop_text[];
extern const int kir_binop_prec[];

/* built-in functions, with their number of arguments; a backend spells
 * them.  MIN, MAX and CLAMP of numbers or vectors (an index clamped into
 * its array, the program's min and max); the math functions of the
 * language (docs/language.md), lane-wise on vectors; SELECT(mask, a, b)
 * of vectors, lane by lane: a's lane where the mask's lane is true (-1,
 * as a vector comparison gives), else b's. */
#define KIR_BUILTINS(X) \
  X(MIN, 2)             \
  X(MAX, 2)             \
  X(CLAMP, 3)           \
  X(SELECT, 3)          \
  X(FABS, 1)            \
  X(SQRT, 1)            \
  X(RSQRT, 1)           \
  X(EXP, 1)             \
  X(LOG, 1)             \
  X(SIN, 1)             \
  X(COS, 1)             \
  X(FLOOR, 1)           \
  X(CEIL, 1)            \
  X(POW, 2)             \
  X(FMA, 3)

typedef enum KirBuiltin {
#define X(id, arity) KBI_##id,
  KIR_BUILTINS(X)
#undef X
} KirBuiltin;
extern const int kir_builtin_arity[];

#define KIR_EXPR_KINDS(X)                                                   \
  X(INT)    /* value */                                                     \
  X(VAR)    /* name */                                                      \
  X(LIT)    /* lit: a scalar literal of the program, which the target spells */ \
  X(IX)     /* ix: an index polynomial */                                   \
  X(QUERY)  /* query, dim: a work-item function of dimension dim */         \
  X(UNARY)  /* un: op (- ! ~ &), operand */                                 \
  X(BINARY) /* bin: op, lhs, rhs */                                         \
  X(COND)   /* cond: test ? then : other */                                 \
  X(INDEX)  /* index: base[at] */                                           \
  X(MEMBER) /* member: the field name (fst, snd) of a struct base */        \
  X(LANE)   /* lane: lane of the vector base of width lanes */              \
  X(VLOAD)  /* vload: width scalars at offset (in vectors) of ptr */        \
  X(CALL)   /* call: fn(args), a foreign function of the program */         \
  X(BUILTIN) /* call: builtin(args), of type (the result's) */              \
  X(CAST)   /* call: args[0] converted to type (a vector: lane by lane) */  \
  X(VECTOR) /* call: a vector of type built from its lanes args */

typedef enum KirExprKind {
#define X(id) KE_##id,
  KIR_EXPR_KINDS(X)
#undef X
} KirExprKind;

/* clang-format on */

typedef struct KirType KirType;
struct KirType {
  KirTypeKind kind;
  ScalarKind scalar; /* KTY_SCALAR */
  int width;         /* KTY_SCALAR: 1, or the lanes of a vector */
  const char *name;  /* KTY_STRUCT */
  const KirType *to; /* KTY_POINTER */
  KirSpace space;    /* KTY_POINTER */
  bool is_const;     /* KTY_POINTER: to a const */
};

/* A literal's value: bool and int in i, float and double in f. */
typedef struct KirLit {
  ScalarKind scalar;
  int64_t i;
  double f;
} KirLit;

/* clang-format off */

/* Every expression carries its type (KirExpr.type), so that a backend
 * whose language has no vector operators can spell vector arithmetic (a
 * loop over the lanes, a call per lane) and no pass guesses a type from a
 * shape.  The constructors derive it from the operands where the operands
 * decide it: an integer constant, an index polynomial and a work-item
 * query are ints (the index type; OpenCL's work-item functions return a
 * size_t, whose signedness kir_invariant_violation tracks apart), a
 * literal has its scalar kind, an operator the type of its wider operand
 * (a scalar next to a vector is broadcast) or bool (a comparison of
 * scalars, && and ||) or an int vector (a comparison of vectors: OpenCL C
 * 6.3.d, docs/language.md section 19), an element the type a pointer
 * points to, a lane the scalar of its vector, a vload a vector of the
 * scalars, a built-in, cast or vector its own type.  The caller gives the
 * type where the operands do not decide it: a variable (its declaration
 * knows it; a buffer or array is a pointer to its elements, as a C array
 * decays to one), a struct field, a foreign function's result. */
typedef struct KirExpr KirExpr;
struct KirExpr {
  KirExprKind kind;
  const KirType *type; /* never NULL in a kernel (kir_invariant_violation) */
  union {
    int64_t value;     /* KE_INT */
    const char *name;  /* KE_VAR */
    KirLit lit;        /* KE_LIT */
    const Ix *ix;      /* KE_IX */
    struct {
      KirQuery query;
      int dim;
    } query;           /* KE_QUERY */
    struct {
      char op;
      const KirExpr *operand;
    } un;              /* KE_UNARY */
    struct {
      KirBinop op;
      const KirExpr *lhs, *rhs;
    } bin;             /* KE_BINARY */
    struct {
      const KirExpr *test, *then, *other;
    } cond;            /* KE_COND */
    struct {
      const KirExpr *base, *at;
    } index;           /* KE_INDEX */
    struct {
      const KirExpr *base;
      const char *name;
    } member;          /* KE_MEMBER */
    struct {
      const KirExpr *base;
      int lane, width;
    } lane;            /* KE_LANE */
    struct {
      int width;
      const KirExpr *offset, *ptr;
    } vload;           /* KE_VLOAD */
    struct {
      const char *fn;       /* KE_CALL */
      KirBuiltin builtin;   /* KE_BUILTIN */
      const KirType *type;  /* KE_CAST, KE_VECTOR, KE_BUILTIN: the node's type again */
      int nargs;
      const KirExpr *const *args;
    } call;            /* KE_CALL, KE_BUILTIN, KE_CAST, KE_VECTOR */
  };
};

#define KIR_STMT_KINDS(X)                                                              \
  X(DECL)    /* decl: space, type, name, is_const, is_volatile, array_len (< 0: not an   \
                array),                                                                 \
                init (NULL: none) */                                                    \
  X(ASSIGN)  /* assign: lhs (an l-value), rhs */                                        \
  X(VSTORE)  /* vstore: width lanes of value stored at offset (in vectors) of ptr */    \
  X(FOR)     /* loop: for (int var = init; var < bound; var += step) body */            \
  X(IF)      /* cond: if (cond) body; one_line: the body is one statement, written on   \
                the line of the if, without braces */                                  \
  X(BLOCK)   /* block: body, a scope of its own in braces */                            \
  X(BARRIER) /* barrier: a work-group barrier fencing local and/or global memory */     \
  X(EXPR)    /* expr: evaluated for its effect alone, its value unused (the call of a   \
                foreign function whose binding nothing reads: kir_drop_dead) */         \
  X(COMMENT) /* text: a comment line of its own */                                  \
  X(RUN)     /* run: steps of a loop written out, each its template at its step       \
                (below; unroll_step.c), printed from it (Backend.prints_runs) */

typedef enum KirStmtKind {
#define X(id) KS_##id,
  KIR_STMT_KINDS(X)
#undef X
} KirStmtKind;

/* clang-format on */

typedef struct KirStmt KirStmt;
typedef struct KirBlock {
  KirStmt *first, *last;
} KirBlock;

struct KirStmt {
  KirStmtKind kind;
  const char *comment; /* a trailing comment on the statement's first line, or NULL */
  KirStmt *next;
  union {
    struct {
      KirSpace space; /* private or local */
      const KirType *type;
      const char *name;
      bool is_const;
      /* a local buffer of toLocalVolatile (docs/language.md section 32),
       * each access a load or store of its own */
      bool is_volatile;
      int64_t array_len;
      const KirExpr *init;
    } decl;
    struct {
      const KirExpr *lhs, *rhs;
    } assign;
    struct {
      int width;
      const KirExpr *value, *offset, *ptr;
    } vstore;
    struct {
      const char *var;
      const KirExpr *init, *bound, *step;
      KirBlock body;
      int unroll; /* > 1: `#pragma unroll` this many steps (kir_unroll_tiles) */
    } loop;
    struct {
      const KirExpr *cond;
      bool one_line;
      KirBlock body;
    } cond;
    struct {
      KirBlock body;
    } block;
    struct {
      bool local, global;
      /* not NULL: a barrier site, where the barrier pass decides
       * (barrier_pass.c); it is gone when lowering returns */
      const struct KirSite *site;
    } barrier;
    const KirExpr *expr; /* KS_EXPR */
    const char *text;    /* KS_COMMENT */
    /* KS_RUN: the steps first .. first + count - 1 of a loop written out
     * (opencl.c, gen_for_unrolled), each what `body` is at that step.
     * body, the template, is the loop's body lowered once with the step a
     * variable ($step) that appears only in plain sums that index elements
     * and vector loads and stores: before each leaf's assignments or
     * stores, the barrier site of its command (the same at every step),
     * then those statements.  The template is never changed: a pass that
     * would change a step's statements, or cannot show that it treats every
     * step as it treats the template, writes the run out first
     * (kir_run_write_out); the rest are printed from their template
     * (backend_c.c, print_run) or written out by cg_lower for a printer
     * that does not (Backend.prints_runs), and written out for whatever
     * reads the kernel after printing (kernel_facts_kir). */
    struct {
      KirBlock body;
      int64_t first, count;
      const struct KirRunSteps *steps; /* each step's indices (unroll_step.c) */
    } run;
  };
};

/* ---- barrier sites (barrier_pass.c) ----
 *
 * What the barrier pass needs to know and the statements cannot say:
 * which buffer in global or local memory each command reads and writes
 * (its binder: the halves of a pair-typed output are one buffer), where
 * the parallel loops and single writers' guards begin and end (an elided
 * parforLocal is a declaration of its id followed by its body, in the
 * enclosing block), and which accesses the lowering made in between.
 * Lowering records these as barrier statements with a site (KS_BARRIER,
 * barrier.site); the pass turns each into the barriers it needs, or
 * none. */
typedef struct KirBuffer {
  const char *name; /* the binder's, for messages and comments */
  const char *var;  /* the variable of the kernel IR holding it (NULL: not one), for kir_own_elements */
  KirSpace space;   /* KSP_GLOBAL or KSP_LOCAL (KSP_PRIVATE: an accumulator that is not shared) */
} KirBuffer;

/* an ordered set of buffers, const KirBuffer * (orders reach comments:
 * insertion order) */
typedef Vec KirBufferSet;

/* one access to a shared buffer, in the order lowering made them */
typedef struct KirAccess {
  const KirBuffer *buffer;
  bool write;
} KirAccess;

/* the OpenCL level of a parallel loop, as a site records it */
typedef enum KirLevel { KL_NONE, KL_GLOBAL, KL_WORKGROUP, KL_LOCAL } KirLevel;

/* how a parallel loop is written (opencl.c, loop_form): a loop stepping
 * by a launch size, the declaration of its id (exactly once), or that
 * declaration and a guard of it (at most once) */
typedef enum KirForm { KF_LOOP, KF_ONCE, KF_AT_MOST_ONCE } KirForm;

/* clang-format off */
#define KIR_SITE_KINDS(X)                                                       \
  X(COMMAND)    /* before a command: reads, writes; level: a parallel loop's   \
                   (KL_NONE: an assignment, a loop, a single writer), what its  \
                   primitive is called; one_writer: a single writer's guard     \
                   over the NDRange follows */                                  \
  X(LOOP_END)   /* the end of a sequential loop's body of more than one step:  \
                   the body's reads, writes, and unindexed (its writes not      \
                   indexed by the loop's variable) */                           \
  X(PARFOR)     /* a parallel loop's body begins: level, form, dim, pointwise  \
                   (an accumulator the body updates in place: accumulator) */   \
  X(PARFOR_END) /* it ends: reads, writes of the body */                        \
  X(SOLO)       /* a single writer's guard begins (group: in a group body;      \
                   local: the guard of a parforLocal's body) */                 \
  X(SOLO_END)   /* it ends */
/* clang-format on */

typedef enum KirSiteKind {
#define X(id) KSITE_##id,
  KIR_SITE_KINDS(X)
#undef X
} KirSiteKind;

typedef struct KirSite {
  KirSiteKind kind;
  Span span; /* the command, for messages */
  /* the shared accesses lowering made since the previous site */
  int naccesses;
  const KirAccess *accesses;
  KirBufferSet reads, writes, unindexed;
  KirLevel level;
  KirForm form;
  int dim;
  bool pointwise, group, local, one_writer;
  const KirBuffer *accumulator;
  const char *what;
} KirSite;

/* ---- types ---- */
/* a scalar (width 1) or vector type */
const KirType *kir_scalar_type(Arena *a, ScalarKind s, int width);
const KirType *kir_struct_type(Arena *a, const char *name);
const KirType *kir_pointer_type(Arena *a, const KirType *to, KirSpace space, bool is_const);
bool kir_type_equal(const KirType *a, const KirType *b);
/* the scalar type s of width 1 and bool, shared (no arena: constants) */
const KirType *kir_scalar1(ScalarKind s);

/* ---- expressions ---- */
const KirExpr *kir_int(Arena *a, int64_t value);
/* a variable of type (a buffer's or array's: a pointer to its elements) */
const KirExpr *kir_var(Arena *a, const char *name, const KirType *type);
const KirExpr *kir_lit(Arena *a, KirLit lit);
const KirExpr *kir_ix(Arena *a, const Ix *ix);
const KirExpr *kir_query(Arena *a, KirQuery q, int dim);
/* the work-item query e is, itself or through one cast (an id declared as
 * an int), with a dimension 0 to 2; NULL if it is none */
const KirExpr *kir_query_of(const KirExpr *e);
const KirExpr *kir_unary(Arena *a, char op, const KirExpr *operand);
const KirExpr *kir_binary(Arena *a, KirBinop op, const KirExpr *lhs, const KirExpr *rhs);
/* lhs && rhs, or rhs alone when lhs is NULL (conditions built up) */
const KirExpr *kir_and(Arena *a, const KirExpr *lhs, const KirExpr *rhs);
const KirExpr *kir_cond(Arena *a, const KirExpr *test, const KirExpr *then, const KirExpr *other);
const KirExpr *kir_index(Arena *a, const KirExpr *base, const KirExpr *at);
/* the field name of type (an array field's: a pointer to its elements) */
const KirExpr *kir_member(Arena *a, const KirExpr *base, const char *name, const KirType *type);
const KirExpr *kir_lane(Arena *a, const KirExpr *base, int lane, int width);
const KirExpr *kir_vload(Arena *a, int width, const KirExpr *offset, const KirExpr *ptr);
/* the foreign function fn, whose result is of type */
const KirExpr *kir_call(Arena *a, const char *fn, const KirType *type, int n, const KirExpr *const *args);
/* builtin of its number of arguments, its result of type */
const KirExpr *kir_builtin(Arena *a, KirBuiltin builtin, const KirType *type, const KirExpr *const *args);
const KirExpr *kir_cast(Arena *a, const KirType *type, const KirExpr *operand);
/* e is an integer constant (KE_INT, or a KE_IX that folds to one): *v */
bool kir_const_int(const KirExpr *e, int64_t *v);
/* a vector of type from n lanes (one: the scalar broadcast) */
const KirExpr *kir_vector(Arena *a, const KirType *type, int n, const KirExpr *const *lanes);
/* the precedence of e's top operator (C's, higher binds tighter) */
int kir_prec(const KirExpr *e);
/* The direct sub-expressions of e, in order, for the walks that treat
 * them alike (dead.c, kir_check, the race check's interpreter): their
 * number, *out pointing at them (buf holds those of the fixed kinds; a
 * call's, a cast's and a vector's are its arguments).  An index
 * polynomial's atoms (KE_IX) are not among them: walk them with the Ix. */
int kir_expr_children(const KirExpr *e, const KirExpr *buf[3], const KirExpr *const **out);
/* e with its direct sub-expressions replaced by kids (as many, in the order
 * kir_expr_children gives them), or e itself when they are the same: for
 * the passes that rewrite a few nodes and rebuild what holds them */
const KirExpr *kir_expr_rebuilt(Arena *a, const KirExpr *e, const KirExpr *const *kids);
/* the expressions statement s holds (not those of the statements it
 * holds) replaced by what f makes of them */
typedef const KirExpr *(*KirExprMap)(void *ctx, const KirExpr *e);
void kir_map_exprs(KirStmt *s, KirExprMap f, void *ctx);
/* the same expression: the same tree, index polynomials ix_equal */
bool kir_expr_equal(const KirExpr *a, const KirExpr *b);
/* a total order of expressions, structural (for index atoms, index.c):
 * negative, 0 (kir_expr_equal) or positive */
int kir_expr_compare(const KirExpr *a, const KirExpr *b);

/* ---- statements ---- */
KirStmt *kir_stmt(Arena *a, KirStmtKind kind);
void kir_append(KirBlock *b, KirStmt *s);
/* items (n of *cap, size bytes each) with room for one more: the same
 * array, or a copy twice as large (*cap updated; 8 at first), for the
 * passes' short arrays of structs, where an allocation and a pointer each
 * cost more than the element */
void *kir_grown_slow(Arena *a, void *items, int n, int *cap, size_t size);
static inline void *kir_grown(Arena *a, void *items, int n, int *cap, size_t size) {
  return n < *cap ? items : kir_grown_slow(a, items, n, cap, size);
}
/* s after `after` in b, or first when after is NULL */
void kir_insert_after(KirBlock *b, KirStmt *after, KirStmt *s);
/* e is true or false, a bool literal (as partition.c decides a test): *v */
static inline bool kir_is_truth(const KirExpr *e, bool *v) {
  if (e->kind != KE_LIT || e->lit.scalar != SC_BOOL) return false;
  *v = e->lit.i != 0;
  return true;
}
/* the block of statements a statement holds (FOR, IF, BLOCK), or NULL
 * (inline: every pass over the kernel IR asks it of every statement) */
static inline KirBlock *kir_body(KirStmt *s) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (s->kind) {
  case KS_FOR: return &s->loop.body;
  case KS_IF: return &s->cond.body;
  case KS_BLOCK: return &s->block.body;
  case KS_DECL:
  case KS_ASSIGN:
  case KS_VSTORE:
  case KS_BARRIER:
  case KS_EXPR:
  case KS_COMMENT:
  case KS_RUN: return NULL; /* a template, not a block run once: never walked as one */
  }
  DPIA_EXHAUSTIVE_END
  return NULL;
}
/* a copy of b's statements, nested blocks copied too (expressions are
 * immutable and shared) */
KirBlock kir_block_copy(Arena *a, const KirBlock *b);
/* the names b declares (variables, loops' variables) or assigns, nested
 * blocks included, added to names */
void kir_names_bound(const KirBlock *b, NameSet *names);

/* A whole kernel: its interface and its body, for a backend to print. */
typedef struct KirParam {
  int role;            /* KParamRole (kernel.h) */
  const KirType *type; /* the element type of a buffer, the type of a value */
  const char *name;
  bool restrict_; /* a global buffer that no other parameter aliases */
  /* an input the kernel updates in place (docs/language.md section 27):
   * the output's buffer, so neither const nor restrict */
  bool updated;
  /* a local buffer of symbolic size made by toLocalVolatile (KP_LOCAL,
   * docs/language.md section 32) */
  bool is_volatile;
} KirParam;

typedef struct KirStructField {
  const KirType *type;
  const char *name;
  int64_t array_len; /* < 0: not an array */
} KirStructField;

typedef struct KirStruct {
  const char *name;
  KirStructField field[2]; /* fst, snd */
} KirStruct;

/* What a kernel defines at program scope, before itself.  Within one
 * program (a pipeline's kernels), one name is one definition: the kernels
 * share a struct type's typedef and a foreign function by name, and
 * codegen names a constant array after an earlier kernel's only when it
 * holds the same values (CodegenOptions.program). */
/* clang-format off */
#define KIR_TOP_KINDS(X)                                                       X(STRUCT)  /* st: a pair type's typedef */                                   X(FOREIGN) /* name, text: a foreign function's C definition */               X(CONST)   /* name, table: a constant array */

typedef enum KirTopKind {
#define X(id) KT_##id,
  KIR_TOP_KINDS(X)
#undef X
} KirTopKind;
/* clang-format on */

/* A constant array of program scope (an array literal's values), in
 * constant memory. */
typedef struct KirTable {
  const KirType *elem;
  int n;
  const KirExpr *const *values; /* n literals, or vectors of a literal */
  int per_row;                  /* the elements a row of the literal: its innermost array's */
} KirTable;

typedef struct KirTop {
  KirTopKind kind;
  const char *name;
  KirStruct st;     /* KT_STRUCT */
  const char *text; /* KT_FOREIGN */
  KirTable table;   /* KT_CONST */
} KirTop;

typedef struct KirKernel {
  const char *name;
  const char *comment; /* the header comment's text, lines joined by \n */
  bool uses_double;
  /* the structs in dependency order, the foreign functions, the constant
   * arrays */
  int ntops;
  KirTop *tops;
  int nforeigns;
  const DefInfo *const *foreigns; /* the foreign functions it calls */
  bool reqd_local;                /* the local size is fixed to local_size */
  int64_t local_size[3];
  int nparams;
  KirParam *params;
  KirBlock locals; /* local buffers of kernel scope */
  KirBlock body;
  /* the steps of loops written out that lowering copied from one
   * lowering of their body (codegen/unroll_step.c), for the tests */
  int steps_copied;
  /* the work code generation skipped where a precondition showed it
   * would find or change nothing (CodegenOptions.no_shortcuts), bits of
   * KirShortcut, for the tests */
  unsigned shortcuts;
  /* the vectors of plain buffers read or written without probing their
   * lanes (codegen/access_vector.c), for the tests */
  int plain_vectors;
  /* the runs (KS_RUN) lowering made, for the tests and for
   * kir_write_out_runs (none: nothing to look for) */
  int runs_made;
  /* the halves of pairs read from the zip element the other half's walk
   * found (codegen/access.c, gen_pair_half), for the tests */
  int halves_shared;
  /* CodegenOptions.compare_sites: the command sites compared, those whose
   * scans differed from the record, and the first such's difference, for
   * the tests */
  int sites_compared, sites_differing;
  const char *site_difference;

  /* every run written out (kir_write_out_runs): none left to look for.
   * A backend that prints runs (Backend.prints_runs) gets them kept, and
   * whatever reads the kernel after printing writes them out first, into
   * runs_arena (the kernel's own: kernel_facts_kir, codegen/kernel.h) */
  bool runs_out;
  Arena *runs_arena;
} KirKernel;

/* The shortcuts of KirKernel.shortcuts. */
typedef enum KirShortcut {
  KIR_SHORTCUT_READS = 1u << 0,     /* no site's reads scanned (codegen/barriers.c) */
  KIR_SHORTCUT_WRITES = 1u << 1,    /* no site's writes scanned */
  KIR_SHORTCUT_SITES = 1u << 2,     /* the sites taken out, no barrier placed (barrier_pass.c) */
  KIR_SHORTCUT_PARTITION = 1u << 3, /* no test to decide, no walk (partition.c) */
  KIR_SHORTCUT_ROWS = 1u << 4,      /* a block reading no buffer twice not visited (pointers.c) */
  KIR_SHORTCUT_SCOPE = 1u << 5,     /* the body not walked for array literals and foreign functions: the
                                       program has none (TypeCtx.program_scope, consts.c) */
} KirShortcut;
enum { KIR_SHORTCUTS = 6 };

/* ---- runs of steps (KS_RUN, unroll_step.c) ---- */

/* run's statements at each of its steps in order, written out (with the
 * barrier site before each leaf where sites: for the barrier pass only),
 * as lowering each step on its own writes them */
KirBlock kir_run_steps(Arena *a, const KirStmt *run, bool sites);
/* run, the statement after prev in b (NULL: first), replaced by its
 * steps; returns the first of them (or the statement after the run, if
 * the run has none) */
KirStmt *kir_run_write_out(Arena *a, KirBlock *b, KirStmt *prev, KirStmt *run);
/* every run of k written out */
void kir_write_out_runs(Arena *a, KirKernel *k);
/* every run in b and the blocks inside it written out */
void kir_write_out_runs_in(Arena *a, KirBlock *b);
/* the template statements of a run that are its steps' own (not sites) */
static inline bool kir_run_template_stmt(const KirStmt *t) { return t->kind != KS_BARRIER; }
/* What a run's printer reads (backend_c.c, print_run): a step's
 * statements are its template's (kir_run_template_stmt), each with the
 * index nodes that hold $step (KE_IX, the leaves) replaced by the step's
 * index of their slot.  kir_run_leaves: the leaves of the template's
 * statement j (j-th of those kir_run_template_stmt takes, in order) and
 * their slots, at most `most` (-1 where more); kir_run_row: the index of
 * each slot at the run's step t (0 its first), by slot */
int kir_run_leaves(const KirStmt *run, int j, const KirExpr **leaves, int *slots, int most);
const Ix *const *kir_run_row(const KirStmt *run, int64_t t);
/* the number of the run's slots (its distinct indices with $step) */
int kir_run_slots(const KirStmt *run);

/* The first invariant of the IR that k breaks, or NULL: no name declared
 * where the same name is visible (spec section 8: no shadowing), no
 * barrier in a loop over work-items or under a test of a work-item's id
 * (spec section 5), no comparison of a work-item function (a size_t) with
 * a signed value other than a non-negative constant (-Wsign-compare), and
 * every expression typed as its operands say (kir_type_violation).
 * Checked after lowering in debug builds. */
const char *kir_invariant_violation(Arena *a, const KirKernel *k);
/* Why e's own type disagrees with its operands' (its operands' types
 * taken as given), or NULL: a type, and arithmetic on numbers of one
 * scalar kind and equal widths or a scalar broadcast to a vector, a
 * comparison bool or an int vector, && and || of scalar tests, a
 * condition's test a scalar bool or int and its branches of its type, an
 * element of a pointer its pointee, an index an int, a lane a scalar of
 * its vector's kind, a vload a vector of its pointer's scalars, a
 * built-in's arguments of its type (a scalar broadcast; a select's mask an
 * int vector of its width), a cast between numbers of equal width or
 * between pointers, a vector built from scalars of its kind, one or one
 * per lane (kir_types.c). */
const char *kir_type_violation(Arena *a, const KirExpr *e);
/* the same, given e's n children sub (kir_expr_children): for a walk
 * that has them already (kir_invariant_violation's) */
const char *kir_type_violation_of(Arena *a, const KirExpr *e, int n, const KirExpr *const *sub);
/* A leaf of an expression (no operands: kir_expr_children gives none). */
static inline bool kir_expr_is_leaf(const KirExpr *e) {
  return e->kind == KE_INT || e->kind == KE_VAR || e->kind == KE_LIT || e->kind == KE_IX || e->kind == KE_QUERY;
}
/* A leaf e typed as kir_type_violation_of's rule wants, told without a
 * call (most nodes the KIR check meets are leaves: translation throughput,
 * BENCHMARKS.md): true only where that rule finds nothing (a variable of
 * any type, an int constant, index or query of type int, a literal of its
 * scalar's own type object); false where the rule must be asked (then it
 * gives the message).  tests/unit/test_kir.c compares the two. */
static inline bool kir_leaf_typed(const KirExpr *e) {
  const KirType *t = e->type;
  if (!t) return false;
  switch (e->kind) {
  case KE_VAR: return true;
  case KE_INT:
  case KE_IX:
  case KE_QUERY: return t->kind == KTY_SCALAR && t->width == 1 && t->scalar == SC_INT;
  case KE_LIT: return t == kir_scalar1(e->lit.scalar);
  default: return false;
  }
}
/* Why statement s's expressions disagree with where they go, or NULL: a
 * declaration's initial value and an assignment's right-hand side of the
 * variable's type (or its scalar, broadcast), a vstore's value a vector
 * of its pointer's scalars, a loop's start, bound and step ints, an if's
 * test a bool or an int. */
const char *kir_stmt_type_violation(const KirStmt *s);

/* Private variables nothing reads are not declared (dead.c): a
 * declaration whose variable no statement after it reads (a def's argument
 * bound by value for a step whose result a later take dropped), with the
 * assignments to it unless it is a pointer; then a loop, test or block
 * left empty, and a comment line left annotating nothing.  The calls of
 * foreign functions in what is dropped stay, as statements (KS_EXPR).
 * Repeated until nothing more goes. */
void kir_drop_dead(Arena *a, KirKernel *k);
/* the names e reads (its variables, its index polynomials' atoms), added
 * to read (each once; dead.c) */
void kir_names_read(const KirExpr *e, NameSet *read);
/* The variable an l-value assigns to (x of x, x[i], x.fst, x.s2), or NULL
 * (an l-value through an address computed otherwise; dead.c). */
const char *kir_lvalue_var(const KirExpr *lhs);

/* The computation of what only a test's body reads goes into that body
 * (guard_sink.c): the statements before an if that only compute private
 * values read by nothing after it, so that a work-item a take's guard
 * drops (the padded tail of a work-group, docs/reference.md "Sizes that
 * do not divide") does no work, and the partition pass decides the
 * clamps and tests of the values inside the guard. */
void kir_sink_into_guards(Arena *a, KirKernel *k);

/* A kernel computing in place (docs/language.md section 27), its output
 * out the buffer of its input in, reads in only at the element it writes,
 * in the statement that writes it, or, when the launch has one
 * work-group (one_group) or no group reads what another writes
 * (groups_apart, shown by translate/in_place_groups.c: then also inside
 * a loop over work-groups), anywhere before a barrier of the group that
 * precedes every use of the output (that barrier then fences global
 * memory, and *staged is set; in_place.c says why these suffice); else
 * reports E0704 (E0705: staged, but more than one group) at `at` (the
 * kernel's updates clause), the read printed by print_expr, and returns
 * false.  culprit (no src: unknown) is the read of the program that
 * breaks the rule across groups (DefInfo.groups_culprit): E0705 names it
 * and a note points at it. */
bool kir_check_in_place(Arena *a, Diag *diag, KirKernel *k, const char *out, const char *in, bool one_group,
                        bool groups_apart, Span culprit, bool *staged, Span at,
                        void (*print_expr)(Buf *out, const KirExpr *e));
/* Once kir_check_in_place holds: the output out written through the
 * parameter of in, its own parameter dropped, so that the kernel takes the
 * one buffer once (kparam_arg, kernel.h, maps the interface's parameters
 * to the kernel's). */
void kir_in_place_one_param(Arena *a, KirKernel *k, const char *out, const char *in);

typedef struct Backend Backend; /* backend.h */
/* A sequential loop whose body tests its variable against a bound it
 * does not change (a padded read's i >= N ? 0.0f : xs[i], a take's
 * write guard) runs as two loops, one on each side of the step where the
 * tests change, each with the tests decided (partition.c). */
/* The launch the kernel was generated for, as far as it is known (NULL
 * where not): for each dimension the global size, the number of groups
 * and the local size, which bound the work-item ids (get_global_id(d) <
 * global[d]; OpenCL 1.2 section 3.2).  The partition pass takes them as
 * facts about the variables declared from the ids. */
typedef struct KirIdBounds {
  const Ix *groups[3], *local[3];
  /* the global sizes, made indices (by ix, ix_from_size) only where a
   * global id is asked about: a kernel of work-groups has none (issue 35) */
  bool global_known[3];
  Size global[3];
  IxCtx *ix;
  /* the kernel's preconditions lhs >= rhs (NZ >= 1: spec section 3), facts
   * everywhere in the kernel, since its launcher checks them first */
  int nleast;
  const Ix *const *least_lhs, *const *least_rhs;
} KirIdBounds;
/* Does the partition pass have anything to decide in body (a test, an
 * if, a bool's value, a self-assignment, a block alone: partition_work.c)? */
bool kir_partition_has_work(const KirBlock *body);
/* no_shortcuts: walked also where nothing can be decided (a kernel of no
 * tests: CodegenOptions.no_shortcuts) */
void kir_partition_loops(Arena *a, const Backend *backend, KirKernel *k, const KirIdBounds *ids, bool no_shortcuts);

/* Loop bodies that read a buffer at several constant offsets from one
 * index that depends on the loop's variable read it through a pointer to
 * that row, declared where the body begins (pointers.c), named away from
 * backend's reserved names.  no_shortcuts: every loop body visited, also
 * one that reads no buffer twice (CodegenOptions.no_shortcuts). */
void kir_row_pointers(Arena *a, const Backend *backend, KirKernel *k, bool no_shortcuts);

/* A loop whose whole body is one test of work-item ids (a single writer's
 * guard, get_local_id(1) == 0, inside a mapLocal over dimension 0) becomes
 * the test around the loop: tested once, and PoCL 3.1 miscompiled the
 * guard inside a strided mapLocal in a work-group loop
 * (tests/diff/regress/pocl_guard_in_local_loop.dpia). */
void kir_hoist_guards(KirBlock *b);

/* The inner loop of a register tile (a micro-kernel: a loop of a constant
 * number of steps, a multiple of 4 and at least 16, that contains no other
 * statement than declarations of private scalars and pointers and at least
 * 8 assignments, all to private memory) is unrolled 4 steps at a time
 * (`#pragma unroll 4`): LLVM 15 does not unroll a body of that size by
 * itself, and pays the loop's counter and the index of each row read once
 * per step (matrix multiply: 5 to 9% of the time).  A loop of 16 steps is
 * unrolled whole (`#pragma unroll 16`): PoCL vectorises its loop over a
 * work-group's work-items only around straight-line code (SHOC's sgemmNN
 * tile: about 3x faster). */
void kir_unroll_tiles(Arena *a, KirKernel *k);

/* The barrier pass (barrier_pass.c, docs/architecture.md "Barriers"):
 * every barrier site of k's body becomes the barriers it needs (none, one,
 * or one at the top of the loop body it ends).  ndims: the kernel's
 * dimensions.  pocl: also the barriers PoCL 3.1 alone needs (a Backend
 * may leave them out, Backend.no_pocl_barriers).  Where a barrier is
 * needed and none can go, reports E0604 to diag and returns false.  A
 * kernel whose local size is fixed to 1 in every dimension keeps none.
 * no_shortcuts: placed site by site also where no site can need one
 * (CodegenOptions.no_shortcuts). */
bool kir_place_barriers(Arena *a, Diag *diag, KirKernel *k, int ndims, bool pocl, bool no_shortcuts);
/* The pointwise rule of the barrier pass through nested levels
 * (own_elements.c): every use of the buffer variable var in body is an
 * element at one index, the same for all, which is a one-to-one function
 * of the work-item's local ids in its group (with its group ids and nat
 * parameters), so that no other work-item touches what one work-item
 * touches there.  ids: k's variables holding work-item ids, found once. */
typedef struct KirIdNames KirIdNames;
KirIdNames *kir_id_names(Arena *a, const KirKernel *k);
bool kir_own_elements(const KirIdNames *ids, const KirBlock *body, const char *var);
/* e has one value for every work-item of a group: built from literals,
 * nat and scalar parameters, group ids, work-item queries but the local
 * and global ids, and the variables in alike (const char *: enclosing
 * loops' variables shown alike), with no read of memory.  A sequential
 * loop whose bounds are not alike runs a different number of steps in
 * different work-items (a dependent map's row, [M - gid]), so no barrier
 * can go in it (barrier_pass.c, divergent_loop). */
bool kir_group_alike(const KirIdNames *ids, const KirExpr *e, const Vec *alike);
/* statements first up to stop (not included; NULL: to the block's end) */
typedef struct KirStmtRange {
  const KirStmt *first, *stop;
} KirStmtRange;
/* the same over the statements of n ranges together (the uses in all of
 * them at one index): the code since a barrier and the command after it */
bool kir_own_elements_in(const KirIdNames *ids, const KirStmtRange *ranges, int n, const char *var);

/* Dimensions d (bit d) where some parallel loop of the body steps by the
 * global size or the number of groups (*global_steps) or by the local size
 * (*local_steps): a loop a work-item runs more than once. */
void kir_stepping_loops(const KirKernel *k, unsigned *global_steps, unsigned *local_steps);

#endif
