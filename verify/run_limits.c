/* run_limits.c: size checks of `dpia run` before allocation (run_limits.h). */
#include "run_limits.h"

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
      emit(err, "%s %s: %s", role_noun(p->role), p->name, why.data);
      too_big_for_int = true;
      continue;
    }
    if (count > largest) {
      largest = count;
      largest_what = p->name;
    }
    if (count <= INT_INDEX_MAX) continue;
    line(err, &first);
    emit(err,
         "%s %s would have %" PRId64 " elements: the generated kernel indexes it with int, so it can have at "
         "most %d",
         role_noun(p->role), p->name, count, INT_INDEX_MAX);
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
  uint64_t max_alloc = dev->max_alloc, global_mem = dev->global_mem, local_mem = dev->local_mem;
  uint64_t total_global = 0, total_local = 0;
  bool device_ok = true;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (!is_buffer(p->role)) continue;
    buf_clear(&why);
    const Lay *l = lay_of(a, p->type, nats, &why);
    if (!l) {
      line(err, &first);
      emit(err, "%s %s: %s", role_noun(p->role), p->name, why.data);
      device_ok = false;
      continue;
    }
    uint64_t bytes = (uint64_t)l->bytes;
    if (p->role == KP_LOCAL) {
      total_local += bytes;
      continue;
    }
    total_global += bytes;
    if (max_alloc && bytes > max_alloc) {
      line(err, &first);
      emit(err, "%s %s needs %" PRIu64 " bytes, more than the device's largest buffer (%s %" PRIu64 " bytes)",
           role_noun(p->role), p->name, bytes, dev->max_alloc_name, max_alloc);
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
  if (local_mem && total_local > local_mem) {
    line(err, &first);
    emit(err,
         "the kernel's local temporaries need %" PRIu64 " bytes, more than the device's local memory (%s %" PRIu64
         " bytes)",
         total_local, dev->local_mem_name, local_mem);
    device_ok = false;
  }
  return device_ok ? RUN_LIMIT_OK : RUN_LIMIT_DEVICE;
}
