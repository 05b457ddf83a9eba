/* cgen.h: internals of the OpenCL code generator (spec section 8, paper
 * Figure 6 and section 6), shared by opencl.c (commands, loops, barriers,
 * the kernel text), access.c (acceptors to l-values, expressions to
 * r-values) and kernel.c (the dry run that validates a kernel).
 *
 * Figure 6 translates a command by pushing an access path through the
 * layout views of its acceptors and expressions until an identifier is
 * reached.  A path here is a list of steps, the first one applied to the
 * identifier first: an array index, a pair field (.x1/.x2, printed as the
 * struct fields fst/snd), or a vector lane (asScalar, asVectorAcc: section
 * 6.2 "Vectorisation").  A whole-vector access through asVector or
 * asScalarAcc is generated lane by lane and becomes one vloadn/vstoren when
 * the lanes are provably consecutive scalars of one buffer (a Probe records
 * where each lane went), or one vector element when they are the lanes of
 * one vector in order; otherwise it stays a vector of lanes.
 * Every buffer is flat: an index path [i, j] on a [N][M]T buffer is the
 * element i*M + j; index arithmetic goes through codegen/index.h. */
#ifndef DPIA_CGEN_H
#define DPIA_CGEN_H

#include "backend.h"
#include "index.h"
#include "dpia.h"
#include "kernel.h"
#include "memo.h"

typedef enum Space { SP_GLOBAL, SP_LOCAL, SP_PRIVATE } Space;

#define DPIA_STORE_KINDS(X)                                                 \
  X(BUFFER) /* a flat array: global/local pointer or private array; a     \
               non-array value in a buffer is element 0 */                \
  X(VALUE)  /* a C variable holding the whole value (by-value parameter,  \
               private scalar, vector or struct) */                        \
  X(SPLIT)  /* a pair stored as two storages (pair-typed output) */

typedef enum StoreKind {
#define X(id) STORE_##id,
  DPIA_STORE_KINDS(X)
#undef X
} StoreKind;

typedef struct Storage Storage;
struct Storage {
  StoreKind kind;
  Space space;
  const char *name; /* C name */
  DataType *type;   /* logical data type of the whole value */
  const Binder *root; /* the binder owning it (barrier analysis) */
  bool read_only;   /* an input: const global */
  bool packed3;     /* STORE_BUFFER: a global array of 3-vectors, packed
                       (kparam_packed3): vload3/vstore3 */
  bool is_volatile; /* a local buffer of toLocalVolatile (Binder.volatile_local):
                       read and written element by element, never through
                       vloadn, vstoren or a pointer of its own */
  Storage *part[2]; /* STORE_SPLIT */
  /* a work-group's accumulator kept in private memory, each work-item
   * its own element (Binder.owned_by, locals.c): every access path
   * begins with the indices of the enclosing parforLocals of these
   * dimensions, which the private variable drops */
  const int *owned_by;
  int nowned_by;
  /* its variable as an expression (access.c, storage_var), made at its
   * first access and shared by the rest: every access names it, an
   * unrolled step's several times (issue 35); the fields above are set
   * before any access */
  const KirExpr *var;
};

typedef enum StepKind { STEP_IDX, STEP_FIELD, STEP_LANE } StepKind;

typedef struct Step Step;
struct Step {
  StepKind kind;
  const Ix *ix;     /* STEP_IDX: the index; STEP_LANE: the lane */
  int n;            /* STEP_FIELD: 1 or 2 */
  const Step *next;
};

/* What an identifier of the imperative program stands for (the paper's
 * environment eta). */
typedef enum EnvKind {
  ENV_STORAGE, /* a parameter or a new variable: both v.1 and v.2 */
  ENV_INDEX,   /* a loop variable: an index expression */
  ENV_ALIAS,   /* the o of a parfor: idxAcc A i (Figure 6, parfor rule) */
  ENV_VIEW,    /* the parameter of a view map's function: idx E i */
} EnvKind;

