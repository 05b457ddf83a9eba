/* main.c: the dpia command line (spec section 9). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dpia.h"
/* app/test_runner.c, linked into the command (it is not part of
 * libdpia) */
int dpia_test_command(int argc, char **argv);

/* Programs larger than this are refused before parsing (tests/limits). */
enum { MAX_SOURCE_BYTES = 64 * 1024 * 1024 };

static const char usage_text[] =
    "usage: dpia COMMAND [options] FILE\n"
    "\n"
    "Translate Data Parallel Idealised Algol programs into OpenCL C kernels,\n"
    "keeping the parallelisation strategy written in the program.\n"
    "\n"
    "commands:\n"
    "  check FILE        parse and type check (sizes, SCIR interference control,\n"
    "                    OpenCL strategy rules); -v prints each kernel's type\n"
    "  translate FILE    translate to OpenCL C (or --emit=intermediate|imperative|json|header|space)\n"
    "  verify FILE       translate and verify the result\n"
    "  run FILE -k K     translate, verify, run on an OpenCL device (PoCL by default)\n"
    "                    and compare with the reference interpreter (--check)\n"
    "  rewrite FILE -k K list the rewrite rules that apply in kernel K (--list), or\n"
    "                    apply one (--apply RULE@PATH): high-level programs to strategies\n"
    "  explore FILE -k K derive strategies for high-level kernel K by the rules, time\n"
    "                    them on the device and keep the fastest checked one\n"
    "  tune FILE -k K    time the values of K's tune parameters on the device and keep\n"
    "                    the fastest checked one in the tuning cache, which translate,\n"
    "                    verify and run -k K then use\n"
    "  batch             JSON lines: one request per line on stdin (program text and\n"
    "                    options), one response per line on stdout\n"
    "  test PATH...      test each .dpia under PATH against its expected outputs\n"
    "                    (X.cl, X.err, ...) and its CHECK and RUN lines\n"
    "\n"
    "Run 'dpia COMMAND --help' for the options of a command.\n"
    "  --help      this text\n"
    "  --version   print the version\n"
    "\n"
    "exit codes: 0 success, 1 error in the program, 2 bad command line,\n"
    "            3 verification failed, 4 OpenCL unavailable, 70 internal error\n"
    "errors: file:line:col: error[E0301]: message; docs/errors.md explains each code\n";

static const char check_help[] = "usage: dpia check [-v] [--high-level] [--local-size=a[,b[,c]]] [--global-size=a[,b[,c]]]\n"
                                 "                  [--diagnostics=text|json] [--target=NAME] FILE\n"
                                 "\n"
                                 "Parse and type check FILE: sizes in types, Syntactic Control of Interference\n"
                                 "with passivity (paper Figure 3) and the OpenCL hierarchy and address space\n"
                                 "rules.  The kernels are also translated and their code generated (nothing\n"
                                 "printed), so a program check accepts translates: a rule only the launch\n"
                                 "shape decides (a work-group size the program leaves open) is reported here\n"
                                 "too, and --local-size and --global-size say the launch as for translate.\n"
                                 "Prints nothing on success, or with -v each declaration's type and each\n"
                                 "kernel's preconditions.  Errors go to stderr as\n"
                                 "file:line:col: error[E0301]: message (docs/errors.md explains each code);\n"
                                 "--diagnostics=json prints them as a JSON array on stdout instead.\n"
                                 "--high-level accepts high-level kernels (maps with no OpenCL level,\n"
                                 "docs/language.md section 21): each gets a note E0607 saying it needs a\n"
                                 "strategy ('dpia rewrite' derives one) and is not translated.\n";

static const char translate_help[] =
    "usage: dpia translate FILE [-k KERNEL] [--emit=KIND] [-o OUT] [--no-verify]\n"
    "                      [--local-size=a[,b[,c]]] [--global-size=a[,b[,c]]] [--set NAME=VALUE]...\n"
    "                      [--diagnostics=text|json] [--source-name NAME] [--stamp] [--target=NAME]\n"
    "\n"
    "Translate the kernels of FILE (or only KERNEL).  KIND is one of\n"
    "  opencl        OpenCL C (default)\n"
    "  intermediate  imperative DPIA after translation stage I (mapI, reduceI)\n"
    "  imperative    imperative DPIA after stage II (for/parfor) and hoisting\n"
    "  json          metadata: parameters, launch sizes, preconditions\n"
    "  header        a C/C++ header embedding the kernels, with a launcher each\n"
    "  space         the tune parameters' search space: domains, constraints,\n"
    "                launch sizes and local memory as Python expressions\n"
    "The result goes to stdout, or to OUT (written atomically: an error leaves\n"
    "no partial file).  The translation is verified as by 'dpia verify' (SCIR\n"
    "re-check, libclang, semantic check) unless --no-verify.\n"
    "-k, --emit, -o, --local-size and --global-size may each be given once.\n"
    "--set WG=128 (repeatable; also for verify and run) gives a tune parameter\n"
    "(WG: tune [...]) its value: the kernel is translated as if the program had\n"
    "128 in place of WG (docs/language.md, tuning parameters).\n"
    "--diagnostics=json prints errors as a JSON array on stdout (stderr when the\n"
    "output itself goes to stdout).  OUT keeps its mode, or gets the umask's, and\n"
    "an OUT that already holds the result is left untouched.\n"
    "Generated text names the source FILE relative to the current directory (an\n"
    "absolute FILE too), or NAME with --source-name, and names no version of dpia\n"
    "unless --stamp: outputs kept as goldens or build products are the same on\n"
    "every machine.\n"
    "--target=NAME chooses the language generated (also for check, verify, run\n"
    "and batch): opencl, OpenCL C, is the one so far and the default; a name dpia\n"
    "does not know is error E0810 (exit 2).\n";

