/* clang_check.c: verification of generated text with clang, in the
 * language a target gives (ClangLanguage, clang_check.h): OpenCL C 1.2 for
 * target_opencl, whose file holds the arguments that say so.
 *
 * Two ways to run the same parse, giving the same report:
 *
 * In this process, through libclang's C API (clang_verifier_new).
 * libclang is loaded with dlopen when it is first needed, not linked:
 * loading it maps and relocates libclang and libLLVM (about 150 MB,
 * 600,000 relocations), which costs 10 to 15 ms, and most commands (check,
 * translate --no-verify, batch requests without verification, a library
 * user who never verifies) need neither.  Each verifier opens the library
 * itself and looks up the functions it calls into its own table (ClangApi),
 * so there is no process-wide state here: a second dlopen of a loaded
 * library only counts a reference, and libclang is NODELETE, so closing
 * never unloads it under another verifier.  Each parse after the first
 * costs 1.5-3 ms: the way for a process that verifies many kernels.
 *
 * In a helper process, dpia-clang-check (verify/clang_helper.cpp,
 * clang_verifier_new_helper): clang's parser linked statically into a
 * position-dependent program, which starts without relocating anything.
 * A one-shot command line call pays 5-7 ms for it instead of 13-15 for
 * loading libclang and parsing; the helper is started before the
 * translation, so its start overlaps it.  It answers with the diagnostics
 * as records (depth, severity, location, option, message, ranges), which
 * are turned into the same tree (DiagRecord) as libclang's diagnostics and
 * reported by the same code.  If the helper cannot be started or stops
 * answering, the verifier falls back to libclang in this process.
 *
 * Report format: clang_check.h. */
#define _GNU_SOURCE /* dladdr */
#include "clang_check.h"

#include <clang-c/Index.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The libclang functions used here: X(return type, name, parameters). */
#define CLANG_FUNCTIONS(X)                                                                                     \
  X(CXIndex, clang_createIndex, (int, int))                                                                    \
  X(void, clang_disposeIndex, (CXIndex))                                                                       \
  X(const char *, clang_getCString, (CXString))                                                                \
  X(void, clang_disposeString, (CXString))                                                                     \
  X(unsigned, clang_getDiagnosticNumRanges, (CXDiagnostic))                                                    \
  X(CXSourceRange, clang_getDiagnosticRange, (CXDiagnostic, unsigned))                                         \
  X(CXSourceLocation, clang_getRangeStart, (CXSourceRange))                                                    \
  X(CXSourceLocation, clang_getRangeEnd, (CXSourceRange))                                                      \
  X(void, clang_getExpansionLocation, (CXSourceLocation, CXFile *, unsigned *, unsigned *, unsigned *))        \
  X(int, clang_File_isEqual, (CXFile, CXFile))                                                                 \
  X(enum CXDiagnosticSeverity, clang_getDiagnosticSeverity, (CXDiagnostic))                                    \
  X(CXSourceLocation, clang_getDiagnosticLocation, (CXDiagnostic))                                             \
  X(CXString, clang_getFileName, (CXFile))                                                                     \
  X(CXString, clang_getDiagnosticSpelling, (CXDiagnostic))                                                     \
  X(CXString, clang_getDiagnosticOption, (CXDiagnostic, CXString *))                                           \
  X(CXDiagnosticSet, clang_getChildDiagnostics, (CXDiagnostic))                                                \
  X(unsigned, clang_getNumDiagnosticsInSet, (CXDiagnosticSet))                                                 \
  X(CXDiagnostic, clang_getDiagnosticInSet, (CXDiagnosticSet, unsigned))                                       \
  X(void, clang_disposeDiagnostic, (CXDiagnostic))                                                             \
  X(enum CXErrorCode, clang_parseTranslationUnit2,                                                             \
    (CXIndex, const char *, const char *const *, int, struct CXUnsavedFile *, unsigned, unsigned,              \
     CXTranslationUnit *))                                                                                     \
  X(CXFile, clang_getFile, (CXTranslationUnit, const char *))                                                  \
  X(unsigned, clang_getNumDiagnostics, (CXTranslationUnit))                                                    \
  X(CXDiagnostic, clang_getDiagnostic, (CXTranslationUnit, unsigned))                                          \
  X(void, clang_disposeTranslationUnit, (CXTranslationUnit))

