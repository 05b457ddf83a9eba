/* test_clang.c: the libclang verifier of generated OpenCL C
 * (verify/clang_check.h, with target_opencl's language clang_opencl).
 *
 * A correct OpenCL 1.2 kernel using the built-ins the code generator emits
 * must pass with an empty report; each broken kernel must fail with a
 * report naming the line of the defect, its column, the generated line and
 * a caret.  Then one verifier checks the same kernel many times: its
 * resident memory must not keep growing (the sanitizer build checks the
 * same for leaks), and the time per verification is printed.  All of it
 * runs twice: with libclang in this process (clang_verifier_new) and with
 * the helper process dpia-clang-check (clang_verifier_new_helper), whose
 * reports must be byte for byte the same; a helper that is missing or
 * stops leaves verification to libclang in process.
 *
 * Prints one line per failure and a summary; exit status 1 if anything
 * failed. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"
#include "verify/clang_check.h"

/* AddressSanitizer keeps freed memory in quarantine, so resident memory
 * grows there whatever the code does; LeakSanitizer reports leaks at exit
 * instead. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef UNDER_ADDRESS_SANITIZER
#define UNDER_ADDRESS_SANITIZER 0
#endif

typedef struct Tester {
  int checks, failures;
  int rounds; /* verifications to time (argv[1], default 200) */
  const char *helper; /* dpia-clang-check (argv[2]; NULL: where the library looks) */
} Tester;

static void check(Tester *t, bool ok, const char *what, const char *detail) {
  t->checks++;
  if (ok) return;
  t->failures++;
  printf("FAIL %s\n", what);
  if (detail && detail[0]) printf("  %s\n", detail);
}

/* Everything the code generator relies on: work-item functions, vector
 * loads and stores, local memory and a barrier, a fixed work-group size,
 * a pair struct, a private vector, select and fma, a symbolic local buffer
 * and an unused nat parameter (allowed: the interface passes them all). */
static const char good_kernel[] =
    "/* dot.dpia: kernel dotVec\n"
    " * requires N % 8192 == 0 */\n"
    "typedef struct {\n"
    "  float x1;\n"
    "  int x2;\n"
    "} pair_float_int;\n"
    "\n"
    "kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
    "void dotVec(global float *restrict output, const global float *restrict xs, float alpha, int N, int M,\n"
    "            local float *tmp1) {\n"
    "  local float partial[64];\n"
    "  for (int wg = get_group_id(0); wg < N / 8192; wg += get_num_groups(0)) /* mapWorkgroup */ {\n"
    "    int l = get_local_id(0);\n"
    "    float4 acc = (float4)(0.0f);\n"
    "    for (int i = 0; i < 32; i += 1) /* reduceSeq */ {\n"
    "      acc = acc + vload4(wg * 2048 + l * 32 + i, xs) * alpha;\n"
    "    }\n"
    "    pair_float_int p;\n"
    "    p.x1 = acc.x + acc.y + acc.z + acc.w;\n"
    "    p.x2 = l;\n"
    "    partial[l] = fma(p.x1, 2.0f, (float)p.x2);\n"
    "    tmp1[l] = partial[l];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (l == 0) {\n"
    "      float s = 0.0f;\n"
    "      for (int j = 0; j < 64; j += 1) {\n"
    "        s = s + partial[j] + tmp1[j];\n"
    "      }\n"
    "      output[wg] = select(s, -s, s < 0.0f);\n"
    "      vstore4((float4)(s), wg, output);\n"
    "    }\n"
    "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  }\n"
    "  output[get_global_id(0)] += (float)get_global_size(0);\n"
    "}\n";

/* One broken kernel: the report must fail and hold these lines. */
typedef struct BadCase {
  const char *what;
  const char *source;
  const char *first_line; /* the report's first line, exactly */
  const char *source_line; /* the generated line quoted under it */
  const char *marker_line; /* the caret line, exactly */
} BadCase;

