/* target.h: what a target provides to verification and running, the
 * counterpart of codegen's Backend (backend.h) one layer up: QBE's Target
 * split where dpia's layers split.  Backend prints (codegen must not see
 * devices or libclang); Target holds the rest and names its Backend by
 * its row of DPIA_TARGETS (backend_of(id)), so one Target value names
 * everything target-specific about a kernel:
 *
 *   - the re-parse of the generated text as the target language (spec
 *     section 1, step 6): a verifier made once and reused, and the
 *     preamble a foreign function's body is parsed with;
 *   - the device: open one by index, list them, its limits (run_limits.h);
 *   - running: build a program from source, take a kernel of it, make
 *     buffers (filled from the host), bind arguments (a buffer, a value, a
 *     local scratch of some bytes), launch on an NDRange and time it,
 *     read a buffer back, copy one into another, release each object.
 *
 * What is not here stays target-independent: the host and device layouts
 * of data (layout.h: both OpenCL C and CUDA lay out the generated structs
 * as C does), the plan of a run from an ImpKernel (runtime.c: which
 * buffers, their sizes, the NDRange, the inputs), the order of a
 * pipeline's launches (pipe_run.c), the size checks (run_limits.c), the
 * reference interpreters and the comparison.  A CUDA instance would fill
 * the same table: nvrtc or libclang with -x cuda for the re-parse,
 * cuModuleLoadData and cuModuleGetFunction for build and kernel,
 * cuMemAlloc and cuMemcpy for buffers, cuLaunchKernel between two events.
 *
 * Every operation that can fail returns an RtStatus and appends one
 * message to err saying what the target reported, in its own terms
 * ("OpenCL error CL_INVALID_VALUE (-30) in clCreateBuffer"); the caller
 * says which buffer or argument it was.  The objects are opaque: each
 * instance defines the structs (target_opencl.c), allocated in the arena
 * given to the operation that makes them.  A target keeps no
 * state of its own: everything lives in the objects it returns, so the
 * layer stays reentrant (one device per thread).
 *
 * The one instance is target_opencl; target_of is where the driver's
 * choice of target (a TargetId) picks one. */
#ifndef DPIA_TARGET_H
#define DPIA_TARGET_H

#include "dpia_codegen.h"
#include "placement.h"

typedef enum RtStatus {
  RT_OK = 0,
  RT_UNAVAILABLE,   /* no platform or device, or no context or queue */
  RT_BUILD_FAILED,  /* the source did not build (err holds the build log) */
  RT_BAD_ARGS,      /* sizes, inputs or launch sizes do not fit the kernel */
  RT_LAUNCH_FAILED, /* a call of the target failed making buffers, running or reading back */
  RT_DEVICE_LIMIT,  /* the kernel needs more local memory or a larger work-group than the device has */
  RT_EMPTY_RANGE,   /* a launch has no work-item at these sizes but an output that is not empty (E0413) */
} RtStatus;

/* the instance's objects (each instance defines them) */
typedef struct TargetDevice TargetDevice;
typedef struct TargetProgram TargetProgram;
typedef struct TargetKernel TargetKernel;
typedef struct TargetBuffer TargetBuffer;
typedef struct TargetVerifier TargetVerifier;
typedef struct TargetPreload TargetPreload;

/* An open device: what the report says and what the size checks need. */
typedef struct TargetDeviceInfo {
  const char *platform_name, *device_name; /* in the arena given to open */
  /* the driver's version (OpenCL's CL_DRIVER_VERSION), which keys the
   * tuning cache with the name (docs/tune.md); NULL: the target has none */
  const char *driver_version;
  bool has_fp64;
  size_t max_work_group_size; /* the local size a kernel without one may get */
  /* the largest local size in each dimension; 0 when the device does not say */
  size_t max_work_item_sizes[3];
  const char *max_work_group_size_name, *max_work_item_sizes_name;
  /* bytes; 0 when the device does not say.  The names are the target's
   * own for each limit, for the messages of run_limits.c. */
  uint64_t max_alloc, global_mem, local_mem;
  const char *max_alloc_name, *global_mem_name, *local_mem_name;
} TargetDeviceInfo;

