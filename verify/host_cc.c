/* host_cc.c: the host's C compiler (host_cc.h). */
#define _GNU_SOURCE /* mkdtemp, strdup, strtok_r */
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

char *host_find_program(const char *name) {
  if (strchr(name, '/')) return access(name, X_OK) == 0 ? strdup(name) : NULL;
  const char *path = getenv("PATH");
  if (!path) return NULL;
  char *dirs = strdup(path);
  for (char *save = NULL, *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
    size_t n = strlen(d) + strlen(name) + 2;
    char *p = malloc(n);
    if (!p) break;
    snprintf(p, n, "%s/%s", d, name);
    if (access(p, X_OK) == 0) {
      free(dirs);
      return p;
    }
    free(p);
  }
  free(dirs);
  return NULL;
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

int host_compile(char *const argv[], const char *log, const char *src, const char *name, const char *tool,
                 Buf *report) {
  int status = 0;
  int rc = host_cc_run(argv, log, &status);
  if (rc != 0) return rc;
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  Buf said;
  buf_init(&said, report->arena);
  host_append_file(&said, log, 1);
  if (said.len) {
    host_append_log(report, log, src, name);
    return -1;
  }
  if (!ok) emit(report, "%s: %s failed (status %d) and said nothing\n", name, tool, status);
  return ok ? 0 : -1;
}

char *host_temp_dir(Arena *a, const char *what) {
  const char *tmp = getenv("TMPDIR");
  char *dir = arena_printf(a, "%s/dpia-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
  return mkdtemp(dir);
}

HostVerifier *host_verifier_new(char *path) {
  if (!path) return NULL;
  HostVerifier *v = malloc(sizeof *v);
  if (!v) {
    free(path);
    return NULL;
  }
  v->path = path;
  return v;
}

void host_verifier_free(HostVerifier *v) {
  if (!v) return;
  free(v->path);
  free(v);
}
