/* stage_bench.c: time of each translation stage for each sample, in process,
 * and of whole `dpia translate` calls through the command line.  A
 * benchmark, not a test: it prints figures (compare figures of one run).
 *
 *   DPIA=build/dpia build/bench/stage_bench samples/dot_partial.dpia ... */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "clang_check.h"
#include "semantic.h"
#include "kernel.h"
#include "backend.h"
#include "translate.h"
#include "stats.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "invariants": the checks between the stages that debug builds add
 * (DPIA_CHECK_INVARIANTS, dpia/invariant.c), timed whatever the build */
enum { STAGES = 11, SEMANTIC = 9 }; /* SEMANTIC: the column README.md quotes */
static const char *const stage_names[STAGES] = {"parse",   "check",    "normalize", "stage I",
                                                "stage II", "re-check", "hoist",     "codegen",
                                                "libclang", "semantic", "invariants"};

/* One whole translation, adding each stage's time to t[]. */
static void translate_once(const char *name, const char *text, size_t len, ClangVerifier *v, double t[STAGES]) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    fputs("out of memory\n", stderr);
    exit(1);
  }
  Arena a;
  arena_init(&a, &mem);
  Interner in;
  intern_init(&in, &a);
  Diag d;
  diag_init(&d, &a);
  TypeCtx tc;
  type_ctx_init(&tc, &a);
  Source src;
  source_init(&src, &a, name, text, len);
  double t0 = now();
  Program *p = parse_program(&a, &in, &d, &src);
  double t1 = now();
  CheckedProgram *cp = check_program(&a, &in, &d, &tc, p);
  double t2 = now();
  t[0] += t1 - t0;
  t[1] += t2 - t1;
  if (d.nerrors) {
    Buf b;
    buf_init(&b, &a);
    diag_render_text(&d, &b);
    fprintf(stderr, "%s", b.data);
    exit(1);
  }
  for (int i = 0; i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->is_kernel) continue;
    double s0 = now();
    Phrase *normal = normalize_def(&a, &tc, &d, def);
    strategy_check_kernel(&a, &d, def, normal);
    double s1 = now();
    DefInfo *inter = translate_stage1(&a, &tc, &in, def, normal);
    double s2 = now();
    DefInfo *imp = translate_stage2(&a, &tc, &in, &d, inter);
    double s3 = now();
    Buf printed;
    buf_init(&printed, &a);
    def_print(&printed, imp, imp->name);
    Source *rs = NEW(&a, Source);
    source_init(rs, &a, "<imperative>", printed.data, printed.len);
    Program *rp = parse_program(&a, &in, &d, rs);
    check_program(&a, &in, &d, &tc, rp);
    double s4 = now();
    DefInfo *hoisted = translate_hoist(&a, &tc, &in, &d, imp);
    double s5 = now();
    ImpKernel *k = kernel_from_def(&a, &tc, &d, backend_of(TARGET_OPENCL), hoisted, name);
    Buf cl;
    buf_init(&cl, &a);
    CodegenOptions copt = {0};
    codegen_kernel(&a, &tc, k, &copt, &cl, NULL);
    double s6 = now();
    Buf report;
    buf_init(&report, &a);
    if (v && !clang_verify(v, "k.cl", cl.data, cl.len, &report)) {
      fprintf(stderr, "%s", report.data);
      exit(1);
    }
    double s7 = now();
    /* the semantic check: both interpreters at small sizes */
    Buf sem;
    buf_init(&sem, &a);
    if (semantic_check(&a, def, normal, hoisted, &SEMANTIC_BUDGET_QUICK, NULL, &sem) == SEM_MISMATCH) {
      fprintf(stderr, "%s\n", sem.data);
      exit(1);
    }
    double s8 = now();
    if (phrase_invariant_violation(&a, inter, PHRASE_INTERMEDIATE) ||
        phrase_invariant_violation(&a, imp, PHRASE_IMPERATIVE) || phrase_invariant_violation(&a, hoisted, PHRASE_HOISTED)) {
      fprintf(stderr, "%s: an invariant does not hold\n", name);
      exit(1);
    }
    double s9 = now();
    t[10] += s9 - s8;
    t[SEMANTIC] += s8 - s7;
    t[2] += s1 - s0;
    t[3] += s2 - s1;
    t[4] += s3 - s2;
    t[5] += s4 - s3;
    t[6] += s5 - s4;
    t[7] += s6 - s5;
    t[8] += s7 - s6;
  }
  arena_free(&a);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  const char *dpia = getenv("DPIA");
  ClangVerifier *v = clang_verifier_new(&clang_opencl);
  printf("microseconds per translation of all kernels of a file (in process), ms per CLI call\n");
  printf("%-16s", "sample");
  for (int s = 0; s < STAGES; s++) printf(" %9s", stage_names[s]);
  printf(" %9s %9s\n", "total", "CLI ms");
  double *semantic = malloc(sizeof *semantic * (size_t)argc); /* ms per file */
  if (!semantic) return 1;
  for (int i = 1; i < argc; i++) {
    size_t len;
    char *text = slurp(argv[i], &len);
    if (!text) {
      fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    double t[STAGES] = {0};
    translate_once(argv[i], text, len, v, t); /* warm up */
    memset(t, 0, sizeof t);
    int runs = 0;
    double start = now();
    while (now() - start < 0.5 || runs < 3) {
      translate_once(argv[i], text, len, v, t);
      runs++;
    }
    const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    printf("%-16.16s", base);
    double total = 0;
    for (int s = 0; s < STAGES; s++) {
      printf(" %9.1f", t[s] / runs * 1e6);
      total += t[s];
    }
    double cli = -1;
    if (dpia) {
      char cmd[4096];
      snprintf(cmd, sizeof cmd, "%s translate %s >/dev/null", dpia, argv[i]);
      int n = 10;
      double c0 = now();
      for (int k = 0; k < n; k++)
        if (system(cmd) != 0) return 1;
      cli = (now() - c0) / n * 1e3;
    }
    printf(" %9.1f %9.2f\n", total / runs * 1e6, cli);
    semantic[i - 1] = t[SEMANTIC] / runs * 1e3;
    free(text);
  }
  int files = argc - 1;
  if (files > 0) {
    double middle = bench_sort_median(semantic, files);
    printf("semantic check: %.1f to %.1f ms per file, %.1f ms the median file\n", semantic[0], semantic[files - 1],
           middle);
  }
  free(semantic);
  clang_verifier_free(v);
  return 0;
}