typedef struct EnvEntry EnvEntry;
struct EnvEntry {
  const Binder *binder;
  EnvKind kind;
  Storage *st;        /* ENV_STORAGE */
  const Ix *ix;       /* ENV_INDEX; ENV_ALIAS, ENV_VIEW: the index i */
  const Phrase *acc;  /* ENV_ALIAS: the acceptor A; ENV_VIEW: the array E */
  EnvEntry *next;
};

/* Binder -> EnvEntry, open addressing (opencl.c, env_add). */
typedef struct EnvIndex {
  const Binder **keys;
  EnvEntry **vals;
  uint32_t used, cap;
} EnvIndex;
/* the slot of b: its own, or the empty one where it would go */
static inline uint32_t env_slot(const EnvIndex *x, const Binder *b) {
  uint32_t i = (uint32_t)(((uintptr_t)b >> 4) * 2654435761u) & (x->cap - 1);
  while (x->keys[i] && x->keys[i] != b) i = (i + 1) & (x->cap - 1);
  return i;
}
/* b's entry, or NULL (inline: every variable the generator meets is
 * looked up, most several times, issue 35) */
static inline EnvEntry *env_index_get(const EnvIndex *x, const Binder *b) {
  if (!x->cap || !b) return NULL;
  uint32_t i = env_slot(x, b);
  return x->keys[i] ? x->vals[i] : NULL;
}

/* An expression of the kernel IR (kir.h), which prints itself with no
 * redundant parentheses. */
typedef const KirExpr *CExpr;

/* Where an assignment goes: an l-value, a vstoren of a vector into scalar
 * memory, or the lanes of a vector written one by one. */
typedef enum TargetKind { TG_LVALUE, TG_VSTORE, TG_LANES } TargetKind;
typedef struct Target {
  TargetKind kind;
  CExpr lvalue; /* TG_LVALUE */
  int width;    /* TG_VSTORE, TG_LANES */
  CExpr offset; /* TG_VSTORE: in units of vectors */
  CExpr ptr;    /* TG_VSTORE */
  CExpr *lanes; /* TG_LANES: width l-values */
  /* the condition under which the write happens (takeAcc, dropAcc drop
   * the writes outside their array), NULL: always; TG_LANES: per lane */
  CExpr guard;
  CExpr *lane_guards;
  /* the same value written here too, under its own guard (mirrorAcc,
   * docs/language.md section 29.1: element (i, j) at (i, j) and (j, i));
   * NULL: one place */
  const struct Target *also;
} Target;
/* the guard of a write that never happens (an element a takeAcc or
 * dropAcc drops at a constant index): nothing is written */
extern const KirExpr target_never;
#define TARGET_NEVER (&target_never)

/* Where the one scalar access of a lane went (see above). */
typedef struct Probe {
  int count;        /* storage accesses made */
  bool ok;          /* the last one was a scalar array element or a vector lane */
  CExpr base;       /* the array: xs, p[i].fst */
  const Ix *flat;   /* index of the element in base */
  CExpr elem;       /* lane >= 0: the vector element, ys[i], acc */
  int lane;         /* -1: a scalar element; else the constant lane of a vector element */
  int width;        /* vector width of the element (lane >= 0) */
  Space space;
  bool read_only;
  /* Set by the caller: an element of a buffer may keep its index as
   * written, unsimplified (the lanes of a vector are first probed so, and
   * probed again only when ix_distance_before_simplify cannot tell them
   * consecutive: access.c, gen_vector_read).  Set by the access: flat is so
   * kept, and base does not depend on it. */
  bool defer_simplify, unsimplified;
  /* Set by lanes_by_one_probe: flat, lane 0's, is still as written, for
   * vector_address to simplify (or to find the offset without it) */
  bool simplify_flat;
} Probe;

/* Launch sizes known when generating (natural NDRange of the kernel or the
 * user's --local-size / --global-size): they decide which loops are elided. */
