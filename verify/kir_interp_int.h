/* kir_interp_int.h: what the two files of the kernel IR interpreter
 * share (kir_interp.h): kir_interp.c holds memory and its shadows, the
 * messages, the pass over names and statements before running, and the
 * expressions; kir_run.c the statements, the work-groups and their
 * barriers, and ki_run.  Not part of the layer's interface. */
#ifndef DPIA_KIR_INTERP_INT_H
#define DPIA_KIR_INTERP_INT_H

#include "kir_interp.h"

/* ---- maps: names, statements, calls ---- */

/* open addressing from a pointer-sized key to an int (keys never 0) */
typedef struct PMap {
  uintptr_t *keys;
  int *vals;
  uint32_t cap, count;
} PMap;

/* ---- memory ---- */

/* The shadow of one 4-byte word: who accessed it in the current barrier
 * interval of its space (epoch), and for global memory which groups
 * wrote and read it in the whole launch.  Work-items by their index in
 * the group, statements by their number (R.stmts); -1: none. */
typedef struct Shadow {
  uint32_t w_epoch, r_epoch;
  int32_t writer, reader, reader2;
  int32_t w_stmt, r_stmt, r2_stmt;
  int32_t gw_group, gw_item, gw_stmt;
  int32_t gr_group, gr_item, gr_stmt;
  int32_t gr2_group, gr2_item, gr2_stmt;
} Shadow;

/* A memory object: a buffer, a local array, a variable.  type is the type
 * of one element (a variable's type; array_len >= 0: an array of them). */
typedef struct Obj {
  unsigned char *bytes;
  int64_t size, cap;
  const KirType *type;
  int64_t array_len;
  int64_t elem_size;
  const char *name;
  KirSpace space;
  bool buffer;    /* a kernel parameter's buffer */
  bool read_only; /* an input buffer, a constant array */
  Shadow *shadow; /* local memory, global memory the kernel writes; else NULL */
} Obj;

/* a pointer value: the object, a byte offset in it, the type pointed to;
 * magic tells a pointer stored in a variable from poisoned bytes */
typedef struct Ptr {
  Obj *obj;
  int64_t off;
  const KirType *to;
  uint64_t magic;
} Ptr;
#define PTR_MAGIC 0x6b69725f70747221ull

enum { VK_NUM, VK_PTR, VK_REF, MAX_LANES = 16 };

/* A value: a number (scalar or vector: width lanes of kind sc; int and
 * bool lanes hold exact integers, NaN in an int lane is a poisoned
 * value), a pointer, or a struct in memory (VK_REF: copied by value when
 * stored). */
typedef struct Val {
  int vk;
  ScalarKind sc;
  int width;
  Ptr p;
  double l[MAX_LANES];
} Val;

/* an l-value: type at obj + off (array_len >= 0: an array of them) */
typedef struct Loc {
  Obj *obj;
  int64_t off;
  const KirType *type;
  int64_t array_len;
} Loc;

typedef struct Frame {
  const KirStmt *next;
  const KirStmt *owner; /* the FOR whose body this is, else NULL */
} Frame;

typedef struct WI {
  int index; /* in the group */
  int64_t lid[3];
  Frame *frames;
  int nframes;
  Obj **vars;        /* per name slot: the object bound to it */
  Obj *own;          /* per name slot: this work-item's private storage */
  const KirStmt *at; /* the barrier it waits at; NULL when ended */
  bool done;
} WI;

typedef struct StructLayout {
  const char *name;
  int64_t size, align;
  int64_t off[2];
} StructLayout;

typedef struct R {
  Arena *a;
  const KirKernel *k;
  const KiArg *args;
  KiLaunch launch;
  const KiLimits *lim;
  const Backend *backend; /* prints the kernel for messages (KiRun.backend) */
  bool want_lines;
  int nlines; /* the statements' lines in the printed kernel, once a message needs them */
  const KirStmt *const *line_stmts;
  const int *lines;
  const char *text; /* the printed kernel (NULL: not printed yet) */
  Buf *msg;
  KiStatus status; /* KI_OK while running */
  int64_t steps, bytes;
  /* names */
  int nslots;
  const char **slot_name;
  PMap name_ptr; /* a name's pointer -> slot */
  Vec names;     /* slot -> name (while collecting) */
  /* statements by number, for messages */
  PMap stmt_id;
  Vec stmts;
  int depth; /* deepest nesting of blocks */
  /* struct typedefs */
  int nstructs;
  StructLayout *structs;
  const KirType *scalar[4]; /* by ScalarKind, width 1 */
  /* objects bound before the body runs: parameters and constant arrays
   * (base), plus the group's local memory (group) */
  Obj **base;
  Obj **group_vars;
  Obj **locals; /* per kernel-scope local declaration or local parameter */
  int nlocals;
  PMap local_slot; /* slot -> index in locals */
  /* the group being run */
  int64_t group[3], ngroups[3], group_index;
  int64_t group_size;
  uint32_t local_epoch, global_epoch;
  const KirStmt *stmt;     /* the statement being run */
  const KirStmt *numbered; /* the statement whose number is stmt_no */
  int stmt_no;
  WI *w; /* the work-item running */
} R;

/* ---- kir_interp.c ---- */

int ki_pmap_get(const PMap *m, uintptr_t key); /* -1: absent */
void ki_pmap_put(Arena *a, PMap *m, uintptr_t key, int val);
/* the first failure of the run: its status and message */
void ki_fail(R *r, KiStatus st, const char *fmt, ...) DPIA_PRINTF(3, 4);
void ki_print_ids(Buf *b, int n, const int64_t *v);
void ki_print_item(R *r, Buf *b, int64_t group_index, int item);
void ki_print_stmt_at(R *r, Buf *b, int id);
int ki_stmt_number(R *r, const KirStmt *s);
int ki_scalar_bytes(ScalarKind s);
/* an access of n bytes at o + off: in bounds, and recorded */
bool ki_access_ok(R *r, Obj *o, int64_t off, int64_t n, bool write);
double ki_wrap32(double v);
void ki_write_scalar(unsigned char *p, ScalarKind s, double v);
int64_t ki_size_of(R *r, const KirType *t);
void ki_lay_structs(R *r);
void ki_declare_name(R *r, const char *name);
void ki_scan_expr(R *r, const KirExpr *e);
/* declare: number the statements and declare their names; else resolve
 * the names the expressions use */
void ki_scan_block(R *r, const KirBlock *b, int depth, bool declare);
Obj *ki_new_obj(R *r, const char *name, KirSpace space, const KirType *type, int64_t array_len, int64_t size,
                bool shadow);
Obj *ki_value_obj(R *r, const char *name, const KirType *t);
void ki_store_ptr(Obj *o, Ptr p);
void ki_eval(R *r, const KirExpr *e, Val *v);
int64_t ki_eval_int(R *r, const KirExpr *e, bool *ok);
bool ki_eval_loc(R *r, const KirExpr *e, Loc *l);
int ki_slot(R *r, const char *name);
void ki_convert(Val *v, ScalarKind sc);
void ki_store(R *r, const Loc *l, const Val *v);
bool ki_widen(R *r, Val *v, int width);
bool ki_truth(R *r, const Val *v);

#endif
