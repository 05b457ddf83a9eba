/* batch.c: `dpia batch` (spec section 9): JSON lines in, JSON lines out.
 *
 * Each input line is one request object:
 *   {"id": 7, "source": "kernel k ...", "kernel": "k", "emit": ["opencl", "json"],
 *    "local_size": [64], "global_size": [1024], "verify": true,
 *    "action": "translate", "name": "k.dpia", "source_name": "k.dpia", "stamp": false}
 * where only "source" is required: "id" is any JSON value (echoed, null if
 * absent), "action" is "translate" (default), "check" or "verify", "emit"
 * one kind or a list (default "opencl"; the kinds of --emit), "verify"
 * defaults to the defaults' verify (true without defaults, as in `dpia
 * translate`; false with `dpia batch --no-verify`), "name" is the file name the
 * diagnostics use (default "<line N>"), "source_name" the name generated text
 * gives the source (default "name"), "stamp" true names dpia's version in
 * generated text (default false), "set" the values of tune parameters
 * ({"WG": 128}, as --set WG=128), "target" the language generated
 * ("opencl", the default; as --target).  Any other member is an error.
 *
 * "action": "run" runs the kernel on the OpenCL device of the defaults
 * (`dpia run --json`): "kernel" chooses it when the source has several,
 * "sizes" gives its nat parameters ({"N": 1048576}, as --size), "repeat"
 * the timed launches (default 1), "check" true compares with the
 * reference interpreter, "seed" the random inputs (default 1).  The
 * response's "run" is the report of `dpia run --json` (kernel, device,
 * sizes, NDRange, times, check); a precondition that the sizes violate is
 * status precondition_failed (exit code 1, as the command's).
 *
 * "action": "rewrite" is `dpia rewrite` (docs/language.md section 21) on
 * the kernel "kernel" (required), whose body may be high-level: without
 * "apply", the response's "outputs" is {"positions": [...]}, the
 * "positions" of `--list --json`; with "apply": "RULE@PATH" and the
 * rule's "params" ({"n": 128}, as --param n=128), it is {"program":
 * "..."}, the whole program rewritten, as dpia source, which checks as
 * `dpia check --high-level`; a rule refused is status error with its code
 * (E1101-E1105).  "high_level": true with "action": "check" is `dpia check
 * --high-level` (a kernel that only lacks a strategy gets the note E0607).
 * So a driver in any language derives strategies by paths and rule names
 * alone, never reading or writing dpia's syntax.
 *
 * Each request gets one response line, in order, flushed at once:
 *   {"id": 7, "status": "ok", "exit_code": 0,
 *    "outputs": {"opencl": "kernel void k(...", "json": {"kernel": "k", ...}},
 *    "diagnostics": []}
 * status is ok, error (in the program), bad_request (the line: invalid
 * JSON, missing or ill-typed fields), verification_failed,
 * opencl_unavailable or internal_error, with the exit code `dpia translate`
 * would give; outputs (only when ok and translating) holds each kind asked
 * for, as a string except "json", which is the metadata value itself;
 * diagnostics is the JSON array of --diagnostics=json (each error with its
 * code, docs/errors.md).  A bad line gets a response with its id (null if
 * it has none) and an error of code E0001, and the batch goes on; blank
 * lines are skipped.  One libclang verifier serves every line.
 *
 * Memory: each line has its own arena, freed when its response is
 * written; running out of memory answers that line with internal_error. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dpia_front.h"
#include "dpia.h"
#include "json.h"

/* what a response says for an exit code */
#define DPIA_BATCH_STATUSES(X)                                                                                         \
  X(DPIA_OK, "ok")                                                                                                     \
  X(DPIA_EUSER, "error")                                                                                               \
  X(DPIA_EUSAGE, "bad_request")                                                                                        \
  X(DPIA_EVERIFY, "verification_failed")                                                                               \
  X(DPIA_EOPENCL, "opencl_unavailable")                                                                                \
  X(DPIA_EPRECONDITION, "precondition_failed")                                                                         \
  X(DPIA_EINTERNAL, "internal_error")

static const char *status_name(int code) {
  switch (code) {
#define X(c, s) \
  case c: return s;
    DPIA_BATCH_STATUSES(X)
#undef X
  }
  return "internal_error";
}

/* The state of a batch.  It lives in allocated memory, not in
 * dpia_batch's frame: it changes between the setjmp and a longjmp on out
 * of memory, which would leave a local variable indeterminate. */