typedef struct ClangApi {
#define X(ret, name, params) ret(*name) params;
  CLANG_FUNCTIONS(X)
#undef X
} ClangApi;

struct ClangVerifier {
  const ClangLanguage *lang; /* the arguments of every parse */
  /* libclang in this process: library is NULL until it is loaded */
  void *library; /* the dlopen handle */
  ClangApi api;
  CXIndex index;
  /* the helper process: helper is 0 when there is none (any more) */
  pid_t helper;
  int sock;          /* our end of the socket pair (the helper's stdin and stdout) */
  FILE *from_helper; /* reads sock */
};

/* The name the generated text is parsed under.  It is an unsaved (in-memory)
 * file, so no file of that name is read or written; locations in it are
 * reported under the caller's name instead.  clang_helper.cpp uses the
 * same name. */
static const char generated_file_name[] = "dpia-generated.cl";

/* ---- loading libclang ---- */

/* The library to open: its soname (found by verify/meson.build from the
 * libclang the build was configured with), searched the usual way, then
 * in that LLVM's library directory. */
#ifndef DPIA_LIBCLANG_SONAME
#define DPIA_LIBCLANG_SONAME "libclang-15.so.15"
#endif

static void *open_libclang(void) {
  /* RTLD_LOCAL: libclang's symbols stay out of the global scope, so
   * nothing loaded later (PoCL's LLVM) binds to them by accident; the
   * libLLVM it needs is the one PoCL uses (verify/meson.build) */
  void *lib = dlopen(DPIA_LIBCLANG_SONAME, RTLD_LAZY | RTLD_LOCAL);
#ifdef DPIA_LIBCLANG_DIR
  if (!lib) lib = dlopen(DPIA_LIBCLANG_DIR "/" DPIA_LIBCLANG_SONAME, RTLD_LAZY | RTLD_LOCAL);
#endif
  return lib;
}

