/* batch_test.c: `dpia batch` through dpia_batch (dpia.h), on inline
 * requests: good lines with several outputs, verification on and off,
 * programs with errors, invalid JSON, missing and ill-typed fields, ids of
 * every JSON kind echoed as given, blank and CRLF lines, a last line
 * without a newline, and allocation failure at every allocation (each line
 * still gets one response and the batch goes on).  Every response line is
 * parsed with the strict parser of app/json.h.
 *
 * usage: batch_test SAMPLES_DIR */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "dpia.h"
#include "json.h"

#include "tests/test_check.h"

static Arena arena;

/* run a batch on input; the responses, parsed, in *lines */
static int run_batch(const char *input, const DpiaOptions *defaults, const Json ***lines, int *nlines,
                     char **raw) {
  FILE *in = fmemopen((void *)input, strlen(input), "r");
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  int status = dpia_batch(in, out, defaults);
  fclose(in);
  fclose(out);
  *raw = text;
  *nlines = 0;
  *lines = NULL;
  int cap = 0;
  for (char *line = text; *line;) {
    char *end = strchr(line, '\n');
    CHECK(end != NULL, "response without a newline: %s", line);
    if (!end) break;
    Buf err;
    buf_init(&err, &arena);
    const Json *v = json_parse(&arena, line, (size_t)(end - line), &err);
    CHECK(v && v->kind == JSON_OBJECT, "response is not a JSON object (%s): %.*s", err.data, (int)(end - line), line);
    if (*nlines == cap) {
      cap = cap ? 2 * cap : 16;
      *lines = realloc(*lines, sizeof **lines * (size_t)cap);
    }
    (*lines)[(*nlines)++] = v;
    line = end + 1;
  }
  return status;
}

static const char *str(const Json *v, const char *key) {
  const Json *m = json_get(v, key);
  return m && m->kind == JSON_STRING ? m->str : "";
}

static long long num(const Json *v, const char *key) {
  long long n = -1;
  json_integer(json_get(v, key), -1000, 1000, &n);
  return n;
}

static const char *id_text(const Json *v) {
  Buf b;
  buf_init(&b, &arena);
  const Json *id = json_get(v, "id");
  if (id) json_write(&b, id);
  return b.data;
}

/* the first diagnostic's message */
static const char *message(const Json *v) {
  const Json *d = json_get(v, "diagnostics");
  if (!d || d->kind != JSON_ARRAY || d->n == 0) return "";
  return str(d->items[0], "message");
}

/* a JSON string literal of a C string, for building requests */
static const char *quote(const char *s) {
  Buf b;
  buf_init(&b, &arena);
  emit_json_string(&b, s);
  return b.data;
}

static char *slurp(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  Buf b;
  buf_init(&b, &arena);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_put(&b, chunk, n);
  fclose(f);
  return b.data;
}

/* dpia translate's output for comparison */
static const char *translate(const char *name, const char *text, DpiaEmit kind, int verify) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.emit = kind;
  opt.verify = verify;
  DpiaResult *r;
  dpia_process(name, text, strlen(text), &opt, &r);
  const char *out = arena_strndup(&arena, dpia_result_output(r, NULL), strlen(dpia_result_output(r, NULL)));
  dpia_result_free(r);
  return out;
}

