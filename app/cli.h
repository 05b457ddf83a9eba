/* cli.h: what the files of the dpia command share (main.c, rewrite_cmd.c, explore_cmd.c);
 * they see only the public header besides this. */
#ifndef DPIA_CLI_H
#define DPIA_CLI_H

#include <stddef.h>

/* main.c: a whole file, NUL-terminated (free it); NULL after saying why on
 * stderr */
char *cli_read_file(const char *path, size_t *len);

/* rewrite_cmd.c: dpia rewrite FILE -k K (--list [--json] | --apply RULE@PATH
 * [--param NAME=VALUE]...); argv after the command's name */
int dpia_rewrite_command(int argc, char **argv);

/* explore_cmd.c: dpia explore FILE -k K --size N=V... [--budget S] [--jobs J]
 * [-o BEST] [--json] [--seed S]; argv after the command's name */
int dpia_explore_command(int argc, char **argv);

#endif
