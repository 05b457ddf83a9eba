/* target_c.c: the C instance of Target (target.h), for `--target=c`
 * (C11 with OpenMP, codegen/backend_c_omp.c).
 *
 * The re-parse is the host's C compiler ($CC, else cc): each generated
 * program is compiled with `-std=c11 -fopenmp -fsyntax-only -Wall
 * -Werror` (the dialect the text is written in, OpenMP's pragmas read,
 * every warning an error: an unused variable is a defect of the printer).
 *
 * The device is the host's CPU.  A program is built with `-std=c11 -O3
 * -march=native -fopenmp -fPIC -shared` into a shared object in a fresh
 * temporary directory, loaded with dlopen and then removed; a kernel is
 * its entry dpia_args_NAME (which takes the arguments by address) and its
 * number of arguments dpia_nargs_NAME.  A buffer is host memory placed in
 * its page as OpenCL's on a CPU device (placement.h; every offset a multiple
 * of 128 bytes, so that any vector type's loads are aligned); a launch
 * calls the entry with the numbers of groups and the local size and is
 * timed by the monotonic clock.  ISO C mode (-std=c11) keeps GCC from
 * contracting a * b + c (-ffp-contract=off), as the reference does. */
#define _GNU_SOURCE /* strdup */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_cc.h"
#include "target.h"

/* the largest work-group a kernel runs in: its work-items' private
 * variables kept across a barrier are arrays of this many on the stack of
 * an OpenMP thread */
enum { C_MAX_GROUP = 4096 };
/* the local memory of a work-group: arrays on an OpenMP thread's stack
 * (libgomp's threads have the process's default stack size, 2 MiB or
 * more) */
enum { C_LOCAL_MEM = 1 << 20 };

typedef void (*Entry)(void *const *args, const size_t groups[3], const size_t local[3]);

struct TargetDevice {
  int unused;
};

struct TargetProgram {
  void *handle;
};

struct TargetKernel {
  Entry entry;
  int nargs;
  void **args; /* each the address of its argument's value */
  const char *name;
};

struct TargetBuffer {
  void *data;
  size_t bytes;
  void *block; /* what place_free takes */
};

/* a HostVerifier: the compiler's path; none without a compiler, and
 * verification then fails with E0002 */
static TargetVerifier *verifier_new(void) { return (TargetVerifier *)host_verifier_new(host_find_program(host_cc())); }

/* the compiler is a process of its own already: no helper */
static TargetVerifier *verifier_new_helper(const char *path) {
  (void)path;
  return verifier_new();
}

static void verifier_free(TargetVerifier *tv) { host_verifier_free((HostVerifier *)tv); }

static void verifier_free_at_exit(TargetVerifier *tv) { verifier_free(tv); }

/* source compiled by the compiler with flags (NULL-terminated) and -o out
 * (NULL: none); false with its messages in report */
static bool compile(Arena *a, const char *cc, const char *name, const char *source, size_t len,
                    const char *const *flags, const char *dir, const char *out, Buf *report) {
  const char *src = arena_printf(a, "%s/kernel.c", dir), *log = arena_printf(a, "%s/log", dir);
  if (!host_write_file(src, source, len)) {
    emit(report, "%s: cannot write %s: %s\n", name, src, strerror(errno));
    return false;
  }
  const char *argv[24];
  int n = 0;
  argv[n++] = cc;
  for (int i = 0; flags[i]; i++) argv[n++] = flags[i];
  if (out) {
    argv[n++] = "-o";
    argv[n++] = out;
  }
  argv[n++] = src;
  if (out) argv[n++] = "-lm";
  argv[n] = NULL;
  int rc = host_compile((char *const *)argv, log, src, name, cc, report);
  if (rc > 0) emit(report, "%s: no C compiler (%s: %s; set CC)\n", name, cc, strerror(rc));
  bool ok = rc == 0;
  unlink(src);
  unlink(log);
  return ok;
}

