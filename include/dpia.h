/* dpia.h: the public interface of libdpia.
 *
 * One call translates one program held in memory; everything it allocates
 * is released by dpia_result_free.  There is no global state: calls from
 * several threads at once are safe. */
#ifndef DPIA_H
#define DPIA_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DPIA_VERSION "0.1.0"

/* What libdpia exports: the library is built with hidden visibility, so
 * that only the declarations marked here are its interface (its internal
 * functions can change without breaking a program linked against it). */
#if defined(__GNUC__) || defined(__clang__)
#define DPIA_API __attribute__((visibility("default")))
#else
#define DPIA_API
#endif

/* Exit codes of the dpia command (README.md), also the status of a result. */
enum {
  DPIA_OK = 0,
  DPIA_EUSER = 1,     /* error in the user's program */
  DPIA_EUSAGE = 2,    /* bad command line or options */
  DPIA_EVERIFY = 3,   /* verification failed */
  DPIA_EOPENCL = 4,   /* OpenCL runtime unavailable or failing */
  /* DPIA_RUN only: the program is valid but a precondition of the kernel
   * (N % 64 == 0, ...) does not hold at the sizes given; the diagnostics
   * name each failing one with the nearest valid sizes.  The command line
   * exits with 1 for it (it has no exit code of its own). */
  DPIA_EPRECONDITION = 5,
  DPIA_EINTERNAL = 70 /* bug in dpia */
};

typedef enum DpiaAction {
  DPIA_CHECK,     /* parse and type check; output: kernel types if verbose */
  DPIA_TRANSLATE, /* translate; output: what emit says */
  DPIA_VERIFY,    /* translate and verify (SCIR re-check, libclang, semantic and race checks); no output */
  DPIA_RUN,       /* translate, verify, run on an OpenCL device; output: a report */
  DPIA_REWRITE,   /* check (high-level programs too), then list or apply rewrite rules
                     (DpiaOptions.rewrite, docs/language.md section 21); output: the
                     positions and their rules, or the rewritten program */
  DPIA_EXPLORE,   /* derive strategies for a high-level kernel by the rewrite rules, time
                     them on the device and check the best (DpiaOptions.explore,
                     docs/explore.md); output: the ranking; the best program:
                     dpia_result_explore_best */
  DPIA_TUNE,      /* time the points of a kernel's (or pipeline's) tune parameters on the
                     device, check the fastest and keep it in the tuning cache
                     (DpiaOptions.explore gives the budget, docs/tune.md); output: the ranking */
} DpiaAction;

/* DPIA_EXPLORE and DPIA_TUNE: the search (docs/explore.md, docs/tune.md).  The kernel is
 * DpiaOptions.kernel, the sizes DpiaOptions.size_names/values, the search's
 * seed and the inputs' DpiaOptions.seed, the timed launches
 * DpiaOptions.repeat (0: 5). */
/* DPIA_EXPLORE: one candidate given to DpiaExplore.evaluate, a derived
 * program that checks, to run on a device as `dpia run` runs it, at the
 * sizes of DpiaOptions with its seed and inputs, and tune_cache "off". */
typedef struct DpiaExploreRun {
  int id;               /* the candidate's id (the "id" of --json) */
  const char *strategy; /* its macro steps, "vectorise W=4, chunk C=256" */
  const char *program;  /* the whole derived program, dpia source */
  const char *kernel;   /* the kernel, or the pipeline of a whole reduction, to run */
  int check;            /* 0: time it, repeat launches; non-zero: one launch checked against the
                           reference interpreter, with verification (dpia run --check) */
  int repeat;
  /* the evaluator's answer: status a DpiaStatus (DPIA_OK: ran, and agreed
   * when checked; DPIA_EPRECONDITION: a precondition fails at the sizes;
   * another: failed), the times of the launches (dpia_result_run_time),
   * and when not DPIA_OK the first error's code ("E0805"; "" if none) */
  int status;
  double min_ms, median_ms;
  char reason[16];
} DpiaExploreRun;

/* sizes by name, as DpiaOptions.size_names and size_values */
typedef struct DpiaSizes {
  int n;
  const char *const *names;
  const long long *values;
} DpiaSizes;

