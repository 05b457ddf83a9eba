/* header_c_omp.c: `--emit=header --target=c`: a C11 header holding the
 * kernels of one source file as static functions and launching them on
 * the host CPU, in the shape of the OpenCL header (header.c): for each
 * kernel NAME
 *   int dpia_NAME_launch(<kernel parameters without the temporaries and
 *                        local buffers>);
 *   int dpia_NAME_check(<nat parameters>, char *msg, size_t n);
 *   size_t dpia_NAME_PARAM_elements(<nat parameters>);
 * A launcher checks the sizes and the preconditions (the same checked C
 * as the OpenCL header's), that no output overlaps another buffer in the
 * bytes the kernel touches (the kernel's pointers are restrict), computes
 * the numbers of groups and the local size from the NDRange (choosing a
 * local size where the kernel fixes none), allocates the global
 * temporaries, gives the local buffers their bytes, runs the kernel (its
 * work-groups on OpenMP's threads) and frees the temporaries.  A pointer
 * does not know its size: the buffers' sizes are the caller's to ensure
 * (dpia_NAME_PARAM_elements says them).  For each pipeline NAME,
 * dpia_NAME_launch and dpia_NAME_check check every launch, allocate the
 * temporaries and run the kernels in order through their launchers
 * (emit_pointer_pipeline, header_cuda.c, shared with CUDA's header).
 *
 * The kernels are printed as one program (each struct, helper, foreign
 * function and table defined once, backend_c_omp.c), from the kernel IR
 * their text was printed from; with launch sizes given by the user a
 * header holds one kernel (-k), whose text is given. */
#include <string.h>

#include "dpia.h"
#include "backend_c_omp.h"
#include "header_common.h"
#include "header_int.h"
#include "pipeline_emit.h"

/* the host type of a scalar, vector or pair: the kernel's own */
static const char *c_host_type(H *h, DataType *t) {
  t = dt_resolve(t);
  Buf b;
  buf_init(&b, h->a);
  switch (t->kind) {
  case DT_SCALAR: c_omp_type_name(&b, t->scalar, t->width); return b.data;
  case DT_IDX: return "int";
  case DT_PAIR: type_tag(&b, t); return b.data;
  default: INTERNAL("no host type for %s", dt_str(h->a, t));
  }
}

/* a buffer parameter's element, as the kernel declares its pointer */
static const char *element_type(H *h, const KParam *p) {
  DataType *e = elem_of(p->type);
  return kparam_packed3(p) ? scalar_name(e->scalar) : c_host_type(h, e);
}

static const char *element_bytes(H *h, const KParam *p) {
  DataType *e = elem_of(p->type);
  if (kparam_packed3(p)) return arena_printf(h->a, "3 * sizeof(%s)", scalar_name(e->scalar));
  return arena_printf(h->a, "sizeof(%s)", c_host_type(h, e));
}