/* Why each flag: -std=c11, the dialect the header promises (GNU's vector
 * extensions and attributes are accepted in it); -fopenmp, the pragmas
 * are OpenMP's (without it -Wall warns of an unknown pragma); -Wall
 * -Werror, generated code is warning-free; -Wno-psabi, GCC's note that a
 * vector wider than the target's registers is passed differently by
 * another -march, which the preamble's static helpers never are;
 * -Wno-unused-but-set-variable, a local buffer the kernel writes and
 * never reads back (a stage whose result a later one drops) is the
 * OpenCL kernel's too, where no compiler warns of it. */
static bool verify(TargetVerifier *tv, const char *name, const char *source, size_t len, Buf *report) {
  HostVerifier *v = (HostVerifier *)tv;
  Arena *a = report->arena;
  char *dir = host_temp_dir(a, "c");
  if (!dir) {
    emit(report, "%s: cannot make a temporary directory: %s\n", name, strerror(errno));
    return false;
  }
  static const char *const flags[] = {"-std=c11", "-fopenmp", "-fsyntax-only", "-Wall", "-Werror", "-Wno-psabi",
                                      "-Wno-unused-but-set-variable", NULL};
  bool ok = compile(a, v->path, name, source, len, flags, dir, NULL, report);
  rmdir(dir);
  return ok;
}

static TargetPreload *preload_start(void) { return NULL; }
static void preload_finish(TargetPreload *p) { (void)p; }

/* a foreign function's definition, parsed alone, as the kernel's file
 * defines it (backend_c_omp.c) */
static void foreign_preamble(Buf *out, bool uses_double) {
  (void)uses_double;
  buf_puts(out, "#include <math.h>\n#include <stdbool.h>\nstatic inline ");
}

/* ---- the device: this process's CPU ---- */

static const char device_name[] = "host CPU";

static RtStatus list_devices(Arena *a, Buf *out, Buf *err) {
  (void)a, (void)err;
  emit(out, "Platform #0: C with OpenMP\n `-- Device #0: %s, %ld processors\n", device_name,
       sysconf(_SC_NPROCESSORS_ONLN));
  return RT_OK;
}

static RtStatus open_device(Arena *a, int platform_index, int device_index, TargetDevice **dev,
                            TargetDeviceInfo *info, Buf *err) {
  *dev = NULL;
  memset(info, 0, sizeof *info);
  if (platform_index != 0 || device_index != 0) {
    emit(err, "no C device #%d of platform #%d: the C target has one, the host CPU (0, 0)", device_index,
         platform_index);
    return RT_UNAVAILABLE;
  }
  *dev = NEW(a, TargetDevice);
  info->platform_name = "C with OpenMP";
  info->device_name = device_name;
  info->has_fp64 = true;
  info->max_work_group_size = C_MAX_GROUP;
  for (int d = 0; d < 3; d++) info->max_work_item_sizes[d] = C_MAX_GROUP;
  info->max_work_group_size_name = "the C target's largest work-group";
  info->max_work_item_sizes_name = "the C target's largest work-group";
  info->local_mem = C_LOCAL_MEM;
  info->local_mem_name = "the C target's local memory a work-group (on a thread's stack)";
  return RT_OK;
}

static void close_device(TargetDevice *dev) { (void)dev; }