typedef struct DpiaExplore {
  double budget_s; /* wall-clock seconds for the search (0: 60) */
  int jobs;        /* candidates checked at once (0: 1); timed one at a time */
  int json;        /* the ranking as one JSON object instead of text */
  /* called with one line (no newline) as the search goes: what is done,
   * the best so far; NULL: none */
  void (*progress)(void *user, const char *line);
  void *progress_user;
  /* DPIA_EXPLORE: NULL, the candidates are run here, one at a time, on
   * DpiaOptions' device.  Else the search (the same order, the same
   * seed's draw) hands each batch of candidates that check (4 * jobs at
   * most) to evaluate, which runs them where it likes, several at once
   * on devices of their own (the Python package's Ray evaluator,
   * docs/explore.md), fills in each run's answer and returns 0; then the
   * fastest, one at a time, with check set.  A non-zero return stops the
   * search: E1109, status DPIA_EUSER.  The budget is looked at between
   * batches. */
  int (*evaluate)(void *user, DpiaExploreRun *runs, int n);
  void *evaluate_user;
  /* DPIA_TUNE: more sizes, each as DpiaOptions' (a value for every nat
   * parameter), at which a point's preconditions must hold too, else it
   * is skipped (`dpia tune --valid-at`, docs/tune.md); kept in the cache's
   * entry, so that runs at those sizes can take its values */
  int nvalid_at;
  const DpiaSizes *valid_at;
  /* DPIA_EXPLORE: the search ends once this many strategies have been
   * tried, as the budget ends it (whichever comes first; 0: no limit),
   * so that how far it goes does not depend on the machine's speed or
   * load (`dpia explore --tries`) */
  int max_tries;
} DpiaExplore;

/* DPIA_REWRITE: what to do with the kernel DpiaOptions.kernel (required).
 * The interface of the rewrite rules for a driver in any language: it
 * lists positions (paths) and rule names as JSON and applies a rule by
 * name at a path, never needing to read or write dpia's syntax.  A
 * refusal is status DPIA_EUSER with one error whose DpiaDiagnostic.code
 * says why: E1101 no such rule, E1102 no such path, E1103 a parameter
 * missing, unknown or out of its values, E1104 the rule's left side or a
 * side condition does not hold there, E1105 the result does not check
 * (docs/errors.md); a kernel that is not there is E0806 (DPIA_EUSAGE). */
typedef struct DpiaRewrite {
  /* non-zero: list every position of the kernel's body with the rules whose
   * left side and side conditions hold there and the parameters each
   * takes; json: as one JSON object instead of text, {"kernel",
   * "positions": [{"path", "expression", "rules": [{"rule", "params":
   * [{"name", "min", "max", "default", "doc"}]}]}]} */
  int list;
  int json;
  /* else apply "RULE@PATH" (a rule of the table at a position --list
   * names) with the parameters given (n=64: names[i]=values[i]); the
   * output is the whole program with the kernel rewritten, as dpia
   * source, which is checked (as check --high-level) before it is given */
  const char *apply;
  int nparams;
  const char *const *param_names;
  const long long *param_values;
} DpiaRewrite;

/* DPIA_RUN: the random inputs (DpiaOptions.inputs) */
typedef enum DpiaInputs {
  DPIA_INPUTS_SIGNED = 0, /* either sign, magnitude in [1/16, 1) (default) */
  DPIA_INPUTS_POSITIVE,   /* in [1/16, 1): for programs defined on positive numbers (sqrt, log) */
  DPIA_INPUTS_UNIT,       /* in [0, 1) */
} DpiaInputs;

typedef enum DpiaEmit {
  DPIA_EMIT_OPENCL,       /* OpenCL C (default) */
  DPIA_EMIT_INTERMEDIATE, /* after stage I: mapI/reduceI */
  DPIA_EMIT_IMPERATIVE,   /* after stage II and hoisting */
  DPIA_EMIT_JSON,         /* metadata (docs/reference.md section 9) */
  DPIA_EMIT_HEADER,       /* C header embedding the kernels and their launchers */
  DPIA_EMIT_SPACE,        /* the tune parameters' search space as JSON (docs/language.md 6.1) */
} DpiaEmit;

/* The libclang verifier of generated OpenCL (the re-parse of the target
 * dpia translates for, an opaque type of the library).  Creating one costs
 * a few milliseconds; a caller translating many programs (a search driver,
 * batch mode) makes one per thread and passes it in DpiaOptions.verifier. */
typedef struct TargetVerifier DpiaVerifier;
DPIA_API DpiaVerifier *dpia_verifier_new(void);
DPIA_API void dpia_verifier_free(DpiaVerifier *v);
/* A verifier that parses in a helper process, dpia-clang-check (clang's
 * parser linked statically: it starts in a few milliseconds where loading
 * libclang takes 10-15), started now so that its start overlaps whatever
 * comes before the first verification: the way for a one-shot call (the
 * `dpia` command).  path is the helper program; NULL looks for it next to
 * libdpia in the build tree, then where it is installed.  NULL if there is
 * no helper or it cannot be started.  Free it with dpia_verifier_free. */