static const char verify_help[] =
    "usage: dpia verify FILE [-k KERNEL] [-v] [--set NAME=VALUE]... [--diagnostics=text|json] [--target=NAME]\n"
    "\n"
    "Translate the kernels of FILE (or only KERNEL) and verify the result, with no\n"
    "OpenCL device: the imperative program is type checked again under the SCIR\n"
    "rules (the translation must preserve typing, paper Theorem 4.1), the OpenCL C\n"
    "is re-parsed by libclang, and the imperative program is interpreted at the\n"
    "smallest sizes that satisfy the preconditions, on random inputs (fixed seed),\n"
    "with parallel loops in increasing and in decreasing order, and compared with\n"
    "the reference interpreter of the functional program (semantic check).  Then\n"
    "the OpenCL emitted, and the code of other launches (fewer and more groups and\n"
    "work-items), is run by an interpreter of the kernel IR on the same inputs,\n"
    "work-item by work-item between barriers, and must have no data race, no access\n"
    "out of bounds and no barrier divergence (error E0008), and compute the same\n"
    "values (race check; docs/language.md section 20).  Exit 3 on failure, naming\n"
    "the kernel, the sizes and the first differing element, or the launch, the\n"
    "memory, the two work-items and the two statements of a race.\n"
    "-v prints, for each kernel, the sizes and launches each check used, or why it\n"
    "was not done (smallest valid sizes too large for its budget, a foreign function).\n";

static const char run_help[] =
    "usage: dpia run FILE [-k KERNEL] --size N=VALUE... [--check] [--repeat R] [--seed S]\n"
    "                [--inputs=signed|positive|unit] [--input NAME=FILE]... [--platform P] [--device D]\n"
    "                [--local-size=...] [--global-size=...] [--set NAME=VALUE]...\n"
    "                [--diagnostics=text|json] [--json] [--no-verify] [--target=NAME] [-v]\n"
    "\n"
    "Translate and verify KERNEL (as 'dpia verify'; --no-verify skips that, as\n"
    "in translate and batch: --check still compares the run with the reference), and\n"
    "race-check the launch the run makes, at its sizes and on its inputs (-v says\n"
    "what that covered, or why it was not done: sizes too large), build it on an OpenCL device (platform P, device D;\n"
    "default the first: PoCL on the CPU), run it on fresh random inputs (never zeros)\n"
    "with every output first poisoned with NaN, and print the NDRange, the time\n"
    "(min and median of R runs, OpenCL profiling events) and the bandwidth.  With\n"
    "--check, compare the output with the reference interpreter of the functional\n"
    "program: relative error ||out - ref|| / ||ref|| <= 1e-4 (float), 1e-12 (double).\n"
    "--opencl-source=FILE runs FILE in place of the generated kernel (same\n"
    "interface).  The seed is printed; --seed repeats a run.  Exit 3 on a mismatch, 4 if OpenCL\n"
    "is unavailable or fails (the kernel is built and run in a child process, so\n"
    "that the OpenCL compiler aborting is reported, not a crash) or the kernel needs\n"
    "more local memory or larger work-groups than the device has (E0007: what it\n"
    "needs and what the device has, checked before the launch), 1 if a\n"
    "precondition does not hold for the sizes given (each failing one is shown at\n"
    "the construct requiring it, with the nearest valid sizes).\n"
    "--size takes N=VALUE, M=10,N=128, or several words: --size M=10 N=128.\n"
    "--inputs: signed (default; either sign, |x| in [1/16, 1)), positive (in\n"
    "[1/16, 1)) or unit ([0, 1)).  A reference that is not finite (sqrt of a\n"
    "negative input) fails --check (exit 3): choose inputs in the program's domain.\n"
    "So does a reference that is 0 at every element (a cutoff no input reaches),\n"
    "which would show only that the kernel writes zeros: choose other inputs.\n"
    "--input NAME=FILE gives data parameter NAME the numbers of FILE (text, white\n"
    "space or commas between them, the elements in row-major order) in place of\n"
    "random ones: inputs of a physical domain (a density, a pressure, a mesh).\n"
    "--json prints the report as one JSON object (kernel, device, platform, sizes,\n"
    "global_size, local_size, runs, min_ms, median_ms, gb_per_s, race_check: done,\n"
    "sizes, report, or a list of launch, kernel, race_check for a pipeline, null if\n"
    "not attempted; check: seed, ok, relative_error, bound, report), also when the\n"
    "check fails; runs is 0 and\n"
    "min_ms, median_ms and gb_per_s are null when nothing is launched (an empty\n"
    "NDRange); when a precondition refuses the sizes, {kernel, sizes, status:\n"
    "\"precondition_failed\", diagnostics}.\n";