static const BadCase bad_cases[] = {
    {"undeclared identifier",
     "kernel void k(global float *restrict output) {\n"
     "  int i = get_global_id(0);\n"
     "  output[i] = xs[i];\n"
     "}\n",
     "bad.cl:3:15: error: use of undeclared identifier 'xs'", "  output[i] = xs[i];", "              ^"},
    {"undeclared function (a misspelt built-in)",
     "kernel void k(global float *restrict output, const global float *restrict xs) {\n"
     "  float4 v = vload4(0, xs);\n"
     "  vstore5(v, 0, output);\n"
     "}\n",
     "bad.cl:3:3: error: use of undeclared identifier 'vstore5'", "  vstore5(v, 0, output);",
     "  ^"},
    {"type error",
     "typedef struct {\n"
     "  float x1;\n"
     "  float x2;\n"
     "} pair_float_float;\n"
     "kernel void k(global float *restrict output) {\n"
     "  pair_float_float p;\n"
     "  p.x1 = 1.0f;\n"
     "  p.x2 = 2.0f;\n"
     "  output[0] = p;\n"
     "}\n",
     "bad.cl:9:13: error: assigning to '__global float' from incompatible type '__private pair_float_float'",
     "  output[0] = p;", "            ^ ~"},
    {"unused variable",
     "kernel void k(global float *restrict output) {\n"
     "  float acc = 0.0f;\n"
     "  float acc_2 = 1.0f;\n"
     "  output[0] = acc;\n"
     "}\n",
     "bad.cl:3:9: warning: unused variable 'acc_2' [-Wunused-variable]", "  float acc_2 = 1.0f;", "        ^"},
    {"variable set but not used",
     "kernel void k(global float *restrict output) {\n"
     "  float acc;\n"
     "  acc = 1.0f;\n"
     "  output[0] = 0.0f;\n"
     "}\n",
     "bad.cl:2:9: warning: variable 'acc' set but not used [-Wunused-but-set-variable]", "  float acc;", "        ^"},
    {"missing semicolon",
     "kernel void k(global float *restrict output) {\n"
     "  int i = get_global_id(0);\n"
     "  output[i] = 1.0f\n"
     "  output[i] += 2.0f;\n"
     "}\n",
     "bad.cl:3:19: error: expected ';' after expression", "  output[i] = 1.0f", "                  ^"},
    {"shadowed loop variable",
     "kernel void k(global float *restrict output, int N) {\n"
     "  for (int i = 0; i < N; i += 1) {\n"
     "    for (int i = 0; i < 4; i += 1) {\n"
     "      output[i] = 0.0f;\n"
     "    }\n"
     "  }\n"
     "}\n",
     "bad.cl:3:14: warning: declaration shadows a local variable [-Wshadow]",
     "    for (int i = 0; i < 4; i += 1) {", "             ^"},
    {"float computed in double",
     "kernel void k(global float *restrict output, const global float *restrict xs) {\n"
     "  int i = get_global_id(0);\n"
     "  output[i] = xs[i] * 0.5;\n"
     "}\n",
     "bad.cl:3:15: warning: implicit conversion increases floating-point precision: "
     "'const __global float' to 'double' [-Wdouble-promotion]",
     "  output[i] = xs[i] * 0.5;", "              ^~~~~ ~"},
    {"zero-length private array",
     "kernel void k(global float *restrict output) {\n"
     "  float tmp[0];\n"
     "  output[0] = 1.0f;\n"
     "}\n",
     "bad.cl:2:13: warning: zero size arrays are an extension [-Wzero-length-array]", "  float tmp[0];",
     "            ^"},
    {"barrier with no fence flags",
     "kernel void k(global float *restrict output) {\n"
     "  output[0] = 1.0f;\n"
     "  barrier();\n"
     "}\n",
     "bad.cl:3:11: error: too few arguments to function call, expected 1, have 0", "  barrier();", "  ~~~~~~~ ^"},
};

/* Line number n (1-based) of text, or "" past the end, in a. */
static const char *nth_line(Arena *a, const char *text, int n) {
  const char *p = text;
  for (int i = 1; i < n; i++) {
    p = strchr(p, '\n');
    if (!p) return "";
    p++;
  }
  const char *end = strchr(p, '\n');
  return arena_strndup(a, p, end ? (size_t)(end - p) : strlen(p));
}

