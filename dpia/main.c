/* main.c: the dpia command line (spec section 9). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dpia.h"

/* Programs larger than this are refused before parsing (issue 7 limits). */
enum { MAX_SOURCE_BYTES = 64 * 1024 * 1024 };

static const char usage_text[] =
    "usage: dpia COMMAND [options] FILE\n"
    "\n"
    "Translate Data Parallel Idealised Algol programs into OpenCL C kernels.\n"
    "\n"
    "commands:\n"
    "  check FILE      parse and type check (sizes, SCIR interference control,\n"
    "                  OpenCL strategy rules); -v prints each kernel's type\n"
    "\n"
    "options:\n"
    "  --diagnostics=text|json   format of error messages (default text)\n"
    "  --help                    this text (dpia COMMAND --help for a command)\n"
    "  --version                 print the version\n"
    "\n"
    "exit codes: 0 success, 1 error in the program, 2 bad command line,\n"
    "            3 verification failed, 4 OpenCL unavailable, 70 internal error\n";

static const char check_help[] =
    "usage: dpia check [-v] [--diagnostics=text|json] FILE\n"
    "\n"
    "Parse and type check FILE: sizes in types, Syntactic Control of Interference\n"
    "with passivity (paper Figure 3) and the OpenCL hierarchy and address space\n"
    "rules.  Prints nothing on success, or with -v each declaration's type and\n"
    "each kernel's preconditions.  Errors go to stderr as file:line:col.\n";

static int usage_error(const char *fmt, const char *arg) {
  fputs("dpia: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fputs("\nRun 'dpia --help' for usage.\n", stderr);
  return DPIA_EUSAGE;
}

/* Read a whole file; on failure print why and return NULL. */
static char *read_file(const char *path, size_t *len) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "dpia: error: cannot read '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    fprintf(stderr, "dpia: error: '%s' is a directory, not a .dpia file\n", path);
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "dpia: error: cannot read '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      fclose(f);
      fputs("dpia: error: out of memory\n", stderr);
      return NULL;
    }
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    if (cap > MAX_SOURCE_BYTES) {
      fclose(f);
      free(buf);
      fprintf(stderr, "dpia: error: '%s' is larger than %d MiB\n", path, MAX_SOURCE_BYTES >> 20);
      return NULL;
    }
    cap *= 2;
    char *bigger = realloc(buf, cap);
    if (!bigger) free(buf);
    buf = bigger;
  }
  bool failed = ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "dpia: error: cannot read '%s'\n", path);
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

static int cmd_check(int argc, char **argv) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_CHECK;
  const char *file = NULL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(check_help, stdout);
      return DPIA_OK;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
      opt.verbose = 1;
    } else if (strcmp(a, "--diagnostics=json") == 0) {
      opt.diagnostics_json = 1;
    } else if (strcmp(a, "--diagnostics=text") == 0) {
      opt.diagnostics_json = 0;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s' for 'dpia check'", a);
    } else if (file) {
      return usage_error("more than one input file ('%s')", a);
    } else {
      file = a;
    }
  }
  if (!file) return usage_error("%s", "'dpia check' needs an input FILE");
  size_t len = 0;
  char *text = read_file(file, &len);
  if (!text) return DPIA_EUSAGE;
  DpiaResult *r;
  int status = dpia_process(file, text, len, &opt, &r);
  free(text);
  size_t olen;
  const char *out = dpia_result_output(r, &olen);
  fwrite(out, 1, olen, stdout);
  fputs(dpia_result_diagnostics(r), stderr);
  dpia_result_free(r);
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_text, stderr);
    return DPIA_EUSAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage_text, stdout);
    return DPIA_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("dpia %s\n", DPIA_VERSION);
    return DPIA_OK;
  }
  if (strcmp(cmd, "check") == 0) return cmd_check(argc - 2, argv + 2);
  return usage_error("unknown command '%s'", cmd);
}