typedef struct Launch {
  bool local_known[3], global_known[3], groups_known[3];
  Size local[3], global[3], groups[3];
  /* the index of local[d] and groups[d] (ix_from_size), where a loop
   * that runs once made it of its own trip count, an equal size (opencl.c,
   * gen_parfor); NULL where none did: the launch's facts for the kernel IR
   * (lower.c, KirIdBounds) take it instead of asking again */
  const Ix *local_ix[3], *groups_ix[3];
} Launch;

/* A set of binders (roots of buffers), for the barrier analysis. */
typedef struct BinderSet {
  int n, cap;
  const Binder **items;
} BinderSet;

/* The variables a command reads that a scan of its reads looks up
 * (barriers.c, scan_reads): the command's occurrences of them, in the
 * order of a walk, are [start, end) of CG.read_occ, a subcommand's within
 * its command's; within the innermost command around it, a variable is
 * noted at its first occurrence only. */
typedef struct ReadVars {
  int start, end;
} ReadVars;
/* phrase -> its ReadVars, open addressing by the phrase's address */
typedef struct ReadVarsIndex {
  const Phrase **keys;
  ReadVars *vals;
  uint32_t used, cap;
} ReadVarsIndex;

/* a shared access made while a command site is open (CG.site_log) */
typedef struct SiteLogEntry {
  const KirBuffer *buffer;
  bool write;
} SiteLogEntry;

/* a command whose site is open and takes a set: its site, where its
 * accesses begin in CG.site_log, and which of its sets the site takes
 * (those its scans would have made: CG.reads_shared and writes_matter
 * when it began) */
typedef struct OpenSite {
  KirSite *site;
  int start;
  bool reads, writes;
} OpenSite;

/* CodegenOptions.compare_sites: an open site's command and its scans
 * (the reads both by a plain walk and from the walk of the body kept) */
typedef struct ScannedSite {
  const Phrase *p;
  BinderSet reads, writes, kept_reads;
} ScannedSite;

