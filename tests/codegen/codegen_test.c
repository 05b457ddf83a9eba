/* codegen_test.c: golden tests of OpenCL code generation (codegen/, spec
 * sections 8 and 9).
 *
 *   codegen_test [--update] [--clang PATH] [--tmp DIR] DIR...
 *
 * For every X.dpia of each DIR (hand-written imperative defs, the input
 * shape of codegen/kernel.h), every def whose parameters are acc/exp/var
 * phrases and whose result is comm goes through parse, check, normalize,
 * kernel_from_def, codegen_opencl and codegen_metadata.  Then:
 *   - X.cl must equal the concatenated kernels, X.json the array of their
 *     metadata objects (--update rewrites both from the output);
 *   - a file whose defs cannot be generated has an X.err golden instead
 *     (the rendered diagnostics);
 *   - every `-- expect: TEXT` line of X.dpia must occur in X.cl and every
 *     `-- expect-not: TEXT` must not (structure assertions);
 *   - generating twice gives identical bytes (spec section 1);
 *   - X.json is valid JSON;
 *   - with --clang, each kernel compiles as OpenCL C 1.2
 *     (clang -x cl -cl-std=CL1.2 -fsyntax-only).
 * `-- local-size: a[,b[,c]]` and `-- global-size: ...` lines set the user
 * launch sizes (CodegenOptions, the --local-size / --global-size options). 
 * One line per failure, a summary, exit status 1 if anything failed. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codegen/kernel.h"

typedef struct Tester {
  int checks, failures;
  bool update;
  const char *clang, *tmp;
} Tester;

static void fail(Tester *t, const char *file, const char *what, const char *detail) {
  t->failures++;
  printf("FAIL %s: %s\n", file, what);
  if (detail && *detail) printf("%s\n", detail);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *s = malloc(cap);
  for (size_t r; s && (r = fread(s + n, 1, cap - n - 1, f)) > 0;) {
    n += r;
    if (n + 1 == cap) s = realloc(s, cap *= 2);
  }
  fclose(f);
  if (!s) return NULL;
  s[n] = 0;
  if (len) *len = n;
  return s;
}

static bool write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

/* ---- a small JSON syntax check ---- */

static const char *json_ws(const char *s) {
  while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
  return s;
}

static const char *json_value(const char *s, int depth);

static const char *json_string(const char *s) {
  if (*s++ != '"') return NULL;
  for (; *s != '"'; s++) {
    if ((unsigned char)*s < 0x20) return NULL;
    if (*s == '\\') {
      s++;
      if (*s == 'u') {
        for (int i = 1; i <= 4; i++)
          if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i]) return NULL;
        s += 4;
      } else if (!*s || !strchr("\"\\/bfnrt", *s)) {
        return NULL;
      }
    }
  }
  return s + 1;
}

static const char *json_value(const char *s, int depth) {
  s = json_ws(s);
  if (depth > 100) return NULL;
  if (*s == '"') return json_string(s);
  if (*s == '{' || *s == '[') {
    char close = *s == '{' ? '}' : ']';
    s = json_ws(s + 1);
    if (*s == close) return s + 1;
    for (;;) {
      if (close == '}') {
        s = json_string(json_ws(s));
        if (!s) return NULL;
        s = json_ws(s);
        if (*s++ != ':') return NULL;
      }
      s = json_value(s, depth + 1);
      if (!s) return NULL;
      s = json_ws(s);
      if (*s == close) return s + 1;
      if (*s++ != ',') return NULL;
    }
  }
  if (!strncmp(s, "null", 4) || !strncmp(s, "true", 4)) return s + 4;
  if (!strncmp(s, "false", 5)) return s + 5;
  if (*s == '-' || (*s >= '0' && *s <= '9')) {
    while (strchr("+-0123456789.eE", *s) && *s) s++;
    return s;
  }
  return NULL;
}

static bool json_valid(const char *s) {
  s = json_value(s, 0);
  return s && *json_ws(s) == 0;
}

/* ---- one file ---- */

typedef struct Output {
  char *cl, *json, *err;
  size_t cl_len, json_len, err_len;
  int nkernels;
  char **kernels; /* each kernel's source, for clang */
  size_t *kernel_lens;
} Output;

