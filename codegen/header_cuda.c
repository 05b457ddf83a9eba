/* header_cuda.c: `--emit=header --target=cuda`: a C++ header, compiled
 * by nvcc as part of a .cu file, that holds the kernels of one source
 * file and launches them on the CUDA runtime, in the shape of the OpenCL
 * header (header.c): for each kernel NAME
 *   int dpia_NAME_launch(cudaStream_t stream, <kernel parameters without
 *                        the temporaries and local buffers>);
 *   int dpia_NAME_check(<nat parameters>, char *msg, size_t n);
 *   size_t dpia_NAME_PARAM_elements(<nat parameters>);
 * A launcher checks the sizes and the preconditions (the same checked C
 * as the OpenCL header's), that no output overlaps another buffer in the
 * bytes the kernel touches (the kernel's pointers are __restrict__),
 * computes the grid and block from the NDRange, allocates the global
 * temporaries on the stream (cudaMallocAsync), lays the local buffers out
 * in the dynamic shared memory (each at a 16-byte boundary, their offsets
 * passed as the kernel's arguments) and launches the kernel with <<<>>>.
 * A CUDA pointer does not know its size: the buffers' sizes are the
 * caller's to ensure (dpia_NAME_PARAM_elements says them).
 *
 * Each kernel's source is in a namespace of its own (dpia_NAME_): two
 * kernels of one file may define the same struct or preamble helper. */
#include <string.h>

#include "dpia.h"
#include "backend_cuda.h"
#include "header_common.h"
#include "header_int.h"
#include "pipeline_emit.h"

/* the host type of a scalar, vector or pair of kernel k, as its source
 * (in namespace dpia_K_) names it */
static const char *cuda_host_type(H *h, const ImpKernel *k, DataType *t) {
  t = dt_resolve(t);
  Buf b;
  buf_init(&b, h->a);
  switch (t->kind) {
  case DT_SCALAR:
    if (t->width > 1 && !cuda_builtin_vector(t->scalar, t->width)) emit(&b, "dpia_%s_::", k->name);
    if (t->width > 1) cuda_vector_name(&b, t->scalar, t->width);
    else buf_puts(&b, scalar_name(t->scalar));
    return b.data;
  case DT_IDX: return "int";
  case DT_PAIR:
    emit(&b, "dpia_%s_::", k->name);
    type_tag(&b, t);
    return b.data;
  default: INTERNAL("no host type for %s", dt_str(h->a, t));
  }
}

/* a buffer parameter's element, as the kernel declares its pointer */
static const char *element_type(H *h, const ImpKernel *k, const KParam *p) {
  DataType *e = elem_of(p->type);
  return kparam_packed3(p) ? scalar_name(e->scalar) : cuda_host_type(h, k, e);
}

static const char *element_bytes(H *h, const ImpKernel *k, const KParam *p) {
  DataType *e = elem_of(p->type);
  if (kparam_packed3(p)) return arena_printf(h->a, "3 * sizeof(%s)", scalar_name(e->scalar));
  return arena_printf(h->a, "sizeof(%s)", cuda_host_type(h, k, e));
}

static void emit_launch_signature(H *h, const ImpKernel *k) {
  Buf *o = h->out;
  size_t start = o->len;
  emit(o, "static inline int dpia_%s_launch(cudaStream_t dpia_stream", k->name);
  size_t col = o->len - start;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    const char *n = host_param(h, p), *part = NULL;
    if (host_omits(k, i)) continue;
    switch (p->role) {
    case KP_OUTPUT: part = arena_printf(h->a, "%s *%s", element_type(h, k, p), n); break;
    case KP_INPUT: part = arena_printf(h->a, "%s%s *%s", host_updated(k, i) ? "" : "const ", element_type(h, k, p), n); break;
    case KP_SCALAR: part = arena_printf(h->a, "%s %s", cuda_host_type(h, k, p->type), n); break;
    case KP_NAT: part = arena_printf(h->a, "int %s", n); break;
    case KP_TEMP:
    case KP_LOCAL: continue;
    }
    if (col + strlen(part) + 2 > 100) {
      buf_puts(o, ",\n    ");
      col = 4;
    } else {
      buf_puts(o, ", ");
      col += 2;
    }
    buf_puts(o, part);
    col += strlen(part);
  }
  buf_puts(o, ")");
}

