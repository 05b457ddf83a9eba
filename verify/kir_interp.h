/* kir_interp.h: an interpreter of the kernel IR (codegen/kir.h), the code
 * dpia emits, for one NDRange launch, with a data-race detector: the
 * race check of `dpia verify` (race.h), which needs no device.
 *
 * Execution model (OpenCL C 1.2, section 3.4.3: work-items of a group are
 * ordered only by barriers, work-groups not at all).  Work-groups run one
 * after the other; inside a group each work-item runs until it reaches a
 * barrier or the end, then the next one: one of the interleavings the model
 * allows between barriers.  Barriers may sit inside loops and ifs, so a
 * work-item's statements are resumable: an explicit stack of frames (the
 * block, the next statement, the loop it belongs to); expressions never
 * contain a barrier and are evaluated recursively.  When every work-item
 * of the group has stopped, all must wait at the same barrier statement
 * (then all resume) or all have ended; anything else is barrier divergence.
 *
 * Race detection.  Each 4-byte word of local memory and of global memory
 * that the kernel may write (outputs, temporaries) has a shadow: the
 * work-item that last wrote it and up to two that read it, in the current
 * barrier interval of its memory space (a barrier fencing local memory
 * closes the local interval only, one fencing global memory the global
 * one: CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE).  Two accesses of
 * different work-items in one interval, one of them a write (two writes
 * of the same value included), are a race.  Global memory also records
 * which groups wrote and read each word over the whole launch: no barrier
 * orders two groups, so a word one group writes and another reads or
 * writes is a race too.  Every access outside its object (a buffer, a
 * local or private array, a variable read through a pointer) is reported
 * as out of bounds.
 *
 * Values: ints (exact integer arithmetic, wrapped to 32 bits as the device
 * does), floats and doubles (computed in double; memory holds float lanes
 * as floats), bools, vectors of up to 16 lanes, structs (the pair
 * typedefs, copied as bytes), pointers (an object, a byte offset, the type
 * pointed to).  Memory is bytes in the device layout of layout.h (a
 * 3-vector takes 4 lanes, a bool 4 bytes, structs with C alignment), so
 * buffers are packed and unpacked by layout.h.  The types of expressions
 * are inferred as C infers them (kir.h expressions carry none): from
 * declarations, literals, operators and casts.
 *
 * A kernel that calls a foreign function (the program's own OpenCL C) is
 * not interpreted: KI_NOT_CHECKED.  Work is bounded (KiLimits): a launch
 * over the limits is not run, KI_NOT_CHECKED with a message. */
#ifndef DPIA_KIR_INTERP_H
#define DPIA_KIR_INTERP_H

#include "dpia_codegen.h"

/* One NDRange: dimensions 0 .. ndims-1; every global size a multiple of
 * its local size. */
typedef struct KiLaunch {
  int ndims;
  int64_t global[3], local[3];
} KiLaunch;

/* The value of one kernel parameter (KirKernel.params, same order):
 * buffers (input, output, temporary; an input updated in place, which is
 * its kernel's output too) are bytes in the device layout, read and
 * written in place; a scalar is its value's bytes; a local buffer
 * given as an argument only its size in bytes; a nat its value. */
typedef struct KiArg {
  unsigned char *bytes;
  int64_t size;
  int64_t nat;
} KiArg;

typedef struct KiLimits {
  int64_t max_steps;      /* statements and expression nodes evaluated */
  int64_t max_work_items; /* of the whole launch */
  int64_t max_group;      /* work-items of one group */
  int64_t max_bytes;      /* of all memory objects and their shadows */
} KiLimits;

typedef enum KiStatus {
  KI_OK,          /* ran to the end: no race, no access out of bounds */
  KI_RACE,        /* a data race (message) */
  KI_BOUNDS,      /* an access outside its object (message) */
  KI_DIVERGENCE,  /* work-items of a group at different barriers (message) */
  KI_NOT_CHECKED, /* a foreign function, or over the limits (message says which) */
  KI_ERROR,       /* something the interpreter cannot run (message): a bug of ours */
} KiStatus;

typedef struct KiRun {
  const KiLimits *limits;
  /* messages quote a statement as this backend prints the kernel
   * (backend.h statement_lines), the kernel's target's */
  const Backend *backend;
  /* and give its line in that text */
  bool lines;
  int64_t steps; /* out: work done */
} KiRun;

/* Run kernel k over launch with args (k->nparams of them).  On KI_OK the
 * output and temporary buffers hold what the kernel wrote.  msg gets one
 * line (no newline) for every status but KI_OK: for a finding it names
 * the memory object, the element, the two work-items (global, local and
 * group ids) and the two accesses with their statements. */
KiStatus ki_run(Arena *a, const KirKernel *k, const KiLaunch *launch, const KiArg *args, KiRun *run, Buf *msg);

/* The size of a value of type t in memory (device layout), for callers
 * that lay out arguments; structs are looked up in k's typedefs. */
int64_t ki_type_size(const KirKernel *k, const KirType *t);

#endif