/* Fill api from lib; false if a function is missing (not a libclang). */
static bool load_api(void *lib, ClangApi *api) {
  /* POSIX dlsym returns functions as void *; the conversion is defined
   * there (and by every ELF system), not by ISO C, hence the memcpy */
#define X(ret, name, params)                    \
  {                                             \
    void *sym = dlsym(lib, #name);              \
    if (!sym) return false;                     \
    memcpy(&api->name, &sym, sizeof api->name); \
  }
  CLANG_FUNCTIONS(X)
#undef X
  return true;
}

/* Load libclang into v and make its index; false if it cannot be. */
static bool load_libclang(ClangVerifier *v) {
  if (v->library) return true;
  void *lib = open_libclang();
  if (!lib) return false;
  if (!load_api(lib, &v->api)) {
    dlclose(lib);
    return false;
  }
  /* keep declarations of no precompiled header; never print diagnostics to
   * stderr: they all go to the caller's report */
  v->index = v->api.clang_createIndex(0, 0);
  if (!v->index) {
    dlclose(lib);
    return false;
  }
  v->library = lib;
  return true;
}

struct ClangPreload {
  pthread_t thread;
  void *library; /* written by the thread, read after the join */
};

static void *preload_main(void *arg) {
  ClangPreload *preload = arg;
  preload->library = open_libclang();
  return NULL;
}

ClangPreload *clang_preload_start(void) {
  ClangPreload *preload = malloc(sizeof *preload);
  if (!preload) return NULL;
  preload->library = NULL;
  if (pthread_create(&preload->thread, NULL, preload_main, preload) != 0) {
    free(preload);
    return NULL;
  }
  return preload;
}

void clang_preload_finish(ClangPreload *preload) {
  if (!preload) return;
  pthread_join(preload->thread, NULL);
  if (preload->library) dlclose(preload->library);
  free(preload);
}

/* ---- the helper process ---- */

/* Where dpia-clang-check is when path is NULL: next to the library in the
 * build tree (BUILD/libdpia.so, BUILD/verify/dpia-clang-check), else where
 * it is installed.  NULL if neither is there. */
static char *find_helper(void) {
#ifdef DPIA_CLANG_HELPER
  Dl_info self;
  /* any address in this library will do: the name of the generated file */
  if (dladdr(generated_file_name, &self) && self.dli_fname) {
    const char *slash = strrchr(self.dli_fname, '/');
    size_t dir = slash ? (size_t)(slash - self.dli_fname) : 0;
    const char *rest = slash ? "/verify/dpia-clang-check" : "verify/dpia-clang-check";
    char *path = malloc(dir + strlen(rest) + 1);
    if (path) {
      memcpy(path, self.dli_fname, dir);
      strcpy(path + dir, rest);
      if (access(path, X_OK) == 0) return path;
      free(path);
    }
  }
  if (access(DPIA_CLANG_HELPER, X_OK) == 0) return strdup(DPIA_CLANG_HELPER);
#endif
  return NULL;
}

/* Tell the helper its input has ended (it exits then) and, if wait,
 * wait for it to exit. */
static void end_helper(ClangVerifier *v, bool wait) {
  if (!v->helper) return;
  shutdown(v->sock, SHUT_WR);
  if (v->from_helper) fclose(v->from_helper); /* closes sock */
  else close(v->sock);
  int status;
  while (wait && waitpid(v->helper, &status, 0) < 0 && errno == EINTR) {
  }
  v->helper = 0;
  v->from_helper = NULL;
  v->sock = -1;
}

static void stop_helper(ClangVerifier *v) { end_helper(v, true); }

/* Start the helper at path with the language's arguments; false if it
 * cannot be. */
static bool start_helper(ClangVerifier *v, const char *path) {
  int sv[2];
  int nargs = v->lang->nargs;
  if (nargs > CLANG_MAX_ARGS || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return false;
  char *argv[CLANG_MAX_ARGS + 2];
  argv[0] = (char *)path;
  for (int i = 0; i < nargs; i++) argv[i + 1] = (char *)v->lang->args[i];
  argv[nargs + 1] = NULL;
  posix_spawn_file_actions_t io;
  bool ok = posix_spawn_file_actions_init(&io) == 0;
  if (!ok) {
    close(sv[0]);
    close(sv[1]);
    return false;
  }
  /* its stdin and stdout are its end of the pair (dup2 drops CLOEXEC);
   * stderr goes nowhere: everything it has to say is a record */
  ok = posix_spawn_file_actions_adddup2(&io, sv[1], 0) == 0 && posix_spawn_file_actions_adddup2(&io, sv[1], 1) == 0 &&
       posix_spawn_file_actions_addopen(&io, 2, "/dev/null", O_WRONLY, 0) == 0;
  pid_t pid = 0;
  ok = ok && posix_spawn(&pid, path, &io, NULL, argv, environ) == 0;
  posix_spawn_file_actions_destroy(&io);
  close(sv[1]);
  if (!ok) {
    close(sv[0]);
    return false;
  }
  v->helper = pid;
  v->sock = sv[0];
  v->from_helper = fdopen(sv[0], "r");
  if (!v->from_helper) {
    stop_helper(v);
    return false;
  }
  return true;
}

/* all of data to the helper; false if it is gone (no SIGPIPE: a stopped
 * helper is not a reason to kill the caller) */
static bool send_all(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    len -= (size_t)n;
  }
  return true;
}

/* ---- verifiers ---- */

static ClangVerifier *verifier_alloc(const ClangLanguage *lang) {
  ClangVerifier *v = malloc(sizeof *v);
  if (!v) return NULL;
  memset(v, 0, sizeof *v);
  v->lang = lang;
  v->sock = -1;
  return v;
}

ClangVerifier *clang_verifier_new(const ClangLanguage *lang) {
  ClangVerifier *v = verifier_alloc(lang);
  if (!v) return NULL;
  if (!load_libclang(v)) {
    free(v);
    return NULL;
  }
  return v;
}

ClangVerifier *clang_verifier_new_helper(const ClangLanguage *lang, const char *path) {
  char *found = path ? NULL : find_helper();
  if (!path) path = found;
  ClangVerifier *v = path ? verifier_alloc(lang) : NULL;
  if (v && !start_helper(v, path)) {
    free(v);
    v = NULL;
  }
  free(found);
  return v;
}

static void verifier_free(ClangVerifier *v, bool wait) {
  if (!v) return;
  end_helper(v, wait);
  if (v->library) {
    v->api.clang_disposeIndex(v->index);
    dlclose(v->library);
  }
  free(v);
}

void clang_verifier_free(ClangVerifier *v) { verifier_free(v, true); }

void clang_verifier_free_at_exit(ClangVerifier *v) { verifier_free(v, false); }

/* ---- diagnostics, from either ---- */

typedef enum LocKind { LOC_NONE, LOC_GENERATED, LOC_OTHER } LocKind;

/* a range of the generated text (only those are kept) */
typedef struct DiagRange {
  unsigned first_line, first_col, last_line, last_col;
} DiagRange;

typedef struct DiagRecord DiagRecord;
struct DiagRecord {
  enum CXDiagnosticSeverity severity;
  LocKind where;
  unsigned line, col; /* expansion location */
  const char *file;   /* LOC_OTHER */
  const char *option; /* "" if none */
  const char *message;
  size_t nranges, nchildren;
  DiagRange *ranges;
  DiagRecord *children;
};

/* The text being verified, and what the report calls it. */
typedef struct Generated {
  const char *name;
  const char *text;
  size_t len;
} Generated;

/* Byte range [*begin, *end) of 1-based line number line; false if the text
 * has fewer lines. */
static bool find_line(const Generated *g, unsigned line, size_t *begin, size_t *end) {
  size_t pos = 0;
  for (unsigned current = 1; current < line; current++) {
    const char *newline = memchr(g->text + pos, '\n', g->len - pos);
    if (!newline) return false;
    pos = (size_t)(newline - g->text) + 1;
  }
  size_t stop = pos;
  while (stop < g->len && g->text[stop] != '\n' && g->text[stop] != '\r') stop++;
  *begin = pos;
  *end = stop;
  return true;
}

/* The generated line, then a caret under the column and tildes under the
 * parts of clang's ranges on that line.  Tabs of the line are copied into
 * the marker line so the caret stays aligned. */
static void emit_source_line(Buf *out, const Generated *g, const DiagRecord *d) {
  size_t begin, end;
  unsigned line = d->line, col = d->col;
  if (!find_line(g, line, &begin, &end)) return;
  size_t width = end - begin;
  buf_put(out, g->text + begin, width);
  buf_putc(out, '\n');

  Buf marks;
  buf_init(&marks, out->arena);
  for (size_t i = 0; i <= width; i++) buf_putc(&marks, i < width && g->text[begin + i] == '\t' ? '\t' : ' ');
  for (size_t r = 0; r < d->nranges; r++) {
    const DiagRange *range = &d->ranges[r];
    if (range->first_line > line || range->last_line < line) continue;
    size_t from = range->first_line == line ? range->first_col - 1 : 0;
    size_t to = range->last_line == line ? range->last_col - 1 : width;
    for (size_t i = from; i < to && i < width; i++) marks.data[i] = '~';
  }
  size_t caret = col - 1 < width ? col - 1 : width;
  marks.data[caret] = '^';
  size_t used = marks.len;
  while (used > 0 && (marks.data[used - 1] == ' ' || marks.data[used - 1] == '\t')) used--;
  buf_put(out, marks.data, used);
  buf_putc(out, '\n');
}

static const char *severity_word(enum CXDiagnosticSeverity severity) {
  switch (severity) {
  case CXDiagnostic_Note: return "note";
  case CXDiagnostic_Warning: return "warning";
  case CXDiagnostic_Error:
  case CXDiagnostic_Fatal: return "error";
  case CXDiagnostic_Ignored: break;
  }
  return "remark";
}

/* One diagnostic and its notes; returns whether it fails the verification. */
static bool report_record(Buf *out, const Generated *g, const DiagRecord *d) {
  if (d->severity == CXDiagnostic_Ignored) return false;
  if (d->where == LOC_GENERATED) emit(out, "%s:%u:%u: ", g->name, d->line, d->col);
  else if (d->where == LOC_OTHER) emit(out, "%s:%u:%u: ", d->file, d->line, d->col); /* one of clang's headers */
  else emit(out, "%s: ", g->name);
  emit(out, "%s: %s", severity_word(d->severity), d->message);
  if (d->option[0]) emit(out, " [%s]", d->option);
  buf_putc(out, '\n');
  if (d->where == LOC_GENERATED) emit_source_line(out, g, d);
  for (size_t i = 0; i < d->nchildren; i++) report_record(out, g, &d->children[i]);
  return d->severity != CXDiagnostic_Note;
}

/* ---- from libclang ---- */

typedef struct FromClang {
  const ClangApi *api;
  Arena *arena;
  CXFile file; /* the unsaved file in the translation unit */
} FromClang;

static const char *take_cxstring(const FromClang *fc, CXString s) {
  const char *text = fc->api->clang_getCString(s);
  const char *copy = arena_strndup(fc->arena, text ? text : "", text ? strlen(text) : 0);
  fc->api->clang_disposeString(s);
  return copy;
}

/* Where a location is once macros are expanded: the place in the generated
 * text a diagnostic is about, even when it comes from a built-in macro. */
static LocKind where_is(const FromClang *fc, CXSourceLocation loc, unsigned *line, unsigned *col, CXFile *file) {
  fc->api->clang_getExpansionLocation(loc, file, line, col, NULL);
  if (!*file) return LOC_NONE;
  return fc->api->clang_File_isEqual(*file, fc->file) ? LOC_GENERATED : LOC_OTHER;
}

static void record_of(const FromClang *fc, CXDiagnostic diag, DiagRecord *d) {
  const ClangApi *api = fc->api;
  memset(d, 0, sizeof *d);
  d->severity = api->clang_getDiagnosticSeverity(diag);
  CXFile file;
  d->where = where_is(fc, api->clang_getDiagnosticLocation(diag), &d->line, &d->col, &file);
  d->file = d->where == LOC_OTHER ? take_cxstring(fc, api->clang_getFileName(file)) : NULL;
  d->message = take_cxstring(fc, api->clang_getDiagnosticSpelling(diag));
  d->option = take_cxstring(fc, api->clang_getDiagnosticOption(diag, NULL));
  unsigned nranges = api->clang_getDiagnosticNumRanges(diag);
  d->ranges = NEWARRAY(fc->arena, DiagRange, nranges ? nranges : 1);
  for (unsigned r = 0; r < nranges; r++) {
    CXSourceRange range = api->clang_getDiagnosticRange(diag, r);
    DiagRange *out = &d->ranges[d->nranges];
    CXFile f;
    if (where_is(fc, api->clang_getRangeStart(range), &out->first_line, &out->first_col, &f) != LOC_GENERATED) continue;
    if (where_is(fc, api->clang_getRangeEnd(range), &out->last_line, &out->last_col, &f) != LOC_GENERATED) continue;
    d->nranges++;
  }
  /* the set belongs to diag: its members are disposed, the set is not */
  CXDiagnosticSet children = api->clang_getChildDiagnostics(diag);
  unsigned nchildren = children ? api->clang_getNumDiagnosticsInSet(children) : 0;
  d->children = NEWARRAY(fc->arena, DiagRecord, nchildren ? nchildren : 1);
  for (unsigned i = 0; i < nchildren; i++) {
    CXDiagnostic child = api->clang_getDiagnosticInSet(children, i);
    record_of(fc, child, &d->children[d->nchildren++]);
    api->clang_disposeDiagnostic(child);
  }
}

/* The diagnostics of parsing g with libclang in v (loaded), into *records;
 * false after a message in report if libclang could not parse at all. */
static bool parse_with_libclang(ClangVerifier *v, const Generated *g, Arena *a, DiagRecord **records, size_t *count,
                                Buf *report) {
  struct CXUnsavedFile unsaved = {
      .Filename = generated_file_name,
      .Contents = g->text,
      .Length = (unsigned long)g->len,
  };
  CXTranslationUnit unit = NULL;
  enum CXErrorCode status = v->api.clang_parseTranslationUnit2(
      v->index, generated_file_name, v->lang->args, v->lang->nargs, &unsaved, 1, CXTranslationUnit_None, &unit);
  if (status != CXError_Success || !unit) {
    emit(report, "%s: error: libclang could not parse the generated code (libclang error %d)\n", g->name, (int)status);
    return false;
  }
  FromClang fc = {&v->api, a, v->api.clang_getFile(unit, generated_file_name)};
  unsigned n = v->api.clang_getNumDiagnostics(unit);
  *records = NEWARRAY(a, DiagRecord, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    CXDiagnostic diag = v->api.clang_getDiagnostic(unit, i);
    record_of(&fc, diag, &(*records)[i]);
    v->api.clang_disposeDiagnostic(diag);
  }
  *count = n;
  v->api.clang_disposeTranslationUnit(unit);
  return true;
}

/* ---- from the helper (protocol: clang_helper.cpp) ---- */

/* The next tab-separated field of *p (unescaped, in a), moving *p past
 * it; NULL at the end of the line. */
static char *next_field(Arena *a, char **p) {
  if (!*p) return NULL;
  char *start = *p, *tab = strchr(start, '\t');
  size_t len = tab ? (size_t)(tab - start) : strlen(start);
  *p = tab ? tab + 1 : NULL;
  char *out = arena_alloc(a, len + 1);
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    char c = start[i];
    if (c == '\\' && i + 1 < len) {
      c = start[++i];
      c = c == 't' ? '\t' : c == 'n' ? '\n' : c;
    }
    out[n++] = c;
  }
  out[n] = 0;
  return out;
}

