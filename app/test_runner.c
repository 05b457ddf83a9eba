/* test_runner.c: dpia test, the golden-file and FileCheck runner for .dpia
 * programs, installed with dpia:
 *
 *   dpia test [--update] [-v] PATH...
 *
 * PATH is a .dpia file or a directory, searched recursively (names sorted;
 * names starting with '.' skipped).  For each X.dpia, in process through
 * dpia_process (the calls `dpia check -v` and `dpia translate` make), with
 * the bare file name X.dpia as the name diagnostics and generated text give
 * it, so that expected files are the same wherever the tree is:
 *
 *   exit status   `dpia check`'s, or when the program checks and is
 *                 translated (below), `dpia translate`'s; it must be the
 *                 number of a `-- exit: N` line, else 1 if X.err exists,
 *                 else 0.  Nothing else is compared when it differs.
 *   X.err         the diagnostics as text (the expected errors)
 *   X.out         what `dpia check -v` prints (each kernel's type)
 *   X.cl, X.json, X.h, X.intermediate, X.imperative
 *                 `dpia translate --emit=opencl|json|header|intermediate|
 *                 imperative`, with the options of the `-- ARGS:` lines
 *   -- expect: TEXT        TEXT occurs in the diagnostics, X.out's text or
 *                 the generated OpenCL
 *   -- expect-not: TEXT    TEXT occurs in none of them
 *   -- CHECK...: PATTERN   FileCheck directives (app/filecheck.c: CHECK,
 *                 -NEXT, -SAME, -NOT, -DAG, -COUNT-n, -LABEL, {{regex}},
 *                 [[VAR:regex]] and [[VAR]]) run against the generated
 *                 OpenCL
 *   -- RUN: ARGS           `dpia run X.dpia ARGS --check` (a child process:
 *                 OpenCL stays out of this one) must exit 0
 *   -- ARGS: OPTIONS       translation options: -k K, --kernel=K,
 *                 --local-size=a[,b[,c]], --global-size=..., --set NAME=V, --no-verify
 *                 (verification is on, as in `dpia translate`), and
 *                 --imperative-defs: code generation alone, for
 *                 hand-written imperative defs (tests/codegen): they are
 *                 generated without the translation (codegen/defs.c),
 *                 twice (the same bytes), each kernel re-parsed by
 *                 libclang; X.cl, X.json and X.err are compared, and the
 *                 exit status is 1 when a def cannot be generated;
 *                 --high-level: checked as `dpia check --high-level`
 *                 (high-level kernels, docs/language.md section 21)
 *
 * Only the expected files that exist are compared; the program is
 * translated only when one of the translation's outputs or a CHECK line
 * asks for it (or `-- exit: 3`, a verification failure, is expected).
 * Each failure is a line `FAIL X.dpia: what` followed by a unified diff
 * (or the FileCheck report, the run's output); then `N passed, M failed`.
 * Exit status 0 if every test passed, 1 if one failed, 2 for a bad command
 * line.  --update rewrites the expected files that exist (it creates
 * none) from the actual outputs, for tests whose exit status is the
 * expected one; the .dpia, its CHECK lines included, is never written.  -v also prints `PASS X.dpia`. */
#define _XOPEN_SOURCE 700 /* sigaltstack, SA_ONSTACK: POSIX with XSI */

#include "test_runner.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dpia_codegen.h"
#include "diff.h"
#include "dpia.h"
#include "filecheck.h"
#include "dpia_front.h"
#include "dpia_verify.h"