static const char batch_help[] =
    "usage: dpia batch [--no-verify] [--target=NAME] < requests.jsonl > responses.jsonl\n"
    "\n"
    "Translate many programs in one process: each line of stdin is a JSON request,\n"
    "  {\"id\": 1, \"source\": \"kernel k ...\", \"kernel\": \"k\", \"emit\": [\"opencl\", \"json\"],\n"
    "   \"local_size\": [64], \"global_size\": [1024], \"verify\": true, \"set\": {\"WG\": 128}}\n"
    "(only source is required; also \"action\": translate|check|verify|run|rewrite and \"name\",\n"
    "the file name of the diagnostics, \"source_name\", the name generated text gives\n"
    "the source (default: \"name\"), \"stamp\": true to name dpia's version in it,\n"
    "and \"set\", the values of tune parameters as --set WG=128),\n"
    "answered by one JSON line on stdout,\n"
    "  {\"id\": 1, \"status\": \"ok\", \"exit_code\": 0, \"outputs\": {\"opencl\": \"...\",\n"
    "   \"json\": {...}}, \"diagnostics\": []}\n"
    "\"action\": \"run\" runs the kernel as 'dpia run --json' on the first OpenCL\n"
    "device: \"sizes\" gives its nat parameters ({\"N\": 1048576}, as --size),\n"
    "\"repeat\" the timed launches (default 1), \"check\": true compares with the\n"
    "reference interpreter, \"seed\" the random inputs (default 1); the response's\n"
    "\"run\" is the report.\n"
    "\"action\": \"rewrite\" is 'dpia rewrite' on \"kernel\": without \"apply\" the\n"
    "outputs are {\"positions\": [...]} (--list --json); with \"apply\": \"RULE@PATH\"\n"
    "and \"params\" ({\"n\": 128}) they are {\"program\": \"...\"}, the program\n"
    "rewritten (docs/language.md section 21).  \"high_level\": true goes with \"check\".\n"
    "status: ok, error, bad_request, verification_failed, opencl_unavailable,\n"
    "precondition_failed (run), internal_error.  A bad line gets a bad_request\n"
    "answer and the batch goes on.  \"verify\" (default true) runs the checks of\n"
    "'dpia verify' (SCIR re-check, libclang, semantic check), also before a run;\n"
    "--no-verify makes \"verify\": false the default, as 'dpia run --no-verify'.\n"
    "Exit 0 at the end of stdin,\n"
    "2 if reading or writing fails.\n";

static int usage_error(const char *fmt, const char *arg) {
  fputs("dpia: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fputs("\nRun 'dpia --help' for usage.\n", stderr);
  return DPIA_EUSAGE;
}

/* A bad command line of one command: points at that command's --help. */
static int command_usage_error(const char *command, const char *fmt, const char *arg) {
  fputs("dpia: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nRun 'dpia %s --help' for usage.\n", command);
  return DPIA_EUSAGE;
}

/* Options written --NAME=VALUE; given as '--NAME VALUE' or '--NAME', a
 * hint at the right spelling. */
static const char *const valued_options[] = {"--emit",          "--local-size", "--global-size", "--diagnostics",
                                              "--opencl-source", "--inputs",     "--target"};

/* Read a whole file; on failure print why and return NULL. */
char *cli_read_file(const char *path, size_t *len) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "dpia: error: cannot read '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    fprintf(stderr, "dpia: error: '%s' is a directory, not a .dpia file\n", path);
    return NULL;
  }
  if (S_ISREG(st.st_mode) && st.st_size > MAX_SOURCE_BYTES) {
    fprintf(stderr, "dpia: error: '%s' is larger than %d MiB\n", path, MAX_SOURCE_BYTES >> 20);
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "dpia: error: cannot read '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      fclose(f);
      fputs("dpia: error: out of memory\n", stderr);
      return NULL;
    }
    n += fread(buf + n, 1, cap - n, f);
    if (n > MAX_SOURCE_BYTES) { /* not a regular file, or one that grew */
      fclose(f);
      free(buf);
      fprintf(stderr, "dpia: error: '%s' is larger than %d MiB\n", path, MAX_SOURCE_BYTES >> 20);
      return NULL;
    }
    if (n < cap) {
      buf[n] = 0; /* callers may use the text as a C string */
      break;
    }
    cap *= 2;
    char *bigger = realloc(buf, cap);
    if (!bigger) free(buf);
    buf = bigger;
  }
  bool failed = ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "dpia: error: cannot read '%s'\n", path);
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

/* Does the file at path hold exactly data? */
static bool same_contents(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  char chunk[65536];
  size_t at = 0, n;
  bool same = true;
  while (same && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    same = at + n <= len && memcmp(chunk, data + at, n) == 0;
    at += n;
  }
  same = same && !ferror(f) && at == len;
  fclose(f);
  return same;
}

/* Write out to path atomically: a temporary file in the same directory,
 * renamed over path only when complete (no partial output file: tests/cli). */