static void emit_launch_signature(H *h, const ImpKernel *k) {
  Buf *o = h->out;
  size_t start = o->len;
  emit(o, "static inline int dpia_%s_launch(", k->name);
  size_t col = o->len - start;
  bool first = true;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    const char *n = host_param(h, p), *part = NULL;
    if (host_omits(k, i)) continue;
    switch (p->role) {
    case KP_OUTPUT: part = arena_printf(h->a, "%s *%s", element_type(h, p), n); break;
    case KP_INPUT: part = arena_printf(h->a, "%s%s *%s", host_updated(k, i) ? "" : "const ", element_type(h, p), n); break;
    case KP_SCALAR: part = arena_printf(h->a, "%s %s", c_host_type(h, p->type), n); break;
    case KP_NAT: part = arena_printf(h->a, "int %s", n); break;
    case KP_TEMP:
    case KP_LOCAL: continue;
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
  if (first) buf_puts(o, "void");
  buf_puts(o, ")");
}

static void emit_launcher(H *h, const ImpKernel *k) {
  Buf *o = h->out;
  bool has_local;
  int nd = launch_dims(k, h->opt, &has_local);
  emit_check(h, k, NULL);
  emit_element_counts(h, k);
  emit(o, "/* Run %s on the host's CPU.  Returns 0 or a DPIA_ERROR_* code\n"
          " * (dpia_error_string). */\n",
       k->name);
  emit_launch_signature(h, k);
  emit(o, " {\n  int dpia_bad = 0, dpia_i, dpia_failed = 0;\n"
          "  size_t dpia_global[%d], dpia_local[3] = {1, 1, 1}, dpia_groups[3] = {1, 1, 1};\n",
       nd);
  int ntemps = 0;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    /* the input an in-place kernel updates: the output's bytes, checked as those */
    if (p->role == KP_NAT || p->role == KP_SCALAR || host_updated(k, i)) continue;
    emit(o, "  size_t dpia_bytes_%d;\n", i);
    if (p->role == KP_TEMP) emit(o, "  %s *dpia_temp_%d = NULL;\n", element_type(h, p), ntemps++);
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
         c_size(h, k, p->elements), element_bytes(h, p));
  }
  emit_size_overflow(h, k->name);
  emit_overlap_checks(h, k);
  emit(o, "  for (dpia_i = 0; dpia_i < %d; dpia_i++) {\n", nd);
  if (!has_local) /* the launcher's choice: a work-group dividing the range */
    emit(o, "    dpia_local[dpia_i] = dpia_block_(dpia_global[dpia_i], dpia_i == 0 ? 64 : 1);\n");
  emit(o, "    if (dpia_local[dpia_i] == 0 || dpia_global[dpia_i] %% dpia_local[dpia_i] != 0)\n"
          "      return dpia_fail_(DPIA_ERROR_SIZE, \"%s\", \"a global size is not a multiple of its local size\");\n",
       k->name);
  emit_empty_launch(h, k, "DPIA_SUCCESS");
  emit(o, "    if (dpia_global[dpia_i] / dpia_local[dpia_i] > INT_MAX || dpia_local[dpia_i] > 4096)\n"
          "      return dpia_fail_(DPIA_ERROR_SIZE, \"%s\", \"more work-groups or work-items than the C target runs\");\n"
          "    dpia_groups[dpia_i] = dpia_global[dpia_i] / dpia_local[dpia_i];\n"
          "  }\n",
       k->name);
  int t = 0;
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_TEMP) {
      emit(o, "  dpia_temp_%d = DPIA_CAST_(%s *, malloc(dpia_bytes_%d ? dpia_bytes_%d : 1)); /* %s */\n"
              "  if (!dpia_temp_%d) dpia_failed = 1;\n",
           t, element_type(h, &k->params[i]), i, i, kparam_name(&k->params[i]), t);
      t++;
    }
  emit(o, "  if (!dpia_failed)\n    %s(", k->name);
  t = 0;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (kparam_arg(k, i) < 0) continue; /* an in-place output: no argument */
    if (p->role == KP_TEMP) emit(o, "dpia_temp_%d, ", t++);
    else if (p->role == KP_LOCAL) emit(o, "dpia_bytes_%d, ", i);
    else emit(o, "%s, ", host_buffer(h, k, i));
  }
  buf_puts(o, "dpia_groups, dpia_local);\n");
  for (int i = 0; i < ntemps; i++) emit(o, "  free(dpia_temp_%d);\n", i);
  emit(o, "  if (dpia_failed)\n"
          "    return dpia_fail_(DPIA_ERROR_SIZE, \"%s\", \"no memory for the kernel's temporary buffers\");\n"
          "  return DPIA_SUCCESS;\n}\n\n",
       k->name);
}

/* ---- pipelines (emit_pointer_pipeline) ---- */

/* kernel parameter j of launch li: the kernels are one program, so the
 * types are the same names in every kernel */
static const char *c_bound_type(H *h, const PipeDesc *d, int li, int j) {
  const KParam *p = &d->launches[li].k->params[j];
  return p->role == KP_SCALAR ? c_host_type(h, p->type) : element_type(h, p);
}

static void c_pipeline_doc(H *h, const char *name) {
  emit(h->out,
       "/* Check the sizes of every launch of %s, then run its kernels on the\n"
       " * host's CPU in order.  Returns 0 or a DPIA_ERROR_* code; on a failed\n"
       " * check no kernel runs. */\n",
       name);
}

static void c_alloc_temps(H *h, const PipeDesc *d) {
  for (int t = 0; t < d->ntemps; t++)
    emit(h->out, "  dpia_temp_%d = malloc(dpia_temp_bytes_%d ? dpia_temp_bytes_%d : 1); /* %s */\n", t, t, t,
         d->temps[t].name);
  for (int t = 0; t < d->ntemps; t++)
    emit(h->out, "  if (!dpia_temp_%d)\n"
                 "    dpia_err = dpia_fail_(DPIA_ERROR_SIZE, \"%s\", \"no memory for the pipeline's temporary buffers\");\n",
         t, d->iface.name);
}

static void c_free_temps(H *h, const PipeDesc *d) {
  for (int t = 0; t < d->ntemps; t++) emit(h->out, "  free(dpia_temp_%d);\n", t);
}

static const char *c_temp_arg(H *h, const char *type, int t) {
  return arena_printf(h->a, "DPIA_CAST_(%s *, dpia_temp_%d)", type, t);
}

static const PtrPipeHost c_pipe_host = {
    .queue_param = NULL,
    .queue_doc = NULL,
    .queue_arg = NULL,
    .temps_note = "allocated and freed at each call",
    .locals = "",
    .doc = c_pipeline_doc,
    .bound_type = c_bound_type,
    .alloc_temps = c_alloc_temps,
    .free_temps = c_free_temps,
    .temp_arg = c_temp_arg,
};