static const char test_help[] =
    "usage: dpia test [--update] [-v] PATH...\n"
    "\n"
    "Test every X.dpia under each PATH (a file or a directory, searched\n"
    "recursively) against the files kept next to it:\n"
    "  X.err   expected diagnostics (the program must be rejected: exit 1)\n"
    "  X.out   expected 'dpia check -v' output\n"
    "  X.cl X.json X.h X.intermediate X.imperative\n"
    "          expected 'dpia translate --emit=...' outputs\n"
    "and the lines inside X.dpia:\n"
    "  -- CHECK: / CHECK-NEXT: / CHECK-SAME: / CHECK-NOT: / CHECK-DAG: /\n"
    "  -- CHECK-COUNT-n: / CHECK-LABEL:   FileCheck on the generated OpenCL\n"
    "                                   ({{regex}}, [[VAR:regex]], [[VAR]])\n"
    "  -- RUN: -k K --size N=1024      'dpia run X.dpia ... --check --seed 1' must pass\n"
    "  -- ARGS: -k K --local-size=64   translation options (-k, --kernel=,\n"
    "                                  --local-size=, --global-size=, --set NAME=V,\n"
    "                                  --no-verify,\n"
    "                                  --imperative-defs: hand-written imperative\n"
    "                                  defs, code generation alone;\n"
    "                                  --high-level: checked as check --high-level)\n"
    "  -- exit: N                      the expected exit status\n"
    "  -- expect: TEXT                 TEXT occurs in the diagnostics or outputs\n"
    "  -- expect-not: TEXT             TEXT occurs in none of them\n"
    "Prints 'FAIL X.dpia: what' and a unified diff per failure, then\n"
    "'N passed, M failed'; exit 1 if a test failed.  --update rewrites the\n"
    "expected files that exist from the actual outputs (never X.dpia).\n"
    "-v also prints 'PASS X.dpia'.\n";

typedef struct Runner {
  bool update, verbose;
  int passed, failed;
  TargetVerifier *verifier; /* the default target's: dpia_process verifies with it */
  bool verifier_made;
} Runner;

/* An expected file of the translation and the output it holds. */
typedef struct Expected {
  const char *ext;
  DpiaEmit kind;
} Expected;

static const Expected translation_files[] = {
    {".cl", DPIA_EMIT_OPENCL},
    {".json", DPIA_EMIT_JSON},
    {".h", DPIA_EMIT_HEADER},
    {".intermediate", DPIA_EMIT_INTERMEDIATE},
    {".imperative", DPIA_EMIT_IMPERATIVE},
};

/* One X.dpia under test. */
typedef struct Test {
  Runner *runner;
  Arena *arena;
  const char *path; /* as found under PATH */
  const char *base; /* X.dpia */
  const char *stem; /* path without .dpia: expected files are stem + ext */
  const char *text;
  size_t len;
  /* its lines */
  int exit_line; /* -- exit: N; -1 if none */
  Vec expects, expect_nots, runs, args;
  bool imperative_defs; /* -- ARGS: --imperative-defs */
  bool high_level;      /* -- ARGS: --high-level */
  Buf report; /* its failures, printed at the end of the test */
  int nfailures;
} Test;

/* ---- files ---- */

/* The file at path into the arena, NUL-terminated; NULL if it cannot be
 * read (it does not exist). */
static char *read_text(Arena *a, const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  Buf b;
  buf_init(&b, a);
  bool ok = buf_read(&b, f);
  fclose(f);
  *len = b.len;
  return ok ? b.data : NULL;
}

static bool write_text(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  bool ok = f && fwrite(data, 1, len, f) == len;
  return f && fclose(f) == 0 && ok;
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int compare_names(const void *x, const void *y) {
  return strcmp(*(char *const *)x, *(char *const *)y);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The .dpia files under path into files; false (after a message) when
 * path cannot be read. */
static bool collect(Arena *a, const char *path, Vec *files) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "dpia: error: cannot read '%s': %s\n", path, strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode) && !ends_with(path, ".dpia")) {
    fprintf(stderr, "dpia: error: '%s' is not a .dpia file or a directory\n", path);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    vec_push(a, files, arena_strndup(a, path, strlen(path)));
    return true;
  }
  DIR *dir = opendir(path);
  if (!dir) {
    fprintf(stderr, "dpia: error: cannot read '%s': %s\n", path, strerror(errno));
    return false;
  }
  Vec names = {0};
  const char *sep = ends_with(path, "/") ? "" : "/";
  for (struct dirent *e; (e = readdir(dir));)
    if (e->d_name[0] != '.') vec_push(a, &names, arena_printf(a, "%s%s%s", path, sep, e->d_name));
  closedir(dir);
  if (names.len) qsort(names.items, (size_t)names.len, sizeof names.items[0], compare_names);
  bool ok = true;
  for (int i = 0; i < names.len; i++) {
    const char *name = names.items[i];
    if (stat(name, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) ok &= collect(a, name, files);
    else if (S_ISREG(st.st_mode) && ends_with(name, ".dpia")) vec_push(a, files, (void *)name);
  }
  return ok;
}

/* ---- the test's lines ---- */

/* The text after "-- KEY:" on a line [p, end) (blanks around it dropped),
 * or NULL when the line is not one. */
