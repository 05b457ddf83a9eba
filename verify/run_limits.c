/* run_limits.c: size checks of `dpia run` before allocation (run_limits.h). */
#include "run_limits.h"
#include "runtime_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { INT_INDEX_MAX = INT32_MAX };

static const char *role_noun(KParamRole role) {
  switch (role) {
  case KP_OUTPUT: return "output buffer";
  case KP_INPUT: return "input buffer";
  case KP_TEMP: return "temporary";
  case KP_LOCAL: return "local temporary";
  default: return "parameter";
  }
}

static bool is_buffer(KParamRole role) {
  return role == KP_OUTPUT || role == KP_INPUT || role == KP_TEMP || role == KP_LOCAL;
}

static void line(Buf *err, bool *first) {
  if (!*first) buf_putc(err, '\n');
  *first = false;
}

RunLimit run_check_limits(Arena *a, const Runtime *rt, const ImpKernel *k, const KernelFacts *facts,
                          const NatValues *nats, const RtLaunch *launch, Buf *err) {
  bool first = true, too_big_for_int = false;
  int64_t largest = 0; /* the largest nat value or element count: bounds every loop index */
  const char *largest_what = "";
  for (int i = 0; i < nats->n; i++) {
    if (nats->values[i] > largest) {
      largest = nats->values[i];
      largest_what = nats->names[i];
    }
    if (nats->values[i] <= INT_INDEX_MAX) continue;
    line(err, &first);
    emit(err, "size %s = %" PRId64 " is too large: the generated kernel takes it as an int (at most %d)",
         nats->names[i], nats->values[i], INT_INDEX_MAX);
    too_big_for_int = true;
  }
  Buf why;
  buf_init(&why, a);
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (!is_buffer(p->role)) continue;
    int64_t count;
    buf_clear(&why);
    if (!nat_eval_size(p->elements, nats, &count, &why)) {
      line(err, &first);
      emit(err, "%s %s: %s", role_noun(p->role), kparam_name(p), why.data);
      too_big_for_int = true;
      continue;
    }
    if (count > largest) {
      largest = count;
      largest_what = kparam_name(p);
    }
    if (count <= INT_INDEX_MAX) continue;
    line(err, &first);
    emit(err,
         "%s %s would have %" PRId64 " elements: the generated kernel indexes it with int, so it can have at "
         "most %d",
         role_noun(p->role), kparam_name(p), count, INT_INDEX_MAX);
    too_big_for_int = true;
  }
  /* A parallel loop  for (int i = id; i < n; i += step)  that runs more
   * than once per work-item (code generation turns the others into an
   * `if` or a declaration: no increment; the loops left are in facts)
   * must not step past INT_MAX: with
   * n <= largest, n - 1 + step <= INT_MAX.  The steps are the global sizes
   * (or group counts, smaller) and the local sizes, at most the device's
   * largest work-group when the strategy does not fix them. */
  for (int d = 0; d < 3 && !too_big_for_int; d++) {
    for (int local = 0; local < 2; local++) {
      if (!((local ? facts->local_steps : facts->global_steps) & 1u << d)) continue;
      int64_t step = local ? launch->local_size[d] : launch->global_size[d];
      const Size *natural = local ? (k->has_local ? &k->local_size[d] : NULL) : &k->global_size[d];
      buf_clear(&why);
      if (step == 0 && d < k->ndims && natural && !nat_eval_size(*natural, nats, &step, &why)) step = 0;
      if (step == 0 && local) step = (int64_t)rt->info.max_work_group_size;
      if (step <= 0 || step >= largest || step - 1 <= INT_INDEX_MAX - largest) continue;
      line(err, &first);
      emit(err,
           "%s size %" PRId64 " of dimension %d is too large for int indices: a loop index below %" PRId64
           " (%s) stepping by it would pass %d",
           local ? "local" : "global", step, d, largest, largest_what, INT_INDEX_MAX);
      too_big_for_int = true;
    }
  }
  if (too_big_for_int) return RUN_LIMIT_INT;

  const TargetDeviceInfo *dev = &rt->info;
  uint64_t max_alloc = dev->max_alloc, global_mem = dev->global_mem;
  uint64_t total_global = 0;
  bool device_ok = true;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (!is_buffer(p->role)) continue;
    buf_clear(&why);
    const Lay *l = lay_of(a, p->type, nats, &why);
    if (!l) {
      line(err, &first);
      emit(err, "%s %s: %s", role_noun(p->role), kparam_name(p), why.data);
      device_ok = false;
      continue;
    }
    uint64_t bytes = (uint64_t)l->bytes;
    if (p->role == KP_LOCAL) continue; /* run_check_kernel_fits */
    total_global += bytes;
    if (max_alloc && bytes > max_alloc) {
      line(err, &first);
      emit(err, "%s %s needs %" PRIu64 " bytes, more than the device's largest buffer (%s %" PRIu64 " bytes)",
           role_noun(p->role), kparam_name(p), bytes, dev->max_alloc_name, max_alloc);
      device_ok = false;
    }
  }
  if (device_ok && global_mem && total_global > global_mem) {
    line(err, &first);
    emit(err,
         "the kernel's buffers need %" PRIu64 " bytes together, more than the device's global memory (%s %" PRIu64
         " bytes)",
         total_global, dev->global_mem_name, global_mem);
    device_ok = false;
  }
  return device_ok ? RUN_LIMIT_OK : RUN_LIMIT_DEVICE;
}

