/* target_cuda.c: the CUDA instance of Target (target.h).
 *
 * The re-parse is nvcc's: each generated program is compiled to PTX
 * (`nvcc -ptx`, C++17, every warning an error), the compiler the text is
 * written for.  clang 15 is not used: its CUDA mode reads the CUDA
 * headers, and those of CUDA 12 and 13 are newer than it supports (its
 * texture intrinsics fail to parse).  nvcc is found as $DPIA_NVCC, else
 * on the PATH, else /usr/local/cuda/bin/nvcc; with none, verification
 * reports E0002 (`--no-verify` translates without it).
 *
 * Running is not implemented: dpia links no CUDA runtime, so every device
 * operation reports that there is no CUDA device to run on (E0004 from
 * `dpia run --target=cuda`); the header (--emit=header --target=cuda)
 * launches the kernels from a program built with nvcc (docs/targets.md).
 * The semantic check and the race check, on the kernel IR, are the
 * target's as they are every target's. */
#define _GNU_SOURCE /* mkdtemp, strdup */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_cc.h"
#include "target.h"

static bool executable(const char *path) { return access(path, X_OK) == 0; }

static char *find_nvcc(void) {
  const char *env = getenv("DPIA_NVCC");
  if (env && *env) return executable(env) ? strdup(env) : NULL;
  char *found = host_find_program("nvcc");
  if (found) return found;
  return executable("/usr/local/cuda/bin/nvcc") ? strdup("/usr/local/cuda/bin/nvcc") : NULL;
}

/* a HostVerifier: nvcc's path */
static TargetVerifier *verifier_new(void) { return (TargetVerifier *)host_verifier_new(find_nvcc()); }

/* nvcc is a process of its own already: no helper */
static TargetVerifier *verifier_new_helper(const char *path) {
  (void)path;
  return verifier_new();
}

static void verifier_free(TargetVerifier *tv) { host_verifier_free((HostVerifier *)tv); }

/* nvcc runs in processes of its own: nothing outlives them to leave */
static void verifier_free_at_exit(TargetVerifier *tv) { verifier_free(tv); }

/* Why each flag:
 *   -ptx -o /dev/null          the device code compiled (the front end,
 *                              NVVM and PTX generation), nothing kept
 *   -std=c++17                 the dialect the header promises
 *   --Werror all-warnings      generated code is warning-free: an unused
 *                              variable, a deprecated type (double4 in
 *                              CUDA 13) is a defect of the printer
 *   -Xcudafe --display_error_number  the diagnostic's number, for -diag-suppress */
static bool verify(TargetVerifier *tv, const char *name, const char *source, size_t len, Buf *report) {
  HostVerifier *v = (HostVerifier *)tv;
  Arena *a = report->arena;
  char *dir = host_temp_dir(a, "cuda");
  if (!dir) {
    emit(report, "%s: cannot make a temporary directory: %s\n", name, strerror(errno));
    return false;
  }
  const char *src = arena_printf(a, "%s/kernel.cu", dir), *log = arena_printf(a, "%s/log", dir);
  bool ok = false;
  if (!host_write_file(src, source, len)) {
    emit(report, "%s: cannot write %s: %s\n", name, src, strerror(errno));
    goto done;
  }
  char *argv[] = {v->path, "-ptx", "-std=c++17", "--Werror", "all-warnings", "-Xcudafe", "--display_error_number",
                  "-o", "/dev/null", (char *)src, NULL};
  int rc = host_compile(argv, log, src, name, "nvcc", report);
  if (rc > 0) emit(report, "%s: cannot start %s: %s\n", name, v->path, strerror(rc));
  ok = rc == 0;
done:
  unlink(src);
  unlink(log);
  rmdir(dir);
  return ok;
}

/* nothing to load early: nvcc starts per verification */
static TargetPreload *preload_start(void) { return NULL; }
static void preload_finish(TargetPreload *p) { (void)p; }

/* a foreign function's definition, parsed alone, as the device function
 * the kernel defines (backend_cuda.c) */
static void foreign_preamble(Buf *out, bool uses_double) {
  (void)uses_double;
  buf_puts(out, "__device__ inline ");
}

/* ---- devices: none (the file's comment) ---- */