static void test_good(Tester *t, Arena *a, ClangVerifier *v) {
  Buf report;
  buf_init(&report, a);
  bool ok = clang_verify(v, "good.cl", good_kernel, strlen(good_kernel), &report);
  check(t, ok, "a correct OpenCL 1.2 kernel passes", report.data);
  check(t, report.len == 0, "a correct kernel has an empty report", report.data);

  /* the text need not be NUL-terminated: only len bytes are parsed */
  size_t len = strlen(good_kernel);
  char *padded = arena_alloc(a, len + 16);
  memcpy(padded, good_kernel, len);
  memcpy(padded + len, "garbage here !!", 15);
  buf_clear(&report);
  ok = clang_verify(v, "good.cl", padded, len, &report);
  check(t, ok && report.len == 0, "only the first len bytes are parsed", report.data);

  buf_clear(&report);
  ok = clang_verify(v, "empty.cl", NULL, 0, &report);
  check(t, ok && report.len == 0, "an empty text passes", report.data);
}

static void test_bad(Tester *t, Arena *a, ClangVerifier *v) {
  for (size_t i = 0; i < DPIA_COUNTOF(bad_cases); i++) {
    const BadCase *c = &bad_cases[i];
    Buf report;
    buf_init(&report, a);
    bool ok = clang_verify(v, "bad.cl", c->source, strlen(c->source), &report);
    char *what = arena_printf(a, "%s fails", c->what);
    check(t, !ok, what, report.data);
    const char *lines[] = {c->first_line, c->source_line, c->marker_line};
    const char *names[] = {"first line", "quoted source line", "caret line"};
    for (int k = 0; k < 3; k++) {
      const char *got = nth_line(a, report.data, k + 1);
      check(t, strcmp(got, lines[k]) == 0, arena_printf(a, "%s: report %s", c->what, names[k]),
            arena_printf(a, "expected\n%s\ngot report\n%s", lines[k], report.data));
    }
  }

  /* notes follow their diagnostic, pointing at the earlier declaration */
  static const char redefined[] =
      "kernel void k(global float *restrict output) {\n"
      "  float acc = 0.0f;\n"
      "  float acc = 1.0f;\n"
      "  output[0] = acc;\n"
      "}\n";
  Buf report;
  buf_init(&report, a);
  bool ok = clang_verify(v, "notes.cl", redefined, strlen(redefined), &report);
  check(t, !ok && strcmp(nth_line(a, report.data, 1), "notes.cl:3:9: error: redefinition of 'acc'") == 0 &&
               strcmp(nth_line(a, report.data, 4), "notes.cl:2:9: note: previous definition is here") == 0 &&
               strcmp(nth_line(a, report.data, 5), "  float acc = 0.0f;") == 0,
        "a note is reported after its error with its own line", report.data);

  /* several independent errors are all reported, in order */
  static const char two_errors[] =
      "kernel void k(global float *restrict output) {\n"
      "  output[0] = a;\n"
      "  output[1] = b;\n"
      "}\n";
  buf_clear(&report);
  ok = clang_verify(v, "two.cl", two_errors, strlen(two_errors), &report);
  check(t, !ok && strncmp(nth_line(a, report.data, 1), "two.cl:2:15: error:", 19) == 0 &&
               strncmp(nth_line(a, report.data, 4), "two.cl:3:15: error:", 19) == 0,
        "every error is reported", report.data);

  /* tabs in the generated line are kept in the caret line */
  static const char tabbed[] = "kernel void k(global float *restrict output) {\n\toutput[0] = zz;\n}\n";
  buf_clear(&report);
  ok = clang_verify(v, "tab.cl", tabbed, strlen(tabbed), &report);
  check(t, !ok && strcmp(nth_line(a, report.data, 3), "\t            ^") == 0, "a caret after a tab stays aligned",
        report.data);

  /* a kernel cut off in the middle: the error is at the end of the text */
  static const char truncated[] = "kernel void k(global float *restrict output) {\n  output[0] = 1.0f;\n";
  buf_clear(&report);
  ok = clang_verify(v, "cut.cl", truncated, strlen(truncated), &report);
  check(t, !ok && strcmp(nth_line(a, report.data, 1), "cut.cl:2:20: error: expected '}'") == 0 &&
               strcmp(nth_line(a, report.data, 4), "cut.cl:1:46: note: to match this '{'") == 0,
        "a truncated kernel fails at its end, with a note at the open brace", report.data);
}

/* Resident set size in kilobytes (Linux), or -1 where unknown. */
static long resident_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long pages_total, pages_resident;
  int n = fscanf(f, "%ld %ld", &pages_total, &pages_resident);
  fclose(f);
  return n == 2 ? pages_resident * 4 : -1;
}