typedef struct CG {
  Arena *arena;
  TypeCtx *tc;
  Diag *diag;
  const ImpKernel *k;
  const Backend *backend; /* k's: what prints the kernel, whose names are reserved */
  IxCtx ix;
  Launch launch;
  KirBlock *block; /* where the statements being generated go */
  EnvEntry *env;
  /* the newest entry of env for a binder, and the newest storage entry
   * whose root is a binder: env only grows, so these are what a walk of
   * env finds first, in constant time (a kernel may hold thousands of
   * temporaries) */
  EnvIndex by_binder, by_root;
  /* C names visible at the current point (no shadowing: spec section 8) */
  int nnames, capnames;
  const char **names;
  NameSet visible; /* the same names, for constant-time look-up */
  /* pair types seen, in order of first use (struct typedefs) */
  Vec structs;
  bool uses_double;
  bool failed; /* an error was reported */
  /* > 0 while the lanes of a vector are probed at once with the lane a
   * variable (access.c, lanes_by_one_probe): an error there is not
   * reported but kept in trial_failed, nor are its accesses noted for the
   * barriers or its constant tables marked read, as the probe is only a
   * trial: where it succeeds, its one access is lane 0's, made for real
   * before it; where it fails, the lanes are made one by one */
  int trial;
  bool trial_failed;
  /* where the code being generated runs, for the single writers'
   * guards (single_writer.c) */
  int distributed;          /* > 0 inside a parforLocal or parforGlobal body, or a single writer's */
  struct {                  /* sequences writes_outputs_only refused: it refuses them in any part
                             * of them too, so gen_single_writer's look at each part of a chain
                             * stops there instead of walking the rest again (quadratic) */
    const Phrase **slots;
    uint32_t used, cap;
  } refused_seqs;
  /* bit d: the launch may hold more than one group, work-item of a
   * group, or work-item in dimension d (single_writer.c, launch_many),
   * found at the first command asked about, of launch, which never changes */
  struct {
    bool known;
    unsigned groups, local, global;
  } launch_many;
  int solo;                 /* > 0 inside a single writer's guard (gen_single_writer,
                             * gen_local_single_writer): one work-item of those that would
                             * run the code alike runs it */
  int group_depth;          /* > 0 inside a parforWorkgroup body */
  unsigned group_dims;      /* bit d: inside the body of a parforWorkgroup of dimension d */
  unsigned local_dims;      /* bit d: inside the body of a parforLocal of dimension d */
  const Ix *local_index[3]; /* the index of the innermost parforLocal of dimension d around,
                               when it runs at most once per work-item (else NULL) */
  unsigned global_dims;     /* bit d: inside the body of a parforGlobal of dimension d */
  unsigned group_id_guards;  /* bit d: inside a single writer's guard on group id d == 0 */
  bool replica_reported;     /* cg_note_group_access reported E0604 for this kernel */
  int64_t private_live;     /* bytes of the private arrays in scope (gen_new) */
  bool private_reported;    /* the private memory limit was reported for this kernel */
  bool unrolled_nest;       /* generating the steps of a loop whose steps are loops written out, which
                               the outer loop's comment announced */
  int nranges_stmt;         /* index ranges pushed for the current statement */
  Probe *probe;             /* when set, storage accesses are recorded here */
  Span where;               /* the command being generated, for messages */
  /* nat parameters that the preconditions make multiples of a constant
   * ("N % 16 == 0"): vloadn/vstoren offsets in vectors (access.c) */
  int nmultiples;
  const char **multiple_var;
  int64_t *multiple_of;
  /* a padded element read more than once in one assignment is read once
   * into a variable (opencl.c, gen_assign): the padCst reads of the
   * statement (PaddedRead), counted in a first rendering, and those bound
   * to a variable for the second */
  Vec padded_reads;
  bool count_padded_reads;
  Vec *padded_inside; /* the padded reads met while rendering one (NULL: none open) */
  /* before the kernel (consts.c): the foreign functions it calls
   * (DefInfo*) and the constant arrays of its array literals, in the
   * order the program first uses them */
  Vec foreigns, tables;
  ProgramNames *program; /* CodegenOptions.program */
  /* barrier sites (kir.h, KirSite): the buffer of each root binder
   * (Binder -> KirBuffer), and the shared accesses since the last site */
  MemoTable buffers;
  /* the buffers last found, direct-mapped by the binder's address: each
   * site asks for those of its reads and writes, a few binders again and
   * again (a lost entry is found in `buffers`) */
  struct {
    const Binder *binder;
    const KirBuffer *buffer;
  } recent_buffers[16];
  Vec accesses;
  /* each command's read variables, found in one walk of the kernel's
   * body (barriers.c: every site scans its command's subtree, and the
   * commands nest) */
  ReadVarsIndex read_vars;
  Vec read_occ;   /* const Binder * */
  int read_scope;      /* where in read_occ the walk's innermost command began */
  int read_scope_id, read_scopes; /* that command's scope, of the scopes begun */
  /* the pair the walk last went through as fst's or snd's argument
   * (barriers.c, note_reads), and the scope it was walked in */
  const Phrase *pair_walked;
  int pair_walked_scope;
  bool scan_each_site; /* CodegenOptions.scan_each_site */
  bool no_shortcuts;   /* CodegenOptions.no_shortcuts */
  /* Some variable a command may read is bound to memory a barrier is
   * about (global or local, not read-only), or to a storage of another
   * root: set by env_add (locals.c) and never cleared.  Until then every
   * scan of reads finds none (barriers.c, scan_reads), and none is made:
   * a kernel whose shared memory is its outputs alone (the acceptors of
   * its parameters, which no command reads) is most kernels (issue 35) */
  bool reads_shared;
  /* What a site writes can need a barrier (barrier_pass.c): some buffer
   * read may be pending when a command writes it (a read of shared
   * memory, reads_shared or an access read, or an accumulator a parfor
   * updates in place, pending after it), or a local buffer is bound,
   * which a command may write again.  Set when the first is made and
   * never cleared; until then a site's writes are not scanned (barriers.c,
   * cg_command_site), as no barrier or error can come of them: what a
   * command writes meets only reads pending when the pass gets to it, or
   * reads after it, and neither holds what it can write (the roots of
   * acceptors, which no variable read has) */
  bool writes_matter;
  /* CodegenOptions.unroll_directly; the steps gen_steps_by_copy made
   * (KirKernel.steps_copied) */
  bool unroll_directly;
  int steps_copied;
  /* CodegenOptions.probe_lanes: a vector of a plain buffer probed lane
   * by lane too (access_vector.c) */
  bool probe_lanes;
  int plain_vectors; /* KirKernel.plain_vectors */
  /* The last plain vector's flat index, its width, the ranges it was
   * made under (IxCtx.scope) and its offset's quotient (NULL: none), the
   * other read of a zip's element asks of the same (access_vector.c,
   * plain_vector_address) */
  struct {
    const Ix *flat;
    int k;
    uint64_t scope;
    const Ix *quotient;
  } last_plain_vector;
  /* CodegenOptions.runs_written_out; the runs gen_steps_by_copy made
   * (KirKernel.runs_made) */
  bool runs_written_out;
  int runs_made;
  /* The environment changes by env_add, which makes a new newest entry
   * (env), and by env_put_view and env_put_back, counted here: what a
   * walk of views found holds while neither changes */
  uint64_t view_changes;
  /* The element of a zip whose half a pair's read last took (access.c,
   * gen_pair_half): the pair phrase and the path after its field, the
   * zip's two arrays and the element's index, found with the environment
   * at env and view_changes, and no dependent row open (IxCtx.nrows) */
  struct {
    const Phrase *pair;
    const Step *after;
    const EnvEntry *env;
    uint64_t views;
    const Phrase *arrays[2];
    const Ix *at;
  } zip_element;
  /* CodegenOptions.walk_each_read; the halves read from zip_element
   * (KirKernel.halves_shared) */
  bool walk_each_read;
  int halves_shared;
  /* The shared accesses of the commands whose sites are open (barriers.c,
   * cg_command_site to cg_command_end), in the order made: a command's are
   * [start, site_log_len) of its OpenSite, a subcommand's within its
   * command's, each buffer and kind once in the innermost command's and,
   * once that has ended, in its command's */
  SiteLogEntry *site_log;
  int site_log_len, site_log_cap;
  OpenSite *open_sites;       /* those that take a set (all: compare_sites) */
  ScannedSite *scanned_sites; /* compare_sites: of each open site */
  int nopen_sites, open_sites_cap;
  int command_depth; /* the command sites open, every one */
  /* CodegenOptions.compare_sites; the sites compared and those whose
   * scans differed from the record (KirKernel.sites_compared, ...) */
  bool compare_sites;
  int sites_compared, sites_differing;
  const char *site_difference;
} CG;