typedef struct Batch {
  FILE *in, *out;
  const DpiaOptions *defaults;
  DpiaVerifier *verifier; /* made on first use unless the defaults give one */
  bool own_verifier;
  long line;
  DpiaMem mem;
  /* the allocator of every line's arenas where the defaults give none:
   * the blocks of one line are the next line's (util.h, BlockCache) */
  BlockCache blocks;
  bool cached;
  jmp_buf oom;
  Arena arena;          /* of the current line */
  DpiaResult *pending;  /* the current line's result, until freed */
  bool read_failed, write_failed;
} Batch;

typedef struct Request {
  const Json *id;
  const char *source;
  size_t source_len;
  const char *name;
  DpiaOptions opt;
  bool want[DPIA_EMIT_SPACE + 1];
} Request;

/* ---- reading ---- */

/* the next line into b (without its newline); false at the end of input */
static bool read_line(FILE *in, Buf *b, bool *failed) {
  char chunk[4096];
  bool any = false;
  while (fgets(chunk, sizeof chunk, in)) {
    any = true;
    size_t n = strlen(chunk);
    bool end = n > 0 && chunk[n - 1] == '\n';
    buf_put(b, chunk, end ? n - 1 : n);
    if (end) return true;
  }
  *failed = ferror(in) != 0;
  return any;
}

static bool blank(const Buf *b) {
  for (size_t i = 0; i < b->len; i++)
    if (!strchr(" \t\r", b->data[i])) return false;
  return true;
}

/* ---- requests ---- */

static bool bad(Buf *why, const char *fmt, const char *arg) {
  emit(why, fmt, arg);
  return false;
}

static bool launch_sizes(const Json *v, const char *field, long out[3], Buf *why) {
  if (!v) return true;
  if (v->kind != JSON_ARRAY || v->n < 1 || v->n > 3)
    return bad(why, "\"%s\" must be an array of 1 to 3 positive integers", field);
  for (int d = 0; d < v->n; d++) {
    long long n;
    if (!json_integer(v->items[d], 1, 1L << 30, &n))
      return bad(why, "\"%s\" must be an array of 1 to 3 positive integers (at most 2^30)", field);
    out[d] = (long)n;
  }
  return true;
}

static bool emit_kind(Request *rq, const Json *v, bool first, Buf *why) {
  if (v->kind != JSON_STRING) return bad(why, "%s", "\"emit\" must be a string or an array of strings");
  int k = dpia_emit_from_name(v->str);
  if (k < 0)
    return bad(why, "unknown emit kind \"%s\" (opencl, intermediate, imperative, json, header, space)", v->str);
  if (first) rq->opt.emit = (DpiaEmit)k;
  else rq->opt.emit_also |= DPIA_EMIT_BIT(k);
  rq->want[k] = true;
  return true;
}

static const char *const request_fields[] = {"id",         "source",      "name",   "action",      "kernel",     "emit",
                                             "local_size", "global_size", "verify", "source_name", "stamp",      "set",
                                             "sizes",      "repeat",      "check",  "seed",        "target",     "high_level",
                                             "apply",      "params"};

/* a natural number member of v (absent: *out unchanged) */
static bool natural(const Json *v, const char *field, long long lo, long long *out, Buf *why) {
  const Json *x = json_get(v, field);
  if (!x) return true;
  if (!json_integer(x, lo, 1LL << 62, out)) return bad(why, "\"%s\" must be a natural number", field);
  return true;
}

/* "action": "run"'s members (and none of them for another action) */
static bool run_fields(Arena *a, const Json *v, Request *rq, Buf *why) {
  static const char *const only_run[] = {"sizes", "repeat", "check", "seed"};
  bool run = rq->opt.action == DPIA_RUN;
  for (size_t i = 0; i < DPIA_COUNTOF(only_run); i++)
    if (!run && json_get(v, only_run[i])) return bad(why, "\"%s\" applies to the action run only", only_run[i]);
  rq->opt.run_json = run;
  rq->opt.nsizes = 0;
  if (!run) return true;
  const Json *sizes = json_get(v, "sizes");
  if (sizes) {
    if (sizes->kind != JSON_OBJECT) return bad(why, "%s", "\"sizes\" must be an object of nat parameter values");
    const char **names = NEWARRAY(a, const char *, sizes->n > 0 ? sizes->n : 1);
    long long *values = NEWARRAY(a, long long, sizes->n > 0 ? sizes->n : 1);
    for (int i = 0; i < sizes->n; i++) {
      if (!json_integer(sizes->items[i], 1, INT32_MAX, &values[i]))
        return bad(why, "\"sizes\": the value of \"%s\" must be a positive integer (at most 2^31-1)", sizes->keys[i]);
      names[i] = sizes->keys[i];
    }
    rq->opt.nsizes = sizes->n;
    rq->opt.size_names = names;
    rq->opt.size_values = values;
  }
  long long repeat = 1, seed = 1;
  if (!natural(v, "repeat", 1, &repeat, why) || !natural(v, "seed", 0, &seed, why)) return false;
  if (repeat > 1000000) return bad(why, "%s", "\"repeat\" must be at most 1000000");
  rq->opt.repeat = (int)repeat;
  rq->opt.seed = (unsigned long long)seed;
  const Json *check = json_get(v, "check");
  if (check && check->kind != JSON_BOOL) return bad(why, "%s", "\"check\" must be true or false");
  rq->opt.check = check && check->boolean;
  return true;
}

