/* test_target.c: verification and running go through the Target interface
 * (verify/target.h) and nothing else.
 *
 * A test double, the target "fake", stands in for OpenCL: a host "device"
 * whose buffers are host memory, whose kernel scal computes what the
 * OpenCL kernel would (output[i] = alpha * xs[i]) from the arguments it
 * was given, and whose re-parse accepts everything.  It counts every call.
 * The driver runs samples/scal.dpia and tests/pipeline/dot.dpia on it
 * (driver_process, the library's dpia_process on a chosen target), and the
 * test checks:
 *   - a run with --check passes: the inputs, the argument bindings and the
 *     read-back all went through the fake (a call the driver made to
 *     OpenCL directly would leave the output poisoned with NaN);
 *   - the report names the fake's device and its time;
 *   - the re-parse was the fake's, under the fake's file suffix;
 *   - a device failure at launch is exit status 4 with the fake's message
 *     after its title, a device that cannot be opened too, a kernel whose
 *     argument count does not match the interface exit 2, the fake's
 *     memory limit (named as the fake names it) exit 4, a re-parse that
 *     fails exit 3;
 *   - a run's first launch is not timed (the fake's first launch of a
 *     run is slow: the report has the others' times), whatever the run
 *     (rt_time_launches: the one timing rule of run, tune and explore,
 *     also tested alone on a scripted launch: its calls in order, and a
 *     first launch of RT_WARMUP_KEEP_MS or more kept as a timed one);
 *   - a pipeline is one launch_all of its kernels per run;
 *   - an in-place kernel (scalInPlace) run 3 times finds its input at
 *     every launch, the untimed first one included, restored by the
 *     fake's copy (or made again from the host when the fake makes no
 *     read-only buffer);
 *   - a foreign function's body is parsed by the fake, after its
 *     preamble, and a rejected one is the program's error (exit 1) in the
 *     fake's terms;
 *   - every object made is released, on every path.
 *
 * The call counts live in one static Fake: a Target has no user pointer
 * (its instances derive everything from device indices), so the test
 * double reaches its record through a file-level variable; the library
 * itself keeps none. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "driver_int.h"
#include "verify/runtime_int.h"

typedef struct Fake {
  /* what the next calls do */
  RtStatus open_status, launch_status;
  int nargs_delta;    /* added to the argument count the kernel reports */
  bool reject;        /* the re-parse fails */
  bool no_read_only;  /* a read-only buffer cannot be made */
  uint64_t max_alloc; /* the device's largest buffer */
  /* what was called */
  int opened, closed, programs, programs_released, kernels, kernels_released, buffers, buffers_released;
  int launches, launch_alls, last_nlaunch, reads, args, copies;
  const void *input_inits[8]; /* what each input buffer (BUF_INPUT) was made from, in order (up to 8) */
  int ninputs;
  /* scalInPlace: xs[0] as each launch found it (up to 8) */
  float in_place_seen[8];
  int verifiers, verifiers_freed, verified, preambles;
  char last_verified[64];
} Fake;

static Fake fake;

struct TargetDevice {
  int id;
};
struct TargetProgram {
  const char *source;
};
struct TargetBuffer {
  unsigned char *bytes;
  size_t n;
};
enum { FAKE_MAX_ARGS = 16 };
struct TargetKernel {
  const char *name;
  TargetBuffer *bufs[FAKE_MAX_ARGS];
  unsigned char values[FAKE_MAX_ARGS][16];
};
struct TargetVerifier {
  int id;
};

static TargetVerifier the_verifier;

static TargetVerifier *f_verifier_new(void) {
  fake.verifiers++;
  return &the_verifier;
}
static TargetVerifier *f_verifier_new_helper(const char *path) { return NULL; }
static void f_verifier_free(TargetVerifier *v) {
  if (v) fake.verifiers_freed++;
}
static bool f_verify(TargetVerifier *v, const char *name, const char *source, size_t len, Buf *report) {
  fake.verified++;
  snprintf(fake.last_verified, sizeof fake.last_verified, "%s", name);
  if (fake.reject) emit(report, "%s:1:1: error: the fake rejects it\n", name);
  return !fake.reject;
}
static TargetPreload *f_preload_start(void) { return NULL; }
static void f_preload_finish(TargetPreload *p) {}
static void f_foreign_preamble(Buf *out, bool uses_double) {
  fake.preambles++;
  buf_puts(out, "#pragma FAKE\n");
}