static double now_seconds(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Many verifications with one verifier (so one index): a translation unit
 * left behind each time would grow memory by megabytes per call. */
static void test_repeated(Tester *t, Arena *a, ClangVerifier *v, int rounds) {
  enum { WARMUP = 10 };
  bool all_ok = true;
  const char *first_failure = "";
  for (int i = 0; i < WARMUP + rounds; i++) {
    /* a scratch arena per call, so the test's own memory stays flat too */
    Arena scratch;
    arena_init(&scratch, a->mem);
    Buf report;
    buf_init(&report, &scratch);
    bool ok = clang_verify(v, "good.cl", good_kernel, strlen(good_kernel), &report) && report.len == 0;
    if (i % 8 == 0) {
      /* a failing one now and then, so the diagnostic paths repeat too */
      const BadCase *c = &bad_cases[(size_t)i % DPIA_COUNTOF(bad_cases)];
      Buf bad;
      buf_init(&bad, &scratch);
      ok = ok && !clang_verify(v, "bad.cl", c->source, strlen(c->source), &bad);
    }
    if (!ok && all_ok) first_failure = arena_strndup(a, report.data, report.len);
    all_ok = all_ok && ok;
    arena_free(&scratch);
  }
  check(t, all_ok, "repeated verifications give the same answers", first_failure);

  long before = resident_kb();
  double start = now_seconds();
  for (int i = 0; i < rounds; i++) {
    Arena scratch;
    arena_init(&scratch, a->mem);
    Buf report;
    buf_init(&report, &scratch);
    all_ok = clang_verify(v, "good.cl", good_kernel, strlen(good_kernel), &report) && all_ok;
    arena_free(&scratch);
  }
  double elapsed = now_seconds() - start;
  long after = resident_kb();
  check(t, all_ok, "timed verifications pass", "");
  printf("clang-verify: %d verifications of a %zu-byte kernel with one verifier: %.2f ms each\n", rounds,
         strlen(good_kernel), elapsed * 1e3 / rounds);
  if (UNDER_ADDRESS_SANITIZER) {
    printf("clang-verify: resident memory not compared under AddressSanitizer (LeakSanitizer checks at exit)\n");
  } else if (before >= 0 && after >= 0) {
    long growth = after - before;
    printf("clang-verify: resident memory %ld kB before, %ld kB after (%+ld kB)\n", before, after, growth);
    /* a translation unit left undisposed keeps about a megabyte (measured:
     * 200 of them grow memory by 190 MB), so this bound catches a leak of
     * one per call with room for allocator noise */
    check(t, growth < 4 * 1024, "memory does not grow with the number of verifications",
          arena_printf(a, "grew by %ld kB over %d verifications", growth, rounds));
  }
}

/* More texts for the comparison of the two verifiers: a macro expansion
 * (notes from clang's renderer), a note in one of clang's headers (a file
 * name in the report), a range over two lines, a fatal error. */
static const char *const more_sources[] = {
    "#define TWICE(x) ((x) + undefined_thing)\n"
    "kernel void k(global float *restrict output) {\n"
    "  output[0] = TWICE(1.0f);\n"
    "}\n",
    "typedef int float4;\n"
    "kernel void k(global float *restrict output) {\n"
    "  output[0] = 1.0f;\n"
    "}\n",
    "kernel void k(global float *restrict output, const global float *restrict xs) {\n"
    "  output[0] = xs[0]\n"
    "    * 0.5;\n"
    "}\n",
    "#include \"no_such_header.h\"\n"
    "kernel void k(global float *restrict output) {\n"
    "  output[0] = 1.0f;\n"
    "}\n",
    "kernel void k(global float *restrict output) {\n"
    "  output[0] = CLK_LOCAL_MEM_FENCE * 1.5;\n"
    "  int unused;\n"
    "}\n",
};

/* The helper process (clang_verifier_new_helper) reports exactly what
 * libclang in this process reports, for every text of this file. */
static void test_same_reports(Tester *t, Arena *a, ClangVerifier *in_process, ClangVerifier *helper) {
  const char *texts[DPIA_COUNTOF(bad_cases) + DPIA_COUNTOF(more_sources) + 2];
  size_t n = 0;
  texts[n++] = good_kernel;
  texts[n++] = "";
  for (size_t i = 0; i < DPIA_COUNTOF(bad_cases); i++) texts[n++] = bad_cases[i].source;
  for (size_t i = 0; i < DPIA_COUNTOF(more_sources); i++) texts[n++] = more_sources[i];
  for (size_t i = 0; i < n; i++) {
    Buf r1, r2;
    buf_init(&r1, a);
    buf_init(&r2, a);
    bool ok1 = clang_verify(in_process, "same.cl", texts[i], strlen(texts[i]), &r1);
    bool ok2 = clang_verify(helper, "same.cl", texts[i], strlen(texts[i]), &r2);
    check(t, ok1 == ok2 && strcmp(r1.data, r2.data) == 0,
          arena_printf(a, "text %zu: the helper reports what libclang in process reports", i),
          arena_printf(a, "in process (%s):\n%s\nhelper (%s):\n%s", ok1 ? "pass" : "fail", r1.data,
                       ok2 ? "pass" : "fail", r2.data));
  }
}

/* All tests; out of memory longjmps to main.  Every behaviour test runs
 * with both kinds of verifier. */
static void run_tests(Tester *t, Arena *arena) {
  ClangVerifier *v = clang_verifier_new(&clang_opencl);
  check(t, v != NULL, "a verifier can be created", "");
  if (v) {
    test_good(t, arena, v);
    test_bad(t, arena, v);
    test_repeated(t, arena, v, t->rounds);
  }
  /* this program links the library statically, so the helper is not next
   * to it: meson names it (the dpia command finds it next to libdpia.so) */
  ClangVerifier *h = clang_verifier_new_helper(&clang_opencl, t->helper);
  check(t, h != NULL, "a helper verifier can be created (dpia-clang-check is built)", "");
  if (h) {
    printf("clang-verify: the same with the helper process\n");
    test_good(t, arena, h);
    test_bad(t, arena, h);
    test_repeated(t, arena, h, t->rounds / 4 > 0 ? t->rounds / 4 : 1);
    if (v) test_same_reports(t, arena, v, h);
    clang_verifier_free(h);
  }
  clang_verifier_free(v);

  /* no helper there, or one that stops: libclang in process instead */
  check(t, clang_verifier_new_helper(&clang_opencl, "/nonexistent/dpia-clang-check") == NULL,
        "a missing helper gives no verifier", "");
  ClangVerifier *gone = clang_verifier_new_helper(&clang_opencl, "/bin/true");
  check(t, gone != NULL, "a helper that exits at once can be started", "");
  if (gone) {
    Buf report;
    buf_init(&report, arena);
    bool ok = clang_verify(gone, "good.cl", good_kernel, strlen(good_kernel), &report);
    check(t, ok && report.len == 0, "a helper that stopped: verification goes on in process", report.data);
    const BadCase *c = &bad_cases[0];
    buf_clear(&report);
    ok = clang_verify(gone, "bad.cl", c->source, strlen(c->source), &report);
    check(t, !ok && strcmp(nth_line(arena, report.data, 1), c->first_line) == 0,
          "a helper that stopped: errors are still found", report.data);
    clang_verifier_free(gone);
  }
  /* two verifiers at once share nothing */
  ClangVerifier *first = clang_verifier_new(&clang_opencl), *second = clang_verifier_new(&clang_opencl);
  check(t, first && second, "two verifiers can exist at once", "");
  if (first && second) {
    Buf report;
    buf_init(&report, arena);
    bool ok = clang_verify(first, "a.cl", good_kernel, strlen(good_kernel), &report);
    clang_verifier_free(first);
    first = NULL;
    ok = ok && clang_verify(second, "b.cl", good_kernel, strlen(good_kernel), &report);
    check(t, ok, "a second verifier works after the first is freed", report.data);
  }
  clang_verifier_free(first);
  clang_verifier_free(second);

  printf("clang-verify: libclang flags:");
  for (int i = 0; i < clang_opencl.nargs; i++) printf(" %s", clang_opencl.args[i]);
  printf("\n");
}

int main(int argc, char **argv) {
  Tester t = {.rounds = argc > 1 ? atoi(argv[1]) : 200, .helper = argc > 2 && *argv[2] ? argv[2] : NULL};
  if (t.rounds <= 0) t.rounds = 200;
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  Arena arena;
  arena_init(&arena, &mem);
  if (setjmp(oom)) {
    printf("FAIL out of memory\n");
    return 1;
  }
  run_tests(&t, &arena);
  arena_free(&arena);
  printf("clang-verify: %d checks, %d failed\n", t.checks, t.failures);
  return t.failures ? 1 : 0;
}
