/* cli_args.c: what the dpia subcommands with a parser of their own
 * (rewrite_cmd.c, explore_cmd.c) read alike: the usage error, and the
 * options every one of them takes (cli.h). */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cli_usage(const char *command, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("dpia: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nRun 'dpia %s --help' for usage.\n", command);
  return DPIA_EUSAGE;
}

int cli_common_option(const char *command, const char *help, DpiaOptions *opt, const char **file, int argc,
                      char **argv, int *i) {
  const char *a = argv[*i];
  const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
  if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
    fputs(help, stdout);
    return CLI_DONE;
  }
  if (strcmp(a, "-k") == 0 || strcmp(a, "--kernel") == 0) {
    if (!next || next[0] == '-') return cli_usage(command, "%s needs a kernel name (-k NAME)", a);
    if (opt->kernel) return cli_usage(command, "%s given twice", "-k");
    opt->kernel = argv[++*i];
    return CLI_TAKEN;
  }
  if (strcmp(a, "--diagnostics=json") == 0 || strcmp(a, "--diagnostics=text") == 0) {
    opt->diagnostics_json = strcmp(a, "--diagnostics=json") == 0;
    return CLI_TAKEN;
  }
  if (a[0] == '-' && a[1]) return CLI_OTHER;
  if (*file) return cli_usage(command, "more than one input file ('%s')", a);
  *file = a;
  return CLI_TAKEN;
}