static RtStatus f_list_devices(Arena *a, Buf *out, Buf *err) {
  buf_puts(out, "Platform #0: FakePlatform\n `-- Device #0: FakeDevice\n");
  return RT_OK;
}

static RtStatus f_open(Arena *a, int platform_index, int device_index, TargetDevice **dev, TargetDeviceInfo *info,
                       Buf *err) {
  *dev = NULL;
  if (fake.open_status != RT_OK) {
    buf_puts(err, "FakeGPU error 3 in open (no device)");
    return fake.open_status;
  }
  fake.opened++;
  *dev = NEW(a, TargetDevice);
  *info = (TargetDeviceInfo){
      .platform_name = "FakePlatform",
      .device_name = "FakeDevice",
      .has_fp64 = true,
      .max_work_group_size = 256,
      .max_alloc = fake.max_alloc,
      .global_mem = (uint64_t)1 << 30,
      .local_mem = 65536,
      .max_alloc_name = "FAKE_MAX_ALLOC",
      .global_mem_name = "FAKE_GLOBAL_MEM",
      .local_mem_name = "FAKE_LOCAL_MEM",
  };
  return RT_OK;
}

static void f_close(TargetDevice *dev) { fake.closed++; }

static RtStatus f_build(TargetDevice *dev, Arena *a, const char *what, const char *source, const char *options,
                        TargetProgram **prog, Buf *err) {
  fake.programs++;
  *prog = NEW(a, TargetProgram);
  (*prog)->source = source;
  return RT_OK;
}

/* the parameters of kernel name in the program's text, as a compiler
 * would know them: the commas of its parameter list (after "void NAME(":
 * attributes may stand between "kernel" and "void") */
static int count_params(const char *source, const char *name) {
  char head[128];
  snprintf(head, sizeof head, "void %s(", name);
  const char *at = strstr(source, head);
  if (!at) return -1;
  int n = 1;
  for (at += strlen(head); *at && *at != ')'; at++) n += *at == ',';
  return n;
}

static RtStatus f_kernel(TargetProgram *prog, Arena *a, const char *name, TargetKernel **k, int *nargs, Buf *err) {
  *k = NULL;
  int n = count_params(prog->source, name);
  if (n < 0) {
    emit(err, "the fake program has no kernel %s", name);
    return RT_BUILD_FAILED;
  }
  fake.kernels++;
  *k = NEW(a, TargetKernel);
  memset(*k, 0, sizeof **k);
  (*k)->name = name;
  *nargs = n + fake.nargs_delta;
  return RT_OK;
}

static RtStatus f_buffer(TargetDevice *dev, Arena *a, size_t bytes, const void *init, BufferPlace place,
                         TargetBuffer **b, Buf *err) {
  if (place_read_only(place.use) && fake.no_read_only) {
    buf_puts(err, "FakeGPU error 5 in buffer (no read-only memory)");
    return RT_LAUNCH_FAILED;
  }
  fake.buffers++;
  if (place.use == BUF_INPUT && fake.ninputs < 8) fake.input_inits[fake.ninputs++] = init;
  *b = NEW(a, TargetBuffer);
  (*b)->bytes = arena_dup(a, init, bytes ? bytes : 1);
  (*b)->n = bytes;
  return RT_OK;
}

static RtStatus f_read(TargetDevice *dev, TargetBuffer *b, void *dst, size_t bytes, Buf *err) {
  fake.reads++;
  memcpy(dst, b->bytes, bytes < b->n ? bytes : b->n);
  return RT_OK;
}

static RtStatus f_copy(TargetDevice *dev, TargetBuffer *from, TargetBuffer *to, size_t bytes, Buf *err) {
  fake.copies++;
  if (bytes > from->n || bytes > to->n) return RT_LAUNCH_FAILED;
  memcpy(to->bytes, from->bytes, bytes);
  return RT_OK;
}

static RtStatus f_arg_buffer(TargetKernel *k, int index, TargetBuffer *b, Buf *err) {
  if (index >= FAKE_MAX_ARGS) return RT_LAUNCH_FAILED;
  fake.args++;
  k->bufs[index] = b;
  return RT_OK;
}

