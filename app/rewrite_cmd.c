/* rewrite_cmd.c: the command line of `dpia rewrite` (docs/language.md
 * section 21): reads its options into a DpiaRewrite and runs DPIA_REWRITE
 * through the public API. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dpia.h"

static const char rewrite_help[] =
    "usage: dpia rewrite FILE -k KERNEL --list [--json]\n"
    "       dpia rewrite FILE -k KERNEL --apply RULE@PATH [--param NAME=VALUE]...\n"
    "                    [--diagnostics=text|json]\n"
    "\n"
    "Rewrite rules (docs/language.md section 21) on the body of KERNEL, which may\n"
    "be a high-level program: maps with no OpenCL level and reduce.\n"
    "--list prints every position of the body (a path: child numbers joined by\n"
    "'.', '.' the root) with the rules whose left side and side conditions hold\n"
    "there and the parameter each takes; --json as one JSON object.\n"
    "--apply prints the whole program with RULE applied at PATH, as dpia source;\n"
    "it is checked as by 'dpia check --high-level' first, and refused (E1105) if it\n"
    "does not check.  --param n=64 gives the rule's parameter (repeatable for\n"
    "future rules; the rules of today take at most one).\n";

enum { MAX_PARAMS = 8 };

#define usage(...) cli_usage("rewrite", __VA_ARGS__)

typedef struct Request {
  DpiaRewrite rw;
  DpiaOptions opt;
  const char *file;
  char *names[MAX_PARAMS];
  long long values[MAX_PARAMS];
} Request;

/* NAME=VALUE of --param */
static int add_param(Request *q, const char *text) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text) return usage("bad --param '%s' (expected NAME=VALUE)", text);
  char *end;
  errno = 0;
  long long v = strtoll(eq + 1, &end, 10);
  if (*end || end == eq + 1 || errno || v < 0) return usage("bad --param '%s' (the value is a natural number)", text);
  if (q->rw.nparams == MAX_PARAMS) return usage("%s", "too many --param");
  q->names[q->rw.nparams] = strndup(text, (size_t)(eq - text));
  if (!q->names[q->rw.nparams]) return usage("%s", "out of memory");
  q->values[q->rw.nparams++] = v;
  return DPIA_OK;
}

static int read_args(Request *q, int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    int common = cli_common_option("rewrite", rewrite_help, &q->opt, &q->file, argc, argv, &i);
    if (common == CLI_DONE) return -1;
    if (common != CLI_OTHER) {
      if (common != CLI_TAKEN) return common;
    } else if (strcmp(a, "--list") == 0) {
      q->rw.list = 1;
    } else if (strcmp(a, "--json") == 0) {
      q->rw.json = 1;
    } else if (strcmp(a, "--apply") == 0) {
      if (!next) return usage("%s", "--apply needs RULE@PATH");
      if (q->rw.apply) return usage("%s given twice", "--apply");
      q->rw.apply = argv[++i];
    } else if (strcmp(a, "--param") == 0) {
      if (!next) return usage("%s", "--param needs NAME=VALUE");
      int status = add_param(q, argv[++i]);
      if (status != DPIA_OK) return status;
    } else {
      return usage("unknown option '%s' for 'dpia rewrite'", a);
    }
  }
  if (!q->file) return usage("%s", "'dpia rewrite' needs an input FILE");
  if (!q->opt.kernel) return usage("%s", "'dpia rewrite' needs the kernel to work on (-k KERNEL)");
  if (q->rw.list == !!q->rw.apply) return usage("%s", "give either --list or --apply RULE@PATH");
  if (q->rw.json && !q->rw.list) return usage("%s", "--json goes with --list");
  if (q->rw.nparams && !q->rw.apply) return usage("%s", "--param goes with --apply");
  return DPIA_OK;
}

int dpia_rewrite_command(int argc, char **argv) {
  Request q;
  memset(&q, 0, sizeof q);
  dpia_options_init(&q.opt);
  q.opt.action = DPIA_REWRITE;
  q.opt.rewrite = &q.rw;
  q.rw.param_names = (const char *const *)q.names;
  q.rw.param_values = q.values;
  int status = read_args(&q, argc, argv);
  size_t len = 0;
  char *text = status == DPIA_OK ? cli_read_file(q.file, &len) : NULL;
  if (status == DPIA_OK && !text) status = DPIA_EUSAGE;
  if (text) {
    DpiaResult *r = NULL;
    status = dpia_process(q.file, text, len, &q.opt, &r);
    size_t olen;
    const char *out = dpia_result_output(r, &olen);
    /* as dpia check: JSON diagnostics on stdout unless the output is there */
    bool output = status == DPIA_OK && olen > 0;
    fputs(dpia_result_diagnostics(r), q.opt.diagnostics_json && !output ? stdout : stderr);
    if (status == DPIA_OK) fwrite(out, 1, olen, stdout);
    dpia_result_free(r);
    free(text);
  }
  for (int i = 0; i < q.rw.nparams; i++) free(q.names[i]);
  return status < 0 ? DPIA_OK : status;
}
