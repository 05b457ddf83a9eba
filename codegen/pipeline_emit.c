/* pipeline_emit.c: a pipeline against its generated kernels
 * (pipeline_emit.h).  Every size of a launched kernel (its nat arguments,
 * buffer lengths, NDRange) is a size over the kernel's own nat parameters;
 * substituting the launch's values for them (pipeline.h, PipeLaunch.nats)
 * gives it over the pipeline's. */
#include "pipeline_emit.h"
#include "backend.h"

#include <string.h>

/* s over the kernel's nat parameters -> over the pipeline's, all at once
 * (values may mention another parameter's name: M := N, N := M) */
static Size to_pipeline(TypeCtx *tc, const PipeLaunch *l, Size s) {
  const DefInfo *k = l->kernel;
  if (!size_subst_many(&tc->sizes, s, k->nsize_params, k->size_params, l->nats, &s))
    INTERNAL("size of kernel %s does not substitute", k->name);
  return s;
}

/* The index of the data parameter of the kernel that KParam i of k (an
 * input or a scalar) holds: they come in declaration order. */
static int data_param_of(const ImpKernel *k, int i) {
  int n = -1;
  const Binder *prev = NULL;
  for (int j = 0; j <= i; j++) {
    const KParam *p = &k->params[j];
    if (p->role != KP_INPUT && p->role != KP_SCALAR) continue;
    if (p->binder != prev) n++;
    prev = p->binder;
  }
  return n;
}

/* a buffer of data type t as the pipeline declares it: its elements are
 * what is inside all its array dimensions ([M][K]float: M*K floats) */
static void declared_buffer(TypeCtx *tc, DataType *t, KParam *out) {
  Size n = size_const(&tc->sizes, 1);
  t = dt_resolve(t);
  while (t->kind == DT_ARRAY) {
    n = size_mul(&tc->sizes, n, t->size);
    t = dt_resolve(t->elem);
  }
  out->elem = t;
  out->elements = n;
}