void emit_overlap_checks(H *h, const ImpKernel *k) {
  /* no output shares a byte the kernel touches with another buffer */
  for (int i = 0; i < k->nparams; i++) {
    const KParam *out = &k->params[i];
    if (out->role != KP_OUTPUT) continue;
    for (int j = 0; j < k->nparams; j++) {
      const KParam *p = &k->params[j];
      if (j == i || (p->role != KP_OUTPUT && p->role != KP_INPUT) || (p->role == KP_OUTPUT && j < i)) continue;
      /* an input updated in place is its output's buffer, which has no
       * dpia_bytes_ of its own and is checked as that output (against
       * this one, or as this one) */
      if (kparam_is_updated(k, j)) continue;
      emit(h->out, "  if (dpia_overlap_(%s, dpia_bytes_%d, %s, dpia_bytes_%d))\n"
                   "    return dpia_fail_(DPIA_ERROR_ALIAS, \"%s\", \"output %s overlaps %s %s\");\n",
           host_buffer(h, k, i), i, host_buffer(h, k, j), j, k->name,
           kparam_name(&k->params[kparam_buffer_of(k, i)]), p->role == KP_OUTPUT && !host_omits(k, j) ? "output" : "input",
           kparam_name(&k->params[kparam_buffer_of(k, j)]));
    }
  }
}

