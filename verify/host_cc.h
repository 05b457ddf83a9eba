/* host_cc.h: running the host's C compiler ($CC, else cc) in a process of
 * its own, its messages into a file (the C target, verify/target_c.c). */
#ifndef DPIA_VERIFY_HOST_CC_H
#define DPIA_VERIFY_HOST_CC_H

#include "dpia_front.h"

/* $CC, else "cc" */
const char *host_cc(void);
/* the executable program name (itself if it holds a '/', else the first
 * on the PATH), malloc'd, or NULL if there is none */
char *host_find_program(const char *name);
/* argv (argv[0] looked up on the PATH unless it holds a '/'), its output
 * and errors into the file log, waited for: 0 and *status (waitpid's), or
 * posix_spawn's error number when it did not start */
int host_cc_run(char *const argv[], const char *log, int *status);
/* text[0, len) into the file path */
bool host_write_file(const char *path, const char *text, size_t len);
/* the first max bytes of the file path appended to out */
void host_append_file(Buf *out, const char *path, size_t max);
/* the file log (a compiler's messages, at most 16000 bytes) appended to
 * report with the temporary source's path src named as name */
void host_append_log(Buf *report, const char *log, const char *src, const char *name);
/* argv compiling the temporary source src (its messages into the file
 * log): 0 when it compiled cleanly (exit 0 and no message: anything
 * printed is a diagnostic), -1 when not, its messages appended to report
 * with src named as name (or, if it said nothing, that tool failed),
 * else the error number of a compiler that did not start */
int host_compile(char *const argv[], const char *log, const char *src, const char *name, const char *tool,
                 Buf *report);
/* A TargetVerifier of a target whose compiler verifies its text in
 * processes of its own (the C target's cc, CUDA's nvcc): the compiler's
 * path.  host_verifier_new takes path (malloc'd; NULL: none, and then
 * NULL: verification fails with E0002) */
typedef struct HostVerifier {
  char *path;
} HostVerifier;
HostVerifier *host_verifier_new(char *path);
void host_verifier_free(HostVerifier *v);
/* a fresh directory $TMPDIR/dpia-WHAT-XXXXXX (else under /tmp), or NULL */
char *host_temp_dir(Arena *a, const char *what);

#endif