/* ---- what the kernel needs of the device (E0007) ---- */

/* The bytes and alignment of a value of t in OpenCL C (section 6.1.5 of
 * the OpenCL 1.2 C specification: a 3-vector takes 4 lanes; a vector is
 * aligned to its size; a struct's fields in order, each at its
 * alignment, the whole rounded to the largest); 0 when t is none of these. */
static uint64_t kir_bytes(const KirKernel *kir, const KirType *t, uint64_t *align) {
  *align = 1;
  if (t->kind == KTY_SCALAR) {
    uint64_t lane = t->scalar == SC_DOUBLE ? 8 : t->scalar == SC_BOOL ? 1 : 4;
    uint64_t bytes = lane * (uint64_t)(t->width == 3 ? 4 : t->width);
    *align = bytes;
    return bytes;
  }
  if (t->kind != KTY_STRUCT) return 0;
  for (int i = 0; i < kir->ntops; i++) {
    const KirTop *top = &kir->tops[i];
    if (top->kind != KT_STRUCT || strcmp(top->name, t->name) != 0) continue;
    uint64_t at = 0, most = 1;
    for (int f = 0; f < 2; f++) {
      uint64_t fa, fb = kir_bytes(kir, top->st.field[f].type, &fa);
      if (fb == 0) return 0;
      at = (at + fa - 1) / fa * fa + fb * (uint64_t)(top->st.field[f].array_len >= 0 ? top->st.field[f].array_len : 1);
      if (fa > most) most = fa;
    }
    *align = most;
    return (at + most - 1) / most * most;
  }
  return 0;
}

void run_local_needs(Arena *a, const Runtime *rt, const ImpKernel *k, const KirKernel *kir, const NatValues *nats,
                     uint64_t *bytes, Buf *what) {
  *bytes = 0;
  bool first = true;
  if (kir) {
    for (const KirStmt *d = kir->locals.first; d; d = d->next) {
      if (d->kind != KS_DECL || d->decl.space != KSP_LOCAL) continue;
      uint64_t align, elem = kir_bytes(kir, d->decl.type, &align);
      uint64_t n = d->decl.array_len >= 0 ? (uint64_t)d->decl.array_len : 1;
      *bytes += elem * n;
      emit(what, "%s%s: ", first ? "" : ", ", d->decl.name);
      first = false;
      if (d->decl.array_len >= 0) emit(what, "%" PRIu64 " ", n);
      backend_of(rt->target->id)->print_type(what, d->decl.type);
      emit(what, ", %" PRIu64 " bytes", elem * n);
    }
  }
  Buf why;
  buf_init(&why, a);
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->role != KP_LOCAL) continue;
    buf_clear(&why);
    const Lay *l = lay_of(a, p->type, nats, &why);
    if (!l) continue; /* run_check_limits has said why */
    *bytes += (uint64_t)l->bytes;
    emit(what, "%s%s: a local temporary of %" PRId64 " bytes", first ? "" : ", ", kparam_name(p), l->bytes);
    first = false;
  }
}