/* "action": "rewrite"'s members (and none of them for another action):
 * "apply" RULE@PATH and its "params" ({"n": 64}), or neither: the
 * listing.  "high_level" belongs to check (dpia check --high-level). */
static bool rewrite_fields(Arena *a, const Json *v, Request *rq, Buf *why) {
  bool rewrite = rq->opt.action == DPIA_REWRITE;
  const Json *apply = json_get(v, "apply"), *params = json_get(v, "params"), *high = json_get(v, "high_level");
  if (!rewrite && (apply || params)) return bad(why, "\"%s\" applies to the action rewrite only", apply ? "apply" : "params");
  if (high && rq->opt.action != DPIA_CHECK) return bad(why, "%s", "\"high_level\" applies to the action check only");
  if (high && high->kind != JSON_BOOL) return bad(why, "%s", "\"high_level\" must be true or false");
  rq->opt.high_level = high && high->boolean;
  rq->opt.rewrite = NULL;
  if (!rewrite) return true;
  if (!rq->opt.kernel) return bad(why, "%s", "the action rewrite works on one kernel: \"kernel\" names it");
  DpiaRewrite *rw = NEW(a, DpiaRewrite);
  rq->opt.rewrite = rw;
  if (!apply) {
    if (params) return bad(why, "%s", "\"params\" goes with \"apply\"");
    rw->list = rw->json = 1;
    return true;
  }
  if (apply->kind != JSON_STRING || strlen(apply->str) != apply->len)
    return bad(why, "%s", "\"apply\" must be a string RULE@PATH (a rule and a path of the listing)");
  rw->apply = apply->str;
  if (!params) return true;
  if (params->kind != JSON_OBJECT) return bad(why, "%s", "\"params\" must be an object of the rule's parameters");
  const char **names = NEWARRAY(a, const char *, params->n > 0 ? params->n : 1);
  long long *values = NEWARRAY(a, long long, params->n > 0 ? params->n : 1);
  for (int i = 0; i < params->n; i++) {
    if (!json_integer(params->items[i], 0, 1LL << 62, &values[i]))
      return bad(why, "\"params\": the value of \"%s\" must be a natural number", params->keys[i]);
    names[i] = params->keys[i];
  }
  rw->nparams = params->n;
  rw->param_names = names;
  rw->param_values = values;
  return true;
}