/* What a built kernel, its arguments set, needs of its device, as the
 * target reports it (0: the target does not say), with the target's names
 * for each figure, for the messages of run_limits.c. */
typedef struct TargetKernelInfo {
  size_t work_group_size; /* the largest work-group the device runs this kernel in */
  uint64_t local_mem;     /* bytes of local memory a work-group needs, its local arguments included */
  uint64_t private_mem;   /* bytes of private memory a work-item needs */
  const char *work_group_size_name, *local_mem_name, *private_mem_name;
} TargetKernelInfo;

/* An NDRange: global (and, if has_local, local) work items per dimension. */
typedef struct TargetRange {
  int ndims;
  size_t global_size[3], local_size[3];
  bool has_local; /* false: the target chooses the local size */
} TargetRange;

typedef struct Target {
  TargetId id;            /* its row of DPIA_TARGETS (backend.h): backend_of(id) prints its kernels */
  const char *name;       /* what target_named takes: "opencl" */
  const char *title;      /* what a runtime error is prefixed with: "OpenCL" */
  const char *source_ext; /* the file suffix of its sources, ".cl" in reports */
  /* for messages: the language generated ("OpenCL C"), the standard the
   * re-parse holds it to ("OpenCL C 1.2"), what parses it ("libclang") */
  const char *language, *language_std, *parser;

  /* ---- the re-parse (clang_check.h for OpenCL) ---- */
  /* a verifier parsing in this process, or NULL if none can be made */
  TargetVerifier *(*verifier_new)(void);
  /* one parsing in a helper process (path: the helper program; NULL: the
   * default place), or NULL: then use verifier_new */
  TargetVerifier *(*verifier_new_helper)(const char *path);
  void (*verifier_free)(TargetVerifier *v);
  /* verifier_free for a process about to exit (need not wait for a helper) */
  void (*verifier_free_at_exit)(TargetVerifier *v);
  /* source[0, len) parses without a warning or error; every diagnostic
   * appended to report (as NAME:LINE:COL: ...) */
  bool (*verify)(TargetVerifier *v, const char *name, const char *source, size_t len, Buf *report);
  /* loading the parser early, on a thread, to overlap a translation */
  TargetPreload *(*preload_start)(void);
  void (*preload_finish)(TargetPreload *p);
  /* what precedes a foreign function's body (foreign.h) when it is parsed
   * alone: the pragmas the generated program has for it */
  void (*foreign_preamble)(Buf *out, bool uses_double);

  /* ---- devices ---- */
  /* one line per platform and device ("Platform #0: NAME" / " `-- Device
   * #0: NAME", like clinfo -l) */
  RtStatus (*list_devices)(Arena *a, Buf *out, Buf *err);
  /* the device at these indices (from 0, in the target's order); on
   * failure *dev is NULL and nothing is left to close */
  RtStatus (*open)(Arena *a, int platform_index, int device_index, TargetDevice **dev, TargetDeviceInfo *info,
                   Buf *err);
  void (*close)(TargetDevice *dev);

  /* ---- programs and kernels ---- */
  /* source built for dev with options (NULL: none); what names it in
   * messages ("kernel k", "pipeline p"); a build failure is
   * RT_BUILD_FAILED with the build log in err.  On failure *prog may be
   * set: release it. */
  RtStatus (*build)(TargetDevice *dev, Arena *a, const char *what, const char *source, const char *options,
                    TargetProgram **prog, Buf *err);
  /* the kernel called name in prog and how many arguments it takes; a
   * missing kernel is RT_BUILD_FAILED.  On failure *k may be set. */
  RtStatus (*kernel)(TargetProgram *prog, Arena *a, const char *name, TargetKernel **k, int *nargs, Buf *err);

  /* ---- buffers and arguments ---- */
  /* bytes (at least 1) on dev, filled with init[0, bytes); place.use
   * says whether the kernels only read it (place_read_only) and, where
   * buffers are host memory, place where it starts in its page
   * (placement.h) */
  RtStatus (*buffer)(TargetDevice *dev, Arena *a, size_t bytes, const void *init, BufferPlace place,
                     TargetBuffer **b, Buf *err);
  /* b's first bytes into dst, once every launch before has finished */
  RtStatus (*read)(TargetDevice *dev, TargetBuffer *b, void *dst, size_t bytes, Buf *err);
  /* from's first bytes (at least 1) into to's, on the device, after every
   * launch before and finished before it returns: the input an in-place
   * kernel updates restored between timed launches (runtime.c), outside
   * their times and without a transfer from the host */
  RtStatus (*copy)(TargetDevice *dev, TargetBuffer *from, TargetBuffer *to, size_t bytes, Buf *err);
  /* argument index of k: a buffer, a value of bytes bytes, or local
   * (work-group) memory of bytes bytes */
  RtStatus (*arg_buffer)(TargetKernel *k, int index, TargetBuffer *b, Buf *err);
  RtStatus (*arg_value)(TargetKernel *k, int index, const void *value, size_t bytes, Buf *err);
  RtStatus (*arg_local)(TargetKernel *k, int index, size_t bytes, Buf *err);
  /* what k needs of dev, once its arguments are set */
  RtStatus (*kernel_info)(TargetDevice *dev, TargetKernel *k, TargetKernelInfo *info, Buf *err);

  /* ---- launching ---- */
  /* k once on r, waited for; *ms is its time on the device */
  RtStatus (*launch)(TargetDevice *dev, TargetKernel *k, const TargetRange *r, double *ms, Buf *err);
  /* ks[0..n) in order (ks[i] on r[i]), each seeing the writes of the ones
   * before, waited for; *ms from the first one's start to the last one's
   * end, the gaps between them included.  err says which kernel failed. */
  RtStatus (*launch_all)(TargetDevice *dev, int n, TargetKernel *const *ks, const TargetRange *r, double *ms, Buf *err);

  /* ---- releasing (NULL objects are skipped) ---- */
  RtStatus (*release_buffer)(TargetBuffer *b, Buf *err);
  RtStatus (*release_kernel)(TargetKernel *k, Buf *err);
  RtStatus (*release_program)(TargetProgram *p, Buf *err);
} Target;