DPIA_API DpiaVerifier *dpia_verifier_new_helper(const char *path);
/* dpia_verifier_free for a process that is about to exit: a helper is not
 * waited for (it exits by itself when its input ends). */
DPIA_API void dpia_verifier_free_at_exit(DpiaVerifier *v);
/* Loading libclang on a thread of its own, so that it overlaps the
 * translation before the first verification with an in-process verifier.
 * Finish waits for the load; start returns NULL when no thread can be
 * started (then finish(NULL) does nothing). */
typedef struct TargetPreload DpiaPreload;
DPIA_API DpiaPreload *dpia_preload_start(void);
DPIA_API void dpia_preload_finish(DpiaPreload *p);

#define DPIA_DEFAULT_MEMORY_LIMIT ((size_t)1 << 30)

typedef struct DpiaOptions {
  DpiaAction action;
  int verbose;          /* DPIA_CHECK: print each kernel's type; DPIA_VERIFY: say what the
                           semantic check did for each kernel (sizes used, or why not done);
                           DPIA_RUN: what the race check of its launch covered (a report line) */
  const char *kernel;   /* only this kernel (NULL: all) */
  DpiaEmit emit;
  int verify;           /* DPIA_TRANSLATE: verify the result too */
  /* Verification (DPIA_VERIFY, DPIA_RUN, DPIA_TRANSLATE with verify) is
   * four checks: the SCIR re-check of the imperative program, the libclang
   * re-parse of the OpenCL, the semantic check (the imperative program
   * interpreted at small sizes must compute the reference interpreter's
   * values; no device needed) and the race check (the OpenCL emitted, run
   * by an interpreter of the kernel IR on the same inputs, must have no
   * data race, no access out of bounds and no barrier divergence, and
   * compute the same values).  Non-zero: leave out the semantic check and
   * the race check, which runs on its sizes and inputs. */
  int skip_semantic_check;
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
  /* DPIA_RUN: the random inputs, a DpiaInputs.  --check fails (status
   * DPIA_EVERIFY) where the reference itself is not finite: the inputs
   * are then outside the program's domain, and another kind may fit.
   * So does a reference that is 0 at every element, which would verify
   * only that the kernel writes zeros ("ok": false, the report says so). */
  int inputs;
  int diagnostics_json; /* diagnostics as a JSON array instead of text */
  /* DPIA_RUN: the report as one JSON object instead of text: kernel,
   * device, platform, sizes, global_size, local_size (null when OpenCL
   * chooses), runs, min_ms, median_ms, gb_per_s, and check (null without
   * check; else seed, ok, relative_error, bound, report) */
  int run_json;
  /* Allocation: every byte of a translation comes from alloc (NULL: malloc).
   * When alloc fails the translation stops with an out-of-memory error. */
  void *(*alloc)(void *user, size_t size);
  void (*release)(void *user, void *ptr);
  void *alloc_user;
  /* Bytes the arena asks alloc for at a time (0: 1 MiB).  Tests make it
   * small so that allocation failure can be injected at many points. */
  size_t arena_block_size;
  /* Most bytes one call may allocate (0: DPIA_DEFAULT_MEMORY_LIMIT).  A
   * program whose translation needs more (inlining and the translation
   * stages can grow a small program a lot) fails with a "program too
   * large" error instead of exhausting the machine. */
  size_t memory_limit;
  /* DPIA_TRANSLATE: more outputs of the same translation besides emit, as
   * a set of DPIA_EMIT_BIT(kind); read them with dpia_result_emitted. */
  unsigned emit_also;
  /* DPIA_TRANSLATE: the name generated text gives the source (the comment
   * of each kernel, the metadata's "file", the header's comment and include
   * guard); NULL: dpia_process's name.  Diagnostics always use that name.
   * Goldens and build outputs stay byte-identical wherever they are made
   * when this names the file as the user sees it (`dpia translate` passes
   * the path relative to the current directory, or --source-name). */
  const char *source_name;
  /* Non-zero: generated text names the version of dpia that made it
   * (`--stamp`); by default it does not, so that outputs do not change
   * with the translator's version alone. */
  int stamp;
  /* Values of tune parameters (`--set WG=128`, docs/language.md
   * section 6): each set_names[i] must be a tune parameter of the kernels
   * worked on (all, or opt->kernel's) and set_values[i] in its declared
   * domain, else the status is DPIA_EUSAGE with a message listing the tune
   * parameters.  The kernel is then checked and translated as if the
   * program had the value written in place of the parameter: it is no
   * longer a nat parameter of the kernel (nor of DPIA_RUN's sizes), and a
   * precondition that the value violates is an error (DPIA_EUSER) quoting
   * it. */
  int nsets;
  const char *const *set_names;
  const long long *set_values;
  /* Non-zero: the race check of verification runs the generated kernels
   * with every barrier left out (the emitted code keeps them), so that a
   * kernel with barriers shows a race: a test of the check itself
   * (`DPIA_DEBUG_DROP_BARRIERS=1` on the command line). */
  int debug_drop_barriers;
  /* DPIA_CHECK: non-zero accepts high-level kernels (docs/language.md
   * section 21): a kernel whose only fault is a computing `map` with no
   * OpenCL level is not translated and gets a note E0607 (no error)
   * saying it needs a strategy; `dpia check --high-level`. */
  int high_level;
  /* DPIA_REWRITE: the request (NULL: a usage error) */
  const DpiaRewrite *rewrite;
  /* the language generated, checked and run (`--target=NAME`): "opencl"
   * (OpenCL C, the default when NULL).  The target decides which names a
   * kernel may keep (reserved names are refused or renamed), the text of
   * the kernels and the host header, and how they are verified and run.
   * A name dpia does not know is an error (E0810, status DPIA_EUSAGE). */
  const char *target;
  /* DPIA_EXPLORE: the request (NULL: a usage error) */
  const DpiaExplore *explore;
  /* The tuning cache (docs/tune.md): `dpia tune` (DPIA_TUNE) writes its
   * winner there, and DPIA_CHECK, TRANSLATE, VERIFY and RUN of a kernel or
   * pipeline named by kernel take from it the values of the tune
   * parameters that set_names leaves out, when an entry is for this
   * source, kernel and device (the nearest sizes).  NULL:
   * $DPIA_TUNE_CACHE, else ~/.cache/dpia/tune.json; "off": none. */
  const char *tune_cache;
  /* DPIA_RUN: the values of some data parameters given, not drawn at
   * random (`dpia run --input NAME=FILE`): parameter input_names[i] takes
   * the numbers of input_texts[i] (the text of FILE: decimal numbers
   * separated by white space or commas, its elements in row-major order, a
   * pair's fields in order).  A name that is no data parameter of the
   * kernel is E0341; a text that is not the parameter's elements (a word
   * that is no number, another count, a fraction for an int, an index out
   * of its range) is E0340 (docs/reference.md section 8.5). */
  int ninputs_given;
  const char *const *input_names;
  const char *const *input_texts;
  /* Non-zero: the checker elaborates every primitive application by its
   * general path (an instance of fresh metavariables, unified with the
   * arguments), never by the shortcut that matches a view's signature
   * against its arguments' known types (dpia/check_instance.c): a test of
   * the shortcut, whose every output must be the same
   * (`DPIA_DEBUG_NO_SHORTCUTS=1` on the command line;
   * tests/check/shortcuts.py).  Last, so that a caller that does not know
   * it leaves it zero. */
  int debug_no_shortcuts;
} DpiaOptions;