static void emit_kernel(H *h, const ImpKernel *k, const char *source) {
  Buf *o = h->out;
  bool has_local;
  int nd = launch_dims(k, h->opt, &has_local);
  emit(o, "/* ---- kernel %s ----\n * Preconditions:", k->name);
  precond_print_list(o, k->nprecond, k->preconds);
  emit(o, "\n */\nnamespace dpia_%s_ {\n\n%s\n} /* namespace dpia_%s_ */\n\n", k->name, source, k->name);
  emit_check(h, k, NULL);
  emit_element_counts(h, k);

  emit(o, "/* Launch %s on the stream.  Returns 0, a DPIA_ERROR_* code or the CUDA\n"
          " * error of the launch (dpia_error_string). */\n",
       k->name);
  emit_launch_signature(h, k);
  emit(o, " {\n  int dpia_bad = 0, dpia_i;\n  cudaError_t dpia_err = cudaSuccess;\n"
          "  size_t dpia_global[%d], dpia_local[%d], dpia_shared = 0;\n",
       nd, nd);
  int ntemps = 0;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    /* the input an in-place kernel updates: the output's bytes, checked as those */
    if (p->role == KP_NAT || p->role == KP_SCALAR || host_updated(k, i)) continue;
    emit(o, "  size_t dpia_bytes_%d;\n", i);
    if (p->role == KP_TEMP) emit(o, "  %s *dpia_temp_%d = DPIA_NULL_;\n", element_type(h, k, p), ntemps++);
    if (p->role == KP_LOCAL) emit(o, "  unsigned dpia_at_%d;\n", i);
  }
  emit(o, "  int dpia_check = dpia_%s_check(", k->name);
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_NAT) emit(o, "%s, ", host_param(h, &k->params[i]));
  emit(o, "dpia_error_message_buffer_(), DPIA_ERROR_MESSAGE_SIZE);\n"
          "  if (dpia_check != DPIA_SUCCESS) return dpia_error_in_(dpia_check, \"%s\");\n",
       k->name);
  for (int d = 0; d < nd; d++) {
    emit(o, "  dpia_global[%d] = dpia_size_(%s, &dpia_bad);\n", d, launch_size(h, k, d, false));
    emit(o, "  dpia_local[%d] = dpia_size_(%s, &dpia_bad);\n", d, launch_size(h, k, d, true));
  }
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->role == KP_NAT || p->role == KP_SCALAR || host_updated(k, i)) continue;
    emit(o, "  dpia_bytes_%d = dpia_size_(dpia_mul_(%s, DPIA_CAST_(long long, %s), &dpia_bad), &dpia_bad);\n", i,
         c_size(h, k, p->elements), element_bytes(h, k, p));
    if (p->role == KP_LOCAL) /* its place in the dynamic shared memory */
      emit(o, "  dpia_shared = (dpia_shared + 15) / 16 * 16;\n"
              "  dpia_at_%d = DPIA_CAST_(unsigned, dpia_shared);\n"
              "  dpia_shared += dpia_bytes_%d;\n"
              "  if (dpia_shared > UINT_MAX) dpia_bad = 1;\n",
           i, i);
  }
  emit_size_overflow(h, k->name);
  emit_overlap_checks(h, k);
  emit(o, "  for (dpia_i = 0; dpia_i < %d; dpia_i++) {\n", nd);
  if (!has_local) /* the launcher's choice: a block dividing the grid */
    emit(o, "    dpia_local[dpia_i] = dpia_block_(dpia_global[dpia_i], dpia_i == 0 ? 256 : 1);\n");
  emit(o, "    if (dpia_local[dpia_i] == 0 || dpia_global[dpia_i] %% dpia_local[dpia_i] != 0)\n"
          "      return dpia_fail_(DPIA_ERROR_SIZE, \"%s\", \"a global size is not a multiple of its local size\");\n",
       k->name);
  emit_empty_launch(h, k, "DPIA_SUCCESS");
  emit(o, "    if (dpia_global[dpia_i] / dpia_local[dpia_i] > (dpia_i == 0 ? 2147483647u : 65535u))\n"
          "      return dpia_fail_(DPIA_ERROR_SIZE, \"%s\", \"the grid has more blocks than CUDA launches\");\n"
          "  }\n",
       k->name);
  const char *dims = "xyz";
  emit(o, "  dim3 dpia_grid, dpia_block;\n");
  for (int d = 0; d < nd; d++)
    emit(o, "  dpia_grid.%c = DPIA_CAST_(unsigned, dpia_global[%d] / dpia_local[%d]);\n"
            "  dpia_block.%c = DPIA_CAST_(unsigned, dpia_local[%d]);\n",
         dims[d], d, d, dims[d], d);
  int t = 0;
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_TEMP) {
      emit(o, "  if (dpia_err == cudaSuccess) /* %s */\n"
              "    dpia_err = cudaMallocAsync(reinterpret_cast<void **>(&dpia_temp_%d), dpia_bytes_%d ? dpia_bytes_%d : 1, "
              "dpia_stream);\n",
           kparam_name(&k->params[i]), t, i, i);
      t++;
    }
  emit(o, "  if (dpia_err == cudaSuccess) {\n    dpia_%s_::%s<<<dpia_grid, dpia_block, dpia_shared, dpia_stream>>>(",
       k->name, k->name);
  t = 0;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (kparam_arg(k, i) < 0) continue; /* an in-place output: no argument */
    if (kparam_arg(k, i) > 0) buf_puts(o, ", ");
    if (p->role == KP_TEMP) emit(o, "dpia_temp_%d", t++);
    else if (p->role == KP_LOCAL) emit(o, "dpia_at_%d", i);
    else buf_puts(o, host_buffer(h, k, i));
  }
  buf_puts(o, ");\n    dpia_err = cudaGetLastError();\n  }\n");
  for (int i = 0; i < ntemps; i++)
    emit(o, "  if (dpia_temp_%d) (void)cudaFreeAsync(dpia_temp_%d, dpia_stream);\n", i, i);
  buf_puts(o, "  if (dpia_bad) return DPIA_ERROR_SIZE;\n  return DPIA_CAST_(int, dpia_err);\n}\n\n");
}

/* ---- pipelines ---- */

/* The C++ type kernel parameter j of launch li is given (a buffer's
 * element, a scalar's value type), as that kernel's namespace names it: a
 * pipeline has no namespace of its own, so its buffers take the types of
 * the kernels that bind them. */
static const char *bound_type(H *h, const PipeDesc *d, int li, int j) {
  const ImpKernel *k = d->launches[li].k;
  const KParam *p = &k->params[j];
  return p->role == KP_SCALAR ? cuda_host_type(h, k, p->type) : element_type(h, k, p);
}

/* the type of the pipeline's parameter ip (an output, an input or a
 * scalar, in pipeline_slot's order): the first launch binding it declares
 * it, as pipeline_describe describes it */
