/* backend.h: what a target language provides to code generation (as QBE's
 * Target, and Halide's printers with a name table each): its names, the
 * text of a kernel in the kernel IR (kir.h), and the host header that
 * launches kernels.
 *
 * The backend is chosen once, by the target's name (`--target=opencl`,
 * DpiaOptions.target, the batch request's "target"): the driver looks it
 * up (backend_named), gives its names to the checker (TargetNames,
 * dpia/check.h) and the backend itself to kernel_from_def, which records
 * it in the ImpKernel; code generation, the header, the pipelines and
 * verification call through that pointer.  Lowering builds target-neutral
 * kernel IR (work-item queries, memory spaces, built-ins by KirBuiltin,
 * casts, vectors, lanes, barriers by fence): only a backend's file spells
 * them.
 *
 * Adding a target (CUDA C, C with OpenMP) is a row of DPIA_TARGETS, a file
 * codegen/backend_NAME.c defining `const Backend backend_NAME` (its
 * printer, its name table, its reserved names) with its host header, and
 * the instance of verify/target.h that verifies and runs its text.  Only
 * the files codegen/backend_*.c name a backend. */
#ifndef DPIA_BACKEND_H
#define DPIA_BACKEND_H

#include "kir.h"

/* kernel.h, pipeline_emit.h */
typedef struct ImpKernel ImpKernel;
typedef struct CodegenOptions CodegenOptions;
typedef struct PipeDesc PipeDesc;

/* The targets dpia knows: X(ID, name), name what --target takes.  The
 * backend of a row is backend_NAME (backend.c's table), its verification
 * and running target_NAME (verify/target.c). */
#define DPIA_TARGETS(X) X(OPENCL, opencl) X(CUDA, cuda) X(C, c)

typedef enum TargetId {
#define X(id, name) TARGET_##id,
  DPIA_TARGETS(X)
#undef X
      TARGET_COUNT
} TargetId;

typedef struct Backend {
  TargetId id;
  const char *name; /* as --target names it: "opencl" */
  /* the names the language gives a meaning to (keywords, types,
   * built-ins, macros), for the checker's messages and for renaming */
  TargetNames names;
  /* the kernels do not run on PoCL 3.1: leave out the barriers only it
   * needs (barrier_pass.c; false: they are placed) */
  bool no_pocl_barriers;
  /* print_kernel takes a run of steps (KS_RUN, kir.h) and prints its
   * steps from its template (backend_c.c, print_run): cg_lower keeps
   * the runs for it (false: it writes every run out before printing) */
  bool prints_runs;
  /* one type, as a declaration of its type prints it */
  void (*print_type)(Buf *out, const KirType *t);
  /* one expression, as a kernel prints it */
  void (*print_expr)(Buf *out, const KirExpr *e);
  /* the whole kernel: header comment, definitions before it, signature,
   * body.  defined: the names a program holding earlier kernels defines
   * (those are left out, the kernel's added), or NULL for a program of
   * the kernel alone. */
  void (*print_kernel)(const KirKernel *k, NameSet *defined, Buf *out);
  /* where print_kernel puts k's statements in a program of the kernel
   * alone (*text): (*stmts)[i] begins on line (*lines)[i] (from 1);
   * returns how many (for messages that quote a statement: verify/race.h) */
  int (*statement_lines)(Arena *a, const KirKernel *k, const KirStmt *const **stmts, const int **lines,
                         const char **text);
  /* the host header (--emit=header, spec section 9): the kernels' sources
   * (as print_kernel printed them) embedded, with launchers of the
   * kernels and of the pipelines (their kernels among kernels) */
  void (*print_header)(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                       const char *const *sources, int npipes, const PipeDesc *const *pipes, const CodegenOptions *opt,
                       Buf *out);
  /* why the backend cannot print k (its language cannot express what the
   * kernel IR says: C's work-item loops cannot split at a barrier under
   * control that differs within a work-group), or NULL; NULL for a
   * backend that prints every kernel.  Lowering reports it (E0608). */
  const char *(*refusal)(Arena *a, const KirKernel *k);
} Backend;

/* backend.c: the backend of a target; the one called name (NULL if none) */
const Backend *backend_of(TargetId id);
const Backend *backend_named(const char *name);
/* the names of the targets, for messages: "opencl" (", "-separated) */
const char *backend_names(Arena *a);

/* name is not free in b's language (a keyword, type, built-in, macro or
 * reserved prefix): the code generator renames a name away from it */
static inline bool backend_reserved(const Backend *b, const char *name) { return b->names.use(name) != NULL; }

#endif