/* The request of one parsed line; false after a message in why. */
static bool read_request(Batch *b, Arena *a, const Json *v, Request *rq, Buf *why) {
  if (v->kind != JSON_OBJECT) return bad(why, "a request must be a JSON object, not %s", json_kind_name(v->kind));
  rq->id = json_get(v, "id");
  for (int i = 0; i < v->n; i++) {
    bool known = false;
    for (size_t f = 0; f < DPIA_COUNTOF(request_fields); f++) known |= strcmp(v->keys[i], request_fields[f]) == 0;
    if (!known) return bad(why, "unknown field \"%s\"", v->keys[i]);
  }
  rq->opt = *b->defaults;
  if (b->cached) {
    rq->opt.alloc = block_cache_alloc;
    rq->opt.release = block_cache_release;
    rq->opt.alloc_user = &b->blocks;
  }
  rq->opt.action = DPIA_TRANSLATE;
  rq->opt.verify = b->defaults->verify;
  rq->opt.emit = DPIA_EMIT_OPENCL;
  rq->opt.emit_also = 0;
  rq->opt.diagnostics_json = 1;
  rq->opt.kernel = NULL;
  for (int d = 0; d < 3; d++) rq->opt.local_size[d] = rq->opt.global_size[d] = 0;

  const Json *source = json_get(v, "source");
  if (!source) return bad(why, "%s", "missing field \"source\" (the program text)");
  if (source->kind != JSON_STRING) return bad(why, "\"source\" must be a string, not %s", json_kind_name(source->kind));
  rq->source = source->str;
  rq->source_len = source->len;

  const Json *name = json_get(v, "name");
  if (name && (name->kind != JSON_STRING || strlen(name->str) != name->len || !name->len))
    return bad(why, "%s", "\"name\" must be a non-empty string");
  rq->name = name ? name->str : arena_printf(a, "<line %ld>", b->line);
  rq->opt.source_name = NULL;
  const Json *source_name = json_get(v, "source_name");
  if (source_name && (source_name->kind != JSON_STRING || strlen(source_name->str) != source_name->len || !source_name->len))
    return bad(why, "%s", "\"source_name\" must be a non-empty string");
  if (source_name) rq->opt.source_name = source_name->str;
  const Json *stamp = json_get(v, "stamp");
  if (stamp && stamp->kind != JSON_BOOL) return bad(why, "%s", "\"stamp\" must be true or false");
  rq->opt.stamp = stamp ? stamp->boolean : b->defaults->stamp;
  /* a name dpia does not know is the translation's error (E0810) */
  const Json *target = json_get(v, "target");
  if (target && (target->kind != JSON_STRING || strlen(target->str) != target->len || !target->len))
    return bad(why, "%s", "\"target\" must be a non-empty string");
  rq->opt.target = target ? target->str : b->defaults->target;

  const Json *action = json_get(v, "action");
  if (action) {
    static const struct {
      const char *name;
      DpiaAction action;
    } actions[] = {{"translate", DPIA_TRANSLATE}, {"check", DPIA_CHECK}, {"verify", DPIA_VERIFY}, {"run", DPIA_RUN},
                   {"rewrite", DPIA_REWRITE}};
    bool found = false;
    for (size_t i = 0; i < DPIA_COUNTOF(actions) && action->kind == JSON_STRING; i++)
      if (strcmp(action->str, actions[i].name) == 0) {
        rq->opt.action = actions[i].action;
        found = true;
      }
    if (!found)
      return bad(why, "%s", "\"action\" must be \"translate\", \"check\", \"verify\", \"run\" or \"rewrite\"");
  }
  if (!run_fields(a, v, rq, why)) return false;

  const Json *kernel = json_get(v, "kernel");
  if (kernel && (kernel->kind != JSON_STRING || strlen(kernel->str) != kernel->len))
    return bad(why, "%s", "\"kernel\" must be a string");
  if (kernel) rq->opt.kernel = kernel->str;
  if (!rewrite_fields(a, v, rq, why)) return false;

  /* "set": {"WG": 128}: --set */
  rq->opt.nsets = 0;
  const Json *set = json_get(v, "set");
  if (set) {
    if (set->kind != JSON_OBJECT) return bad(why, "%s", "\"set\" must be an object of tune parameter values");
    const char **names = NEWARRAY(a, const char *, set->n > 0 ? set->n : 1);
    long long *values = NEWARRAY(a, long long, set->n > 0 ? set->n : 1);
    for (int i = 0; i < set->n; i++) {
      const Json *x = set->items[i];
      char *end = NULL;
      errno = 0;
      long long n = x->kind == JSON_NUMBER ? strtoll(x->str, &end, 10) : -1;
      if (x->kind != JSON_NUMBER || *end || errno || n < 0)
        return bad(why, "\"set\": the value of \"%s\" must be a natural number", set->keys[i]);
      names[i] = set->keys[i];
      values[i] = n;
    }
    rq->opt.nsets = set->n;
    rq->opt.set_names = names;
    rq->opt.set_values = values;
  }

  const Json *verify = json_get(v, "verify");
  if (verify && verify->kind != JSON_BOOL) return bad(why, "%s", "\"verify\" must be true or false");
  if (verify) rq->opt.verify = verify->boolean;

  const Json *emit = json_get(v, "emit");
  if (emit && rq->opt.action != DPIA_TRANSLATE) return bad(why, "%s", "\"emit\" applies to the action translate only");
  if (!emit) {
    rq->want[DPIA_EMIT_OPENCL] = rq->opt.action == DPIA_TRANSLATE;
  } else if (emit->kind == JSON_ARRAY) {
    if (emit->n == 0) return bad(why, "%s", "\"emit\" must name at least one kind");
    for (int i = 0; i < emit->n; i++)
      if (!emit_kind(rq, emit->items[i], i == 0, why)) return false;
  } else if (!emit_kind(rq, emit, true, why)) {
    return false;
  }

  if (!launch_sizes(json_get(v, "local_size"), "local_size", rq->opt.local_size, why)) return false;
  if (!launch_sizes(json_get(v, "global_size"), "global_size", rq->opt.global_size, why)) return false;

  bool verifies = rq->opt.action == DPIA_VERIFY ||
                  (rq->opt.action != DPIA_CHECK && rq->opt.action != DPIA_REWRITE && rq->opt.verify);
  if (verifies && !b->verifier) {
    b->verifier = dpia_verifier_new(); /* NULL: each translation reports it */
    b->own_verifier = b->verifier != NULL;
  }
  rq->opt.verifier = b->verifier;
  return true;
}