/* Binds b to idx E i for the generation of one view map element and
 * returns what b stood for before, for env_put_back: the same function
 * may be applied again inside its own body (map f (map f xs)). */
EnvEntry *env_put_view(CG *cg, const Binder *b, const Phrase *array, const Ix *i);
/* opencl.c: an identifier's meaning, and a new storage */
void env_add(CG *cg, const Binder *b, EnvKind kind, Storage *st, const Ix *ix, const Phrase *acc);
Storage *new_storage(CG *cg, StoreKind kind, Space space, const char *name, DataType *type, const Binder *root);
/* locals.c: declares the kernel-scope local buffers of body into decls,
 * sharing one declaration among buffers whose lifetimes do not overlap */
void collect_locals(CG *cg, const Phrase *body, KirBlock *decls);
void env_put_back(CG *cg, const Binder *b, EnvEntry *old);

/* One element of a padCst view, which the statement reads.  Two reads are
 * the same element when their expressions are (kir_expr_equal): the
 * phrases differ (normalisation copies an argument into each use) and
 * what a variable of a view map stands for changes while the statement is
 * rendered, so only the generated expression says what is read. */
typedef struct PaddedRead {
  CExpr read;       /* i < l || i >= l + n ? v : E[i - l] */
  DataType *type;   /* a scalar or vector */
  int count;
  const char *name; /* bound to this variable, or NULL */
  /* the read of another padded element whose rendering holds this one
   * (a padCst of a padCst), or NULL */
  struct PaddedRead *container;
} PaddedRead;