static bool write_atomically(const char *path, const char *data, size_t len) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    /* a device or a pipe (-o /dev/null, -o /dev/stdout): written as it is;
     * a rename would replace the device by a regular file */
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    ok = f && fclose(f) == 0 && ok;
    if (!ok) fprintf(stderr, "dpia: error: cannot write '%s': %s\n", path, strerror(errno));
    return ok;
  }
  /* an identical file stays as it is (its mtime too: make sees no change) */
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len && same_contents(path, data, len))
    return true;
  /* the mode '>' would give: an existing file's, else 0666 less the umask
   * (mkstemp makes its file 0600) */
  mode_t mode;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  if (!tmp) return false;
  snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    fprintf(stderr, "dpia: error: cannot write '%s': %s\n", path, strerror(errno));
    free(tmp);
    return false;
  }
  if (fchmod(fd, mode) != 0) {
    fprintf(stderr, "dpia: error: cannot write '%s': %s\n", path, strerror(errno));
    close(fd);
    unlink(tmp);
    free(tmp);
    return false;
  }
  FILE *f = fdopen(fd, "wb");
  bool ok = f && fwrite(data, 1, len, f) == len;
  ok = f && fclose(f) == 0 && ok;
  if (!f) close(fd);
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) {
    fprintf(stderr, "dpia: error: cannot write '%s': %s\n", path, strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  return ok;
}

/* --local-size=a[,b[,c]] */
static bool parse_sizes(const char *text, long out[3]) {
  for (int d = 0; d < 3; d++) out[d] = 0;
  const char *p = text;
  for (int d = 0; d < 3; d++) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < 1 || v > (1L << 30)) return false;
    out[d] = v;
    if (*end == 0) return true;
    if (*end != ',') return false;
    p = end + 1;
  }
  return false;
}

/* An option that selects one thing given twice: an error rather
 * than silently taking the last. */
static int given_twice(const char *option) { return usage_error("%s given twice", option); }

static bool valued_option(const char *a) {
  for (size_t i = 0; i < sizeof valued_options / sizeof valued_options[0]; i++)
    if (strcmp(a, valued_options[i]) == 0) return true;
  return false;
}

typedef struct Command {
  const char *name;
  DpiaAction action;
  const char *help;
} Command;

static const Command commands[] = {
    {"check", DPIA_CHECK, check_help},
    {"translate", DPIA_TRANSLATE, translate_help},
    {"verify", DPIA_VERIFY, verify_help},
    {"run", DPIA_RUN, run_help},
};

enum { MAX_SIZES = 32 };

/* N=VALUE for --size */
static bool parse_size_binding(const char *text, const char **name, long long *value) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text) return false;
  char *end;
  errno = 0;
  long long v = strtoll(eq + 1, &end, 10);
  if (*end || end == eq + 1 || errno || v < 0) return false;
  *name = strndup(text, (size_t)(eq - text));
  *value = v;
  return *name != NULL;
}

/* What run_command_in allocates; run_command frees it on every path. */
typedef struct Owned {
  const char *size_names[MAX_SIZES];
  int nsizes;
  const char *set_names[MAX_SIZES]; /* --set */
  int nsets;
  char *opencl_text;
  const char *input_names[MAX_SIZES]; /* --input NAME=FILE: NAME, and FILE's text */
  const char *input_texts[MAX_SIZES];
  int ninputs;
} Owned;

/* NAME=VALUE[,NAME=VALUE...] of --size, appended to opt's sizes */
static int add_size_bindings(const char *command, const char *text, DpiaOptions *opt, Owned *own,
                             long long *values) {
  const char *p = text;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    char *one = strndup(p, n);
    if (!one) return usage_error("%s", "out of memory");
    if (opt->nsizes == MAX_SIZES) {
      free(one);
      return command_usage_error(command, "%s", "too many --size values");
    }
    bool ok = parse_size_binding(one, &own->size_names[opt->nsizes], &values[opt->nsizes]);
    if (!ok) {
      int status = command_usage_error(command, "bad --size '%s' (expected NAME=VALUE, a natural number; "
                                                "several as M=10,N=128)", text);
      free(one);
      return status;
    }
    free(one);
    own->nsizes = ++opt->nsizes;
    if (!comma) return DPIA_OK;
    p = comma + 1;
  }
}

/* a word that is NAME=VALUE[,...] (not an option, not a file name) */
static bool is_size_binding(const char *text) {
  if (text[0] == '-' || !strchr(text, '=')) return false;
  for (const char *p = text; *p; p++) {
    const char *eq = strchr(p, '=');
    if (!eq || eq == p) return false;
    for (const char *q = p; q < eq; q++)
      if (!(*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (q > p && *q >= '0' && *q <= '9')))
        return false;
    p = eq + 1;
    if (*p < '0' || *p > '9') return false;
    while (*p >= '0' && *p <= '9') p++;
    if (*p == 0) return true;
    if (*p != ',') return false;
  }
  return false;
}

static bool parse_int_option(const char *text, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (*end || end == text || errno || v < lo || v > hi) return false;
  *out = v;
  return true;
}