static bool number_field(Arena *a, char **p, unsigned long *value) {
  char *f = next_field(a, p), *end;
  if (!f || !*f) return false;
  errno = 0;
  *value = strtoul(f, &end, 10);
  return !*end && !errno;
}

/* A growing array of records. */
typedef struct RecordList {
  DiagRecord *items;
  size_t n, cap;
} RecordList;

static DiagRecord *record_push(Arena *a, RecordList *l) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 8;
    DiagRecord *items = NEWARRAY(a, DiagRecord, cap);
    if (l->n) memcpy(items, l->items, sizeof *items * l->n);
    l->items = items;
    l->cap = cap;
  }
  DiagRecord *d = &l->items[l->n++];
  memset(d, 0, sizeof *d);
  return d;
}

/* One record line into d; false if it is malformed. */
static bool parse_record(Arena *a, char *line, unsigned long *depth, DiagRecord *d) {
  char *p = line;
  unsigned long severity, where, row, col, nranges;
  if (!number_field(a, &p, depth) || !number_field(a, &p, &severity) || !number_field(a, &p, &where) ||
      !number_field(a, &p, &row) || !number_field(a, &p, &col))
    return false;
  char *file = next_field(a, &p), *option = next_field(a, &p), *message = next_field(a, &p);
  if (!message || !number_field(a, &p, &nranges) || severity > CXDiagnostic_Fatal || where > LOC_OTHER ||
      nranges > 1000)
    return false;
  d->severity = (enum CXDiagnosticSeverity)severity;
  d->where = (LocKind)where;
  d->line = (unsigned)row;
  d->col = (unsigned)col;
  d->file = file;
  d->option = option;
  d->message = message;
  d->ranges = NEWARRAY(a, DiagRange, nranges ? nranges : 1);
  for (unsigned long r = 0; r < nranges; r++) {
    unsigned long v[4];
    for (int k = 0; k < 4; k++)
      if (!number_field(a, &p, &v[k])) return false;
    d->ranges[r] = (DiagRange){(unsigned)v[0], (unsigned)v[1], (unsigned)v[2], (unsigned)v[3]};
  }
  d->nranges = nranges;
  return p == NULL;
}

