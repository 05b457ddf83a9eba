/* metadata.c: the JSON description of a kernel (spec section 9,
 * `--emit=json`): its parameters with roles, element types and element
 * counts, the launch sizes, the preconditions and the OpenCL source.
 * Sizes are C integer expressions over the nat parameters (size_print).
 * Deterministic: the same kernel gives the same bytes. */
#include "kernel.h"
#include "pipeline_emit.h"

static void json_size(Arena *a, Buf *out, Size s) {
  Buf b;
  buf_init(&b, a);
  size_print(&b, s);
  emit_json_string(out, b.data);
}

/* a data type in the syntax of spec section 3; an index is an int */
static void json_type(Arena *a, Buf *out, DataType *t) {
  Buf b;
  buf_init(&b, a);
  t = dt_resolve(t);
  if (t->kind == DT_IDX) buf_puts(&b, "int");
  else dt_print(&b, t);
  emit_json_string(out, b.data);
}

static void json_sizes(Arena *a, Buf *out, int n, const Size *s) {
  buf_putc(out, '[');
  for (int d = 0; d < n; d++) {
    if (d) buf_puts(out, ", ");
    json_size(a, out, s[d]);
  }
  buf_putc(out, ']');
}

/* "shape": the sizes of a buffer's array dimensions, outermost first, down
 * to its element type ([M][N]float: ["M", "N"]; a one-element result:
 * []), so that a host can check an array's shape, not only its element
 * count (a transposed [N][M] matrix has as many elements as an [M][N]
 * one) and return it in that shape.  Their product is "elements". */
static void json_shape(Arena *a, Buf *out, const KParam *p) {
  buf_puts(out, ", \"shape\": [");
  int n = 0;
  for (DataType *t = dt_resolve(p->type); t->kind == DT_ARRAY; t = dt_resolve(t->elem)) {
    if (n++) buf_puts(out, ", ");
    json_size(a, out, t->size);
  }
  buf_putc(out, ']');
}

/* the "params" list of a kernel (or a pipeline's interface), from '[' to ']' */
/* a packed array of 3-vectors (kparam_packed3) says how many bytes an
 * element takes, 12 for float3, where OpenCL's float3 type has 16 */
static void json_packed3(const KParam *p, Buf *out) {
  if (kparam_packed3(p)) emit(out, ", \"element_bytes\": %d", dt_resolve(p->elem)->scalar == SC_DOUBLE ? 24 : 12);
}

static void json_params(Arena *a, const ImpKernel *k, Buf *out) {
  buf_putc(out, '[');
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    emit(out, "%s\n   {\"name\": ", i ? "," : "");
    /* the program's name, which a host passes arguments by; the kernel's C
     * name beside it when code generation renamed it (`step` is an OpenCL
     * built-in: "c_name": "step_2") */
    emit_json_string(out, kparam_name(p));
    if (p->src_name && strcmp(p->src_name, p->name) != 0) {
      buf_puts(out, ", \"c_name\": ");
      emit_json_string(out, p->name);
    }
    /* spec section 9 has no "local" role: a local temporary is a temp in
     * local memory ("space": "local") */
    emit(out, ", \"role\": \"%s\", \"type\": ", kparam_role_name[p->role == KP_LOCAL ? KP_TEMP : p->role]);
    switch (p->role) {
    case KP_NAT: {
      emit_json_string(out, "int");
      /* a tune parameter left symbolic: its domain, for a search driver
       * (docs/language.md section 6) */
      const Decl *d = k->def ? k->def->decl : NULL;
      for (int j = 0; d && j < d->nparams; j++) {
        const Param *pa = &d->params[j];
        if (!pa->tune || strcmp(pa->name, p->name) != 0) continue; /* a nat keeps its name */
        if (pa->tune_range) {
          emit(out, ", \"tune\": {\"min\": %llu, \"max\": %llu}", (unsigned long long)pa->tune_lo,
               (unsigned long long)pa->tune_hi);
        } else {
          buf_puts(out, ", \"tune\": [");
          for (int v = 0; v < pa->ntune_values; v++)
            emit(out, "%s%llu", v ? ", " : "", (unsigned long long)pa->tune_values[v]);
          buf_putc(out, ']');
        }
      }
      break;
    }
    case KP_SCALAR: json_type(a, out, p->type); break;
    default:
      json_type(a, out, p->elem);
      emit(out, ", \"space\": \"%s\", \"elements\": ", p->role == KP_LOCAL ? "local" : "global");
      json_size(a, out, p->elements);
      json_shape(a, out, p);
      json_packed3(p, out);
      /* an in-place kernel's output is the buffer of the input it
       * updates and no argument of the kernel, which writes it through
       * that input's (docs/language.md section 27; kparam_arg): the host
       * passes the one buffer once */
      if (k->in_place && i < k->nupdated) {
        buf_puts(out, ", \"updates\": ");
        emit_json_string(out, kparam_name(&k->params[k->updated[i]]));
      }
      /* an input declared a permutation (docs/language.md section 29):
       * the host passes each position once */
      if (p->role == KP_INPUT && p->binder && p->binder->permutation) buf_puts(out, ", \"permutation\": true");
      /* a local buffer of toLocalVolatile (docs/language.md section 32):
       * the kernel's argument is local volatile T*; the host passes its
       * bytes as for any local buffer */
      if (p->role == KP_LOCAL && p->binder && p->binder->volatile_local) buf_puts(out, ", \"volatile\": true");
      break;
    }
    buf_putc(out, '}');
  }
  buf_putc(out, ']');
}

