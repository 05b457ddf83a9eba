/* kernel.h: an imperative kernel, the interface between the translation
 * (translate/) and code generation (codegen/).
 *
 * The translation produces, for each functional kernel, an imperative
 * def (a DefInfo of phrase.h) of the shape that `--emit=imperative`
 * prints and `dpia check` accepts again:
 *
 *   def NAME (N: nat) ... (output: acc[T]) (xs: exp[[N]float]) (alpha: exp[float]) ...
 *            (tmp: var[[K]float]) ... =
 *     newLocal [64]float (\loc -> ... body ...)
 *
 * Parameters by role: acc[T] -> output; exp[array] -> input buffer;
 * exp[scalar or vector] -> scalar argument; var[T] -> hoisted global
 * temporary; nat -> size argument.  Local memory is allocated by newLocal
 * phrases wrapped around the whole body (kernel scope, spec section 7).
 * kernel_from_def derives the ImpKernel below from such a def, whether the
 * translation made it or a user wrote it by hand. */
#ifndef DPIA_KERNEL_H
#define DPIA_KERNEL_H

#include "dpia_front.h"

typedef struct Backend Backend; /* backend.h */

#define DPIA_KPARAM_ROLES(X)                                 \
  X(OUTPUT, "output")     /* global T *restrict, written */  \
  X(INPUT, "input")       /* const global T *restrict */     \
  X(SCALAR, "scalar")     /* T, by value */                  \
  X(NAT, "nat")           /* int */                          \
  X(TEMP, "temp")         /* global T *restrict, hoisted newGlobal */ \
  X(LOCAL, "local")       /* local T *, newLocal of symbolic size */

typedef enum KParamRole {
#define X(id, s) KP_##id,
  DPIA_KPARAM_ROLES(X)
#undef X
} KParamRole;
extern const char *const kparam_role_name[];

typedef struct KParam {
  Sym name;         /* C name (the kernel's own text) */
  /* the program's name of a parameter the program names, when the C name
   * differs (`step` is an OpenCL built-in: C name step_2); NULL otherwise.
   * Every interface (metadata "name", the header's launchers, dpia run's
   * and the launchers' messages) uses kparam_name. */
  Sym src_name;
  KParamRole role;
  DataType *type;   /* the data type of the whole buffer or value */
  Binder *binder;   /* the def's parameter (NULL for KP_NAT) */
  Size elements;    /* buffers: number of scalar-or-vector elements */
  DataType *elem;   /* buffers: the element type stored (float, float4, a pair struct) */
  /* a component of a pair-typed parameter split into buffers (spec section
   * 8: output_1, output_2, depth-first): the fields leading from the
   * binder's type to this component, e.g. "1", "21"; "" if not split */
  const char *fields;
} KParam;

/* the name a host knows the parameter by: the program's */
static inline Sym kparam_name(const KParam *p) { return p->src_name ? p->src_name : p->name; }

/* An array of 3-vectors in global memory is packed, 3 lanes an element (12
 * bytes for float3), as a host writes it (docs/language.md section 11):
 * the buffer is declared as its scalar (global float *), its elements are
 * read with vload3 and written with vstore3, a lane is the scalar at 3i + l,
 * and the metadata, the header and dpia run count 3 lanes an element.  A
 * 3-vector alone (a one-element result) or in a struct keeps OpenCL's
 * 4-lane size. */
static inline bool kparam_packed3(const KParam *p) {
  if (p->role != KP_OUTPUT && p->role != KP_INPUT && p->role != KP_TEMP) return false;
  const DataType *t = dt_resolve(p->type), *e = dt_resolve(p->elem);
  return t->kind == DT_ARRAY && e->kind == DT_SCALAR && e->width == 3;
}