/* Every operation of a Target, with the name of the static function a
 * target's file (verify/target_NAME.c) defines for it; TARGET_OPERATIONS
 * fills them into its Target, so that none is left NULL (a missing
 * function is a compile error) and no target lists them again. */
#define DPIA_TARGET_OPERATIONS(X)                                                                                      \
  X(verifier_new, verifier_new)                                                                                        \
  X(verifier_new_helper, verifier_new_helper)                                                                          \
  X(verifier_free, verifier_free)                                                                                      \
  X(verifier_free_at_exit, verifier_free_at_exit)                                                                      \
  X(verify, verify)                                                                                                    \
  X(preload_start, preload_start)                                                                                      \
  X(preload_finish, preload_finish)                                                                                    \
  X(foreign_preamble, foreign_preamble)                                                                                \
  X(list_devices, list_devices)                                                                                        \
  X(open, open_device)                                                                                                 \
  X(close, close_device)                                                                                               \
  X(build, build)                                                                                                      \
  X(kernel, kernel)                                                                                                    \
  X(buffer, buffer)                                                                                                    \
  X(read, read_buffer)                                                                                                 \
  X(copy, copy_buffer)                                                                                                 \
  X(arg_buffer, arg_buffer)                                                                                            \
  X(arg_value, arg_value)                                                                                              \
  X(arg_local, arg_local)                                                                                              \
  X(kernel_info, kernel_info)                                                                                          \
  X(launch, launch)                                                                                                    \
  X(launch_all, launch_all)                                                                                            \
  X(release_buffer, release_buffer)                                                                                    \
  X(release_kernel, release_kernel)                                                                                    \
  X(release_program, release_program)
#define TARGET_OPERATION_INIT(op, fn) .op = fn,
#define TARGET_OPERATIONS DPIA_TARGET_OPERATIONS(TARGET_OPERATION_INIT)

/* the instances, target_NAME for each row of DPIA_TARGETS */
#define X(id, name) extern const Target target_##name;
DPIA_TARGETS(X)
#undef X

/* the target of a row of DPIA_TARGETS; the one called name (NULL if none) */
const Target *target_of(TargetId id);
const Target *target_named(const char *name);
/* the target dpia translates for, verifies with and runs on */
const Target *target_default(void);

#endif