/* Hand the children gathered so far to the last top-level record. */
static void adopt_children(RecordList *top, RecordList *kids) {
  if (top->n && kids->n) {
    top->items[top->n - 1].children = kids->items;
    top->items[top->n - 1].nchildren = kids->n;
  }
  *kids = (RecordList){0};
}

/* The records of one answer, up to its end line; false if the helper
 * stopped or said something malformed. */
static bool read_answer(ClangVerifier *v, Arena *a, RecordList *top, long *status) {
  RecordList kids = {0};
  char *line = NULL;
  size_t cap = 0;
  bool ok = false;
  for (;;) {
    ssize_t len = getline(&line, &cap, v->from_helper);
    if (len <= 0) break;
    if (line[len - 1] == '\n') line[--len] = 0;
    if (strncmp(line, "end\t", 4) == 0) {
      adopt_children(top, &kids);
      *status = strtol(line + 4, NULL, 10);
      ok = true;
      break;
    }
    unsigned long depth;
    DiagRecord d;
    memset(&d, 0, sizeof d);
    if (!parse_record(a, line, &depth, &d) || depth > 1) break;
    if (depth == 0 || !top->n) {
      adopt_children(top, &kids);
      *record_push(a, top) = d;
    } else {
      *record_push(a, &kids) = d;
    }
  }
  free(line);
  return ok;
}

/* The diagnostics of parsing g in the helper; false if the helper failed
 * (then it is stopped).  *parsed is false if the helper could not parse
 * (reported as libclang reports it). */
static bool parse_with_helper(ClangVerifier *v, const Generated *g, Arena *a, DiagRecord **records, size_t *count,
                              bool *parsed, Buf *report) {
  char head[32];
  int n = snprintf(head, sizeof head, "%zu\n", g->len);
  RecordList top = {0};
  long status = 0;
  if (!send_all(v->sock, head, (size_t)n) || !send_all(v->sock, g->text, g->len) || !read_answer(v, a, &top, &status)) {
    stop_helper(v);
    return false;
  }
  *records = top.items;
  *count = top.n;
  *parsed = status == 0;
  if (!*parsed)
    emit(report, "%s: error: libclang could not parse the generated code (libclang error %ld)\n", g->name, status);
  return true;
}

/* ---- verification ---- */

bool clang_verify(ClangVerifier *verifier, const char *name, const char *source, size_t len, Buf *report) {
  Generated g = {.name = name ? name : "<generated>", .text = source ? source : "", .len = source ? len : 0};
  Arena *a = report->arena;
  DiagRecord *records = NULL;
  size_t count = 0;
  bool parsed = false;
  if (!(verifier->helper && parse_with_helper(verifier, &g, a, &records, &count, &parsed, report))) {
    /* in this process: the verifier's own way, or the helper's fallback */
    if (!load_libclang(verifier)) {
      emit(report, "%s: error: cannot load libclang (%s) to verify the generated code\n", g.name,
           DPIA_LIBCLANG_SONAME);
      return false;
    }
    parsed = parse_with_libclang(verifier, &g, a, &records, &count, report);
  }
  if (!parsed) return false;
  bool failed = false;
  for (size_t i = 0; i < count; i++)
    if (report_record(report, &g, &records[i])) failed = true;
  return !failed;
}