typedef struct ImpKernel {
  Sym name;
  /* the target it is generated for (the driver's choice): its names are
   * reserved in the kernel's, and it prints the kernel and the header */
  const Backend *backend;
  const char *source_name; /* file name for the header comment */
  DefInfo *def;            /* the imperative def (body: comm) */
  int nparams;
  KParam *params;          /* in the order of the kernel interface (spec section 8) */
  int nprecond;
  const Precond *preconds; /* the def's, then the launch's "G % L == 0" (zero Span) */
  /* natural NDRange, derived from the top-level parallel loops; a
   * dimension d is used when ndims > d.  has_local false: the strategy does
   * not fix the local size (metadata "local_size": null). */
  int ndims;
  Size global_size[3];
  bool has_local;
  Size local_size[3];
  /* the dimensions a mapWorkgroup or mapGlobal distributes (bit d): the
   * others have one work-group at the natural launch, and keep it under
   * the user's local size alone (codegen/lower.c, compute_launch) */
  unsigned grid_dims;
  /* per dimension: a mapLocal runs over this symbolic size (not of tune
   * parameters only) while a single-element mapLocal made the natural
   * local size 1; NULL otherwise (a symbolic work-group size never silently
   * becomes 1) */
  const Size *local_collapsed[3];
  /* a kernel computing in place (`updates xs`, docs/language.md section
   * 27): its output, params[0], is the buffer of the input
   * params[updated[0]] and no argument of the kernel, which writes it
   * through that input's parameter (kparam_arg; the launchers take one
   * buffer, the metadata says so); with `updates x, b`, its outputs
   * params[j], j < nupdated (output_1, output_2, ...), are the buffers of
   * params[updated[j]] */
  bool in_place;
  int nupdated;
  int updated[DECL_MAX_UPDATED];
  Diag *diag; /* where code generation reports what it cannot generate */
  /* the text of kernel_from_def's dry run with the natural NDRange:
   * codegen_kernel without user launch sizes returns it instead of
   * generating the same text again */
  const char *natural_source;
  struct KernelFacts *natural_facts; /* and what it says of that text */
} ImpKernel;

/* The position of params[i] among the generated kernel's arguments: i,
 * but for an in-place kernel, whose output is no argument (-1) and whose
 * other parameters come one earlier (kir_in_place_one_param). */
static inline int kparam_arg(const ImpKernel *k, int i) {
  if (!k->in_place) return i;
  return i < k->nupdated ? -1 : i - k->nupdated;
}
/* the number of the generated kernel's arguments */
static inline int kparam_nargs(const ImpKernel *k) { return k->in_place ? k->nparams - k->nupdated : k->nparams; }
/* the input whose buffer params[i] is: updated[i] for an in-place output,
 * else i itself */
static inline int kparam_buffer_of(const ImpKernel *k, int i) {
  return k->in_place && i < k->nupdated ? k->updated[i] : i;
}
/* the in-place output whose buffer the input params[i] is, or -1 */
static inline int kparam_output_of(const ImpKernel *k, int i) {
  for (int j = 0; k->in_place && j < k->nupdated; j++)
    if (k->updated[j] == i) return j;
  return -1;
}
/* is params[i] an input the kernel updates in place */
static inline bool kparam_is_updated(const ImpKernel *k, int i) { return kparam_output_of(k, i) >= 0; }

/* What `dpia run` and the driver need to know of the code generated for a
 * kernel, read off the kernel IR (codegen/kir.h), not the text: the
 * dimensions d (bit d) where a parallel loop steps by the global size or
 * the number of groups (global_steps) or by the local size (local_steps),
 * a loop a work-item runs more than once; and the foreign functions the
 * kernel calls. */
typedef struct KernelFacts {
  unsigned global_steps, local_steps;
  int nforeigns;
  const DefInfo *const *foreigns;
  /* the kernel IR the text was printed from, its runs of steps (KS_RUN)
   * perhaps kept (Backend.prints_runs): read it by kernel_facts_kir */
  const struct KirKernel *printed_kir;
} KernelFacts;

/* codegen/lower.c: the kernel IR the text of facts was printed from (NULL:
 * none), every run of steps written out (once, in place: the facts'
 * copies share it), as the interpreters, the race check and the other
 * printers read it */
const struct KirKernel *kernel_facts_kir(const KernelFacts *facts);

/* codegen/kernel.c: the kernel interface and launch sizes of an imperative
 * def, for the target of backend (the kernel keeps it: ImpKernel.backend).
 * Reports to diag and returns NULL if the def does not have the shape
 * above. */
ImpKernel *kernel_from_def(Arena *a, TypeCtx *tc, Diag *diag, const Backend *backend, DefInfo *def,
                           const char *source_name);

