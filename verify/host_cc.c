/* host_cc.c: the host's C compiler (host_cc.h). */
#define _GNU_SOURCE /* mkdtemp */
#include "host_cc.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *host_cc(void) {
  const char *cc = getenv("CC");
  return cc && *cc ? cc : "cc";
}

int host_cc_run(char *const argv[], const char *log, int *status) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return rc;
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  return 0;
}

bool host_write_file(const char *path, const char *text, size_t len) {
  FILE *fp = fopen(path, "w");
  if (!fp) return false;
  bool ok = fwrite(text, 1, len, fp) == len;
  return fclose(fp) == 0 && ok;
}

void host_append_file(Buf *out, const char *path, size_t max) {
  FILE *fp = fopen(path, "r");
  if (!fp) return;
  char chunk[4096];
  size_t n, total = 0;
  while (total < max && (n = fread(chunk, 1, sizeof chunk < max - total ? sizeof chunk : max - total, fp)) > 0) {
    buf_put(out, chunk, n);
    total += n;
  }
  fclose(fp);
}

void host_append_log(Buf *report, const char *log, const char *src, const char *name) {
  Buf text;
  buf_init(&text, report->arena);
  host_append_file(&text, log, 16000);
  size_t nsrc = strlen(src);
  for (const char *c = text.data; c && *c; c++) {
    if (strncmp(c, src, nsrc) == 0) {
      buf_puts(report, name);
      c += nsrc - 1;
    } else {
      buf_putc(report, *c);
    }
  }
}

char *host_temp_dir(Arena *a, const char *what) {
  const char *tmp = getenv("TMPDIR");
  char *dir = arena_printf(a, "%s/dpia-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
  return mkdtemp(dir);
}
