/* dpia.h: the public interface of libdpia.
 *
 * One call translates one program held in memory; everything it allocates
 * is released by dpia_result_free.  There is no global state: calls from
 * several threads at once are safe. */
#ifndef DPIA_H
#define DPIA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DPIA_VERSION "0.1.0"

/* Exit codes of spec section 9, also the status of a result. */
enum {
  DPIA_OK = 0,
  DPIA_EUSER = 1,     /* error in the user's program */
  DPIA_EUSAGE = 2,    /* bad command line or options */
  DPIA_EVERIFY = 3,   /* verification failed */
  DPIA_EOPENCL = 4,   /* OpenCL runtime unavailable or failing */
  DPIA_EINTERNAL = 70 /* bug in dpia */
};

typedef enum DpiaAction {
  DPIA_CHECK,     /* parse and type check; output: kernel types if verbose */
  DPIA_TRANSLATE, /* translate; output: what emit says */
  DPIA_VERIFY,    /* translate and verify (SCIR re-check, libclang); no output */
  DPIA_RUN,       /* translate, verify, run on an OpenCL device; output: a report */
} DpiaAction;

typedef enum DpiaEmit {
  DPIA_EMIT_OPENCL,       /* OpenCL C (default) */
  DPIA_EMIT_INTERMEDIATE, /* after stage I: mapI/reduceI */
  DPIA_EMIT_IMPERATIVE,   /* after stage II and hoisting */
  DPIA_EMIT_JSON,         /* metadata (spec section 9) */
} DpiaEmit;

/* The libclang verifier of generated OpenCL.  Creating one costs a few
 * milliseconds; a caller translating many programs (a search driver, batch
 * mode) makes one per thread and passes it in DpiaOptions.verifier. */
typedef struct OpenclVerifier DpiaVerifier;
DpiaVerifier *dpia_verifier_new(void);
void dpia_verifier_free(DpiaVerifier *v);

typedef struct DpiaOptions {
  DpiaAction action;
  int verbose;          /* DPIA_CHECK: print each kernel's type */
  const char *kernel;   /* only this kernel (NULL: all) */
  DpiaEmit emit;
  int verify;           /* DPIA_TRANSLATE: verify the result too */
  long local_size[3], global_size[3]; /* user launch sizes; 0: not given */
  DpiaVerifier *verifier; /* NULL: one is made for the call when needed */
  /* DPIA_RUN: values of the kernel's nat parameters (--size N=VALUE) */
  int nsizes;
  const char *const *size_names;
  const long long *size_values;
  int check;            /* compare with the reference interpreter */
  int repeat;           /* timed launches (at least 1) */
  unsigned long long seed; /* random inputs (the command line picks one and prints it) */
  int platform, device; /* OpenCL platform and device index */
  /* DPIA_RUN: run this OpenCL C instead of the generated kernel (same
   * interface), e.g. a hand-tuned or deliberately broken variant */
  const char *opencl_source;
  int diagnostics_json; /* diagnostics as a JSON array instead of text */
  /* Allocation: every byte of a translation comes from alloc (NULL: malloc).
   * When alloc fails the translation stops with an out-of-memory error. */
  void *(*alloc)(void *user, size_t size);
  void (*release)(void *user, void *ptr);
  void *alloc_user;
  /* Bytes the arena asks alloc for at a time (0: 64 KiB).  Tests make it
   * small so that allocation failure can be injected at many points. */
  size_t arena_block_size;
} DpiaOptions;

typedef struct DpiaResult DpiaResult;


/* Process one source text.  name is used in diagnostics.  Returns the
 * status (DPIA_OK, DPIA_EUSER, ...); *result (always set, even on error,
 * unless out of memory before it existed: then NULL) holds the outputs. */
int dpia_process(const char *name, const char *text, size_t len, const DpiaOptions *opt, DpiaResult **result);

int dpia_result_status(const DpiaResult *r);
/* The primary output (what the command line prints on stdout or writes to
 * -o); "" if none. */
const char *dpia_result_output(const DpiaResult *r, size_t *len);
/* Rendered diagnostics (text or JSON as asked); "" if none. */
const char *dpia_result_diagnostics(const DpiaResult *r);
int dpia_result_error_count(const DpiaResult *r);
void dpia_result_free(DpiaResult *r);

void dpia_options_init(DpiaOptions *opt);

#ifdef __cplusplus
}
#endif

#endif