static void test_requests(const char *samples) {
  const char *gemv = slurp(samples, "gemv.dpia");
  const char *scal = slurp(samples, "scal.dpia");
  const char *bad = "kernel k (N: nat) (xs: [N]float) =\n  xs |> mapGlobal (\\x -> x + nope)\n";
  Buf in;
  buf_init(&in, &arena);
  /* 1: three outputs, verified */
  emit(&in, "{\"id\": 1, \"source\": %s, \"name\": \"gemv.dpia\", \"emit\": [\"opencl\", \"json\", \"header\"]}\n",
       quote(gemv));
  /* 2: one kernel, a local size, no verification, emit as a string */
  emit(&in, "{\"id\": \"two\", \"source\": %s, \"kernel\": \"scalVec\", \"local_size\": [32], \"verify\": false, "
            "\"emit\": \"opencl\"}\n",
       quote(scal));
  /* 3: a program with an error */
  emit(&in, "{\"id\": 3, \"source\": %s}\n", quote(bad));
  /* 4: invalid JSON */
  emit(&in, "{\"id\": 4, \"source\": \n");
  /* 5: missing source */
  emit(&in, "{\"id\": {\"batch\": [5, 5.0e0]}, \"kernel\": \"k\"}\n");
  /* blank lines are skipped */
  emit(&in, "\n   \t\n");
  /* 6..12: ill-typed or unknown fields */
  emit(&in, "{\"id\": 6, \"source\": 42}\n");
  emit(&in, "{\"id\": 7, \"source\": \"x\", \"emit\": [\"pdf\"]}\n");
  emit(&in, "{\"id\": 8, \"source\": \"x\", \"local_size\": [0]}\n");
  emit(&in, "{\"id\": 9, \"source\": \"x\", \"verify\": \"yes\"}\n");
  emit(&in, "{\"id\": 10, \"source\": \"x\", \"tile\": [1]}\n");
  emit(&in, "[10, 11]\n");
  emit(&in, "{\"id\": 12, \"source\": \"x\", \"action\": \"check\", \"emit\": \"json\"}\n");
  /* 13: no such kernel (a bad request, as on the command line) */
  emit(&in, "{\"id\": 13, \"source\": %s, \"kernel\": \"nope\"}\n", quote(scal));
  /* 14: check with CRLF; 15: verify */
  emit(&in, "{\"id\": 14, \"source\": %s, \"action\": \"check\"}\r\n", quote(scal));
  emit(&in, "{\"id\": 15, \"source\": %s, \"action\": \"verify\"}\n", quote(gemv));
  /* 16: the last line, without a newline, and an id that is null */
  emit(&in, "{\"id\": null, \"source\": %s, \"emit\": [\"imperative\", \"intermediate\"]}", quote(scal));

  const Json **r;
  int n;
  char *raw;
  int status = run_batch(in.data, NULL, &r, &n, &raw);
  CHECK(status == DPIA_OK, "batch status %d", status);
  CHECK(n == 16, "16 responses, got %d:\n%s", n, raw);
  if (n != 16) return;

  /* 1 */
  CHECK(strcmp(id_text(r[0]), "1") == 0 && strcmp(str(r[0], "status"), "ok") == 0 && num(r[0], "exit_code") == 0,
        "line 1 ok: %s", message(r[0]));
  const Json *outs = json_get(r[0], "outputs");
  CHECK(outs && outs->kind == JSON_OBJECT && outs->n == 3, "line 1: three outputs");
  CHECK(strcmp(str(outs, "opencl"), translate("gemv.dpia", gemv, DPIA_EMIT_OPENCL, 1)) == 0, "line 1: opencl");
  CHECK(strcmp(str(outs, "header"), translate("gemv.dpia", gemv, DPIA_EMIT_HEADER, 1)) == 0, "line 1: header");
  const Json *meta = json_get(outs, "json");
  CHECK(meta && meta->kind == JSON_ARRAY && meta->n == 1 && strcmp(str(meta->items[0], "kernel"), "gemv") == 0,
        "line 1: the metadata is a JSON value");
  {
    Buf want;
    buf_init(&want, &arena);
    const char *text = translate("gemv.dpia", gemv, DPIA_EMIT_JSON, 1);
    Buf err;
    buf_init(&err, &arena);
    json_write(&want, json_parse(&arena, text, strlen(text), &err));
    Buf got;
    buf_init(&got, &arena);
    json_write(&got, meta);
    CHECK(strcmp(want.data, got.data) == 0, "line 1: the metadata equals --emit=json");
  }
  const Json *diags = json_get(r[0], "diagnostics");
  CHECK(diags && diags->kind == JSON_ARRAY && diags->n == 0, "line 1: no diagnostics");
  /* 2 */
  outs = json_get(r[1], "outputs");
  CHECK(strcmp(id_text(r[1]), "\"two\"") == 0 && strcmp(str(r[1], "status"), "ok") == 0, "line 2 ok: %s",
        message(r[1]));
  CHECK(outs && outs->n == 1 && strstr(str(outs, "opencl"), "reqd_work_group_size(32, 1, 1)") &&
            strstr(str(outs, "opencl"), "void scalVec(") && !strstr(str(outs, "opencl"), "void scal("),
        "line 2: scalVec only, local size 32");
  /* 3 */
  CHECK(strcmp(str(r[2], "status"), "error") == 0 && num(r[2], "exit_code") == 1 && !json_get(r[2], "outputs"),
        "line 3 is an error");
  diags = json_get(r[2], "diagnostics");
  CHECK(diags && diags->n == 1 && num(diags->items[0], "line") == 2 && strstr(message(r[2]), "nope") &&
            strcmp(str(diags->items[0], "file"), "<line 3>") == 0 && strcmp(str(diags->items[0], "code"), "E0201") == 0,
        "line 3: the diagnostic (E0201) points at nope on line 2 of <line 3>");
  /* 4 */
  CHECK(strcmp(id_text(r[3]), "null") == 0 && strcmp(str(r[3], "status"), "bad_request") == 0 &&
            num(r[3], "exit_code") == 2 && strstr(message(r[3]), "line 4 is not valid JSON") &&
            strcmp(str(json_get(r[3], "diagnostics")->items[0], "code"), "E0001") == 0,
        "line 4: invalid JSON: %s", message(r[3]));
  /* 5: the id echoed as written */
  CHECK(strcmp(id_text(r[4]), "{\"batch\": [5, 5.0e0]}") == 0 && strcmp(str(r[4], "status"), "bad_request") == 0 &&
            strstr(message(r[4]), "missing field \"source\""),
        "line 5: missing source, id %s: %s", id_text(r[4]), message(r[4]));
  /* 6.. (the blank lines count: line numbers are those of the input) */
  static const struct {
    const char *id, *why;
  } bads[] = {
      {"6", "line 8: \"source\" must be a string, not a number"},
      {"7", "unknown emit kind \"pdf\""},
      {"8", "\"local_size\" must be an array of 1 to 3 positive integers"},
      {"9", "\"verify\" must be true or false"},
      {"10", "unknown field \"tile\""},
      {"null", "a request must be a JSON object, not an array"},
      {"12", "\"emit\" applies to the action translate only"},
  };
  for (int i = 0; i < 7; i++) {
    const Json *v = r[5 + i];
    CHECK(strcmp(id_text(v), bads[i].id) == 0 && strcmp(str(v, "status"), "bad_request") == 0 &&
              strstr(message(v), bads[i].why),
          "response %d: want id %s and '%s', got %s and '%s'", 6 + i, bads[i].id, bads[i].why, id_text(v),
          message(v));
  }
  /* 13 */
  CHECK(strcmp(str(r[12], "status"), "bad_request") == 0 && strstr(message(r[12]), "no kernel named 'nope'"),
        "line 13: %s", message(r[12]));
  /* 14, 15 */
  CHECK(strcmp(str(r[13], "status"), "ok") == 0 && !json_get(r[13], "outputs"), "line 14: check");
  CHECK(strcmp(str(r[14], "status"), "ok") == 0 && !json_get(r[14], "outputs"), "line 15: verify");
  /* 16 */
  outs = json_get(r[15], "outputs");
  CHECK(strcmp(id_text(r[15]), "null") == 0 && outs && outs->n == 2 &&
            strcmp(outs->keys[0], "intermediate") == 0 && strstr(str(outs, "imperative"), "parforGlobal"),
        "line 16: two stages");
  free(raw);
  free(r);
}

