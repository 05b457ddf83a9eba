/* clang_check.c: OpenCL C verification through libclang's C API
 * (clang_check.h). */
#include "clang_check.h"

#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

struct OpenclVerifier {
  CXIndex index;
};

/* The name the generated text is parsed under.  It is an unsaved (in-memory)
 * file, so no file of that name is read or written; locations in it are
 * reported under the caller's name instead. */
static const char generated_file_name[] = "dpia-generated.cl";

/* Why each flag:
 *   -isystem RESOURCE/include  where clang's own headers (opencl-c.h) are;
 *                            the resource directory is found by the build
 *                            (verify/meson.build), because libclang replaces
 *                            any -resource-dir by one derived from its own
 *                            path, which does not exist on Debian.
 *   -x cl -cl-std=CL1.2      the language the generated code promises (spec
 *                            section 1): OpenCL C 1.2, whatever the suffix.
 *   --target=spir64-...      a fixed device-neutral target, so verification
 *                            does not depend on the host it runs on.
 *   -finclude-default-header declares the OpenCL built-ins (get_global_id,
 *                            vload4, barrier, CLK_LOCAL_MEM_FENCE, float4...);
 *                            clang 14's driver adds it for OpenCL by itself,
 *                            older drivers do not, and twice is harmless.
 *   -Wall -Wextra -Wpedantic generated code must be warning-free: an unused
 *                            or unused-but-set variable is a dead temporary,
 *                            a sign comparison a wrong index type, a zero
 *                            length array (pedantic) an unportable size.
 *   -Wshadow                 the code generator names variables uniquely
 *                            (acc, acc_2); an inner name hiding an outer one
 *                            would make the outer unreachable, a miscompile
 *                            clang would otherwise accept silently.
 *   -Wdouble-promotion       a float program must not compute in double (an
 *                            unsuffixed literal like 0.5 next to a float):
 *                            slow or unsupported on many devices.
 *   -Wno-tautological-compare  a comparison the program itself wrote (x > x)
 *                            is translated faithfully, not a defect of ours
 *   -Wno-unused-parameter    turned off too: the kernel interface
 *                            (spec section 8) passes every nat parameter and
 *                            input, used in the body or not. */
static const char *const clang_args[] = {
#ifdef DPIA_CLANG_RESOURCE_DIR
    "-isystem", DPIA_CLANG_RESOURCE_DIR "/include",
#endif
    "-x", "cl", "-cl-std=CL1.2", "--target=spir64-unknown-unknown",
    "-Xclang", "-finclude-default-header",
    "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wdouble-promotion", "-Wno-unused-parameter",
    "-Wno-tautological-compare",
};

const char *const *opencl_verifier_args(int *count) {
  *count = (int)DPIA_COUNTOF(clang_args);
  return clang_args;
}

OpenclVerifier *opencl_verifier_new(void) {
  OpenclVerifier *verifier = malloc(sizeof *verifier);
  if (!verifier) return NULL;
  /* keep declarations of no precompiled header; never print diagnostics to
   * stderr: they all go to the caller's report */
  verifier->index = clang_createIndex(0, 0);
  if (!verifier->index) {
    free(verifier);
    return NULL;
  }
  return verifier;
}

void opencl_verifier_free(OpenclVerifier *verifier) {
  if (!verifier) return;
  clang_disposeIndex(verifier->index);
  free(verifier);
}

/* ---- reporting ---- */

/* The text being verified, and what the report calls it. */
typedef struct Generated {
  const char *name;
  const char *text;
  size_t len;
  CXFile file; /* the unsaved file in the translation unit */
} Generated;

static void put_cxstring(Buf *out, CXString s) {
  const char *text = clang_getCString(s);
  if (text) buf_puts(out, text);
  clang_disposeString(s);
}

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

/* Where a location is once macros are expanded: the place in the generated
 * text a diagnostic is about, even when it comes from a built-in macro. */
static bool in_generated(const Generated *g, CXSourceLocation loc, unsigned *line, unsigned *col) {
  CXFile file;
  clang_getExpansionLocation(loc, &file, line, col, NULL);
  return file && clang_File_isEqual(file, g->file);
}

/* The generated line, then a caret under the column and tildes under the
 * parts of clang's ranges on that line.  Tabs of the line are copied into
 * the marker line so the caret stays aligned. */
static void emit_source_line(Buf *out, const Generated *g, CXDiagnostic diag, unsigned line, unsigned col) {
  size_t begin, end;
  if (!find_line(g, line, &begin, &end)) return;
  size_t width = end - begin;
  buf_put(out, g->text + begin, width);
  buf_putc(out, '\n');

  Buf marks;
  buf_init(&marks, out->arena);
  for (size_t i = 0; i <= width; i++) buf_putc(&marks, i < width && g->text[begin + i] == '\t' ? '\t' : ' ');
  unsigned nranges = clang_getDiagnosticNumRanges(diag);
  for (unsigned r = 0; r < nranges; r++) {
    CXSourceRange range = clang_getDiagnosticRange(diag, r);
    unsigned first_line, first_col, last_line, last_col;
    if (!in_generated(g, clang_getRangeStart(range), &first_line, &first_col)) continue;
    if (!in_generated(g, clang_getRangeEnd(range), &last_line, &last_col)) continue;
    if (first_line > line || last_line < line) continue;
    size_t from = first_line == line ? first_col - 1 : 0;
    size_t to = last_line == line ? last_col - 1 : width;
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
static bool report_diagnostic(Buf *out, const Generated *g, CXDiagnostic diag) {
  enum CXDiagnosticSeverity severity = clang_getDiagnosticSeverity(diag);
  if (severity == CXDiagnostic_Ignored) return false;

  CXSourceLocation loc = clang_getDiagnosticLocation(diag);
  unsigned line = 0, col = 0;
  bool here = in_generated(g, loc, &line, &col);
  if (here) {
    emit(out, "%s:%u:%u: ", g->name, line, col);
  } else {
    /* a location in one of clang's own headers (or none at all) */
    CXFile file;
    unsigned other_line, other_col;
    clang_getExpansionLocation(loc, &file, &other_line, &other_col, NULL);
    if (file) {
      put_cxstring(out, clang_getFileName(file));
      emit(out, ":%u:%u: ", other_line, other_col);
    } else {
      emit(out, "%s: ", g->name);
    }
  }
  emit(out, "%s: ", severity_word(severity));
  put_cxstring(out, clang_getDiagnosticSpelling(diag));
  CXString option = clang_getDiagnosticOption(diag, NULL);
  const char *flag = clang_getCString(option);
  if (flag && flag[0]) emit(out, " [%s]", flag);
  clang_disposeString(option);
  buf_putc(out, '\n');
  if (here) emit_source_line(out, g, diag, line, col);

  /* the set belongs to diag: its members are disposed, the set is not */
  CXDiagnosticSet children = clang_getChildDiagnostics(diag);
  unsigned nchildren = children ? clang_getNumDiagnosticsInSet(children) : 0;
  for (unsigned i = 0; i < nchildren; i++) {
    CXDiagnostic child = clang_getDiagnosticInSet(children, i);
    report_diagnostic(out, g, child);
    clang_disposeDiagnostic(child);
  }
  return severity != CXDiagnostic_Note;
}

bool opencl_verify(OpenclVerifier *verifier, const char *name, const char *source, size_t len, Buf *report) {
  if (!name) name = "<generated>";
  struct CXUnsavedFile unsaved = {
      .Filename = generated_file_name,
      .Contents = source ? source : "",
      .Length = source ? (unsigned long)len : 0,
  };
  CXTranslationUnit unit = NULL;
  enum CXErrorCode status =
      clang_parseTranslationUnit2(verifier->index, generated_file_name, clang_args, (int)DPIA_COUNTOF(clang_args),
                                  &unsaved, 1, CXTranslationUnit_None, &unit);
  if (status != CXError_Success || !unit) {
    emit(report, "%s: error: libclang could not parse the generated code (libclang error %d)\n", name, (int)status);
    return false;
  }

  Generated g = {.name = name, .text = unsaved.Contents, .len = unsaved.Length,
                 .file = clang_getFile(unit, generated_file_name)};
  bool failed = false;
  unsigned count = clang_getNumDiagnostics(unit);
  for (unsigned i = 0; i < count; i++) {
    CXDiagnostic diag = clang_getDiagnostic(unit, i);
    if (report_diagnostic(report, &g, diag)) failed = true;
    clang_disposeDiagnostic(diag);
  }
  clang_disposeTranslationUnit(unit);
  return !failed;
}