/* dpia run builds and runs the kernel through the OpenCL implementation,
 * inside the calling process, where a bug of that implementation can end
 * the process: PoCL 3.1's compiler (LLVM 15) aborts with "LLVM ERROR:
 * Cannot select" on some loops it vectorises with masked loads
 * (tests/diff/known/pocl_cannot_select.cl).  So the run happens in a child
 * process.  If the child dies by a signal, this process translates and
 * verifies the program itself, without OpenCL: if that fails, its errors
 * are the answer; if not, the failure was the OpenCL implementation's, and
 * it is reported as such (exit 4, spec section 9) instead of as a crash.
 * Returns -1 in the child, or where no child could be made, which then
 * runs; else the exit status for the parent. */
static int run_in_child(const char *file, const DpiaOptions *opt) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid <= 0) return -1;
  int st;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "dpia: error: waiting for the run: %s\n", strerror(errno));
      return DPIA_EINTERNAL;
    }
  }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  size_t len = 0;
  char *text = cli_read_file(file, &len);
  if (!text) return DPIA_EUSAGE;
  DpiaOptions vopt = *opt;
  vopt.action = DPIA_VERIFY;
  vopt.verifier = NULL;
  DpiaResult *r = NULL;
  int status = dpia_process(file, text, len, &vopt, &r);
  free(text);
  fputs(dpia_result_diagnostics(r), opt->diagnostics_json ? stdout : stderr);
  dpia_result_free(r);
  if (status != DPIA_OK) return status;
  fprintf(stderr,
          "dpia: error: the OpenCL implementation ended the run with signal %d (%s) while building or running "
          "the kernel; the kernel translates and verifies, so this is a failure of the OpenCL implementation "
          "(its own messages are above)\n",
          sig, strsignal(sig));
  return DPIA_EOPENCL;
}

/* The name generated text gives the file at path: path itself when it is
 * relative, else the same file relative to the current directory (with
 * ../ as needed), so that outputs do not hold the machine's directories.
 * Written to buf (n bytes); path if it does not fit or the current
 * directory is unknown. */
static const char *relative_name(const char *path, char *buf, size_t n) {
  char cwd[4096];
  if (path[0] != '/' || !getcwd(cwd, sizeof cwd)) return path;
  size_t len = strlen(cwd);
  if (len > 1 && cwd[len - 1] == '/') cwd[--len] = 0;
  /* the longest common prefix of whole components */
  size_t common = 0;
  if (len == 1) common = 0; /* cwd is / */
  else
    for (size_t i = 1;; i++) {
      bool cwd_end = cwd[i] == '/' || cwd[i] == 0, path_end = path[i] == '/' || path[i] == 0;
      if (cwd_end && path_end) common = i;
      if (cwd[i] == 0 || path[i] == 0 || cwd[i] != path[i]) break;
    }
  size_t ups = 0;
  for (size_t i = common; i < len; i++) ups += cwd[i] == '/';
  const char *rest = path + common;
  while (*rest == '/') rest++;
  size_t used = 0;
  for (size_t i = 0; i < ups; i++) {
    if (used + 3 >= n) return path;
    memcpy(buf + used, "../", 3);
    used += 3;
  }
  size_t rn = strlen(rest);
  if (used + rn + 1 > n) return path;
  memcpy(buf + used, rest, rn + 1);
  if (used + rn == 0) return path; /* the directory itself */
  if (rn == 0) buf[used - 1] = 0;  /* ../.. */
  return buf;
}

/* the checker's test of its shortcut (DpiaOptions.debug_no_shortcuts) */
static int debug_no_shortcuts(void) {
  const char *off = getenv("DPIA_DEBUG_NO_SHORTCUTS");
  return off && *off && strcmp(off, "0") != 0;
}