/* "64 work-items", or "16x4 = 64 work-items" */
static void work_group(Buf *err, int ndims, const size_t *local, uint64_t items) {
  int used = 0;
  for (int d = 0; d < ndims; d++) used += local[d] > 1;
  if (used > 1) {
    for (int d = 0; d < ndims; d++) emit(err, "%s%zu", d ? "x" : "", local[d]);
    buf_puts(err, " = ");
  }
  emit(err, "%" PRIu64 " work-items", items);
}

RtStatus run_check_kernel_fits(Arena *a, const Runtime *rt, const ImpKernel *k, const KirKernel *kir,
                               const NatValues *nats, const RtLaunch *launch, Buf *err) {
  const TargetDeviceInfo *dev = &rt->info;
  bool first = true;
  uint64_t local;
  Buf arrays;
  buf_init(&arrays, a);
  run_local_needs(a, rt, k, kir, nats, &local, &arrays);
  if (dev->local_mem && local > dev->local_mem) {
    line(err, &first);
    emit(err,
         "kernel %s needs %" PRIu64 " bytes of local memory a work-group (%s), more than the device's %" PRIu64
         " (%s)",
         k->name, local, arrays.data, dev->local_mem, dev->local_mem_name);
  }
  RtResult sizes;
  memset(&sizes, 0, sizeof sizes);
  Buf why;
  buf_init(&why, a);
  if (rt_launch_sizes(k, nats, launch, &sizes, &why) == RT_OK && sizes.has_local) {
    uint64_t items = 1;
    for (int d = 0; d < sizes.ndims; d++) items *= sizes.local_size[d];
    bool too_many = dev->max_work_group_size && items > dev->max_work_group_size;
    for (int d = 0; d < sizes.ndims; d++) {
      /* one dimension over both limits: the work-group's says it */
      if (too_many && sizes.local_size[d] == items) continue;
      if (dev->max_work_item_sizes[d] && sizes.local_size[d] > dev->max_work_item_sizes[d]) {
        line(err, &first);
        emit(err,
             "kernel %s is launched with a local size of %zu in dimension %d, more than the device's %zu (%s[%d])",
             k->name, sizes.local_size[d], d, dev->max_work_item_sizes[d], dev->max_work_item_sizes_name, d);
      }
    }
    if (too_many) {
      line(err, &first);
      emit(err, "kernel %s is launched with work-groups of ", k->name);
      work_group(err, sizes.ndims, sizes.local_size, items);
      emit(err, ", more than the device's %zu (%s)", dev->max_work_group_size, dev->max_work_group_size_name);
    }
  }
  return first ? RT_OK : RT_DEVICE_LIMIT;
}

RtStatus run_check_built(const Runtime *rt, const char *kernel, const TargetKernelInfo *ki, const TargetRange *r,
                         Buf *err) {
  const TargetDeviceInfo *dev = &rt->info;
  bool first = true;
  if (dev->local_mem && ki->local_mem > dev->local_mem) {
    line(err, &first);
    emit(err,
         "kernel %s needs %" PRIu64 " bytes of local memory a work-group (%s), more than the device's %" PRIu64
         " (%s)",
         kernel, ki->local_mem, ki->local_mem_name, dev->local_mem, dev->local_mem_name);
  }
  if (r->has_local && ki->work_group_size) {
    uint64_t items = 1;
    for (int d = 0; d < r->ndims; d++) items *= r->local_size[d];
    if (items > ki->work_group_size) {
      line(err, &first);
      emit(err, "kernel %s is launched with work-groups of ", kernel);
      work_group(err, r->ndims, r->local_size, items);
      emit(err, "; the device runs it in work-groups of at most %zu (%s)", ki->work_group_size,
           ki->work_group_size_name);
    }
  }
  if (!first && ki->private_mem)
    emit(err, "\n(it also needs %" PRIu64 " bytes of private memory a work-item, %s)", ki->private_mem,
         ki->private_mem_name);
  return first ? RT_OK : RT_DEVICE_LIMIT;
}
