/* test_threads.c: the library is reentrant (spec section 9): four
 * threads translating the samples at once give byte for byte the results of
 * a serial run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpia.h"

enum { THREADS = 4, ROUNDS = 20, MAX_FILES = 64 };

typedef struct Job {
  int nfiles;
  char *names[MAX_FILES];
  char *texts[MAX_FILES];
  size_t lens[MAX_FILES];
  char *expected[MAX_FILES]; /* serial output + diagnostics */
  int mismatches;
} Job;

static char *translate(const Job *job, int i) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.emit = DPIA_EMIT_IMPERATIVE;
  DpiaResult *r;
  int status = dpia_process(job->names[i], job->texts[i], job->lens[i], &opt, &r);
  size_t olen;
  const char *out = dpia_result_output(r, &olen);
  const char *diag = dpia_result_diagnostics(r);
  size_t n = olen + strlen(diag) + 32;
  char *all = malloc(n);
  snprintf(all, n, "%d\n%s%s", status, out, diag);
  dpia_result_free(r);
  return all;
}

static void *worker(void *arg) {
  Job *job = arg;
  int bad = 0;
  for (int round = 0; round < ROUNDS; round++)
    for (int i = 0; i < job->nfiles; i++) {
      char *got = translate(job, i);
      if (strcmp(got, job->expected[i]) != 0) bad++;
      free(got);
    }
  return (void *)(long)bad;
}

int main(int argc, char **argv) {
  Job job = {0};
  for (int i = 1; i < argc && job.nfiles < MAX_FILES; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n);
    if (fread(text, 1, (size_t)n, f) != (size_t)n) return 1;
    fclose(f);
    int k = job.nfiles++;
    job.names[k] = argv[i];
    job.texts[k] = text;
    job.lens[k] = (size_t)n;
    job.expected[k] = translate(&job, k);
  }
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, worker, &job);
  long bad = 0;
  for (int t = 0; t < THREADS; t++) {
    void *ret;
    pthread_join(threads[t], &ret);
    bad += (long)ret;
  }
  int total = THREADS * ROUNDS * job.nfiles;
  printf("threads: %ld passed, %ld failed (%d threads x %d rounds x %d files against the serial result)\n",
         total - bad, bad, THREADS, ROUNDS, job.nfiles);
  for (int i = 0; i < job.nfiles; i++) {
    free(job.texts[i]);
    free(job.expected[i]);
  }
  return bad ? 1 : 0;
}