static int run_command_in(const Command *cmd, int argc, char **argv, Owned *own) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = cmd->action;
  opt.verify = cmd->action == DPIA_TRANSLATE || cmd->action == DPIA_RUN;
  /* the race check's own test: it must find races in kernels whose
   * barriers it leaves out (DpiaOptions.debug_drop_barriers) */
  const char *drop = getenv("DPIA_DEBUG_DROP_BARRIERS");
  opt.debug_drop_barriers = drop && *drop && strcmp(drop, "0") != 0;
  opt.debug_no_shortcuts = debug_no_shortcuts();
  const char *file = NULL, *out_path = NULL;
  bool translate = cmd->action != DPIA_CHECK;
  bool run = cmd->action == DPIA_RUN;
  const char **size_names = own->size_names;
  long long size_values[MAX_SIZES], set_values[MAX_SIZES];
  bool seed_given = false, emit_given = false;
  opt.set_names = own->set_names;
  opt.set_values = set_values;
  opt.size_names = size_names;
  opt.size_values = size_values;
  opt.repeat = 1;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(cmd->help, stdout);
      return DPIA_OK;
    } else if ((cmd->action == DPIA_CHECK || cmd->action == DPIA_VERIFY || run) &&
               (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)) {
      opt.verbose = 1;
    } else if (cmd->action == DPIA_CHECK && strcmp(a, "--high-level") == 0) {
      opt.high_level = 1;
    } else if (strncmp(a, "--target=", 9) == 0) {
      /* the library says whether it knows the name (E0810) */
      if (opt.target) return given_twice("--target");
      opt.target = a + 9;
    } else if (strcmp(a, "--diagnostics=json") == 0) {
      opt.diagnostics_json = 1;
    } else if (strcmp(a, "--diagnostics=text") == 0) {
      opt.diagnostics_json = 0;
    } else if (translate && (strcmp(a, "-k") == 0 || strcmp(a, "--kernel") == 0)) {
      if (i + 1 == argc || argv[i + 1][0] == '-')
        return command_usage_error(cmd->name, "%s needs a kernel name (-k NAME)", a);
      if (opt.kernel) return given_twice("-k");
      opt.kernel = argv[++i];
    } else if (translate && strncmp(a, "--kernel=", 9) == 0) {
      if (opt.kernel) return given_twice("-k");
      opt.kernel = a + 9;
    } else if (cmd->action == DPIA_TRANSLATE && strncmp(a, "--emit=", 7) == 0) {
      const char *k = a + 7;
      if (emit_given) return given_twice("--emit");
      emit_given = true;
      if (strcmp(k, "opencl") == 0) opt.emit = DPIA_EMIT_OPENCL;
      else if (strcmp(k, "intermediate") == 0) opt.emit = DPIA_EMIT_INTERMEDIATE;
      else if (strcmp(k, "imperative") == 0) opt.emit = DPIA_EMIT_IMPERATIVE;
      else if (strcmp(k, "json") == 0) opt.emit = DPIA_EMIT_JSON;
      else if (strcmp(k, "header") == 0) opt.emit = DPIA_EMIT_HEADER;
      else if (strcmp(k, "space") == 0)
        opt.emit = DPIA_EMIT_SPACE;
      else
        return usage_error("unknown --emit kind '%s' (opencl, intermediate, imperative, json, header, space)", k);
    } else if (cmd->action == DPIA_TRANSLATE && strcmp(a, "-o") == 0) {
      if (i + 1 == argc) return usage_error("%s", "-o needs a file name");
      if (out_path) return given_twice("-o");
      out_path = argv[++i];
    } else if ((cmd->action == DPIA_TRANSLATE || run) && strcmp(a, "--no-verify") == 0) {
      opt.verify = 0;
    } else if (cmd->action == DPIA_TRANSLATE && strcmp(a, "--stamp") == 0) {
      opt.stamp = 1;
    } else if (cmd->action == DPIA_TRANSLATE &&
               (strcmp(a, "--source-name") == 0 || strncmp(a, "--source-name=", 14) == 0)) {
      const char *v = a[13] == '=' ? a + 14 : i + 1 < argc ? argv[++i] : NULL;
      if (!v || !*v) return command_usage_error(cmd->name, "%s", "--source-name needs a name (--source-name NAME)");
      if (opt.source_name) return given_twice("--source-name");
      opt.source_name = v;
    } else if (strncmp(a, "--local-size=", 13) == 0) { /* check too: it decides what translates */
      if (opt.local_size[0]) return given_twice("--local-size");
      if (!parse_sizes(a + 13, opt.local_size)) return usage_error("bad --local-size '%s' (e.g. 64 or 16,16)", a + 13);
    } else if (strncmp(a, "--global-size=", 14) == 0) {
      if (opt.global_size[0]) return given_twice("--global-size");
      if (!parse_sizes(a + 14, opt.global_size)) return usage_error("bad --global-size '%s'", a + 14);
    } else if (run && (strcmp(a, "--size") == 0 || strncmp(a, "--size=", 7) == 0)) {
      /* --size N=1024, --size=N=1024, --size M=10,N=128, --size M=10 N=128 */
      const char *binding = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
      if (!binding) return command_usage_error(cmd->name, "%s", "--size needs N=VALUE");
      int status = add_size_bindings(cmd->name, binding, &opt, own, size_values);
      if (status != DPIA_OK) return status;
      /* more NAME=VALUE words after the first belong to the same --size */
      while (a[6] != '=' && i + 1 < argc && is_size_binding(argv[i + 1])) {
        status = add_size_bindings(cmd->name, argv[++i], &opt, own, size_values);
        if (status != DPIA_OK) return status;
      }
    } else if (translate && (strcmp(a, "--set") == 0 || strncmp(a, "--set=", 6) == 0)) {
      /* --set WG=128, --set=WG=128 */
      const char *binding = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
      if (!binding) return command_usage_error(cmd->name, "%s", "--set needs NAME=VALUE");
      if (own->nsets == MAX_SIZES) return command_usage_error(cmd->name, "%s", "too many --set values");
      if (!parse_size_binding(binding, &own->set_names[own->nsets], &set_values[own->nsets]))
        return command_usage_error(cmd->name, "bad --set '%s' (expected NAME=VALUE, a natural number)", binding);
      for (int j = 0; j < own->nsets; j++)
        if (strcmp(own->set_names[j], own->set_names[own->nsets]) == 0) {
          own->nsets++;
          return command_usage_error(cmd->name, "--set %s is given twice", own->set_names[j]);
        }
      opt.nsets = ++own->nsets;
    } else if (run && strncmp(a, "--opencl-source=", 16) == 0) {
      size_t n;
      if (own->opencl_text) return given_twice("--opencl-source");
      own->opencl_text = cli_read_file(a + 16, &n);
      if (!own->opencl_text) return DPIA_EUSAGE;
      opt.opencl_source = own->opencl_text;
    } else if (run && (strcmp(a, "--input") == 0 || strncmp(a, "--input=", 8) == 0)) {
      /* --input NAME=FILE, --input=NAME=FILE: the library checks the name
       * and the values (E0341, E0340) */
      const char *binding = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
      const char *eq = binding ? strchr(binding, '=') : NULL;
      if (!eq || eq == binding || !eq[1]) return command_usage_error(cmd->name, "%s", "--input needs NAME=FILE");
      if (own->ninputs == MAX_SIZES) return command_usage_error(cmd->name, "%s", "too many --input values");
      size_t n;
      char *text = cli_read_file(eq + 1, &n);
      if (!text) return DPIA_EUSAGE;
      own->input_texts[own->ninputs] = text;
      own->input_names[own->ninputs] = strndup(binding, (size_t)(eq - binding));
      if (!own->input_names[own->ninputs++]) return usage_error("%s", "out of memory");
      opt.ninputs_given = own->ninputs;
      opt.input_names = own->input_names;
      opt.input_texts = own->input_texts;
    } else if (run && strncmp(a, "--inputs=", 9) == 0) {
      if (strcmp(a + 9, "signed") == 0) opt.inputs = DPIA_INPUTS_SIGNED;
      else if (strcmp(a + 9, "positive") == 0) opt.inputs = DPIA_INPUTS_POSITIVE;
      else if (strcmp(a + 9, "unit") == 0) opt.inputs = DPIA_INPUTS_UNIT;
      else return command_usage_error(cmd->name, "unknown --inputs kind '%s' (signed, positive, unit)", a + 9);
    } else if (run && strcmp(a, "--check") == 0) {
      opt.check = 1;
    } else if (run && strcmp(a, "--json") == 0) {
      opt.run_json = 1;
    } else if (run && (strcmp(a, "--repeat") == 0 || strcmp(a, "--seed") == 0 || strcmp(a, "--platform") == 0 ||
                       strcmp(a, "--device") == 0)) {
      if (i + 1 == argc) return usage_error("%s needs a number", a);
      long v;
      if (!parse_int_option(argv[++i], 0, strcmp(a, "--repeat") == 0 ? 100000 : 0x7fffffffL, &v))
        return usage_error("bad number '%s'", argv[i]);
      if (strcmp(a, "--repeat") == 0) opt.repeat = v < 1 ? 1 : (int)v;
      else if (strcmp(a, "--seed") == 0) {
        opt.seed = (unsigned long long)v;
        seed_given = true;
      } else if (strcmp(a, "--platform") == 0) opt.platform = (int)v;
      else opt.device = (int)v;
    } else if (a[0] == '-' && a[1] && valued_option(a)) {
      const char *v = i + 1 < argc && argv[i + 1][0] != '-' ? argv[i + 1] : "VALUE";
      fprintf(stderr, "dpia: error: '%s' takes its value after '=': write %s=%s\nRun 'dpia %s --help' for usage.\n",
              a, a, v, cmd->name);
      return DPIA_EUSAGE;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "dpia: error: unknown option '%s' for 'dpia %s'\nRun 'dpia %s --help' for usage.\n", a,
              cmd->name, cmd->name);
      return DPIA_EUSAGE;
    } else if (file) {
      return usage_error("more than one input file ('%s')", a);
    } else {
      file = a;
    }
  }
  if (!file) {
    fprintf(stderr, "dpia: error: 'dpia %s' needs an input FILE\nRun 'dpia %s --help' for usage.\n", cmd->name,
            cmd->name);
    return DPIA_EUSAGE;
  }
  char relative[4096];
  if (!opt.source_name) opt.source_name = relative_name(file, relative, sizeof relative);
  if (run && !seed_given) opt.seed = (unsigned long long)time(NULL) % 1000000;
  if (run) {
    int status = run_in_child(file, &opt);
    if (status >= 0) return status;
  }
  /* The one verification of this call (under 20 ms a call: bench/throughput): in
   * the helper process (clang linked statically, no libclang to load),
   * started now so that its start overlaps the translation; without it,
   * libclang in this process, loaded on a thread meanwhile (10-15 ms).
   * DPIA_CLANG_HELPER names another helper program; empty, none. */
  DpiaVerifier *verifier = NULL;
  DpiaPreload *preload = NULL;
  if (opt.verify || cmd->action == DPIA_VERIFY) {
    const char *helper = getenv("DPIA_CLANG_HELPER");
    if (!helper || *helper) verifier = dpia_verifier_new_helper(helper);
    if (verifier) opt.verifier = verifier;
    else preload = dpia_preload_start();
  }
  size_t len = 0;
  char *text = cli_read_file(file, &len);
  /* `dpia check` parses the body of each foreign function a kernel calls
   * (docs/language.md section 14): the helper too, for a file that may
   * declare one */
  bool foreign = false;
  for (size_t i = 0; text && !foreign && i + 7 <= len; i++) foreign = memcmp(text + i, "foreign", 7) == 0;
  if (!verifier && !preload && cmd->action == DPIA_CHECK && foreign) {
    const char *helper = getenv("DPIA_CLANG_HELPER");
    if (!helper || *helper) verifier = dpia_verifier_new_helper(helper);
    if (verifier) opt.verifier = verifier;
  }
  DpiaResult *r = NULL;
  int status = text ? dpia_process(file, text, len, &opt, &r) : DPIA_EUSAGE;
  dpia_verifier_free_at_exit(verifier); /* the call ends soon after: not waiting for the helper */
  dpia_preload_finish(preload);
  if (!text) return status;
  free(text);
  size_t olen;
  const char *out = dpia_result_output(r, &olen);
  /* JSON diagnostics are for programs: on stdout, unless the output proper
   * goes there (a success, whose diagnostics are "[]", keeps stdout for the
   * output); text diagnostics on stderr */
  /* dpia run --json reports a check that fails too, and sizes that a
   * precondition refuses: its JSON says how */
  bool report =
      status == DPIA_OK || (opt.run_json && (status == DPIA_EVERIFY || status == DPIA_EPRECONDITION) && olen > 0);
  bool output_on_stdout = report && !out_path && olen > 0;
  fputs(dpia_result_diagnostics(r), opt.diagnostics_json && !output_on_stdout ? stdout : stderr);
  /* values the user did not give: say where they came from (run's report
   * has its own line) */
  if (dpia_result_tuned(r) && opt.action != DPIA_RUN)
    fprintf(stderr, "dpia: note: tune values from the tuning cache: %s\n", dpia_result_tuned(r));
  if (report) {
    if (out_path) {
      if (!write_atomically(out_path, out, olen)) status = DPIA_EUSAGE;
    } else {
      fwrite(out, 1, olen, stdout);
    }
  }
  dpia_result_free(r);
  return status;
}