/* ---- access.c: acceptors and expressions (Figure 6 b, c) ---- */
const Step *step_idx(CG *cg, const Ix *ix, const Step *next);
const Step *step_field(CG *cg, int field, const Step *next);
const Step *step_append(CG *cg, const Step *ps, Step s);
CExpr gen_exp(CG *cg, const Phrase *e, const Step *ps);
/* as gen_exp, but a vector-typed literal may print as its scalar (it is an
 * operand of an arithmetic operator, which broadcasts) */
CExpr gen_exp_operand(CG *cg, const Phrase *e, const Step *ps);
Target gen_acc(CG *cg, const Phrase *a, const Step *ps);
const Ix *gen_index(CG *cg, const Phrase *i);
/* an int literal, or a negated one (-3): its value */
bool cg_int_literal(CExpr v, int64_t *c);
/* min(a, b) or max(a, b) (f) of two ints: a or b itself where both are
 * indices and the simplifier decides it (ix_min_max: min(N, N) is N),
 * else the built-in */
CExpr cg_int_min_max(CG *cg, KirBuiltin f, CExpr a, CExpr b);
/* the binder of the buffer an acceptor writes (NULL: none found) */
const Binder *acc_root(CG *cg, const Phrase *a);
/* the storage of a phrase that denotes an identifier (var, param) or NULL */
Storage *phrase_storage(CG *cg, const Phrase *p);

/* A flat buffer of scalars of one dimension that p names (a variable or
 * its projection, read or written) and whose element at an index is an
 * access of that index alone, or NULL; the access made: noted, and the
 * buffer's variable (the base of its elements) */
const Storage *cg_plain_scalar_buffer(CG *cg, const Phrase *p, bool write);
CExpr cg_plain_element_base(CG *cg, const Storage *st, bool write);

/* ---- access_vector.c: whole vectors (asVector, asScalarAcc) ---- */
/* E read as a vector of k scalars E[first + l] */
CExpr gen_vector_read(CG *cg, const Phrase *e, const Ix *first, int k, DataType *scalar);
/* A written as a vector of k scalars A[first + l] */
Target gen_vector_write(CG *cg, const Phrase *a, const Ix *first, int k);

/* decomposition of an application spine  prim a1 ... an */
typedef PhraseSpine Spine;
/* p's spine (phrase.h) when its head is a primitive; else false, with
 * s->head NULL and no arguments */
bool spine_of(Arena *a, const Phrase *p, Spine *s);
/* the type of the k-th parameter of a function phrase type, and the final
 * result type after n arguments */
PhraseType *fn_param(PhraseType *t, int k);
PhraseType *fn_result(PhraseType *t, int n);

/* ---- consts.c: constant arrays and foreign functions (docs/language.md
 * sections 13, 14) ---- */
/* find them in the kernel's body and name them in its outermost scope;
 * false where the program has none and the body was not walked */
bool cg_collect_program_scope(CG *cg, const Phrase *body);
/* the constant array holding an array literal's value */
const char *cg_table_name(CG *cg, const Phrase *lit);
/* every element of the array literal the same value (read as that value, no
 * constant array) */
bool cg_literal_splat(const Phrase *lit);
void cg_use_foreign(CG *cg, const DefInfo *f);
/* their definitions before the kernel (KirTop*: foreign functions, then
 * the constant arrays it reads) */