static char *dup_n(const char *s, size_t n) {
  char *r = malloc(n + 1);
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

static bool imperative_def(const DefInfo *d) {
  if (d->is_kernel || !d->ok || d->result->kind != PT_COMM) return false;
  for (int i = 0; i < d->nparams; i++) {
    PhraseType *t = d->params[i]->type;
    if (t->kind != PT_ACC && t->kind != PT_EXP && !(t->kind == PT_WITH && t->fst->kind == PT_ACC)) return false;
  }
  return true;
}

static void launch_sizes(const char *text, const char *key, int64_t out[3]) {
  const char *l = strstr(text, key);
  if (!l) return;
  l += strlen(key);
  for (int d = 0; d < 3; d++) {
    char *end;
    out[d] = strtoll(l, &end, 10);
    if (*end != ',') break;
    l = end + 1;
  }
}

static void generate(const char *name, const char *text, size_t len, Output *o) {
  memset(o, 0, sizeof *o);
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  Arena arena;
  arena_init(&arena, &mem);
  Interner in;
  intern_init(&in, &arena);
  Diag diag;
  diag_init(&diag, &arena);
  TypeCtx tc;
  type_ctx_init(&tc, &arena);
  Source src;
  source_init(&src, &arena, name, text, len);
  Buf cl, json;
  buf_init(&cl, &arena);
  buf_init(&json, &arena);
  Program *prog = parse_program(&arena, &in, &diag, &src);
  CheckedProgram *cp = diag.nerrors ? NULL : check_program(&arena, &in, &diag, &tc, prog);
  int n = 0;
  o->kernels = calloc(cp ? (size_t)cp->ndefs + 1 : 1, sizeof(char *));
  o->kernel_lens = calloc(cp ? (size_t)cp->ndefs + 1 : 1, sizeof(size_t));
  for (int i = 0; cp && i < cp->ndefs; i++) {
    DefInfo *d = cp->defs[i];
    if (!imperative_def(d)) continue;
    Phrase *body = normalize_def(&arena, &tc, &diag, d);
    if (!body) continue;
    d->body = body;
    ImpKernel *k = kernel_from_def(&arena, &tc, &diag, d, name);
    if (!k) continue;
    CodegenOptions opt = {{0}, {0}, false};
    launch_sizes(text, "-- local-size: ", opt.local_size);
    launch_sizes(text, "-- global-size: ", opt.global_size);
    Buf src_k;
    buf_init(&src_k, &arena);
    if (!codegen_opencl(&arena, &tc, k, &opt, &src_k)) continue;
    if (n) buf_putc(&cl, '\n');
    buf_put(&cl, src_k.data, src_k.len);
    buf_puts(&json, n ? ",\n" : "[\n");
    codegen_metadata(&arena, k, src_k.data, &json);
    o->kernels[n] = dup_n(src_k.data, src_k.len);
    o->kernel_lens[n] = src_k.len;
    n++;
  }
  if (n) buf_puts(&json, "]\n");
  o->nkernels = n;
  Buf err;
  buf_init(&err, &arena);
  diag_render_text(&diag, &err);
  o->cl = dup_n(cl.data, cl.len);
  o->cl_len = cl.len;
  o->json = dup_n(json.data, json.len);
  o->json_len = json.len;
  o->err = dup_n(err.data, err.len);
  o->err_len = err.len;
  arena_free(&arena);
}

static void free_output(Output *o) {
  free(o->cl);
  free(o->json);
  free(o->err);
  for (int i = 0; i < o->nkernels; i++) free(o->kernels[i]);
  free(o->kernels);
  free(o->kernel_lens);
}

static char *path_with(const char *dir, const char *base, const char *ext) {
  size_t n = strlen(dir) + strlen(base) + strlen(ext) + 2;
  char *p = malloc(n);
  snprintf(p, n, "%s/%s%s", dir, base, ext);
  return p;
}

static void golden(Tester *t, const char *file, const char *path, const char *got, size_t len) {
  t->checks++;
  if (t->update) {
    if (len) {
      if (!write_file(path, got, len)) fail(t, file, "cannot write golden", path);
    } else {
      remove(path);
    }
    return;
  }
  size_t glen = 0;
  char *want = read_file(path, &glen);
  if (!want && len == 0) return;
  if (!want) {
    fail(t, file, "missing golden (run with --update after reviewing the output)", path);
    return;
  }
  if (glen != len || memcmp(want, got, len) != 0) {
    fail(t, file, "differs from golden", path);
    printf("--- got:\n%s--- end\n", got);
  }
  free(want);
}

static void expectations(Tester *t, const char *file, const char *text, const char *cl) {
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    bool neg = strncmp(l, "-- expect-not: ", 15) == 0;
    if (!neg && strncmp(l, "-- expect: ", 11) != 0) continue;
    const char *s = l + (neg ? 15 : 11);
    const char *e = strchr(s, '\n');
    char *want = dup_n(s, e ? (size_t)(e - s) : strlen(s));
    t->checks++;
    if ((strstr(cl, want) != NULL) == neg) fail(t, file, neg ? "unexpected text in output" : "expected text missing", want);
    free(want);
  }
}