static RtStatus f_arg_value(TargetKernel *k, int index, const void *value, size_t bytes, Buf *err) {
  if (index >= FAKE_MAX_ARGS || bytes > sizeof k->values[index]) return RT_LAUNCH_FAILED;
  fake.args++;
  memcpy(k->values[index], value, bytes);
  return RT_OK;
}

static RtStatus f_arg_local(TargetKernel *k, int index, size_t bytes, Buf *err) {
  fake.args++;
  return RT_OK;
}

/* scal(output, alpha, xs, N), as samples/scal.cl computes it */
static void run_scal(TargetKernel *k, const TargetRange *r) {
  float alpha, *out = (float *)(void *)k->bufs[0]->bytes;
  const float *xs = (const float *)(void *)k->bufs[2]->bytes;
  int32_t n;
  memcpy(&alpha, k->values[1], sizeof alpha);
  memcpy(&n, k->values[3], sizeof n);
  for (size_t i = 0; i < r->global_size[0] && (int32_t)i < n; i++) out[i] = alpha * xs[i];
}

/* scalInPlace(alpha, xs, N): xs[i] = alpha * xs[i], what it found in
 * xs[0] recorded */
static void run_scal_in_place(TargetKernel *k, const TargetRange *r) {
  float alpha, *xs = (float *)(void *)k->bufs[1]->bytes;
  int32_t n;
  memcpy(&alpha, k->values[0], sizeof alpha);
  memcpy(&n, k->values[2], sizeof n);
  if (fake.launches <= 8) fake.in_place_seen[fake.launches - 1] = xs[0];
  for (size_t i = 0; i < r->global_size[0] && (int32_t)i < n; i++) xs[i] = alpha * xs[i];
}

static RtStatus f_launch(TargetDevice *dev, TargetKernel *k, const TargetRange *r, double *ms, Buf *err) {
  fake.launches++;
  if (fake.launch_status != RT_OK) {
    buf_puts(err, "FakeGPU error 7 in launch (device lost)");
    return fake.launch_status;
  }
  if (strcmp(k->name, "scal") == 0) run_scal(k, r);
  if (strcmp(k->name, "scalInPlace") == 0) run_scal_in_place(k, r);
  /* the first launch of a process's kernel is the slow one, as PoCL's */
  *ms = fake.launches == 1 ? 40.0 : 2.5;
  return RT_OK;
}

static RtStatus f_launch_all(TargetDevice *dev, int n, TargetKernel *const *ks, const TargetRange *r, double *ms,
                             Buf *err) {
  fake.launch_alls++;
  fake.last_nlaunch = n;
  *ms = fake.launch_alls == 1 ? 40.0 : 1.25;
  return RT_OK;
}

static RtStatus f_release_buffer(TargetBuffer *b, Buf *err) {
  if (b) fake.buffers_released++;
  return RT_OK;
}
static RtStatus f_release_kernel(TargetKernel *k, Buf *err) {
  if (k) fake.kernels_released++;
  return RT_OK;
}
static RtStatus f_release_program(TargetProgram *p, Buf *err) {
  if (p) fake.programs_released++;
  return RT_OK;
}

/* the fake device says nothing of its limits (0: not reported) */
static RtStatus f_kernel_info(TargetDevice *dev, TargetKernel *k, TargetKernelInfo *info, Buf *err) {
  memset(info, 0, sizeof *info);
  return RT_OK;
}

static const Target target_fake = {
    .name = "fake",
    .title = "Fake",
    .id = TARGET_OPENCL, /* it runs the OpenCL text as the OpenCL would */
    .source_ext = ".fake",
    .language = "Fake C",
    .language_std = "Fake C 1",
    .parser = "fakeparse",
    .verifier_new = f_verifier_new,
    .verifier_new_helper = f_verifier_new_helper,
    .verifier_free = f_verifier_free,
    .verifier_free_at_exit = f_verifier_free,
    .verify = f_verify,
    .preload_start = f_preload_start,
    .preload_finish = f_preload_finish,
    .foreign_preamble = f_foreign_preamble,
    .list_devices = f_list_devices,
    .open = f_open,
    .close = f_close,
    .build = f_build,
    .kernel = f_kernel,
    .buffer = f_buffer,
    .read = f_read,
    .copy = f_copy,
    .arg_buffer = f_arg_buffer,
    .arg_value = f_arg_value,
    .arg_local = f_arg_local,
    .kernel_info = f_kernel_info,
    .launch = f_launch,
    .launch_all = f_launch_all,
    .release_buffer = f_release_buffer,
    .release_kernel = f_release_kernel,
    .release_program = f_release_program,
};