static const char *pipe_param_type(H *h, const PipeDesc *d, const PtrPipeHost *host, int ip) {
  PipeBuf want = pipeline_slot_buf(d->pipe, ip);
  for (int li = 0; li < d->nlaunches; li++)
    for (int j = 0; j < d->launches[li].k->nparams; j++) {
      const PipeBind *b = &d->launches[li].binds[j];
      if (b->kind == PBIND_BUFFER && b->buf.kind == want.kind && b->buf.index == want.index)
        return host->bound_type(h, d, li, j);
    }
  INTERNAL("pipeline %s: no launch binds its parameter %d", d->iface.name, ip);
}

/* dpia_NAME_launch of pipeline d: the checks of every launch, then its
 * temporaries allocated, its kernels launched in order through their own
 * launchers (CUDA's stream runs them one after another, C's launcher
 * returns when its kernel has run), the temporaries freed after the last */
void emit_pointer_pipeline(H *h, const PipeDesc *d, const PtrPipeHost *host) {
  Buf *o = h->out;
  const ImpKernel *k = &d->iface;
  emit_pipeline_doc(h, d, host->queue_doc, host->temps_note);
  emit_pipeline_check(h, d);
  host->doc(h, k->name);
  size_t start = o->len;
  emit(o, "static inline int dpia_%s_launch(%s", k->name, host->queue_param ? host->queue_param : "");
  size_t col = o->len - start;
  bool first = !host->queue_param;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    const char *n = host_param(h, p), *part = NULL;
    switch (p->role) {
    case KP_OUTPUT: part = arena_printf(h->a, "%s *%s", pipe_param_type(h, d, host, i), n); break;
    case KP_INPUT: part = arena_printf(h->a, "const %s *%s", pipe_param_type(h, d, host, i), n); break;
    case KP_SCALAR: part = arena_printf(h->a, "%s %s", pipe_param_type(h, d, host, i), n); break;
    case KP_NAT: part = arena_printf(h->a, "int %s", n); break;
    case KP_TEMP:
    case KP_LOCAL: INTERNAL("a pipeline's interface has no temporaries");
    }
    if (!first && col + strlen(part) + 2 > 100) {
      buf_puts(o, ",\n    ");
      col = 4;
    } else if (!first) {
      buf_puts(o, ", ");
      col += 2;
    }
    first = false;
    buf_puts(o, part);
    col += strlen(part);
  }
  emit(o, ") {\n  int dpia_bad = 0, dpia_err = DPIA_SUCCESS;\n%s", host->locals);
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_OUTPUT || k->params[i].role == KP_INPUT) emit(o, "  size_t dpia_bytes_%d;\n", i);
  for (int t = 0; t < d->ntemps; t++) emit(o, "  void *dpia_temp_%d = DPIA_NULL_;\n  size_t dpia_temp_bytes_%d;\n", t, t);
  declare_launch_nats(d, o);
  emit(o, "  dpia_err = dpia_%s_check(", k->name);
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_NAT) emit(o, "%s, ", host_param(h, &k->params[i]));
  emit(o, "dpia_error_message_buffer_(), DPIA_ERROR_MESSAGE_SIZE);\n"
          "  if (dpia_err != DPIA_SUCCESS) return dpia_error_in_(dpia_err, \"%s\");\n",
       k->name);
  for (int li = 0; li < d->nlaunches; li++) emit_launch_nats(h, d, li, o, "  ");
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->role != KP_OUTPUT && p->role != KP_INPUT) continue;
    emit(o, "  dpia_bytes_%d = dpia_size_(dpia_mul_(%s, DPIA_CAST_(long long, sizeof(%s)), &dpia_bad), &dpia_bad);\n",
         i, c_size(h, k, p->elements), pipe_param_type(h, d, host, i));
  }
  for (int t = 0; t < d->ntemps; t++) {
    int li = -1, j = -1; /* the first launch binding temporary t gives its element */
    for (int l = 0; l < d->nlaunches && li < 0; l++)
      for (int q = 0; q < d->launches[l].k->nparams && li < 0; q++) {
        const PipeBind *b = &d->launches[l].binds[q];
        if (b->kind == PBIND_BUFFER && b->buf.kind == PB_TEMP && b->buf.index == t) li = l, j = q;
      }
    if (li < 0) INTERNAL("pipeline %s: no launch binds its temporary %d", k->name, t);
    emit(o, "  dpia_temp_bytes_%d = dpia_size_(dpia_mul_(%s, DPIA_CAST_(long long, sizeof(%s)), &dpia_bad), &dpia_bad);\n",
         t, c_size(h, k, d->temps[t].elements), host->bound_type(h, d, li, j));
  }
  emit_size_overflow(h, k->name);
  /* no output shares a byte with an input: the kernels read the inputs
   * after the first has written */
  emit_overlap_checks(h, k);
  host->alloc_temps(h, d);
  for (int li = 0; li < d->nlaunches; li++) {
    const PipeLaunchDesc *l = &d->launches[li];
    emit(o, "  if (dpia_err == DPIA_SUCCESS)\n    dpia_err = dpia_%s_launch(%s", l->k->name,
         host->queue_arg ? host->queue_arg : "");
    const char *sep = host->queue_arg ? ", " : "";
    int nat = 0;
    for (int i = 0; i < l->k->nparams; i++) {
      const PipeBind *b = &l->binds[i];
      if (l->k->params[i].role == KP_TEMP || l->k->params[i].role == KP_LOCAL) continue;
      if (b->kind == PBIND_BUFFER && b->buf.kind == PB_TEMP)
        emit(o, "%s%s", sep, host->temp_arg(h, host->bound_type(h, d, li, i), b->buf.index));
      else
        emit(o, "%s%s", sep, launch_arg(h, d, li, i, &nat));
      sep = ", ";
    }
    buf_puts(o, ");\n");
  }
  host->free_temps(h, d);
  buf_puts(o, "  return dpia_err;\n}\n\n");
}