static void clang_compile(Tester *t, const char *file, const char *base, int i, const char *src, size_t len) {
  if (!t->clang) return;
  char idx[32];
  snprintf(idx, sizeof idx, ".%d.cl", i);
  char *path = path_with(t->tmp, base, idx);
  t->checks++;
  if (!write_file(path, src, len)) {
    fail(t, file, "cannot write temporary file", path);
    free(path);
    return;
  }
  size_t n = strlen(t->clang) + 2 * strlen(path) + 200;
  char *cmd = malloc(n);
  snprintf(cmd, n, "'%s' -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only '%s' 2>&1", t->clang, path);
  FILE *p = popen(cmd, "r");
  size_t cap = 1024, m = 0;
  char *outp = malloc(cap);
  for (size_t r; p && (r = fread(outp + m, 1, cap - m - 1, p)) > 0;) {
    m += r;
    if (m + 1 == cap) outp = realloc(outp, cap *= 2);
  }
  outp[m] = 0;
  int status = p ? pclose(p) : -1;
  if (status != 0 || strstr(outp, "warning:")) fail(t, file, "clang rejects the generated OpenCL C", outp);
  free(outp);
  free(cmd);
  free(path);
}

static void run_file(Tester *t, const char *dir, const char *entry) {
  size_t blen = strlen(entry) - 5;
  char *base = dup_n(entry, blen);
  char *path = path_with(dir, base, ".dpia");
  size_t len;
  char *text = read_file(path, &len);
  if (!text) {
    fail(t, entry, "cannot read", path);
    return;
  }
  Output a, b;
  generate(entry, text, len, &a);
  generate(entry, text, len, &b);
  t->checks++;
  if (a.cl_len != b.cl_len || memcmp(a.cl, b.cl, a.cl_len) || a.json_len != b.json_len || memcmp(a.json, b.json, a.json_len) ||
      strcmp(a.err, b.err))
    fail(t, entry, "not deterministic: two runs differ", NULL);
  char *pcl = path_with(dir, base, ".cl"), *pjson = path_with(dir, base, ".json"), *perr = path_with(dir, base, ".err");
  golden(t, entry, pcl, a.cl, a.cl_len);
  golden(t, entry, pjson, a.json, a.json_len);
  golden(t, entry, perr, a.err, a.err_len);
  expectations(t, entry, text, a.cl);
  if (a.json_len) {
    t->checks++;
    if (!json_valid(a.json)) fail(t, entry, "metadata is not valid JSON", a.json);
  }
  if (!a.nkernels && !a.err_len) fail(t, entry, "no imperative def to generate", NULL);
  for (int i = 0; i < a.nkernels; i++) clang_compile(t, entry, base, i, a.kernels[i], a.kernel_lens[i]);
  free_output(&a);
  free_output(&b);
  free(pcl);
  free(pjson);
  free(perr);
  free(text);
  free(path);
  free(base);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  Tester t = {0};
  t.tmp = ".";
  int ndirs = 0;
  const char *dirs[16];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--update")) t.update = true;
    else if (!strcmp(argv[i], "--clang") && i + 1 < argc) t.clang = argv[++i];
    else if (!strcmp(argv[i], "--tmp") && i + 1 < argc) t.tmp = argv[++i];
    else if (ndirs < 16) dirs[ndirs++] = argv[i];
  }
  if (t.clang && !*t.clang) t.clang = NULL;
  if (!t.clang) printf("note: no clang given, the generated OpenCL C is not compiled\n");
  for (int d = 0; d < ndirs; d++) {
    DIR *dh = opendir(dirs[d]);
    if (!dh) {
      printf("FAIL cannot open %s\n", dirs[d]);
      return 1;
    }
    int n = 0, cap = 64;
    char **names = malloc(sizeof(char *) * (size_t)cap);
    for (struct dirent *e; (e = readdir(dh));) {
      size_t l = strlen(e->d_name);
      if (l <= 5 || strcmp(e->d_name + l - 5, ".dpia")) continue;
      if (n == cap) names = realloc(names, sizeof(char *) * (size_t)(cap *= 2));
      names[n++] = dup_n(e->d_name, l);
    }
    closedir(dh);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
      run_file(&t, dirs[d], names[i]);
      free(names[i]);
    }
    free(names);
  }
  printf("%d checks, %d failures\n", t.checks, t.failures);
  return t.failures ? 1 : 0;
}