/* ---- the tests ---- */

static int failures, checks;

static void check(bool ok, const char *what, const char *detail) {
  checks++;
  if (ok) return;
  failures++;
  printf("FAIL %s\n", what);
  if (detail && *detail) printf("     %s\n", detail);
}

static char *read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  fclose(f);
  if (text) text[n] = 0;
  *len = (size_t)n;
  return text;
}

typedef struct Run {
  int status;
  const char *output, *diagnostics;
  DpiaResult *result;
} Run;

/* dpia run -k kernel --size size_name=size [--check] of text on the
 * fake, as a search's run (hooks) or not (NULL) */
static Run run_hooked(const char *name, const char *text, size_t len, const char *kernel, const char *size_name,
                      long long size, bool check_result, const RunHooks *hooks) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_RUN;
  opt.verify = 1;
  opt.kernel = kernel;
  opt.nsizes = 1;
  opt.size_names = &size_name;
  opt.size_values = &size;
  opt.check = check_result;
  opt.repeat = 3;
  opt.seed = 7;
  Run r;
  r.status = driver_process_hooked(&target_fake, name, text, len, &opt, hooks, &r.result);
  r.output = dpia_result_output(r.result, NULL);
  r.diagnostics = dpia_result_diagnostics(r.result);
  return r;
}

static Run run_on_fake(const char *name, const char *text, size_t len, const char *kernel, const char *size_name,
                       long long size, bool check_result) {
  return run_hooked(name, text, len, kernel, size_name, size, check_result, NULL);
}

/* every object the fake made was released, the device closed once */
static void check_released(const char *what) {
  char detail[256];
  snprintf(detail, sizeof detail,
           "device %d opened, %d closed; programs %d/%d, kernels %d/%d, buffers %d/%d released; verifiers %d/%d freed",
           fake.opened, fake.closed, fake.programs_released, fake.programs, fake.kernels_released, fake.kernels,
           fake.buffers_released, fake.buffers, fake.verifiers_freed, fake.verifiers);
  check(fake.opened == fake.closed && fake.programs == fake.programs_released &&
            fake.kernels == fake.kernels_released && fake.buffers == fake.buffers_released &&
            fake.verifiers == fake.verifiers_freed,
        what, detail);
}