static RtStatus build(TargetDevice *dev, Arena *a, const char *what, const char *source, const char *options,
                      TargetProgram **prog, Buf *err) {
  (void)dev, (void)options; /* OpenCL's build options mean nothing to C */
  *prog = NULL;
  char *dir = host_temp_dir(a, "c");
  if (!dir) {
    emit(err, "%s: cannot make a temporary directory: %s", what, strerror(errno));
    return RT_BUILD_FAILED;
  }
  const char *so = arena_printf(a, "%s/kernel.so", dir);
  static const char *const flags[] = {"-std=c11", "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-Wno-psabi", NULL};
  bool ok = compile(a, host_cc(), what, source, strlen(source), flags, dir, so, err);
  void *handle = ok ? dlopen(so, RTLD_NOW | RTLD_LOCAL) : NULL;
  if (ok && !handle) emit(err, "%s: cannot load %s: %s", what, so, dlerror());
  /* The OpenMP runtime the object loaded keeps its threads after the
   * object is closed: it must stay loaded (GCC's libgomp, Clang's libomp;
   * RTLD_NOLOAD: only the one that is loaded) */
  static const char *const omp_runtimes[] = {"libgomp.so.1", "libomp.so", "libomp.so.5"};
  for (size_t i = 0; handle && i < sizeof omp_runtimes / sizeof *omp_runtimes; i++)
    (void)dlopen(omp_runtimes[i], RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  unlink(so); /* a loaded object stays mapped without its file */
  rmdir(dir);
  if (!handle) return RT_BUILD_FAILED;
  *prog = NEW(a, TargetProgram);
  (*prog)->handle = handle;
  return RT_OK;
}

static RtStatus kernel(TargetProgram *prog, Arena *a, const char *name, TargetKernel **k, int *nargs, Buf *err) {
  *k = NULL;
  Entry entry;
  *(void **)&entry = dlsym(prog->handle, arena_printf(a, "dpia_args_%s", name));
  const int *n = dlsym(prog->handle, arena_printf(a, "dpia_nargs_%s", name));
  if (!entry || !n) {
    emit(err, "the program has no kernel %s (no dpia_args_%s)", name, name);
    return RT_BUILD_FAILED;
  }
  *k = NEW(a, TargetKernel);
  (*k)->entry = entry;
  (*k)->nargs = *nargs = *n;
  (*k)->args = NEWARRAY(a, void *, *n > 0 ? *n : 1);
  (*k)->name = name;
  memset((*k)->args, 0, sizeof(void *) * (size_t)(*n > 0 ? *n : 1));
  return RT_OK;
}

/* host memory placed in its page (placement.h) */
static RtStatus buffer(TargetDevice *dev, Arena *a, size_t bytes, const void *init, BufferPlace place,
                       TargetBuffer **b, Buf *err) {
  (void)dev;
  *b = NULL;
  void *block = NULL, *data = place_alloc(bytes, place, init, &block);
  if (!data) {
    emit(err, "cannot allocate %zu bytes of host memory", bytes);
    return RT_LAUNCH_FAILED;
  }
  *b = NEW(a, TargetBuffer);
  (*b)->data = data;
  (*b)->bytes = bytes;
  (*b)->block = block;
  return RT_OK;
}

static RtStatus read_buffer(TargetDevice *dev, TargetBuffer *b, void *dst, size_t bytes, Buf *err) {
  (void)dev;
  if (bytes > b->bytes) {
    emit(err, "reading %zu bytes of a buffer of %zu", bytes, b->bytes);
    return RT_LAUNCH_FAILED;
  }
  memcpy(dst, b->data, bytes);
  return RT_OK;
}

/* the kernels have returned when a launch does: a copy in memory */
static RtStatus copy_buffer(TargetDevice *dev, TargetBuffer *from, TargetBuffer *to, size_t bytes, Buf *err) {
  (void)dev;
  if (bytes > from->bytes || bytes > to->bytes) {
    emit(err, "copying %zu bytes between buffers of %zu and %zu", bytes, from->bytes, to->bytes);
    return RT_LAUNCH_FAILED;
  }
  memcpy(to->data, from->data, bytes);
  return RT_OK;
}

static RtStatus bad_index(TargetKernel *k, int index, Buf *err) {
  emit(err, "kernel %s has no argument %d (it takes %d)", k->name, index, k->nargs);
  return RT_BAD_ARGS;
}

/* the argument's value, kept where args[index] points */
static void *arg_slot(TargetKernel *k, int index, size_t bytes) {
  void *slot = malloc(bytes ? bytes : 1);
  if (!slot) return NULL;
  free(k->args[index]);
  k->args[index] = slot;
  return slot;
}

static RtStatus arg_buffer(TargetKernel *k, int index, TargetBuffer *b, Buf *err) {
  if (index < 0 || index >= k->nargs) return bad_index(k, index, err);
  void **slot = arg_slot(k, index, sizeof(void *));
  if (!slot) return RT_LAUNCH_FAILED;
  *slot = b->data;
  return RT_OK;
}

static RtStatus arg_value(TargetKernel *k, int index, const void *value, size_t bytes, Buf *err) {
  if (index < 0 || index >= k->nargs) return bad_index(k, index, err);
  void *slot = arg_slot(k, index, bytes);
  if (!slot) return RT_LAUNCH_FAILED;
  memcpy(slot, value, bytes);
  return RT_OK;
}

static RtStatus arg_local(TargetKernel *k, int index, size_t bytes, Buf *err) {
  if (index < 0 || index >= k->nargs) return bad_index(k, index, err);
  size_t *slot = arg_slot(k, index, sizeof(size_t));
  if (!slot) return RT_LAUNCH_FAILED;
  *slot = bytes;
  return RT_OK;
}

static RtStatus kernel_info(TargetDevice *dev, TargetKernel *k, TargetKernelInfo *info, Buf *err) {
  (void)dev, (void)k, (void)err;
  memset(info, 0, sizeof *info);
  info->work_group_size = C_MAX_GROUP;
  info->work_group_size_name = "the C target's largest work-group";
  return RT_OK;
}

/* the local size the target chooses: the largest at most 64 dividing the
 * first dimension's global size, 1 in the others */
static size_t chosen_local(const TargetRange *r, int d) {
  if (d > 0) return 1;
  size_t l = r->global_size[0] < 64 ? r->global_size[0] : 64;
  while (l > 1 && r->global_size[0] % l != 0) l--;
  return l ? l : 1;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static RtStatus launch(TargetDevice *dev, TargetKernel *k, const TargetRange *r, double *ms, Buf *err) {
  (void)dev;
  *ms = 0;
  size_t groups[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  for (int d = 0; d < r->ndims && d < 3; d++) {
    local[d] = r->has_local ? r->local_size[d] : chosen_local(r, d);
    if (local[d] == 0 || r->global_size[d] % local[d] != 0) {
      emit(err, "kernel %s: global size %zu of dimension %d is not a multiple of its local size %zu", k->name,
           r->global_size[d], d, local[d]);
      return RT_BAD_ARGS;
    }
    if (r->global_size[d] == 0) return RT_OK; /* nothing to compute */
    groups[d] = r->global_size[d] / local[d];
  }
  for (int i = 0; i < k->nargs; i++)
    if (!k->args[i]) {
      emit(err, "kernel %s: argument %d is not set", k->name, i);
      return RT_BAD_ARGS;
    }
  double start = now_ms();
  k->entry((void *const *)k->args, groups, local);
  *ms = now_ms() - start;
  return RT_OK;
}

static RtStatus launch_all(TargetDevice *dev, int n, TargetKernel *const *ks, const TargetRange *r, double *ms,
                           Buf *err) {
  double start = now_ms(), one;
  for (int i = 0; i < n; i++) {
    RtStatus st = launch(dev, ks[i], &r[i], &one, err);
    if (st != RT_OK) return st;
  }
  *ms = now_ms() - start;
  return RT_OK;
}

static RtStatus release_buffer(TargetBuffer *b, Buf *err) {
  (void)err;
  if (b) place_free(b->block);
  return RT_OK;
}

static RtStatus release_kernel(TargetKernel *k, Buf *err) {
  (void)err;
  for (int i = 0; k && i < k->nargs; i++) free(k->args[i]);
  return RT_OK;
}

static RtStatus release_program(TargetProgram *p, Buf *err) {
  (void)err;
  if (p && p->handle) dlclose(p->handle);
  return RT_OK;
}

const Target target_c = {
    .id = TARGET_C,
    .name = "c",
    .title = "C",
    .source_ext = ".c",
    .language = "C",
    .language_std = "C11 with OpenMP",
    .parser = "the host's C compiler",
    TARGET_OPERATIONS
};
