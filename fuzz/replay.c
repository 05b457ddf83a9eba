/* replay.c: a main() for the fuzz targets without libFuzzer, so that the
 * normal and sanitizer builds run them on saved inputs (tests/fuzz-regress):
 *   replay_TARGET [--suffix=.dpia] FILE|DIR...
 * runs the target once on each file (each regular file of a directory
 * whose name ends in the suffix), in the order given (a directory's files
 * sorted by name).  A failed
 * property aborts, a sanitizer report or an internal error (exit 70) ends
 * the run: the test fails.  Prints the number of inputs run. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    return -1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *data = malloc(cap);
  for (;;) {
    if (!data) abort();
    n += fread(data + n, 1, cap - n, f);
    if (n < cap) break;
    cap *= 2;
    uint8_t *bigger = realloc(data, cap);
    if (!bigger) free(data);
    data = bigger;
  }
  fclose(f);
  /* an exact-size copy, as libFuzzer passes it */
  uint8_t *exact = malloc(n ? n : 1);
  if (!exact) abort();
  memcpy(exact, data, n);
  free(data);
  fprintf(stderr, "replay: %s\n", path);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 1;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *name, const char *suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n >= k && strcmp(name + n - k, suffix) == 0;
}

static int run_path(const char *path, const char *suffix) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) return run_file(path);
  DIR *dir = opendir(path);
  if (!dir) return -1;
  char **names = NULL;
  size_t count = 0, cap = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    if (e->d_name[0] == '.' || !has_suffix(e->d_name, suffix)) continue;
    if (count == cap) {
      cap = cap ? 2 * cap : 64;
      char **bigger = realloc(names, cap * sizeof *names);
      if (!bigger) abort();
      names = bigger;
    }
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    names[count] = malloc(len);
    if (!names[count]) abort();
    snprintf(names[count++], len, "%s/%s", path, e->d_name);
  }
  closedir(dir);
  qsort(names, count, sizeof *names, compare_names);
  int total = 0;
  for (size_t i = 0; i < count; i++) {
    struct stat fs;
    if (stat(names[i], &fs) == 0 && S_ISREG(fs.st_mode)) {
      int r = run_file(names[i]);
      if (r < 0) total = -1;
      else if (total >= 0) total += r;
    }
    free(names[i]);
  }
  free(names);
  return total;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: replay_TARGET [--suffix=.dpia] FILE|DIR...\n", stderr);
    return 2;
  }
  int total = 0, first = 1;
  const char *suffix = "";
  if (strncmp(argv[1], "--suffix=", 9) == 0) {
    suffix = argv[1] + 9;
    first = 2;
  }
  for (int i = first; i < argc; i++) {
    int r = run_path(argv[i], suffix);
    if (r < 0) return 1;
    total += r;
  }
  printf("replay: %d inputs, no failure\n", total);
  return total > 0 ? 0 : 1;
}