static void json_preconditions(const ImpKernel *k, Buf *out) {
  buf_putc(out, '[');
  for (int i = 0; i < k->nprecond; i++) {
    if (i) buf_puts(out, ", ");
    emit_json_string(out, precond_text(out->arena, &k->preconds[i]));
  }
  buf_putc(out, ']');
}

void codegen_metadata(Arena *a, const ImpKernel *k, const char *source, Buf *out) {
  emit(out, "{\"kernel\": ");
  emit_json_string(out, k->name);
  emit(out, ", \"file\": ");
  emit_json_string(out, k->source_name ? k->source_name : "<input>");
  emit(out, ",\n \"params\": ");
  json_params(a, k, out);
  emit(out, ",\n \"global_size\": ");
  json_sizes(a, out, k->ndims, k->global_size);
  emit(out, ", \"local_size\": ");
  if (k->has_local) json_sizes(a, out, k->ndims, k->local_size);
  else buf_puts(out, "null");
  emit(out, ",\n \"preconditions\": ");
  json_preconditions(k, out);
  emit(out, ",\n \"source\": ");
  emit_json_string(out, source ? source : "");
  emit(out, "}\n");
}

/* a pipeline (pipeline_emit.h): its interface as a kernel's, then what a
 * host needs to run it: the temporaries to allocate and the launches in
 * order, each argument bound to a buffer of the pipeline or a size */
void codegen_pipeline_metadata(Arena *a, const PipeDesc *d, const char *source_name, const char *source, Buf *out) {
  const Pipeline *p = d->pipe;
  emit(out, "{\"pipeline\": ");
  emit_json_string(out, d->iface.name);
  emit(out, ", \"file\": ");
  emit_json_string(out, source_name ? source_name : "<input>");
  emit(out, ",\n \"params\": ");
  json_params(a, &d->iface, out);
  emit(out, ",\n \"temporaries\": [");
  for (int i = 0; i < d->ntemps; i++) {
    emit(out, "%s\n   {\"name\": ", i ? "," : "");
    emit_json_string(out, d->temps[i].name);
    emit(out, ", \"type\": ");
    json_type(a, out, d->temps[i].elem);
    emit(out, ", \"space\": \"global\", \"elements\": ");
    json_size(a, out, d->temps[i].elements);
    json_shape(a, out, &d->temps[i]);
    json_packed3(&d->temps[i], out);
    buf_putc(out, '}');
  }
  emit(out, "],\n \"launches\": [");
  for (int li = 0; li < d->nlaunches; li++) {
    const PipeLaunchDesc *l = &d->launches[li];
    emit(out, "%s\n   {\"kernel\": ", li ? "," : "");
    emit_json_string(out, l->k->name);
    emit(out, ", \"args\": [");
    for (int i = 0; i < l->k->nparams; i++) {
      const PipeBind *b = &l->binds[i];
      emit(out, "%s{\"param\": ", i ? ", " : "");
      emit_json_string(out, kparam_name(&l->k->params[i]));
      switch (b->kind) {
      case PBIND_BUFFER:
        emit(out, ", \"%s\": ", l->k->params[i].role == KP_SCALAR ? "value" : "buffer");
        emit_json_string(out, b->buf.kind == PB_TEMP ? d->temps[b->buf.index].name : pipeline_buf_name(a, p, b->buf));
        /* what the launch writes: a host leaves out a launch with no
         * work-item only when that is empty (docs/language.md section 8) */
        if (l->k->params[i].role == KP_OUTPUT) buf_puts(out, ", \"writes\": true");
        break;
      case PBIND_NAT:
        emit(out, ", \"size\": ");
        json_size(a, out, b->size);
        break;
      case PBIND_LOCAL: /* its element type: a launcher sizes the buffer in bytes */
        emit(out, ", \"type\": ");
        json_type(a, out, l->k->params[i].elem);
        emit(out, ", \"local_elements\": ");
        json_size(a, out, b->size);
        if (l->k->params[i].binder && l->k->params[i].binder->volatile_local) buf_puts(out, ", \"volatile\": true");
        break;
      }
      buf_putc(out, '}');
    }
    emit(out, "],\n    \"global_size\": ");
    json_sizes(a, out, l->ndims, l->global_size);
    emit(out, ", \"local_size\": ");
    if (l->has_local)
      json_sizes(a, out, l->ndims, l->local_size);
    else
      buf_puts(out, "null");
    buf_putc(out, '}');
  }
  emit(out, "],\n \"preconditions\": ");
  json_preconditions(&d->iface, out);
  emit(out, ",\n \"kernels\": [");
  int n = 0;
  for (int li = 0; li < d->nlaunches; li++) {
    bool again = false;
    for (int j = 0; j < li; j++) again |= d->launches[j].k == d->launches[li].k;
    if (again) continue;
    if (n++) buf_puts(out, ", ");
    emit_json_string(out, d->launches[li].k->name);
  }
  emit(out, "],\n \"source\": ");
  emit_json_string(out, source ? source : "");
  emit(out, "}\n");
}
