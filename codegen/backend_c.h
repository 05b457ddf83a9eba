/* backend_c.h: what the printers of C-family languages share (OpenCL C,
 * CUDA C): literals, the header comment, where statements land in the
 * text, the definitions a program holds already, constant tables.  Only
 * the files codegen/backend_*.c include it. */
#ifndef DPIA_BACKEND_C_H
#define DPIA_BACKEND_C_H

#include "backend.h"

/* the shortest decimal that reads back as the same float (or double),
 * with a point or an exponent, and f for a float; infinity as the macro */
void cprint_float(Buf *out, double v, bool single);
/* the same by its general path, a search of the precision (cprint_float
 * takes a shorter one for small whole numbers; tests/unit compare them) */
void cprint_float_shortest(Buf *out, double v, bool single);
/* a typed literal: true, 42, 0.5f, 0.5 */
void cprint_lit(Buf *out, KirLit l);
/* text as a block comment, a line of the comment per line of text */
void cprint_comment(Buf *out, const char *text);
/* does the program define name already?  (defined NULL: the kernel is a
 * program of its own); if not, it does from now on */
bool cprint_defined_before(NameSet *defined, const char *name);

/* Where statements land in the text (backend.h statement_lines): the
 * number of lines before out->len, counted as the text grows. */
typedef struct LineRec {
  Arena *arena;
  Vec stmts;
  int *lines;
  int cap;
  size_t scanned;
  int line; /* the line at scanned, from 1 */
} LineRec;
/* s begins at out->len (rec NULL: nothing recorded) */
void cprint_record_line(LineRec *rec, const Buf *out, const KirStmt *s);

/* head name[n] = {...}; (head: "constant float"): on one line if it fits
 * in 100 columns; else a row of a nested literal a line, or as many as
 * fit, aligned after the brace; values printed by print_expr */
void cprint_table(Buf *out, const char *head, const char *name, const KirTable *t,
                  void (*print_expr)(Buf *out, const KirExpr *e));

/* What a C-family language spells its own way in an expression; the rest
 * of the expression printer (numbers, variables, literals, index
 * polynomials, operators with no redundant parentheses, ?:, elements,
 * fields, calls of foreign functions, scalar casts) is shared. */
typedef struct CHoles CHoles;
/* The text of the index node printed last in the statement at hand: at
 * [at, at + len) of the text whose characters are data (print_ix) */
typedef struct CIxText {
  const Ix *ix;
  const char *data;
  size_t at, len;
} CIxText;
typedef struct CExprHooks {
  /* the backend's own print_expr (index polynomials print their atoms
   * through it) and print_type */
  void (*print_expr)(Buf *out, const KirExpr *e);
  void (*print_type)(Buf *out, const KirType *t);
  /* e's precedence as the language prints it (NULL: kir_prec) */
  int (*prec)(const KirExpr *e);
  /* a work-item query, a lane, a vload, a built-in, a cast to a vector
   * type and a vector construction; its operands printed through h, the
   * hooks it was reached by (a backend that prints runs of steps:
   * CStmtHooks.exprs) */
  void (*print_own)(const struct CExprHooks *h, Buf *out, const KirExpr *e);
  /* NULL but while a run's template statement is printed (print_run):
   * the index nodes that differ from step to step, each left as a hole */
  CHoles *holes;
  /* NULL but while a kernel's statements are printed by hooks of its own
   * (CStmtHooks.exprs): the index printed last in the statement, whose
   * text the same node printed again copies (a zip's two vector loads
   * share their offset: translation throughput, BENCHMARKS.md) */
  CIxText *ix_text;
} CExprHooks;

/* e, and e as an operand that needs a precedence of at least min */
void cprint_expr(const CExprHooks *h, Buf *out, const KirExpr *e);
void cprint_operand(const CExprHooks *h, Buf *out, const KirExpr *e, int min);
/* (a, b, c): a call's arguments, each as an operand of a comma */
void cprint_args(const CExprHooks *h, Buf *out, const KirExpr *e);

/* What a C-family language spells its own way in a statement; the rest of
 * the statement printer is shared (the model: Halide's CodeGen_C, whose
 * targets override a few of its methods). */