static const char *line_value(Arena *a, const char *p, const char *end, const char *key) {
  if (end - p < 2 || p[0] != '-' || p[1] != '-') return NULL;
  p += 2;
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  size_t k = strlen(key);
  if ((size_t)(end - p) < k || memcmp(p, key, k) != 0) return NULL;
  p += k;
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
  return arena_strndup(a, p, (size_t)(end - p));
}

static void read_lines(Test *t) {
  t->exit_line = -1;
  for (const char *p = t->text, *stop = t->text + t->len; p < stop;) {
    const char *end = memchr(p, '\n', (size_t)(stop - p));
    if (!end) end = stop;
    const char *v;
    if ((v = line_value(t->arena, p, end, "exit:")) && t->exit_line < 0) t->exit_line = atoi(v);
    else if ((v = line_value(t->arena, p, end, "expect:")) && *v) vec_push(t->arena, &t->expects, (void *)v);
    else if ((v = line_value(t->arena, p, end, "expect-not:")) && *v) vec_push(t->arena, &t->expect_nots, (void *)v);
    else if ((v = line_value(t->arena, p, end, "RUN:"))) vec_push(t->arena, &t->runs, (void *)v);
    else if ((v = line_value(t->arena, p, end, "ARGS:"))) vec_push(t->arena, &t->args, (void *)v);
    p = end + 1;
  }
}

/* The blank-separated words of text. */
static Vec words(Arena *a, const char *text) {
  Vec w = {0};
  for (const char *p = text; *p;) {
    while (*p == ' ' || *p == '\t') p++;
    const char *q = p;
    while (*q && *q != ' ' && *q != '\t') q++;
    if (q > p) vec_push(a, &w, arena_strndup(a, p, (size_t)(q - p)));
    p = q;
  }
  return w;
}

/* ---- failures ---- */

DPIA_PRINTF(2, 3)
static void fail(Test *t, const char *fmt, ...) {
  t->nfailures++;
  emit(&t->report, "FAIL %s: ", t->path);
  va_list ap;
  va_start(ap, fmt);
  vemit(&t->report, fmt, ap);
  va_end(ap);
  buf_putc(&t->report, '\n');
}

/* text under a failure line, indented */
static void detail(Test *t, const char *text) {
  for (const char *p = text; *p;) {
    const char *end = strchr(p, '\n');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    buf_puts(&t->report, "  ");
    buf_put(&t->report, p, n);
    buf_putc(&t->report, '\n');
    p += n + (end != NULL);
  }
}

/* --local-size=a[,b[,c]]: 1 to 3 numbers from 1 to 2^30 */
static bool launch_size(const char *text, long out[3]) {
  char *end = (char *)text;
  for (int d = 0; d < 3; d++) {
    errno = 0;
    out[d] = strtol(text, &end, 10);
    if (end == text || errno || out[d] < 1 || out[d] > (1L << 30)) return false;
    if (*end != ',') break;
    text = end + 1;
  }
  return *end == 0;
}

enum { MAX_SETS = 32 };

/* --set NAME=VALUE appended to opt's settings, in t's arena */
static bool set_value(Test *t, DpiaOptions *opt, const char *binding) {
  const char *eq = strchr(binding, '=');
  if (!eq || eq == binding || !eq[1] || opt->nsets == MAX_SETS) return false;
  char *end;
  errno = 0;
  long long v = strtoll(eq + 1, &end, 10);
  if (*end || errno || v < 0) return false;
  if (!opt->nsets) {
    opt->set_names = NEWARRAY(t->arena, const char *, MAX_SETS);
    opt->set_values = NEWARRAY(t->arena, long long, MAX_SETS);
  }
  ((const char **)opt->set_names)[opt->nsets] = arena_strndup(t->arena, binding, (size_t)(eq - binding));
  ((long long *)opt->set_values)[opt->nsets] = v;
  opt->nsets++;
  return true;
}