/* Kernels generated into one OpenCL program (a pipeline's), in order:
 * what the names of a kernel's constant arrays must know of the others.
 * One name is one definition in the program (codegen_program_add), so a
 * constant array of the same values as an earlier kernel's keeps that
 * name, and any other avoids the names of those arrays and every name the
 * file declares (kernels and foreign functions are program-scope names;
 * the caller adds the declarations to taken first).  Code generation adds
 * each kernel's arrays. */
typedef struct ProgramNames {
  NameSet taken;
  Vec tables; /* ProgramTable* */
} ProgramNames;

typedef struct ProgramTable {
  const char *name;
  const Phrase *lit; /* its array literal */
} ProgramTable;

typedef struct CodegenOptions {
  /* user launch sizes (--local-size, --global-size); 0 = not given */
  int64_t local_size[3], global_size[3];
  bool stamp;            /* name dpia's version in the generated comments */
  ProgramNames *program; /* NULL: the kernel is a program of its own */
  /* tune parameters whose values came from the tuning cache, said in the
   * header's leading comment: "KS=256 AP=16, tuned by dpia tune on DEVICE
   * (driver D) at M=1024 ..." (docs/tune.md); NULL: none */
  const char *tuned;
  /* every step of a loop written out lowered on its own, none copied
   * (unroll_step.c): the general way, which the copies must agree with
   * (tests/unit/test_unroll.c) */
  bool unroll_directly;
  /* the steps copied written out where they are made, none kept as a run
   * for the passes to see once (KS_RUN, unroll_step.c): what the runs
   * must agree with (tests/throughput, unroll) */
  bool runs_written_out;
  /* each barrier site's command walked anew for its reads by a plain
   * walk, every occurrence noted, and a loop end's writes and unindexed
   * writes found in a walk each (barriers.c): the general way, which the
   * reads kept from one walk of the body and the loop end's one walk must
   * agree with (tests/throughput, sites) */
  bool scan_each_site;
  /* every scan and pass over the kernel IR run in full, also where a
   * precondition shows it finds or changes nothing (barriers.c's reads of
   * a kernel whose readable variables are all in private or read-only
   * memory, barrier_pass.c ...): the general way, which the shortcuts
   * must agree with (tests/throughput, shortcuts) */
  bool no_shortcuts;
  /* the lanes of every vector read or written probed through its path,
   * none of a plain buffer told at once (access_vector.c): the general
   * way, which the plain vectors must agree with (tests/throughput,
   * vectors) */
  bool probe_lanes;
  /* each half of a pair read through its whole path of views, none taken
   * from where the other half's walk found the zip element (access.c,
   * gen_pair_half): the general way, which the halves must agree with
   * (tests/throughput, halves) */
  bool walk_each_read;
  /* each command site's reads and writes scanned from its phrase too and
   * compared with those recorded from its code (barriers.c), the sites
   * compared and those that differ counted (KirKernel.sites_compared,
   * sites_differing): what the record must agree with (tests/throughput,
   * record) */
  bool compare_sites;
} CodegenOptions;

/* codegen/opencl.c: the source of one kernel in its target's language
 * (k->backend prints it), and its facts (NULL: not wanted).  Returns false after reporting to k->diag what it
 * cannot generate (kernel_from_def already tried the natural NDRange; user
 * launch sizes can still make a barrier unreachable for some work-items). */
bool codegen_kernel(Arena *a, TypeCtx *tc, const ImpKernel *k, const CodegenOptions *opt, Buf *out, KernelFacts *facts);
/* codegen/kernel.c: k as launched under the user launch sizes opt (the
 * launch codegen_kernel generated its code for): the NDRange the metadata,
 * the header's launcher and dpia run use, and the preconditions plus any
 * "G % L == 0" that launch needs.  k itself when opt gives no size. */
ImpKernel *kernel_with_launch(Arena *a, TypeCtx *tc, const ImpKernel *k, const CodegenOptions *opt);
/* codegen/metadata.c: the JSON object of spec section 9 (with "source"). */
void codegen_metadata(Arena *a, const ImpKernel *k, const char *source, Buf *out);
/* codegen/header.c: the host header of spec section 9 (`--emit=header`),
 * as backend prints it, for the kernels of one source file and their
 * sources; opt (NULL: none) holds the user launch sizes the sources were
 * generated for. */
void codegen_header(Arena *a, const Backend *backend, const char *source_name, int nkernels,
                    const ImpKernel *const *kernels, const char *const *sources, const CodegenOptions *opt, Buf *out);

#endif