static void test_kernel(const char *path) {
  size_t len;
  char *text = read_text(path, &len);
  check(text != NULL, "read samples/scal.dpia", path);
  if (!text) return;

  /* a run that computes, checked against the reference interpreter */
  fake = (Fake){.max_alloc = (uint64_t)1 << 30};
  Run r = run_on_fake("scal.dpia", text, len, "scal", "N", 1000, true);
  check(r.status == DPIA_OK, "scal --check on the fake passes", r.diagnostics);
  check(strstr(r.output, "kernel scal on FakeDevice (FakePlatform)") != NULL, "the report names the fake device",
        r.output);
  check(strstr(r.output, "time: min 2.500 ms, median 2.500 ms over 3 runs") != NULL, "the report has the fake's times",
        r.output);
  check(strstr(r.output, "check (seed 7): ") != NULL && strstr(r.output, ": ok") != NULL, "the check passed", r.output);
  check(fake.launches == 4 && fake.reads == 1 && fake.buffers == 2 && fake.args == 4,
        "an untimed launch and 3 timed ones, 1 read, 2 buffers, 4 arguments", "");
  check(fake.verified == 1 && strcmp(fake.last_verified, "scal.fake") == 0,
        "the re-parse is the fake's, under its suffix", fake.last_verified);
  check_released("a run releases everything");
  dpia_result_free(r.result);

  /* the device fails at launch: exit 4, the fake's message after its title */
  fake = (Fake){.max_alloc = (uint64_t)1 << 30, .launch_status = RT_LAUNCH_FAILED};
  r = run_on_fake("scal.dpia", text, len, "scal", "N", 1000, true);
  check(r.status == DPIA_EOPENCL, "a launch failure is exit 4", r.diagnostics);
  check(strstr(r.diagnostics, "error[E0004]: Fake: FakeGPU error 7 in launch (device lost)") != NULL,
        "a launch failure is reported with the target's message", r.diagnostics);
  check(fake.launches == 1 && fake.reads == 0, "nothing is launched or read after the failure", "");
  check_released("a launch failure releases everything");
  dpia_result_free(r.result);

  /* no device */
  fake = (Fake){.max_alloc = (uint64_t)1 << 30, .open_status = RT_UNAVAILABLE};
  r = run_on_fake("scal.dpia", text, len, "scal", "N", 1000, false);
  check(r.status == DPIA_EOPENCL && strstr(r.diagnostics, "error[E0004]: Fake: FakeGPU error 3 in open (no device)"),
        "no device is exit 4 with the target's message", r.diagnostics);
  check(fake.programs == 0 && fake.buffers == 0, "nothing is built without a device", "");
  check_released("no device leaves nothing");
  dpia_result_free(r.result);

  /* a program whose kernel takes another number of arguments: exit 2 */
  fake = (Fake){.max_alloc = (uint64_t)1 << 30, .nargs_delta = 1};
  r = run_on_fake("scal.dpia", text, len, "scal", "N", 1000, false);
  check(r.status == DPIA_EUSAGE &&
            strstr(r.diagnostics, "kernel scal takes 5 arguments, but its interface lists 4 parameters"),
        "an argument count that does not match is exit 2", r.diagnostics);
  check(fake.launches == 0, "not launched", "");
  check_released("a mismatch releases everything");
  dpia_result_free(r.result);

  /* the device's largest buffer, as the fake names it: exit 4 */
  fake = (Fake){.max_alloc = 1000};
  r = run_on_fake("scal.dpia", text, len, "scal", "N", 1000, false);
  check(r.status == DPIA_EOPENCL &&
            strstr(r.diagnostics, "output buffer output needs 4000 bytes, more than the device's largest buffer "
                                  "(FAKE_MAX_ALLOC 1000 bytes)"),
        "a buffer over the device's limit is exit 4, the limit named by the target", r.diagnostics);
  check(fake.buffers == 0, "nothing is allocated over the limit", "");
  check_released("the limit check leaves nothing");
  dpia_result_free(r.result);

  /* the re-parse fails: exit 3, nothing run */
  fake = (Fake){.max_alloc = (uint64_t)1 << 30, .reject = true};
  r = run_on_fake("scal.dpia", text, len, "scal", "N", 1000, false);
  check(r.status == DPIA_EVERIFY &&
            strstr(r.diagnostics, "internal: the Fake generated for kernel 'scal' does not compile cleanly:\n"
                                  "scal.fake:1:1: error: the fake rejects it"),
        "a failed re-parse is exit 3 with the target's report", r.diagnostics);
  check(fake.opened == 0, "no device opened after a failed re-parse", "");
  check_released("a failed re-parse frees its verifier");
  dpia_result_free(r.result);
  free(text);
}

/* samples/scal.dpia's scalInPlace run 3 times: each timed launch is one
 * run on the input, restored before it by a copy on the device (or, with
 * no read-only buffer to copy from, a buffer made again from the host),
 * never the previous launch's result; the result read is one run's */