#define DPIA_EMIT_BIT(kind) (1u << (unsigned)(kind))

typedef struct DpiaResult DpiaResult;


/* Process one source text.  name is used in diagnostics.  Returns the
 * status (DPIA_OK, DPIA_EUSER, ...); *result (always set, even on error,
 * unless out of memory before it existed: then NULL) holds the outputs. */
DPIA_API int dpia_process(const char *name, const char *text, size_t len, const DpiaOptions *opt, DpiaResult **result);

DPIA_API int dpia_result_status(const DpiaResult *r);
/* The primary output (what the command line prints on stdout or writes to
 * -o); "" if none. */
DPIA_API const char *dpia_result_output(const DpiaResult *r, size_t *len);
/* Rendered diagnostics (text or JSON as asked); "" if none. */
DPIA_API const char *dpia_result_diagnostics(const DpiaResult *r);
DPIA_API int dpia_result_error_count(const DpiaResult *r);
/* The output of one emit kind: opt->emit's (the primary output) or one of
 * opt->emit_also; NULL when it was not asked for or the translation
 * failed. */
DPIA_API const char *dpia_result_emitted(const DpiaResult *r, DpiaEmit kind, size_t *len);
/* The diagnostics as a JSON array, whatever diagnostics_json asked for
 * ("[]\n" if none): objects with level, code (errors only: the stable code
 * of DpiaDiagnostic.code), file, line, column, end_line, end_column (when
 * the diagnostic has a position), message and notes. */
DPIA_API const char *dpia_result_diagnostics_json(const DpiaResult *r);