static const char no_device[] =
    "no CUDA device: dpia does not run CUDA kernels itself (it links no CUDA runtime); build the header "
    "(dpia translate --target=cuda --emit=header) with nvcc, or run the OpenCL target";

static RtStatus list_devices(Arena *a, Buf *out, Buf *err) {
  (void)a;
  (void)out;
  buf_puts(err, no_device);
  return RT_UNAVAILABLE;
}

static RtStatus open_device(Arena *a, int platform_index, int device_index, TargetDevice **dev,
                            TargetDeviceInfo *info, Buf *err) {
  (void)a;
  (void)platform_index;
  (void)device_index;
  *dev = NULL;
  memset(info, 0, sizeof *info);
  buf_puts(err, no_device);
  return RT_UNAVAILABLE;
}

/* No device is ever opened, so no operation below is reached with one: each
 * says so rather than pretend. */
static RtStatus unavailable(Buf *err) {
  buf_puts(err, no_device);
  return RT_UNAVAILABLE;
}

static void close_device(TargetDevice *dev) { (void)dev; }
static RtStatus build(TargetDevice *dev, Arena *a, const char *what, const char *source, const char *options,
                      TargetProgram **prog, Buf *err) {
  (void)dev, (void)a, (void)what, (void)source, (void)options;
  *prog = NULL;
  return unavailable(err);
}
static RtStatus kernel(TargetProgram *prog, Arena *a, const char *name, TargetKernel **k, int *nargs, Buf *err) {
  (void)prog, (void)a, (void)name, (void)nargs;
  *k = NULL;
  return unavailable(err);
}
static RtStatus buffer(TargetDevice *dev, Arena *a, size_t bytes, const void *init, BufferPlace place,
                       TargetBuffer **b, Buf *err) {
  (void)dev, (void)a, (void)bytes, (void)init, (void)place;
  *b = NULL;
  return unavailable(err);
}
static RtStatus read_buffer(TargetDevice *dev, TargetBuffer *b, void *dst, size_t bytes, Buf *err) {
  (void)dev, (void)b, (void)dst, (void)bytes;
  return unavailable(err);
}
static RtStatus copy_buffer(TargetDevice *dev, TargetBuffer *from, TargetBuffer *to, size_t bytes, Buf *err) {
  (void)dev, (void)from, (void)to, (void)bytes;
  return unavailable(err);
}
static RtStatus arg_buffer(TargetKernel *k, int index, TargetBuffer *b, Buf *err) {
  (void)k, (void)index, (void)b;
  return unavailable(err);
}
static RtStatus arg_value(TargetKernel *k, int index, const void *value, size_t bytes, Buf *err) {
  (void)k, (void)index, (void)value, (void)bytes;
  return unavailable(err);
}
static RtStatus arg_local(TargetKernel *k, int index, size_t bytes, Buf *err) {
  (void)k, (void)index, (void)bytes;
  return unavailable(err);
}
static RtStatus kernel_info(TargetDevice *dev, TargetKernel *k, TargetKernelInfo *info, Buf *err) {
  (void)dev, (void)k;
  memset(info, 0, sizeof *info);
  return unavailable(err);
}
static RtStatus launch(TargetDevice *dev, TargetKernel *k, const TargetRange *r, double *ms, Buf *err) {
  (void)dev, (void)k, (void)r;
  *ms = 0;
  return unavailable(err);
}
static RtStatus launch_all(TargetDevice *dev, int n, TargetKernel *const *ks, const TargetRange *r, double *ms,
                           Buf *err) {
  (void)dev, (void)n, (void)ks, (void)r;
  *ms = 0;
  return unavailable(err);
}
/* nothing is ever made, so there is nothing to release */
static RtStatus release_buffer(TargetBuffer *b, Buf *err) {
  (void)b, (void)err;
  return RT_OK;
}
static RtStatus release_kernel(TargetKernel *k, Buf *err) {
  (void)k, (void)err;
  return RT_OK;
}
static RtStatus release_program(TargetProgram *p, Buf *err) {
  (void)p, (void)err;
  return RT_OK;
}

const Target target_cuda = {
    .id = TARGET_CUDA,
    .name = "cuda",
    .title = "CUDA",
    .source_ext = ".cu",
    .language = "CUDA C++",
    .language_std = "CUDA C++17",
    .parser = "nvcc",
    TARGET_OPERATIONS
};