void cg_program_scope(CG *cg, Vec *tops);
/* a scalar literal's value (access.c) */
KirLit cg_scalar_literal(CG *cg, ScalarKind s, const Phrase *lit);

/* ---- opencl.c: names, types, text ---- */
/* a C name is reserved: the target language's (Backend.names) or the
 * generator's own (pair_*: struct typedefs) */
bool cg_is_reserved(const Backend *b, const char *name);
/* The C name for a binder called base (spec section 8): base itself if it
 * is a valid C name neither reserved nor taken, else a readable variant
 * (primes as _p, _2 _3 suffixes, leading underscores dropped, v_ prefix;
 * see opencl.c).  taken(ctx, name): the name is in use where it goes. */
typedef bool (*CNameTaken)(const void *ctx, const char *name);
/* hints (may be NULL): where the suffixes of a name were tried before, for
 * callers that never give a name up (nameset_hint) */
const char *cg_c_name(Arena *a, const Backend *be, const char *base, CNameTaken taken, const void *ctx,
                      NameSet *hints);
const char *cg_name(CG *cg, const char *base); /* declare a fresh C name */
const char *cg_declare(CG *cg, const char *name); /* declare name, not visible here */
void cg_scope_enter(CG *cg, int *mark);
void cg_scope_leave(CG *cg, int mark);
/* the type of a scalar, vector or pair (struct typedef) data type */
const KirType *cg_type(CG *cg, DataType *t);
/* the same type, of a value of t declared already (cg_type noted it):
 * nothing noted, nothing reported again */
const KirType *cg_value_type(CG *cg, DataType *t);
/* the struct typedef of a pair type t, its fields fst and snd (lower.c) */
KirStruct cg_struct_of(CG *cg, DataType *t);
/* a scalar (width 1) or vector type (noting a use of double) */
const KirType *cg_scalar_type(CG *cg, ScalarKind s, int width);
/* element type of a flat buffer of t: t without its outer arrays */
DataType *cg_elem_type(DataType *t);
/* number of elements of a flat buffer of t (product of outer arrays) */
Size cg_elem_count(CG *cg, DataType *t);
void cg_error(CG *cg, DiagCode code, Span span, const char *fmt, ...) DPIA_PRINTF(4, 5);
CExpr cg_ix_expr(CG *cg, const Ix *ix);
void binder_set_add(CG *cg, BinderSet *s, const Binder *b);
bool binder_set_has(const BinderSet *s, const Binder *b);

/* A statement of the given kind, with a trailing comment (NULL: none),
 * appended to the current block. */
KirStmt *cg_add(CG *cg, KirStmtKind kind, const char *comment);
/* Statements go into the body of s (FOR, IF, BLOCK) until cg_leave;
 * returns the block to go back to. */
KirBlock *cg_enter(CG *cg, KirStmt *s);
void cg_leave(CG *cg, KirBlock *outer);
/* a comment line of its own, printf-style */
void cg_comment(CG *cg, const char *fmt, ...) DPIA_PRINTF(2, 3);

/* opencl.c: the code of command p */
void gen_comm(CG *cg, const Phrase *p);
/* an if statement with a trailing comment, appended to the current block */
KirStmt *add_if(CG *cg, const KirExpr *cond, const char *comment);

/* unroll_step.c: the steps of `for trips lam` written out (loop: its
 * primitive), step 0 lowered on its own and the others copied from one
 * lowering of the body with the step a variable, where that gives the
 * same statements; returns the steps generated, from 0 (the caller
 * lowers the rest on their own) */
int64_t gen_steps_by_copy(CG *cg, const Phrase *loop, const Phrase *lam, int64_t trips);

/* single_writer.c: p generated under a guard that lets one work-item of
 * those that would run it alike write what it writes (false: p does not
 * qualify, nothing generated) */