static int run_command(const Command *cmd, int argc, char **argv) {
  Owned own = {0};
  int status = run_command_in(cmd, argc, argv, &own);
  for (int i = 0; i < own.nsizes; i++) free((void *)own.size_names[i]);
  for (int i = 0; i < own.nsets; i++) free((void *)own.set_names[i]);
  free(own.opencl_text);
  for (int i = 0; i < own.ninputs; i++) free((void *)own.input_names[i]), free((void *)own.input_texts[i]);
  return status;
}

/* dpia batch: JSON lines on stdin, JSON lines on stdout (dpia_batch) */
static int batch_command(int argc, char **argv) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.verify = 1;
  opt.debug_no_shortcuts = debug_no_shortcuts();
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(batch_help, stdout);
      return DPIA_OK;
    }
    if (strcmp(argv[i], "--no-verify") == 0) {
      opt.verify = 0;
      continue;
    }
    if (strncmp(argv[i], "--target=", 9) == 0) { /* the requests' default "target" */
      opt.target = argv[i] + 9;
      continue;
    }
    fprintf(stderr, "dpia: error: unknown argument '%s' for 'dpia batch' (it reads stdin)\n"
                    "Run 'dpia batch --help' for usage.\n",
            argv[i]);
    return DPIA_EUSAGE;
  }
  return dpia_batch(stdin, stdout, &opt);
}