static void cuda_pipeline_doc(H *h, const char *name) {
  emit(h->out,
       "/* Check the sizes of every launch of %s, then launch its kernels on the\n"
       " * stream in order.  Returns 0, a DPIA_ERROR_* code or a CUDA error; on a\n"
       " * failed check nothing is launched. */\n",
       name);
}

/* on the stream: freed after the last kernel that uses them has run */
static void cuda_alloc_temps(H *h, const PipeDesc *d) {
  for (int t = 0; t < d->ntemps; t++)
    emit(h->out,
         "  if (dpia_cuda == cudaSuccess) /* %s */\n"
         "    dpia_cuda = cudaMallocAsync(&dpia_temp_%d, dpia_temp_bytes_%d ? dpia_temp_bytes_%d : 1, dpia_stream);\n",
         d->temps[t].name, t, t, t);
  emit(h->out, "  dpia_err = DPIA_CAST_(int, dpia_cuda);\n");
}

static void cuda_free_temps(H *h, const PipeDesc *d) {
  for (int t = 0; t < d->ntemps; t++)
    emit(h->out, "  if (dpia_temp_%d) (void)cudaFreeAsync(dpia_temp_%d, dpia_stream);\n", t, t);
}

static const char *cuda_temp_arg(H *h, const char *type, int t) {
  return arena_printf(h->a, "static_cast<%s *>(dpia_temp_%d)", type, t);
}

static const PtrPipeHost cuda_pipe_host = {
    .queue_param = "cudaStream_t dpia_stream",
    .queue_doc = "stream",
    .queue_arg = "dpia_stream",
    .temps_note = "allocated and freed on the stream at each call",
    .locals = "  cudaError_t dpia_cuda = cudaSuccess;\n",
    .doc = cuda_pipeline_doc,
    .bound_type = bound_type,
    .alloc_temps = cuda_alloc_temps,
    .free_temps = cuda_free_temps,
    .temp_arg = cuda_temp_arg,
};