bool gen_single_writer(CG *cg, const Phrase *p);
/* the same for the body of a parforLocal that writes outputs only */
bool gen_local_single_writer(CG *cg, const Phrase *body);
/* cg_note_access of an access to root in a parforWorkgroup body: one to
 * a global temporary that other work-groups would make unordered with
 * this one's is refused (E0604) */
void cg_note_group_access(CG *cg, const Binder *root, const KirBuffer *buffer, bool write);

/* ---- barriers.c: what the barrier pass needs to know of the program
 * (barrier sites, kir.h; the pass: barrier_pass.c) ---- */

typedef struct Alias Alias;
struct Alias {
  const Binder *o;
  const Phrase *acc;
  const Alias *next;
};

bool shared_root(CG *cg, const Binder *b); /* a buffer in global or local memory */
/* st (the first part of a split pair) in global or local memory, and not read-only */
bool shared_storage(const Storage *st);
/* the buffers in global or local memory p writes (al: the o of the
 * parfors entered on the way, which are not in the environment yet) and
 * reads */
void scan_writes(CG *cg, const Phrase *p, const Alias *al, BinderSet *out);
void scan_reads(CG *cg, const Phrase *p, BinderSet *out);
/* the buffer of a root binder */
const KirBuffer *cg_buffer(CG *cg, const Binder *b);
/* a parallel loop's level, as a site records it */
KirLevel kir_level(PrimLevel level);
/* a shared access (access.c), recorded on the next site */
void cg_note_access(CG *cg, const Binder *root, bool write);
/* p, a part of an expression its lowering leaves out (the other half of
 * a zip's element, a side a test decides against): its reads are the
 * open command's as a scan of the command's phrase finds them */
void cg_reads_skipped(CG *cg, const Phrase *p);
/* a site of kind at the end of the current block, with the accesses since
 * the last one (span: the command's) */
KirSite *cg_site(CG *cg, KirSiteKind kind, Span span);
/* the site before command p (level: p's, a parallel loop's; what: its
 * primitive), open until cg_command_end: its reads and writes are the
 * shared accesses p's code makes in between */
KirSite *cg_command_site(CG *cg, const Phrase *p, KirLevel level);
/* cg_command_end of the innermost site kept open (barriers.c) */
void cg_close_site(CG *cg);
/* the end of the command whose site is the innermost open one, site */
static inline void cg_command_end(CG *cg, KirSite *site) {
  cg->command_depth--;
  if (cg->nopen_sites && cg->open_sites[cg->nopen_sites - 1].site == site) cg_close_site(cg);
}
/* the site of a copied step's command p (unroll_step.c), whose code is
 * the copy of the lowering whose site was model and which made accesses
 * (KirAccess *), which the next site gets: the site and its command's end */
void cg_copied_command(CG *cg, const Phrase *p, const Vec *accesses, const KirSite *model);
/* where the accesses of code about to be made begin in the open
 * command's record (-1: no command's site is open, none is kept) */
static inline int cg_accesses_mark(const CG *cg) { return cg->nopen_sites && !cg->trial ? cg->site_log_len : -1; }
/* the site ending a loop's body of index (NULL: none), or a parallel
 * loop's (kind KSITE_PARFOR_END); accesses: cg_accesses_mark before the
 * body's code */
void cg_body_end_site(CG *cg, KirSiteKind kind, const Phrase *body, const Binder *index, int accesses);

/* Set up cg for kernel k (environment of the parameters, launch sizes) and
 * lower the whole kernel; NULL after reporting to k->diag. */
KirKernel *cg_lower(Arena *a, TypeCtx *tc, const ImpKernel *k, const CodegenOptions *opt);
/* cg_lower, then the text of k's backend, and what `dpia run` needs
 * to know of it (facts may be NULL) */
bool cg_generate(Arena *a, TypeCtx *tc, const ImpKernel *k, const CodegenOptions *opt, Buf *out, KernelFacts *facts);

#endif