/* every allocation can fail: each line still gets one response */
typedef struct Budget {
  long left;
} Budget;

static void *limited(void *user, size_t size) {
  Budget *b = user;
  if (b->left-- <= 0) return NULL;
  return malloc(size);
}

static void release(void *user, void *p) {
  (void)user;
  free(p);
}

static void test_out_of_memory(const char *samples) {
  const char *scal = slurp(samples, "scal.dpia");
  Buf in;
  buf_init(&in, &arena);
  emit(&in, "{\"id\": 1, \"source\": %s, \"verify\": false, \"emit\": [\"opencl\", \"json\"]}\n", quote(scal));
  emit(&in, "not json\n");
  emit(&in, "{\"id\": 3, \"source\": %s, \"action\": \"check\"}\n", quote(scal));
  int complete = 0;
  for (long k = 1; k < 4000; k += k < 200 ? 1 : 37) {
    Budget budget = {k};
    DpiaOptions opt;
    dpia_options_init(&opt);
    opt.alloc = limited;
    opt.release = release;
    opt.alloc_user = &budget;
    const Json **r;
    int n;
    char *raw;
    int status = run_batch(in.data, &opt, &r, &n, &raw);
    if (status == DPIA_EINTERNAL) {
      CHECK(n == 0, "budget %ld: no state, no responses", k);
    } else {
      CHECK(status == DPIA_OK && n == 3, "budget %ld: status %d, %d responses:\n%s", k, status, n, raw);
      for (int i = 0; i < n; i++) {
        /* out of memory in the translation is its error; in the batch, an
         * internal error */
        const char *st = str(r[i], "status");
        bool oom = strcmp(message(r[i]), "out of memory") == 0 &&
                   (strcmp(st, "internal_error") == 0 || strcmp(st, "error") == 0);
        CHECK(strcmp(st, i == 1 ? "bad_request" : "ok") == 0 || oom, "budget %ld line %d: %s (%s)", k, i + 1, st,
              message(r[i]));
      }
      complete += n == 3 && strcmp(str(r[0], "status"), "ok") == 0 && strcmp(str(r[2], "status"), "ok") == 0;
    }
    free(raw);
    free(r);
  }
  CHECK(complete > 0, "with enough memory every line succeeds");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: batch_test SAMPLES_DIR\n");
    return 2;
  }
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  arena_init(&arena, &mem);
  test_requests(argv[1]);
  test_out_of_memory(argv[1]);
  arena_free(&arena);
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("ok\n");
  return failures != 0;
}
