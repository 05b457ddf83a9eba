/* cli.h: what the files of the dpia command share (main.c, rewrite_cmd.c, explore_cmd.c);
 * they see only the public header besides this. */
#ifndef DPIA_CLI_H
#define DPIA_CLI_H

#include <stddef.h>

#include "dpia.h"

/* main.c: a whole file, NUL-terminated (free it); NULL after saying why on
 * stderr */
char *cli_read_file(const char *path, size_t *len);

/* rewrite_cmd.c: dpia rewrite FILE -k K (--list [--json] | --apply RULE@PATH
 * [--param NAME=VALUE]...); argv after the command's name */
int dpia_rewrite_command(int argc, char **argv);

/* explore_cmd.c: dpia explore FILE -k K --size N=V... [--budget S] [--jobs J]
 * [-o BEST] [--json] [--seed S]; argv after the command's name */
int dpia_explore_command(int argc, char **argv);
/* explore_cmd.c: dpia tune FILE -k K --size N=V... [--budget S] [--set N=V]
 * [--cache FILE|off] [--json] [--seed S] (docs/tune.md) */
int dpia_tune_command(int argc, char **argv);

/* cli_args.c: "dpia: error: ..." and "Run 'dpia COMMAND --help'" on
 * stderr; returns DPIA_EUSAGE */
int cli_usage(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What cli_common_option did with argv[*i] */
enum {
  CLI_TAKEN = 0,  /* read (*i past what it took) */
  CLI_DONE = -1,  /* --help printed: exit 0 */
  CLI_OTHER = -2, /* an option of the command's own */
};
/* The options every subcommand takes: --help (help printed), -k/--kernel,
 * --diagnostics=text|json, and the input FILE; else CLI_OTHER for an
 * option, or a usage error's status (DPIA_EUSAGE) */
int cli_common_option(const char *command, const char *help, DpiaOptions *opt, const char **file, int argc,
                      char **argv, int *i);

#endif