void cuda_print_header(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                       const char *const *sources, int npipes, const PipeDesc *const *pipes,
                       const CodegenOptions *opt, Buf *out) {
  H hs = {a, out, opt}, *h = &hs;
  const char *guard = guard_name(a, source_name);
  emit_header_opening(h, "CUDA C++", source_name, nkernels, kernels, npipes, pipes, ".\n * Pipelines:",
                      " (each dpia_NAME_launch(stream, ...) checks every launch's sizes, then\n"
                      " * launches the pipeline's kernels on the stream in order)");
  buf_puts(out,
           ".  For each kernel NAME:\n"
           " *   dpia_NAME_launch(stream, ...)\n"
           " *                        checks the sizes and preconditions, allocates and\n"
           " *                        frees the temporaries on the stream and launches the\n"
           " *                        kernel with its grid and block; the arguments are the\n"
           " *                        kernel's parameters in the order of docs/reference.md\n"
           " *                        section 8.4, without temporaries and local buffers:\n"
           " *                        device pointers for buffers, values for scalars, int\n"
           " *                        for sizes.  A pointer must hold dpia_NAME_PARAM_elements\n"
           " *                        elements: CUDA cannot check it.\n"
           " *   dpia_NAME_check(...)  the size checks alone, with a message\n"
           " *   dpia_last_error_message()\n"
           " *                        what this thread's last launch that returned a\n"
           " *                        DPIA_ERROR_* code found\n"
           " * Return values: DPIA_SUCCESS (0), DPIA_ERROR_PRECONDITION, DPIA_ERROR_SIZE,\n"
           " * DPIA_ERROR_ALIAS (negative, dpia_error_string), or a cudaError_t of the\n"
           " * launch (positive).  The kernel runs asynchronously on the stream.\n"
           " *\n"
           " * Compile it with nvcc (C++17, CUDA 11.2 or later for cudaMallocAsync), in one\n"
           " * .cu file of a program; every function is static inline. */\n");
  emit(out, "#ifndef %s\n#define %s\n\n", guard, guard);
  buf_puts(out, "#include <cuda_runtime.h>\n"
                "#include <limits.h>\n"
                "#include <stddef.h>\n"
                "#include <stdio.h>\n"
                "#include <string.h>\n\n"
                "/* ---- shared by every dpia CUDA header: defined once per translation unit ---- */\n"
                "#ifndef DPIA_CUDA_HEADER_COMMON\n"
                "#define DPIA_CUDA_HEADER_COMMON 1\n"
                "#define DPIA_THREAD_LOCAL_ thread_local\n"
                "#define DPIA_NULL_ nullptr\n"
                "#define DPIA_CAST_(T, v) static_cast<T>(v)\n\n"
                "/* Return values of the launchers: 0, one of these, or a cudaError_t. */\n"
                "enum {\n"
                "  DPIA_SUCCESS = 0,\n");
#define X(name, value, text) emit(out, "  %s = %d, /* %s */\n", #name, value, text);
  DPIA_HEADER_ERRORS(X)
#undef X
  buf_puts(out, "};\n\n"
                "/* The name of a return value of a launcher. */\n"
                "static inline const char *dpia_error_string(int code) {\n"
                "  switch (code) {\n"
                "  case DPIA_SUCCESS: return \"DPIA_SUCCESS\";\n");
#define X(name, value, text) emit(out, "  case %s: return \"%s: %s\";\n", #name, #name, text);
  DPIA_HEADER_ERRORS(X)
#undef X
  buf_puts(out, "  default: return cudaGetErrorString(static_cast<cudaError_t>(code));\n"
                "  }\n"
                "}\n\n");
  header_emit_arith(out);
  header_emit_messages(out);
  buf_puts(out, "/* the bytes [a, a + m) and [b, b + n) overlap */\n"
                "static inline bool dpia_overlap_(const void *a, size_t m, const void *b, size_t n) {\n"
                "  const char *p = static_cast<const char *>(a), *q = static_cast<const char *>(b);\n"
                "  return m && n && p < q + n && q < p + m;\n"
                "}\n\n"
                "/* the largest block size at most most that divides global (a grid of\n"
                " * whole blocks: the kernels do not test their ids against the size) */\n"
                "static inline size_t dpia_block_(size_t global, size_t most) {\n"
                "  size_t b = most < global ? most : global;\n"
                "  while (b > 1 && global % b != 0) b--;\n"
                "  return b ? b : 1;\n"
                "}\n"
                "#endif /* DPIA_CUDA_HEADER_COMMON */\n\n");
  /* a check function's dpia_bad that no size expression sets: nvcc does
   * not count (void)dpia_bad as a use */
  buf_puts(out, "#pragma nv_diagnostic push\n#pragma nv_diag_suppress 550\n\n");
  for (int i = 0; i < nkernels; i++) emit_kernel(h, kernels[i], sources[i]);
  for (int i = 0; i < npipes; i++) emit_pointer_pipeline(h, pipes[i], &cuda_pipe_host);
  buf_puts(out, "#pragma nv_diagnostic pop\n\n");
  emit(out, "#endif /* %s */\n", guard);
}