/* One diagnostic, for programs that look at them one by one. */
typedef struct DpiaDiagnostic {
  int is_note;         /* a note attached to the error before it, or (with a code) a note of
                          its own: E0607 of DpiaOptions.high_level */
  const char *file;    /* NULL when it has no position */
  int line, column;    /* 1-based; 0 without a position */
  int end_line, end_column;
  const char *message; /* may span several lines */
  /* The error's stable code, "E0301" (docs/errors.md: the index of
   * errors, one code per kind of error, so that a caller can count
   * rejections by reason); NULL for a note.  Last, so that the members
   * before it keep their places. */
  const char *code;
} DpiaDiagnostic;
/* Errors and their notes, in order: dpia_result_diagnostic(r, i) for
 * 0 <= i < dpia_result_diagnostic_count(r); NULL out of range.  The
 * strings live as long as the result. */
DPIA_API int dpia_result_diagnostic_count(const DpiaResult *r);
DPIA_API const DpiaDiagnostic *dpia_result_diagnostic(const DpiaResult *r, int i);
/* DPIA_RUN: 1 when the kernel was launched, with the fastest and the
 * median time of its launches in milliseconds (OpenCL profiling events);
 * 0 (and times 0) otherwise, also for a run that launched nothing (every
 * NDRange empty at the sizes and every output empty: the result computed,
 * nothing to time).  A launched kernel whose output then differs from the
 * reference still has its times. */
DPIA_API int dpia_result_run_time(const DpiaResult *r, double *min_ms, double *median_ms);
/* DPIA_EXPLORE: the best program found, as dpia source with its
 * derivation as a comment; "" when none was found. */
DPIA_API const char *dpia_result_explore_best(const DpiaResult *r, size_t *len);
/* The tune parameters' values taken from the tuning cache and where they
 * were tuned ("KS=256 AP=16, tuned by dpia tune on DEVICE (driver D) at
 * M=1024 ..."); NULL when none was. */
DPIA_API const char *dpia_result_tuned(const DpiaResult *r);
DPIA_API void dpia_result_free(DpiaResult *r);

DPIA_API void dpia_options_init(DpiaOptions *opt);
/* sizeof(DpiaOptions): bindings that lay the struct out themselves (the
 * Python package's ctypes, python/dpia) check theirs against it. */
DPIA_API size_t dpia_options_size(void);

/* dpia batch (README.md): one JSON request per line of in, one JSON
 * response per line of out, in order, each flushed when written (so a
 * caller can talk to it through pipes).  A request:
 *   {"id": ANY, "source": "program text", "kernel": "k",
 *    "emit": ["opencl", "json"], "local_size": [64], "global_size": [1024],
 *    "verify": true, "action": "translate", "name": "k.dpia"}
 * ("source" required; "action" translate, check, verify or run (then
 * "sizes" {"N": 1024}, "repeat", "check", "seed" as `dpia run`, and the
 * response's "run" is the report of DpiaOptions.run_json; or rewrite, then
 * "kernel" required and "apply" "RULE@PATH" with "params" {"n": 128}, and
 * "outputs" is {"program": "rewritten source"}, or without "apply"
 * {"positions": [...]}, the listing of DpiaRewrite.json; "high_level"
 * true with check is DpiaOptions.high_level); "emit" one kind
 * or a list, default opencl; "set" {"WG": 128} the values of tune
 * parameters, as DpiaOptions.set_names; "verify" default defaults->verify, or true
 * when defaults is NULL; "name" the file name of the diagnostics).  A
 * response:
 *   {"id": ANY, "status": "ok", "exit_code": 0,
 *    "outputs": {"opencl": "...", "json": {...metadata...}}, "diagnostics": [...]}
 * with status ok, error, bad_request, verification_failed,
 * opencl_unavailable or internal_error and the matching exit code.  A line
 * that is not valid JSON or not a valid request gets a bad_request
 * response (with its id, or null; its error has the code E0001) and the
 * batch goes on.  Each error in "diagnostics" has its stable code
 * (DpiaDiagnostic.code).  defaults (may be
 * NULL) gives the allocator, the platform and a verifier to use; otherwise one libclang
 * verifier is made on first use and serves every line.  Returns DPIA_OK
 * after the end of in, DPIA_EUSAGE if reading in or writing out failed. */
DPIA_API int dpia_batch(FILE *in, FILE *out, const DpiaOptions *defaults);

/* "opencl", "intermediate", "imperative", "json", "header", "space"; NULL for a
 * value that is not a DpiaEmit. */
DPIA_API const char *dpia_emit_name(DpiaEmit kind);
/* The kind of such a name; -1 if there is none. */
DPIA_API int dpia_emit_from_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif
