/* defs.c: OpenCL C and metadata for the imperative defs of a program,
 * without the translation.  Code generation is tested on its own input
 * shape, written by hand (tests/codegen: `dpia test` with `-- ARGS:
 * --imperative-defs`), so that a codegen change shows in small programs
 * whose imperative form is fixed, not only through whatever the
 * translation makes of a functional one. */
#include "defs.h"
#include "backend.h"

#include "dpia_front.h"

static bool imperative_def(const DefInfo *d) {
  if (d->is_kernel || !d->ok || d->result->kind != PT_COMM) return false;
  for (int i = 0; i < d->nparams; i++) {
    PhraseType *t = d->params[i]->type;
    if (t->kind != PT_ACC && t->kind != PT_EXP && !(t->kind == PT_WITH && t->fst->kind == PT_ACC)) return false;
  }
  return true;
}

void codegen_imperative_defs(Arena *arena, const Backend *backend, const char *name, const char *text, size_t len,
                             const CodegenOptions *opt, DefsOutput *out) {
  memset(out, 0, sizeof *out);
  buf_init(&out->opencl, arena);
  buf_init(&out->json, arena);
  buf_init(&out->diagnostics, arena);
  Interner in;
  intern_init(&in, arena);
  Diag diag;
  diag_init(&diag, arena);
  TypeCtx tc;
  type_ctx_init(&tc, arena);
  Source src;
  source_init(&src, arena, name, text, len);
  Program *prog = parse_program(arena, &in, &diag, &src);
  CheckedProgram *cp = diag.nerrors ? NULL : check_program_for(arena, &in, &diag, &tc, prog, &backend->names);
  int ndefs = cp ? cp->ndefs : 0;
  out->kernels = NEWARRAY(arena, const char *, ndefs + 1);
  out->kernel_lens = NEWARRAY(arena, size_t, ndefs + 1);
  for (int i = 0; i < ndefs; i++) {
    DefInfo *d = cp->defs[i];
    if (!imperative_def(d)) continue;
    Phrase *body = normalize_def(arena, &tc, &diag, d);
    if (!body) continue;
    d->body = body;
    ImpKernel *k = kernel_from_def(arena, &tc, &diag, backend, d, name);
    if (!k) continue;
    Buf source;
    buf_init(&source, arena);
    if (!codegen_kernel(arena, &tc, k, opt, &source, NULL)) continue;
    if (out->nkernels) buf_putc(&out->opencl, '\n');
    buf_put(&out->opencl, source.data, source.len);
    buf_puts(&out->json, out->nkernels ? ",\n" : "[\n");
    codegen_metadata(arena, k, source.data, &out->json);
    out->kernels[out->nkernels] = source.data;
    out->kernel_lens[out->nkernels++] = source.len;
  }
  if (out->nkernels) buf_puts(&out->json, "]\n");
  diag_render_text(&diag, &out->diagnostics);
}