/* ---- responses ---- */

static void response_start(Buf *out, const Json *id, int code) {
  buf_puts(out, "{\"id\": ");
  if (id) json_write(out, id);
  else buf_puts(out, "null");
  /* a precondition the sizes violate is an error in the program's use:
   * `dpia run` exits with 1 for it */
  emit(out, ", \"status\": \"%s\", \"exit_code\": %d", status_name(code),
       code == DPIA_EPRECONDITION ? DPIA_EUSER : code);
}

/* a response with one error and no outputs: a request dpia cannot read
 * (E0001) or an internal error (E0099) */
static void error_response(Buf *out, const Json *id, int code, const char *message) {
  response_start(out, id, code);
  emit(out, ", \"diagnostics\": [{\"level\": \"error\", \"code\": \"%s\", \"message\": ",
       diag_code_name(code == DPIA_EINTERNAL ? ERR_INTERNAL : ERR_BAD_REQUEST));
  emit_json_string(out, message);
  buf_puts(out, ", \"notes\": []}]}\n");
}

/* the response when an output that is JSON by construction does not
 * parse (a bug of dpia): the pending result is freed */
static void invalid_output(Batch *b, Arena *a, const Request *rq, Buf *out, const char *what, const char *why) {
  buf_clear(out); /* the response begun */
  Buf message;
  buf_init(&message, a);
  emit(&message, "internal: %s is not valid JSON: %s", what, why);
  error_response(out, rq->id, DPIA_EINTERNAL, message.data);
  dpia_result_free(b->pending);
  b->pending = NULL;
}

/* the response to a well-formed request */
static void translate_request(Batch *b, Arena *a, const Request *rq, Buf *out) {
  DpiaResult *r;
  int code = dpia_process(rq->name, rq->source, rq->source_len, &rq->opt, &r);
  b->pending = r;
  /* the outputs are written into the response after its start, not into
   * a buffer of their own copied there (a kernel's text is most of an
   * answer: issue 35); invalid_output takes the start back */
  response_start(out, rq->id, code);
  if (code == DPIA_OK && rq->opt.action == DPIA_TRANSLATE) {
    buf_puts(out, ", \"outputs\": {");
    bool first = true;
    for (int k = 0; k <= DPIA_EMIT_SPACE; k++) {
      if (!rq->want[k]) continue;
      size_t len;
      const char *text = dpia_result_emitted(r, (DpiaEmit)k, &len);
      emit(out, "%s\"%s\": ", first ? "" : ", ", dpia_emit_name((DpiaEmit)k));
      first = false;
      if (k == DPIA_EMIT_JSON || k == DPIA_EMIT_SPACE) {
        /* the metadata (or space) as a JSON value, on one line */
        Buf why;
        buf_init(&why, a);
        Json *meta = text ? json_parse(a, text, len, &why) : NULL;
        if (!meta) {
          invalid_output(b, a, rq, out, "the metadata of this translation", why.data);
          return;
        }
        json_write(out, meta);
      } else {
        emit_json_text(out, text ? text : "", text ? len : 0);
      }
    }
    buf_putc(out, '}');
  }
  if (rq->opt.action == DPIA_REWRITE && code == DPIA_OK) {
    /* the listing's positions as a JSON value; the rewritten program as a string */
    size_t len;
    const char *text = dpia_result_output(r, &len);
    if (rq->opt.rewrite->list) {
      Buf why;
      buf_init(&why, a);
      const Json *listing = json_parse(a, text, len, &why);
      const Json *positions = listing ? json_get(listing, "positions") : NULL;
      if (!positions) {
        invalid_output(b, a, rq, out, "the listing of the rewrite rules", why.data);
        return;
      }
      buf_puts(out, ", \"outputs\": {\"positions\": ");
      json_write(out, positions);
    } else {
      buf_puts(out, ", \"outputs\": {\"program\": ");
      emit_json_string(out, text);
    }
    buf_putc(out, '}');
  }
  if (rq->opt.action == DPIA_RUN && code != DPIA_EPRECONDITION) {
    /* the report of a launched kernel, also when its check failed (not
     * dpia run --json's report of sizes refused: the response's status
     * and diagnostics say that) */
    size_t len;
    const char *text = dpia_result_output(r, &len);
    Buf why;
    buf_init(&why, a);
    Json *report = len ? json_parse(a, text, len, &why) : NULL;
    if (report) {
      buf_puts(out, ", \"run\": ");
      json_write(out, report);
    }
  }
  buf_puts(out, ", \"diagnostics\": ");
  const char *diags = dpia_result_diagnostics_json(r);
  size_t n = strlen(diags);
  while (n > 0 && diags[n - 1] == '\n') n--;
  buf_put(out, diags, n);
  buf_puts(out, "}\n");
  dpia_result_free(r);
  b->pending = NULL;
}

/* the response to one line */
static void answer(Batch *b, Arena *a, const Buf *line, Buf *out) {
  Buf why;
  buf_init(&why, a);
  Json *v = json_parse(a, line->data, line->len, &why);
  if (!v) {
    Buf message;
    buf_init(&message, a);
    emit(&message, "line %ld is not valid JSON: %s", b->line, why.data);
    error_response(out, NULL, DPIA_EUSAGE, message.data);
    return;
  }
  Request rq = {0};
  if (!read_request(b, a, v, &rq, &why)) {
    Buf message;
    buf_init(&message, a);
    emit(&message, "line %ld: %s", b->line, why.data);
    error_response(out, v->kind == JSON_OBJECT ? json_get(v, "id") : NULL, DPIA_EUSAGE, message.data);
    return;
  }
  translate_request(b, a, &rq, out);
}

/* Read, answer and write one line (in b->arena); false at the end of the
 * input or when the response cannot be written. */
static bool step(Batch *b) {
  Buf line, response;
  buf_init(&line, &b->arena);
  if (!read_line(b->in, &line, &b->read_failed)) return false;
  b->line++;
  if (blank(&line)) return true;
  buf_init(&response, &b->arena);
  answer(b, &b->arena, &line, &response);
  if (fwrite(response.data, 1, response.len, b->out) != response.len || fflush(b->out) != 0) {
    b->write_failed = true;
    return false;
  }
  return true;
}

int dpia_batch(FILE *in, FILE *out, const DpiaOptions *defaults) {
  DpiaOptions none;
  dpia_options_init(&none);
  none.verify = 1;
  DpiaMem mem;
  dpia_mem_default(&mem);
  if (defaults && defaults->alloc) {
    mem.alloc = defaults->alloc;
    mem.release = defaults->release;
    mem.user = defaults->alloc_user;
  }
  Batch *b = mem.alloc(mem.user, sizeof *b);
  if (!b) return DPIA_EINTERNAL;
  memset(b, 0, sizeof *b);
  b->in = in;
  b->out = out;
  b->defaults = defaults ? defaults : &none;
  b->verifier = b->defaults->verifier;
  b->mem = mem;
  b->cached = !(defaults && defaults->alloc);
  if (b->cached) {
    b->mem.alloc = block_cache_alloc;
    b->mem.release = block_cache_release;
    b->mem.user = &b->blocks;
  }
  b->mem.on_oom = &b->oom;
  for (;;) {
    arena_init(&b->arena, &b->mem);
    if (setjmp(b->oom)) {
      /* out of memory in this line: answer it without the arena */
      arena_free(&b->arena);
      dpia_result_free(b->pending);
      b->pending = NULL;
      fputs("{\"id\": null, \"status\": \"internal_error\", \"exit_code\": 70, \"diagnostics\": "
            "[{\"level\": \"error\", \"code\": \"E0903\", \"message\": \"out of memory\", \"notes\": []}]}\n",
            b->out);
      if (fflush(b->out) != 0) break;
      continue;
    }
    bool more = step(b);
    arena_free(&b->arena);
    if (!more) break;
  }
  int status = b->read_failed || b->write_failed || ferror(b->out) ? DPIA_EUSAGE : DPIA_OK;
  if (b->own_verifier) dpia_verifier_free(b->verifier);
  block_cache_free(&b->blocks);
  mem.release(mem.user, b);
  return status;
}