static void test_in_place(const char *path) {
  size_t len;
  char *text = read_text(path, &len);
  if (!text) return;
  for (int host = 0; host < 2; host++) {
    fake = (Fake){.max_alloc = (uint64_t)1 << 30, .no_read_only = host};
    Run r = run_on_fake("scal.dpia", text, len, "scalInPlace", "N", 1000, true);
    check(r.status == DPIA_OK && strstr(r.output, ": ok") != NULL, "scalInPlace --check --repeat 3 on the fake passes",
          r.diagnostics && *r.diagnostics ? r.diagnostics : r.output);
    char detail[160];
    snprintf(detail, sizeof detail, "%d launches, %d copies, %d buffers; xs[0] found %g, %g, %g, %g", fake.launches,
             fake.copies, fake.buffers, fake.in_place_seen[0], fake.in_place_seen[1], fake.in_place_seen[2],
             fake.in_place_seen[3]);
    check(fake.launches == 4 && fake.in_place_seen[1] == fake.in_place_seen[0] &&
              fake.in_place_seen[2] == fake.in_place_seen[0] && fake.in_place_seen[3] == fake.in_place_seen[0],
          host ? "each timed launch of an in-place kernel finds its input (made again from the host)"
               : "each timed launch of an in-place kernel finds its input (copied on the device)",
          detail);
    check(host ? fake.copies == 0 && fake.buffers == 4 : fake.copies == 3 && fake.buffers == 2,
          host ? "no pristine copy: the buffer made again before each launch after the untimed one"
               : "one pristine copy, copied from before each launch after the untimed one",
          detail);
    check_released(host ? "an in-place run restored from the host releases everything"
                        : "an in-place run with a pristine copy releases everything");
    dpia_result_free(r.result);
  }
  free(text);
}

/* A search's runs (RunHooks: dpia explore's candidates) on the fake:
 * the inputs made by the first run and packed once, the later runs'
 * input buffers made from that one copy (their --check still passing on
 * them), and a run cut after its first timed launch when that is over
 * cut_ms, a kernel's or a pipeline's. */
static void test_search_runs(const char *kernel_path, const char *pipeline_path) {
  size_t len, plen;
  char *text = read_text(kernel_path, &len), *ptext = read_text(pipeline_path, &plen);
  check(text && ptext, "read samples/scal.dpia and tests/pipeline/dot.dpia", kernel_path);
  if (!text || !ptext) {
    free(text);
    free(ptext);
    return;
  }
  DpiaMem mem;
  dpia_mem_default(&mem);
  SharedInputs share = {.mem = mem};
  arena_init(&share.arena, &share.mem);
  RunHooks hooks = {0, &share};
  const void *first = NULL;
  for (int i = 0; i < 2; i++) {
    fake = (Fake){.max_alloc = (uint64_t)1 << 30};
    Run r = run_hooked("scal.dpia", text, len, "scal", "N", 1000, true, &hooks);
    check(r.status == DPIA_OK && strstr(r.output, ": ok") != NULL, "a search's run on the shared inputs checks",
          r.diagnostics);
    check(fake.ninputs == 1 && share.key && share.packs.n == 1 && fake.input_inits[0] == share.packs.entries[0].packed,
          "the input buffer made from the search's one packed copy", "");
    if (i == 0) first = fake.input_inits[0];
    check(fake.input_inits[0] == first, "the second run's input buffer made from the first run's copy", "");
    check(strstr(r.output, "over 3 runs") != NULL, "no cut: every timed launch", r.output);
    check_released("a search's run releases everything");
    dpia_result_free(r.result);
  }
  /* the fake's launches take 2.5 ms: a cut at 1 ms leaves the first timed one */
  hooks.cut_ms = 1.0;
  fake = (Fake){.max_alloc = (uint64_t)1 << 30};
  Run r = run_hooked("scal.dpia", text, len, "scal", "N", 1000, false, &hooks);
  check(r.status == DPIA_OK && strstr(r.output, "time: min 2.500 ms, median 2.500 ms over 1 run;") != NULL &&
            fake.launches == 2,
        "a run cut after its first timed launch over cut_ms: the untimed one and one timed", r.output);
  dpia_result_free(r.result);
  /* a pipeline's: its own inputs (other parameters: another key), packed
   * once for its runs, its runs cut as a kernel's (1.25 ms a run) */
  for (int i = 0; i < 2; i++) {
    fake = (Fake){.max_alloc = (uint64_t)1 << 30};
    hooks.cut_ms = i ? 1.0 : 0;
    r = run_hooked("dot.dpia", ptext, plen, "dot", "N", 262144, false, &hooks);
    check(r.status == DPIA_OK && fake.launch_alls == (i ? 2 : 4) && share.packs.n == 2 && fake.ninputs == 2 &&
              fake.input_inits[0] == share.packs.entries[0].packed &&
              fake.input_inits[1] == share.packs.entries[1].packed,
          i ? "a pipeline's run cut, its inputs from the search's copies"
            : "a pipeline's run, its inputs from the search's copies",
          r.output);
    check_released("a search's pipeline run releases everything");
    dpia_result_free(r.result);
  }
  arena_free(&share.arena);
  free(text);
  free(ptext);
}