/* the kernels, as one program (the file's comment) */
static void emit_kernels(H *h, int nkernels, const ImpKernel *const *kernels, const char *const *sources) {
  bool given = false;
  for (int d = 0; d < 3 && h->opt; d++) given = given || h->opt->local_size[d] > 0 || h->opt->global_size[d] > 0;
  NameSet defined = {.arena = h->a};
  for (int i = 0; i < nkernels; i++) {
    const ImpKernel *k = kernels[i];
    emit(h->out, "/* ---- kernel %s ----\n * Preconditions:", k->name);
    precond_print_list(h->out, k->nprecond, k->preconds);
    buf_puts(h->out, "\n */\n");
    if (given && nkernels > 1) {
      emit(h->out, "#error \"dpia: a C header of several kernels is generated for their natural launch sizes: "
                   "choose one kernel (-k) to give launch sizes\"\n\n");
      continue;
    }
    if (given || !k->natural_facts || !k->natural_facts->printed_kir)
      buf_puts(h->out, sources[i]);
    else
      c_omp_print_header_kernel(kernel_facts_kir(k->natural_facts), &defined, h->out);
    buf_putc(h->out, '\n');
    emit_launcher(h, k);
  }
}

void c_omp_print_header(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                        const char *const *sources, int npipes, const PipeDesc *const *pipes,
                        const CodegenOptions *opt, Buf *out) {
  H hs = {a, out, opt}, *h = &hs;
  const char *guard = guard_name(a, source_name);
  emit_header_opening(h, "C", source_name, nkernels, kernels, npipes, pipes, ".\n * Pipelines:",
                      " (each dpia_NAME_launch(...) checks every launch's sizes, then\n"
                      " * runs the pipeline's kernels in order)");
  buf_puts(out, ".  For each kernel NAME:\n"
                " *   dpia_NAME_launch(...)  checks the sizes and preconditions, allocates and\n"
                " *                        frees the temporaries and runs the kernel on the host's\n"
                " *                        CPU, its work-groups on OpenMP's threads; the arguments\n"
                " *                        are the kernel's parameters in the order of\n"
                " *                        docs/reference.md section 8.4, without temporaries and\n"
                " *                        local buffers: pointers for buffers, values for scalars,\n"
                " *                        int for sizes.  A pointer must hold\n"
                " *                        dpia_NAME_PARAM_elements elements: C cannot check it.\n"
                " *   dpia_NAME_check(...)  the size checks alone, with a message\n"
                " *   dpia_last_error_message()\n"
                " *                        what this thread's last launch that returned a\n"
                " *                        DPIA_ERROR_* code found\n"
                " * Return values: DPIA_SUCCESS (0), DPIA_ERROR_PRECONDITION, DPIA_ERROR_SIZE,\n"
                " * DPIA_ERROR_ALIAS (negative, dpia_error_string).\n"
                " *\n"
                " * Compile it with GCC or Clang (C11, -fopenmp; vector extensions), in any\n"
                " * number of files of a program: every function is static. */\n");
  emit(out, "#ifndef %s\n#define %s\n\n", guard, guard);
  buf_puts(out, "#include <limits.h>\n"
                "#include <stddef.h>\n"
                "#include <stdio.h>\n"
                "#include <stdlib.h>\n"
                "#include <string.h>\n\n"
                "/* ---- shared by every dpia C header: defined once per translation unit ---- */\n"
                "#ifndef DPIA_C_HEADER_COMMON\n"
                "#define DPIA_C_HEADER_COMMON 1\n"
                "#define DPIA_THREAD_LOCAL_ _Thread_local\n"
                "#define DPIA_NULL_ NULL\n"
                "#define DPIA_CAST_(T, v) ((T)(v))\n\n"
                "/* Return values of the launchers: 0 or one of these. */\n"
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
  buf_puts(out, "  default: return \"unknown dpia error\";\n"
                "  }\n"
                "}\n\n");
  header_emit_arith(out);
  header_emit_messages(out);
  buf_puts(out, "/* the bytes [a, a + m) and [b, b + n) overlap */\n"
                "static inline int dpia_overlap_(const void *a, size_t m, const void *b, size_t n) {\n"
                "  const char *p = (const char *)a, *q = (const char *)b;\n"
                "  return m && n && p < q + n && q < p + m;\n"
                "}\n\n"
                "/* the largest work-group size at most most that divides global (whole\n"
                " * work-groups: the kernels do not test their ids against the size) */\n"
                "static inline size_t dpia_block_(size_t global, size_t most) {\n"
                "  size_t b = most < global ? most : global;\n"
                "  while (b > 1 && global % b != 0) b--;\n"
                "  return b ? b : 1;\n"
                "}\n"
                "#endif /* DPIA_C_HEADER_COMMON */\n\n");
  emit_kernels(h, nkernels, kernels, sources);
  for (int i = 0; i < npipes; i++) emit_pointer_pipeline(h, pipes[i], &c_pipe_host);
  emit(out, "#endif /* %s */\n", guard);
}