/* LeakSanitizer checks for leaks in an exit handler, which _exit skips */
#if defined(__SANITIZE_ADDRESS__)
#define DPIA_LEAK_CHECKED_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define DPIA_LEAK_CHECKED_AT_EXIT 1
#endif
#endif
#ifndef DPIA_LEAK_CHECKED_AT_EXIT
#define DPIA_LEAK_CHECKED_AT_EXIT 0
#endif

/* The end of the process.  Everything dpia allocated is freed by now; what
 * exit() would add is running the static destructors of libclang and
 * libLLVM when a verification loaded them (about 0.5 ms of a 15 ms call,
 * bench/throughput), so the output is flushed here (a failed write is an error) and
 * the process ends with _exit. */
static int finish(int status) {
  /* a precondition failing at the sizes of dpia run: exit 1 (spec section 9) */
  if (status == DPIA_EPRECONDITION) status = DPIA_EUSER;
  if (fflush(stdout) != 0) {
    fprintf(stderr, "dpia: error: cannot write the output: %s\n", strerror(errno));
    if (status == DPIA_OK) status = DPIA_EUSAGE;
  }
  fflush(stderr);
  if (!DPIA_LEAK_CHECKED_AT_EXIT) _exit(status);
  return status;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_text, stderr);
    return DPIA_EUSAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage_text, stdout);
    return DPIA_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("dpia %s\n", DPIA_VERSION);
    return DPIA_OK;
  }
  if (strcmp(cmd, "batch") == 0) return batch_command(argc - 2, argv + 2);
  if (strcmp(cmd, "test") == 0) return dpia_test_command(argc - 2, argv + 2);
  if (strcmp(cmd, "rewrite") == 0) return dpia_rewrite_command(argc - 2, argv + 2);
  if (strcmp(cmd, "explore") == 0) return dpia_explore_command(argc - 2, argv + 2);
  if (strcmp(cmd, "tune") == 0) return dpia_tune_command(argc - 2, argv + 2);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(cmd, commands[i].name) == 0) return run_command(&commands[i], argc - 2, argv + 2);
  return usage_error("unknown command '%s'", cmd);
}

int main(int argc, char **argv) { return finish(dispatch(argc, argv)); }