static void test_pipeline(const char *path) {
  size_t len;
  char *text = read_text(path, &len);
  check(text != NULL, "read tests/pipeline/dot.dpia", path);
  if (!text) return;
  fake = (Fake){.max_alloc = (uint64_t)1 << 30};
  Run r = run_on_fake("dot.dpia", text, len, "dot", "N", 262144, false);
  check(r.status == DPIA_OK, "pipeline dot on the fake", r.diagnostics);
  check(strstr(r.output, "pipeline dot on FakeDevice (FakePlatform)") != NULL &&
            strstr(r.output, "time: min 1.250 ms") != NULL,
        "the pipeline's report names the fake and its time", r.output);
  check(fake.launch_alls == 4 && fake.last_nlaunch == 2 && fake.launches == 0,
        "each run is one launch_all of both kernels, the first untimed", "");
  check(fake.programs == 1 && fake.kernels == 2, "one program, two kernels", "");
  check_released("a pipeline run releases everything");
  dpia_result_free(r.result);
  free(text);
}

/* dpia check of a program with a foreign function, on the fake */
static void test_foreign(void) {
  static const char text[] = "foreign twice (x: float) : float = \"{ return 2.0f * x; }\"\n"
                             "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (\\x -> twice x)\n";
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_CHECK;
  for (int reject = 0; reject < 2; reject++) {
    fake = (Fake){.reject = reject};
    DpiaResult *r;
    int status = driver_process(&target_fake, "twice.dpia", text, sizeof text - 1, &opt, &r);
    const char *diags = dpia_result_diagnostics(r);
    if (!reject) {
      check(status == DPIA_OK && fake.preambles == 1 && fake.verified == 1 &&
                strcmp(fake.last_verified, "foreign twice") == 0,
            "a foreign body is parsed by the target, after its preamble", diags);
    } else {
      check(status == DPIA_EUSER && strstr(diags, "the body of foreign function 'twice' is not valid Fake C (as Fake C "
                                                  "1 parses it, warnings included):\n"
                                                  "foreign twice:1:1: error: the fake rejects it"),
            "a rejected foreign body is exit 1 in the target's terms", diags);
    }
    check_released("checking a foreign body frees its verifier");
    dpia_result_free(r);
  }
}

/* rt_time_launches alone: a launch whose times are scripted, each call
 * written down in order (L a launch, R a restore) */
typedef struct Script {
  const double *ms; /* each launch's time in turn */
  int launches;
  char calls[32];
  int ncalls;
} Script;

static RtStatus script_launch(void *user, double *ms, Buf *err) {
  Script *sc = user;
  if (sc->ncalls < 31) sc->calls[sc->ncalls++] = 'L';
  *ms = sc->ms[sc->launches++];
  return RT_OK;
}

static RtStatus script_restore(void *user, Buf *err) {
  Script *sc = user;
  if (sc->ncalls < 31) sc->calls[sc->ncalls++] = 'R';
  return RT_OK;
}

/* repeat 3 on the script ms, restoring or not, cut after a first timed
 * launch over cut_ms or not (0): the calls made, the times kept (-1: none)
 * and their count are those expected */
static void check_timing(const char *what, const double *ms, bool restore, double cut_ms, const char *calls,
                         const double *times, int ntimes) {
  Script sc = {ms, 0, {0}, 0};
  RtTimer tm = {&sc, script_launch, restore ? script_restore : NULL, cut_ms};
  double got[3] = {-1, -1, -1};
  Buf err;
  Arena a;
  DpiaMem mem;
  dpia_mem_default(&mem);
  arena_init(&a, &mem);
  buf_init(&err, &a);
  int repeat = 3;
  RtStatus st = rt_time_launches(&tm, &repeat, got, &err);
  char detail[160];
  snprintf(detail, sizeof detail, "calls %s, %d times %g %g %g", sc.calls, repeat, got[0], got[1], got[2]);
  check(st == RT_OK && strcmp(sc.calls, calls) == 0 && got[0] == times[0] && got[1] == times[1] && got[2] == times[2] &&
            repeat == ntimes,
        what, detail);
  arena_free(&a);
}