/* The options of the -- ARGS: lines into opt; false after a failure. */
static bool translation_options(Test *t, DpiaOptions *opt) {
  for (int i = 0; i < t->args.len; i++) {
    Vec w = words(t->arena, t->args.items[i]);
    for (int k = 0; k < w.len; k++) {
      const char *a = w.items[k];
      if (strcmp(a, "-k") == 0 && k + 1 < w.len) opt->kernel = w.items[++k];
      else if (strncmp(a, "--kernel=", 9) == 0) opt->kernel = a + 9;
      else if (strcmp(a, "--no-verify") == 0) opt->verify = 0;
      else if (strcmp(a, "--imperative-defs") == 0) t->imperative_defs = true;
      else if (strcmp(a, "--high-level") == 0) t->high_level = true;
      else if (strncmp(a, "--local-size=", 13) == 0 && launch_size(a + 13, opt->local_size)) continue;
      else if (strncmp(a, "--global-size=", 14) == 0 && launch_size(a + 14, opt->global_size)) continue;
      else if (strcmp(a, "--set") == 0 && k + 1 < w.len && set_value(t, opt, w.items[k + 1])) k++;
      else {
        fail(t, "bad option '%s' in '-- ARGS:' (-k K, --kernel=K, --local-size=a[,b[,c]], --global-size=..., "
                "--set NAME=VALUE, --no-verify, --imperative-defs, --high-level)", a);
        return false;
      }
    }
  }
  return true;
}

/* ---- comparing ---- */

/* actual against the expected file stem + ext when it exists (what: the
 * actual output's name in the diff); --update writes it instead (but never
 * creates one: which files are kept is the test's choice). */
static void compare(Test *t, const char *ext, const char *what, const char *actual, size_t len) {
  const char *path = arena_printf(t->arena, "%s%s", t->stem, ext);
  size_t elen = 0;
  const char *expected = read_text(t->arena, path, &elen);
  if (!expected) return;
  if (elen == len && memcmp(expected, actual, len) == 0) return;
  if (t->runner->update) {
    if (write_text(path, actual, len)) printf("updated %s\n", path);
    else fail(t, "cannot write %s: %s", path, strerror(errno));
    return;
  }
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  fail(t, "differs from %s (the %s)", base, what);
  diff_unified(t->arena, base, expected, elen, what, actual, len, &t->report);
}

/* The CHECK lines against the generated OpenCL. */
static void check_lines(Test *t, const char *opencl, size_t len) {
  Buf report;
  buf_init(&report, t->arena);
  FilecheckText checks = {t->path, t->text, t->len};
  FilecheckText input = {arena_printf(t->arena, "%s.cl", t->stem), opencl, len};
  int status = filecheck_run(t->arena, &checks, &input, &report);
  if (status == FILECHECK_MATCHED) return;
  fail(t, status == FILECHECK_BAD ? "bad CHECK lines" : "CHECK lines do not hold on the generated OpenCL (%s)",
       input.name);
  buf_put(&t->report, report.data, report.len);
}

/* -- RUN: args: `dpia run X.dpia args --check --seed 1` in a child
 * process, its output shown on failure.  The inputs come from a fixed seed
 * (unless args give one): a test gives the same verdict every time. */