typedef struct CStmtHooks {
  void (*print_type)(Buf *out, const KirType *t);
  void (*print_expr)(Buf *out, const KirExpr *e);
  /* e as an operand that needs a precedence of at least min */
  void (*print_operand)(Buf *out, const KirExpr *e, int min);
  /* an expression a statement holds whole: a declaration's or an
   * assignment's value, a loop's start and step */
  void (*print_whole)(Buf *out, const KirExpr *e);
  /* a declaration's memory space with a space after it, by KirSpace
   * ("local ", "__shared__ ", "" for none) */
  const char *const *decl_space;
  /* the qualifier of a volatile declaration, with a space after it, after
   * the memory space ("volatile ": OpenCL C 6.7, CUDA C++ and C11 6.7.3
   * spell it alike; docs/language.md section 32) */
  const char *volatile_word;
  /* a KS_VSTORE and a KS_BARRIER statement, without the semicolon */
  void (*print_vstore)(Buf *out, const KirStmt *s);
  void (*print_barrier)(Buf *out, const KirStmt *s);
  /* the pragma a loop of kir_unroll_tiles is unrolled by ("#pragma
   * unroll"), followed by its number of steps */
  const char *unroll_pragma;
  /* A backend that prints runs of steps (Backend.prints_runs): the
   * expression hooks print_expr, print_operand and print_whole print by
   * (print_whole printing as print_expr does), and a KS_VSTORE by given
   * hooks (print_vstore's); the statements print their expressions by
   * them.  NULL: the backend prints no run. */
  const CExprHooks *exprs;
  void (*print_vstore_by)(const CExprHooks *h, Buf *out, const KirStmt *s);
} CStmtHooks;

/* the statements of b, a line each at indent (and the lines of their
 * bodies one level deeper), each recorded in rec (NULL: none) */
void cprint_block(const CStmtHooks *h, Buf *out, const KirBlock *b, int indent, LineRec *rec);

/* one statement of a block at indent (the lines of its body one level
 * deeper), recorded in rec (NULL: not); a run of steps (KS_RUN) its
 * steps, a line each statement */
void cprint_stmt(const CStmtHooks *h, Buf *out, const KirStmt *s, int indent, LineRec *rec);
/* does cprint_stmt print run (KS_RUN) from its template, each step's
 * indices filled into the text of its statements printed once (rather
 * than each step written out and printed)?  For the tests. */
bool cprint_run_by_template(const CStmtHooks *h, Arena *a, const KirStmt *run);
/* a KS_FOR's head through its opening parenthesis's close and a space:
 * `for (int i = 0; i < n; i += 1) ` */
void cprint_loop_head(const CStmtHooks *h, Buf *out, const KirStmt *s);

/* typedef struct { float fst; int snd; } pair_float_int; */
void cprint_struct(Buf *out, const KirStruct *s, void (*print_type)(Buf *out, const KirType *t));

/* The kernel's parameters after its opening parenthesis, which ends the
 * text since start: on the line when they fit in 100 columns; else a
 * parameter a line, aligned after the parenthesis. */
/* A kernel parameter of a language without memory-space qualifiers (CUDA
 * C++, C): a buffer as a pointer, restrict spelled restrict_word for the
 * buffers the kernel may assume disjoint, a value by itself, and a local
 * buffer as what print_local prints after local_type (its offset in the
 * shared memory, its bytes). */
void cprint_plain_param(Buf *out, const KirParam *p, void (*print_type)(Buf *out, const KirType *t),
                        const char *restrict_word, const char *local_type,
                        void (*print_local)(Buf *out, const KirParam *p));
void cprint_params(Buf *out, size_t start, const KirKernel *k, void (*print_param)(Buf *out, const KirParam *p));
/* the same with nextra declarations after them (the NDRange of a C kernel) */
void cprint_params_more(Buf *out, size_t start, const KirKernel *k, void (*print_param)(Buf *out, const KirParam *p),
                        int nextra, const char *const *extra);

/* The definitions a kernel makes before itself that the program does not
 * hold yet (defined, cprint_defined_before): struct typedefs (under
 * `#ifndef DPIA_C_HAVE_NAME` when guard_structs: a header that may meet
 * another's), foreign functions (their text after foreign: "static
 * inline "), constant tables (after table and the element type: "static
 * const "; each value by print_value), a blank line after the tables. */
typedef struct CTops {
  void (*print_type)(Buf *out, const KirType *t);
  void (*print_value)(Buf *out, const KirExpr *e);
  const char *foreign, *table;
  bool guard_structs;
} CTops;
void cprint_tops(const CTops *c, const KirKernel *k, NameSet *defined, Buf *out);

/* A walk over what a kernel names, for a preamble that defines only what
 * the kernel uses: on_type sees the types of its parameters, its structs'
 * fields, its tables' elements and its declarations; on_expr every
 * expression node (the values of its tables, each statement's, their
 * sub-expressions and index atoms), before its sub-expressions; on_stmt
 * every statement, nested ones included.  A callback may be NULL. */
typedef struct CWalk {
  void (*on_type)(void *ctx, const KirType *t);
  void (*on_expr)(void *ctx, const KirExpr *e);
  void (*on_stmt)(void *ctx, const KirStmt *s);
  void *ctx;
} CWalk;
void cwalk_kernel(const CWalk *w, const KirKernel *k);

/* the printer of a kernel that records where its statements land */
typedef void (*CKernelPrinter)(const KirKernel *k, NameSet *defined, Buf *out, LineRec *rec);
/* statement_lines (backend.h) of the printer */
int cprint_statement_lines(Arena *a, const KirKernel *k, CKernelPrinter print, const KirStmt *const **stmts,
                           const int **lines, const char **text);

#endif