/* placement.h: the first 8 buffers of each use start at 32 different
 * offsets of their pages, each a multiple of 128 bytes (PoCL's base
 * address alignment), and place_alloc's memory starts there */
static void test_placement(void) {
  bool seen[PLACE_PAGE / 128] = {false}, ok = true;
  for (int u = 0; u < BUF_USE_COUNT; u++)
    for (int nth = 0; nth < PLACE_PAGE / PLACE_SPREAD; nth++) {
      size_t off = place_offset((BufferPlace){(BufferUse)u, nth});
      ok = ok && off % 128 == 0 && off < PLACE_PAGE && !seen[off / 128];
      if (off % 128 == 0 && off < PLACE_PAGE) seen[off / 128] = true;
    }
  check(ok, "every use's first 8 buffers at offsets of their own, multiples of 128 bytes", "");
  check(place_offset((BufferPlace){BUF_INPUT, 0}) == 0 && place_offset((BufferPlace){BUF_OUTPUT, 0}) == 256 &&
            place_offset((BufferPlace){BUF_TEMP, 0}) == 128 && place_offset((BufferPlace){BUF_UPDATED, 1}) == 896,
        "inputs at a page's start, outputs 256 bytes in, temporaries 128, the second updated input 896", "");
  float init[3] = {1, 2, 3};
  void *block;
  float *p = place_alloc(sizeof init, (BufferPlace){BUF_OUTPUT, 2}, init, &block);
  check(p && (uintptr_t)p % PLACE_PAGE == place_offset((BufferPlace){BUF_OUTPUT, 2}) && p[2] == 3,
        "place_alloc's memory starts at the place's offset, filled", "");
  place_free(block);
}

static void test_timing(void) {
  /* the first launch of tune's first point, or of any run: 10 ms where
   * the others take 1 ms, is not one of the times */
  const double slow_first[] = {10, 1, 2, 3}, kept[] = {RT_WARMUP_KEEP_MS, 1, 2, 3};
  check_timing("an untimed launch, then 3 timed", slow_first, false, 0, "LLLL", (const double[]){1, 2, 3}, 3);
  check_timing("an in-place kernel's inputs restored before each timed launch", slow_first, true, 0, "LRLRLRL",
               (const double[]){1, 2, 3}, 3);
  check_timing("a first launch of RT_WARMUP_KEEP_MS is the first timed one", kept, true, 0, "LRLRL",
               (const double[]){RT_WARMUP_KEEP_MS, 1, 2}, 3);
  /* explore's probe (RtTimer.cut_ms, docs/explore.md "The search"): the
   * first two launches, the untimed one included, both over the cut are
   * the only ones; one within it, and the others follow */
  check_timing("a first timed launch within the cut: all 3 timed", slow_first, true, 1, "LRLRLRL",
               (const double[]){1, 2, 3}, 3);
  check_timing("the untimed launch and the first timed over the cut: nothing after them", slow_first, true, 0.5, "LRL",
               (const double[]){1, -1, -1}, 1);
  check_timing("the untimed launch within the cut: all 3 timed", (const double[]){0.4, 1, 2, 3}, true, 0.5, "LRLRLRL",
               (const double[]){1, 2, 3}, 3);
  check_timing("a kept first launch over the cut, the next within: all 3 timed", kept, true, RT_WARMUP_KEEP_MS - 1,
               "LRLRL", (const double[]){RT_WARMUP_KEEP_MS, 1, 2}, 3);
  check_timing("a kept first launch and the next over the cut: those two",
               (const double[]){RT_WARMUP_KEEP_MS, 150, 2, 3}, true, RT_WARMUP_KEEP_MS - 1, "LRL",
               (const double[]){RT_WARMUP_KEEP_MS, 150, -1}, 2);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_target samples/scal.dpia tests/pipeline/dot.dpia\n");
    return 2;
  }
  check(target_named("opencl") == &target_opencl && target_named("fake") == NULL && target_default() == &target_opencl,
        "targets by name", "");
  test_placement();
  test_timing();
  test_kernel(argv[1]);
  test_in_place(argv[1]);
  test_pipeline(argv[2]);
  test_search_runs(argv[1], argv[2]);
  test_foreign();
  printf("test_target: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