PipeDesc *pipeline_describe(Arena *a, TypeCtx *tc, Diag *diag, const Pipeline *p, ImpKernel *const *kernels) {
  const DefInfo *def = p->def;
  PipeDesc *d = NEW(a, PipeDesc);
  d->pipe = p;
  d->nlaunches = p->nlaunches;
  d->launches = NEWARRAY(a, PipeLaunchDesc, p->nlaunches > 0 ? p->nlaunches : 1);
  /* the interface: the outputs, the data parameters, the nat parameters
   * (pipeline_slot's order) */
  int nouts = p->noutputs;
  int niface = nouts + def->nparams + def->nsize_params;
  KParam *iface = NEWARRAY(a, KParam, niface);
  bool *seen = NEWARRAY(a, bool, niface);
  Vec temps = {0};
  for (int i = 0; i < p->ntemps; i++) vec_push(a, &temps, NULL); /* filled at the launch that writes it */
  bool ok = true;
  for (int li = 0; li < p->nlaunches; li++) {
    const PipeLaunch *l = &p->launches[li];
    const ImpKernel *k = kernels[l->decl_index];
    if (!k) INTERNAL("kernel %s of pipeline %s was not generated", l->kernel->name, def->name);
    PipeLaunchDesc *ld = &d->launches[li];
    ld->launch = l;
    ld->k = k;
    ld->binds = NEWARRAY(a, PipeBind, k->nparams > 0 ? k->nparams : 1);
    ld->ndims = k->ndims;
    ld->has_local = k->has_local;
    for (int dim = 0; dim < k->ndims; dim++) {
      ld->global_size[dim] = to_pipeline(tc, l, k->global_size[dim]);
      if (k->has_local) ld->local_size[dim] = to_pipeline(tc, l, k->local_size[dim]);
    }
    int nout = 0;
    for (int i = 0; i < k->nparams; i++) {
      const KParam *kp = &k->params[i];
      PipeBind *b = &ld->binds[i];
      KParam copy = *kp;
      copy.elements = to_pipeline(tc, l, kp->elements);
      copy.binder = NULL;
      copy.fields = "";
      /* the pipeline's interface and temporaries are named by the pipeline
       * (its parameters, output, tmpN), not by the kernel's program names */
      copy.src_name = NULL;
      switch (kp->role) {
      case KP_NAT:
        b->kind = PBIND_NAT;
        for (int j = 0; j < l->kernel->nsize_params; j++)
          if (strcmp(l->kernel->size_params[j], kp->name) == 0) b->size = l->nats[j];
        continue;
      case KP_LOCAL:
        b->kind = PBIND_LOCAL;
        b->size = copy.elements;
        continue;
      case KP_TEMP:
        b->kind = PBIND_BUFFER;
        b->buf = (PipeBuf){PB_TEMP, temps.len};
        vec_push(a, &temps, arena_dup(a, &copy, sizeof copy));
        continue;
      case KP_OUTPUT: b->buf = l->results[nout++]; break; /* output_1, output_2 in order */
      case KP_INPUT:
      case KP_SCALAR: b->buf = l->args[data_param_of(k, i)]; break;
      }
      b->kind = PBIND_BUFFER;
      if (kp->role != KP_OUTPUT && kp->fields && kp->fields[0]) {
        diag_error(diag, ERR_PIPELINE_UNSUPPORTED, l->span,
                   "kernel '%s' takes its parameter '%s' as several buffers (a pair); a pipeline passes one buffer "
                   "per kernel parameter",
                   k->name, kparam_name(kp));
        ok = false;
        continue;
      }
      /* the first kernel parameter a buffer is bound to describes it */
      if (b->buf.kind == PB_TEMP) {
        if (!temps.items[b->buf.index]) {
          copy.role = KP_TEMP;
          temps.items[b->buf.index] = arena_dup(a, &copy, sizeof copy);
        }
        continue;
      }
      int slot = pipeline_slot(p, b->buf);
      if (seen[slot]) continue;
      seen[slot] = true;
      bool out = b->buf.kind == PB_OUTPUT;
      copy.name = pipeline_buf_name(a, p, b->buf);
      copy.role = out ? KP_OUTPUT : kp->role;
      copy.type = out ? pipeline_output_type(p, b->buf.index) : def->params[b->buf.index]->type->data;
      if (copy.role != KP_SCALAR) declared_buffer(tc, copy.type, &copy);
      iface[slot] = copy;
    }
  }
  if (!ok) return NULL;
  for (int i = 0; i < def->nparams; i++)
    if (!seen[nouts + i]) {
      diag_error(diag, ERR_PIPELINE_UNUSED_INPUT, def->params[i]->span,
                 "input '%s' of pipeline '%s' is not used by any of its kernels", def->params[i]->name, def->name);
      ok = false;
    }
  if (!ok) return NULL;
  for (int i = 0; i < def->nsize_params; i++) {
    KParam *n = &iface[nouts + def->nparams + i];
    n->name = def->size_params[i];
    n->role = KP_NAT;
    n->type = tc->t_int;
  }
  d->iface.name = def->name;
  d->iface.nparams = niface;
  d->iface.params = iface;
  d->iface.nprecond = def->nprecond;
  d->iface.preconds = def->preconds;
  d->ntemps = temps.len;
  d->temps = NEWARRAY(a, KParam, temps.len > 0 ? temps.len : 1);
  for (int i = 0; i < temps.len; i++) {
    d->temps[i] = *(KParam *)temps.items[i];
    d->temps[i].name = arena_printf(a, "tmp%d", i);
  }
  return d;
}

void codegen_program_add(const Backend *backend, Buf *program, NameSet *defined, const KernelFacts *kernel) {
  if (program->len) buf_putc(program, '\n');
  /* printed as its kernel's own text was: by the backend that lowered it
   * (its runs of steps kept where it prints them) */
  backend->print_kernel(kernel->printed_kir, defined, program);
}