static void run_line(Test *t, const char *args) {
  Vec w = words(t->arena, args);
  const char **argv = NEWARRAY(t->arena, const char *, (size_t)w.len + 7);
  int n = 0;
  bool check = false, seed = false;
  argv[n++] = "dpia";
  argv[n++] = "run";
  argv[n++] = t->path;
  for (int i = 0; i < w.len; i++) {
    argv[n++] = w.items[i];
    check |= strcmp(w.items[i], "--check") == 0;
    seed |= strncmp(w.items[i], "--seed", 6) == 0;
  }
  if (!check) argv[n++] = "--check";
  if (!seed) {
    argv[n++] = "--seed";
    argv[n++] = "1";
  }
  argv[n] = NULL;
  int fds[2];
  fflush(stdout);
  fflush(stderr);
  pid_t pid = pipe(fds) == 0 ? fork() : -1;
  if (pid < 0) {
    fail(t, "RUN %s: cannot start dpia run: %s", args, strerror(errno));
    return;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    execv("/proc/self/exe", (char *const *)argv);
    fprintf(stderr, "cannot run /proc/self/exe: %s\n", strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  Buf out;
  buf_init(&out, t->arena);
  char *chunk = arena_alloc(t->arena, 4096);
  ssize_t got;
  while ((got = read(fds[0], chunk, 4096)) != 0) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    buf_put(&out, chunk, (size_t)got);
  }
  close(fds[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return;
  if (WIFEXITED(st)) fail(t, "RUN %s: dpia run --check exited with %d", args, WEXITSTATUS(st));
  else fail(t, "RUN %s: dpia run --check ended by signal %d", args, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  detail(t, out.data);
}

static TargetVerifier *verifier(Runner *r) {
  if (!r->verifier_made) {
    /* as the dpia command: the helper process unless DPIA_CLANG_HELPER is
     * empty, else libclang in this process */
    const char *helper = getenv("DPIA_CLANG_HELPER");
    if (!helper || *helper) r->verifier = target_default()->verifier_new_helper(helper);
    if (!r->verifier) r->verifier = target_default()->verifier_new();
    r->verifier_made = true;
  }
  return r->verifier;
}

/* The exit status the command line gives status (dpia run's precondition
 * failure is 1). */
static int exit_status(int status) { return status == DPIA_EPRECONDITION ? DPIA_EUSER : status; }

/* The expect, expect-not, CHECK and RUN lines; opencl NULL when there is
 * none (the translation failed or was not made). */
static void test_lines(Test *t, bool has_checks, const char *diags, const char *out, const char *opencl,
                       size_t len) {
  for (int i = 0; i < t->expects.len + t->expect_nots.len; i++) {
    bool not = i >= t->expects.len;
    const char *text = not ? t->expect_nots.items[i - t->expects.len] : t->expects.items[i];
    bool found = strstr(diags, text) || strstr(out, text) || (opencl && strstr(opencl, text));
    if (found == not) fail(t, not ? "unexpected text in the output: %s" : "expected text not in the output: %s", text);
  }
  if (has_checks && !opencl) fail(t, "CHECK lines but no OpenCL (the translation failed)");
  else if (has_checks) check_lines(t, opencl, len);
  for (int i = 0; i < t->runs.len; i++) run_line(t, t->runs.items[i]);
}

/* Everything but the exit status, which matched: the kept files, the
 * expect, CHECK and RUN lines.  wanted: the translation's kept outputs. */
static void compare_outputs(Test *t, int status, unsigned wanted, bool has_checks, const DpiaResult *checked,
                            const DpiaResult *translated) {
  const char *diags = dpia_result_diagnostics(translated ? translated : checked);
  size_t olen = 0;
  const char *out = dpia_result_output(checked, &olen);
  compare(t, ".err", "diagnostics", diags, strlen(diags));
  compare(t, ".out", "check -v output", out, olen);
  for (size_t i = 0; status == DPIA_OK && i < DPIA_COUNTOF(translation_files); i++) {
    const Expected *e = &translation_files[i];
    if (!(wanted & DPIA_EMIT_BIT(e->kind))) continue;
    size_t len = 0;
    const char *text = dpia_result_emitted(translated, e->kind, &len);
    if (text) compare(t, e->ext, arena_printf(t->arena, "--emit=%s output", dpia_emit_name(e->kind)), text, len);
    else fail(t, "no --emit=%s output", dpia_emit_name(e->kind));
  }
  size_t len = 0;
  const char *opencl = status == DPIA_OK && translated ? dpia_result_emitted(translated, DPIA_EMIT_OPENCL, &len) : NULL;
  test_lines(t, has_checks, diags, out, opencl, len);
}

/* -- ARGS: --imperative-defs: the program's imperative defs generated
 * without the translation (codegen/defs.c), twice (the same bytes each
 * time), each kernel re-parsed by libclang; the exit status is 1 when a
 * def cannot be generated. */
static void run_imperative_defs(Test *t, const DpiaOptions *opt, bool has_checks, int want) {
  CodegenOptions co;
  memset(&co, 0, sizeof co);
  for (int d = 0; d < 3; d++) {
    co.local_size[d] = opt->local_size[d];
    co.global_size[d] = opt->global_size[d];
  }
  DefsOutput a, b;
  const Backend *backend = backend_of(target_default()->id);
  codegen_imperative_defs(t->arena, backend, t->base, t->text, t->len, &co, &a);
  codegen_imperative_defs(t->arena, backend, t->base, t->text, t->len, &co, &b);
  if (strcmp(a.opencl.data, b.opencl.data) || strcmp(a.json.data, b.json.data) ||
      strcmp(a.diagnostics.data, b.diagnostics.data))
    fail(t, "not deterministic: two generations differ");
  int status = a.diagnostics.len ? DPIA_EUSER : DPIA_OK;
  if (!a.nkernels && status == DPIA_OK) fail(t, "no imperative def to generate");
  if (status != want) {
    fail(t, "exit %d, expected %d", status, want);
    detail(t, a.diagnostics.data);
    return;
  }
  compare(t, ".err", "diagnostics", a.diagnostics.data, a.diagnostics.len);
  compare(t, ".cl", "generated OpenCL", a.opencl.data, a.opencl.len);
  compare(t, ".json", "generated metadata", a.json.data, a.json.len);
  TargetVerifier *v = verifier(t->runner);
  for (int i = 0; v && i < a.nkernels; i++) {
    Buf report;
    buf_init(&report, t->arena);
    if (!target_default()->verify(v, t->base, a.kernels[i], a.kernel_lens[i], &report)) {
      fail(t, "libclang rejects generated kernel %d", i + 1);
      detail(t, report.data);
    }
  }
  test_lines(t, has_checks, a.diagnostics.data, "", a.nkernels ? a.opencl.data : NULL, a.opencl.len);
}

static void run_test(Test *t) {
  read_lines(t);
  DpiaOptions translate;
  dpia_options_init(&translate);
  translate.action = DPIA_TRANSLATE;
  translate.verify = 1; /* as `dpia translate` */
  translate.emit = DPIA_EMIT_OPENCL;
  translate.tune_cache = "off"; /* the outputs kept are the program's, not this machine's tuning (docs/tune.md) */
  if (!translation_options(t, &translate)) return;
  bool has_checks = filecheck_has_directives(t->text, t->len);
  for (size_t i = 0; i < DPIA_COUNTOF(translation_files); i++)
    if (exists(arena_printf(t->arena, "%s%s", t->stem, translation_files[i].ext)))
      translate.emit_also |= DPIA_EMIT_BIT(translation_files[i].kind);
  int want = t->exit_line >= 0                                   ? t->exit_line
             : exists(arena_printf(t->arena, "%s.err", t->stem)) ? DPIA_EUSER
                                                                 : DPIA_OK;

  if (t->imperative_defs) {
    run_imperative_defs(t, &translate, has_checks, want);
    return;
  }
  DpiaOptions check;
  dpia_options_init(&check);
  check.action = DPIA_CHECK;
  check.verbose = 1;
  check.high_level = t->high_level;
  check.tune_cache = "off";
  /* --set: the program is checked as specialised (asVector V needs V) */
  check.nsets = translate.nsets;
  check.set_names = translate.set_names;
  check.set_values = translate.set_values;
  check.kernel = translate.nsets ? translate.kernel : NULL;
  DpiaResult *checked = NULL, *translated = NULL;
  int status = dpia_process(t->base, t->text, t->len, &check, &checked);
  if (status == DPIA_OK && (translate.emit_also || has_checks || want == DPIA_EVERIFY || translate.nsets ||
                             t->exit_line > 0)) {
    translate.verifier = verifier(t->runner);
    status = dpia_process(t->base, t->text, t->len, &translate, &translated);
  }
  const DpiaResult *last = translated ? translated : checked;
  if (!last) {
    fail(t, "out of memory");
  } else if (exit_status(status) != want) {
    fail(t, "exit %d, expected %d", exit_status(status), want);
    detail(t, dpia_result_diagnostics(last));
  } else {
    compare_outputs(t, status, translate.emit_also, has_checks, checked, translated);
  }
  dpia_result_free(checked);
  dpia_result_free(translated);
}

/* ---- a crash while testing ----
 *
 * dpia tests in process, so a crash of the translator (always a bug) would
 * end the run with the results so far still in stdout's buffer and no word
 * of which file did it.  The runner flushes stdout before each file and,
 * on a fatal signal, writes `FAIL X.dpia: dpia crashed ...` to stderr, then
 * gives the signal back to the handler that was there before (the default,
 * or a sanitizer's, which then reports where), so the run still ends by it
 * and its exit status says so.  A handler can reach no argument: the file
 * under test and the handlers replaced are the runner's only process-wide
 * state, set by `dpia test` alone (never by the library). */

enum { NCRASH_SIGNALS = 5 };
static const int crash_signals[NCRASH_SIGNALS] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction crash_previous[NCRASH_SIGNALS];
static const char *volatile file_under_test;

/* write(2) alone: async-signal-safe */
static void crash_write(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  while (n > 0) {
    ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

static void report_crash(int sig) {
  char number[12];
  int len = 0;
  for (int v = sig; len == 0 || v > 0; v /= 10) number[len++] = (char)('0' + v % 10);
  char text[12];
  for (int i = 0; i < len; i++) text[i] = number[len - 1 - i];
  text[len] = 0;
  const char *path = file_under_test;
  crash_write("FAIL ");
  crash_write(path ? path : "(no file)");
  crash_write(": dpia crashed (signal ");
  crash_write(text);
  crash_write("): a bug in dpia; the files after it were not tested\n");
  /* the handler before ours takes it: returning runs the faulting
   * instruction again (abort() raises again itself) */
  for (int i = 0; i < NCRASH_SIGNALS; i++)
    if (crash_signals[i] == sig) sigaction(sig, &crash_previous[i], NULL);
}

static void catch_crashes(void) {
  /* a stack of its own, so that a stack overflow is reported too */
  static char alternate[1 << 16];
  stack_t st = {.ss_sp = alternate, .ss_size = sizeof alternate};
  sigaltstack(&st, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = report_crash;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NCRASH_SIGNALS; i++) sigaction(crash_signals[i], &sa, &crash_previous[i]);
}

/* DPIA_DEBUG_TEST_CRASH=NAME: the test of a file whose path ends in NAME
 * ends by abort() on purpose, to test the report above (tests/dpiatest):
 * a signal no sanitizer takes first, unlike a fault made on purpose
 * (UBSan reports a store through NULL before it faults) */
static void crash_if_asked(const char *path) {
  const char *name = getenv("DPIA_DEBUG_TEST_CRASH");
  size_t n = name ? strlen(name) : 0, len = strlen(path);
  if (n == 0 || n > len || strcmp(path + len - n, name) != 0) return;
  abort();
}

/* Test one file, print its failures; true if it passed. */
static bool test_file(Runner *r, const char *path) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    fprintf(stderr, "dpia: error: out of memory testing %s\n", path);
    exit(DPIA_EUSAGE);
  }
  Arena arena;
  arena_init(&arena, &mem);
  Test t;
  memset(&t, 0, sizeof t);
  t.runner = r;
  t.arena = &arena;
  t.path = path;
  t.base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  t.stem = arena_strndup(&arena, path, strlen(path) - 5); /* collect took only .dpia files */
  fflush(stdout);
  file_under_test = path;
  crash_if_asked(path);
  buf_init(&t.report, &arena);
  char *text = read_text(&arena, path, &t.len);
  if (!text) fail(&t, "cannot read it: %s", strerror(errno));
  else {
    t.text = text;
    run_test(&t);
  }
  fwrite(t.report.data, 1, t.report.len, stdout);
  if (!t.nfailures && r->verbose) printf("PASS %s\n", path);
  bool passed = t.nfailures == 0;
  file_under_test = NULL;
  arena_free(&arena);
  return passed;
}

int dpia_test_command(int argc, char **argv) {
  Runner r;
  memset(&r, 0, sizeof r);
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    fputs("dpia: error: out of memory\n", stderr);
    return DPIA_EUSAGE;
  }
  Arena arena;
  arena_init(&arena, &mem);
  Vec paths = {0};
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(test_help, stdout);
      arena_free(&arena);
      return DPIA_OK;
    } else if (strcmp(argv[i], "--update") == 0) {
      r.update = true;
    } else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
      r.verbose = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "dpia: error: unknown option '%s' for 'dpia test'\nRun 'dpia test --help' for usage.\n",
              argv[i]);
      arena_free(&arena);
      return DPIA_EUSAGE;
    } else {
      vec_push(&arena, &paths, argv[i]);
    }
  }
  if (!paths.len) {
    fputs("dpia: error: 'dpia test' needs a PATH (a .dpia file or a directory)\n"
          "Run 'dpia test --help' for usage.\n",
          stderr);
    arena_free(&arena);
    return DPIA_EUSAGE;
  }
  Vec files = {0};
  bool ok = true;
  for (int i = 0; i < paths.len; i++) {
    int before = files.len;
    ok &= collect(&arena, paths.items[i], &files);
    if (ok && files.len == before) {
      fprintf(stderr, "dpia: error: no .dpia file under '%s'\n", (const char *)paths.items[i]);
      ok = false;
    }
  }
  if (!ok) {
    arena_free(&arena);
    return DPIA_EUSAGE;
  }
  catch_crashes();
  for (int i = 0; i < files.len; i++) {
    if (test_file(&r, files.items[i])) r.passed++;
    else r.failed++;
  }
  printf("%d passed, %d failed\n", r.passed, r.failed);
  target_default()->verifier_free(r.verifier);
  arena_free(&arena);
  return r.failed ? DPIA_EUSER : DPIA_OK;
}
