/* pipeline.c: the launches of a checked pipeline (pipeline.h,
 * docs/language.md section 8).
 *
 * The checked body is evaluated symbolically, each phrase to the buffer
 * that holds its value: a pipeline input is its parameter's buffer, a
 * kernel applied to all of its data arguments is a launch whose result is a
 * new temporary, and a view that keeps the array's layout in memory (split,
 * join, asVector, asScalar: the flat order of the elements does not change)
 * is the buffer of its argument.  A `let` (or a lambda the body applies)
 * binds its value once, so a kernel result used twice is computed once.
 * Anything else is computation, which belongs in a kernel, or a view that
 * moves elements (transpose, zip, ...), which the kernel reading the array
 * applies itself; both are errors at the phrase.  A kernel whose result is
 * a pair of arrays makes a pair of temporaries, which fst and snd take
 * apart (docs/language.md section 24), and a pair the body makes, (a, b),
 * is a pair of values too.  Finally the temporary holding the body's value
 * becomes the output (each of the two of a pair of arrays an output of its
 * own), and launches whose result nothing reads are dropped. */
#include "pipeline.h"

#include <string.h>

/* The value of a phrase of the body: an array in a buffer, or a pair of
 * values (a kernel's outputs, docs/language.md section 24, or (a, b)). */
typedef struct PVal PVal;
struct PVal {
  PipeBuf buf;           /* when fst is NULL */
  const PVal *fst, *snd; /* a pair */
  const DefInfo *kernel; /* a pair: the kernel whose outputs they are, or NULL: (a, b) */
};

typedef struct PEnv PEnv;
struct PEnv {
  const Binder *binder;
  const PVal *val;
  PEnv *next;
};

typedef struct Planner {
  Arena *a;
  Diag *diag;
  DefInfo *const *defs;
  int ndefs;
  DefInfo *def;
  Vec launches; /* PipeLaunch* */
  Vec temps;    /* PipeTemp* */
} Planner;

/* A view between kernels must leave the array where it is in memory: the
 * next kernel reads the same buffer. */
static bool keeps_layout(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  case PRIM_SPLIT:
  case PRIM_JOIN:
  case PRIM_AS_VECTOR:
  case PRIM_AS_SCALAR: return true;
  case PRIM_ZIP:
  case PRIM_PAIR:
  case PRIM_FST:
  case PRIM_SND:
  case PRIM_LANE:
  case PRIM_TRANSPOSE:
  case PRIM_SLIDE:
  case PRIM_PAD_CLAMP:
  case PRIM_PAD_CST:
  case PRIM_REORDER_STRIDE:
  case PRIM_TAKE:
  case PRIM_DROP:
  case PRIM_INDICES:
  case PRIM_TRIANGLE:
  case PRIM_DEP_JOIN:
  case PRIM_UNZIP:
  case PRIM_SCATTER:
  case PRIM_MIRROR:
  case PRIM_IDX:
  PRIM_CASES_MAP:
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_WINDOW:
  PRIM_CASES_MEMORY:
  PRIM_CASES_SCALAR:
  PRIM_CASES_MATH:
  PRIM_CASES_CONVERT:
  PRIM_CASES_FOREIGN:
  PRIM_CASES_SKIP:
  PRIM_CASES_NEW:
  PRIM_CASES_FOR:
  PRIM_CASES_IF:
  PRIM_CASES_PARFOR:
  PRIM_CASES_VIEW_ACC:
  PRIM_CASES_MAP_I:
  PRIM_CASES_REDUCE_I:
  PRIM_CASES_SCAN_I:
  PRIM_CASES_REDUCE_RANGE:
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

static bool eval(Planner *pl, PEnv *env, const Phrase *p, const PVal **out);

/* what p computes, for a message: the primitive or operator at its head */
static const char *head_name(Arena *a, const Phrase *p) {
  PhraseSpine s;
  phrase_spine(a, p, &s);
  switch (s.head->kind) {
  case PH_PRIM: return arena_printf(a, "'%s'", prim_info[s.head->prim].name);
  case PH_BINOP: return arena_printf(a, "'%s'", binop_spelling[s.head->op]);
  case PH_UNOP: return arena_printf(a, "'%c'", s.head->unop);
  case PH_LIT: return "a literal";
  case PH_LAM: return "a function";
  default: return "this";
  }
}

static bool computation_error(Planner *pl, const Phrase *p) {
  PhraseSpine s;
  phrase_spine(pl->a, p, &s);
  /* at the primitive (mapSeq), or at the whole operation (a + b) */
  diag_error(pl->diag, ERR_PIPELINE_COMPUTES, s.head->kind == PH_PRIM ? s.head->span : p->span,
             "computation outside a kernel: %s in pipeline '%s'; a pipeline's body only applies kernels and "
             "rearranges their results with split, join, asVector and asScalar; move it into a kernel",
             head_name(pl->a, p), pl->def->name);
  return false;
}

static int decl_index_of(Planner *pl, const DefInfo *k) {
  for (int i = 0; i < pl->ndefs; i++)
    if (pl->defs[i] == k) return i;
  INTERNAL("kernel %s is not a declaration", k->name);
}

/* The value of launch l's result of type t: a temporary for each array,
 * depth-first through pairs (the order of the kernel's outputs,
 * output_1, output_2: codegen/kernel.c, kb_buffer) */
static const PVal *results(Planner *pl, PipeLaunch *l, Vec *bufs, DataType *t) {
  PVal *v = NEW(pl->a, PVal);
  t = dt_resolve(t);
  if (t->kind == DT_PAIR) {
    v->kernel = l->kernel;
    v->fst = results(pl, l, bufs, t->fst);
    v->snd = results(pl, l, bufs, t->snd);
    return v;
  }
  PipeTemp *tmp = NEW(pl->a, PipeTemp);
  tmp->type = t;
  tmp->made_by = pl->launches.len;
  v->buf = (PipeBuf){PB_TEMP, pl->temps.len};
  vec_push(pl->a, &pl->temps, tmp);
  PipeBuf *b = NEW(pl->a, PipeBuf);
  *b = v->buf;
  vec_push(pl->a, bufs, b);
  return v;
}

static bool launch(Planner *pl, PEnv *env, const Phrase *app, const PhraseSpine *s, const PVal **out) {
  DefInfo *k = s->head->def;
  if (s->nargs != k->nparams) {
    diag_error(pl->diag, ERR_BAD_APPLICATION, app->span,
               "kernel '%s' takes %d data argument%s, here it is given %d; a pipeline applies a "
               "kernel to all of its data arguments (its nat parameters are inferred)",
               k->name, k->nparams, k->nparams == 1 ? "" : "s", s->nargs);
    return false;
  }
  if (k->updates) {
    /* its result would be a buffer the pipeline also holds as the input,
     * which the plan of buffers does not model (docs/language.md section 27) */
    diag_error(pl->diag, ERR_PIPELINE_UNSUPPORTED, app->span,
               "kernel '%s' computes in place (it updates '%s'); a pipeline launches only kernels that write an "
               "output buffer of their own",
               k->name, k->updates->name);
    return false;
  }
  DataType *rt = dt_resolve(app->type->data);
  PipeLaunch *l = NEW(pl->a, PipeLaunch);
  l->kernel = k;
  l->decl_index = decl_index_of(pl, k);
  l->span = app->span;
  l->result_type = rt;
  l->args = NEWARRAY(pl->a, PipeBuf, s->nargs > 0 ? s->nargs : 1);
  bool ok = true;
  for (int i = 0; i < s->nargs; i++) {
    const PVal *v;
    if (!eval(pl, env, s->args[i], &v)) {
      ok = false;
      continue;
    }
    if (v->fst) {
      /* a kernel parameter is one buffer (a pair parameter would be
       * several: pipeline_emit.c refuses those kernels) */
      const char *what = v->kernel ? arena_printf(pl->a, "both outputs of kernel '%s'", v->kernel->name)
                                   : "a pair of arrays";
      diag_error(pl->diag, ERR_PIPELINE_UNSUPPORTED, s->args[i]->span,
                 "kernel '%s' is given %s as its parameter '%s'; a pipeline passes one buffer per kernel parameter: "
                 "give '%s' a parameter for each array and pass them with fst and snd",
                 k->name, what, k->params[i]->name, k->name);
      ok = false;
      continue;
    }
    l->args[i] = v->buf;
    DataType *pt = dt_resolve(k->params[i]->type->data);
    if (l->args[i].kind == PB_TEMP && pt->kind != DT_ARRAY) {
      diag_error(pl->diag, ERR_PIPELINE_UNSUPPORTED, s->args[i]->span,
                 "kernel '%s' takes '%s' by value, but this is a kernel's result, which stays on the device; "
                 "make '%s' an array of one element",
                 k->name, k->params[i]->name, k->params[i]->name);
      ok = false;
    }
  }
  if (!ok) return false;
  l->nats = NEWARRAY(pl->a, Size, k->nsize_params > 0 ? k->nsize_params : 1);
  for (int i = 0; i < k->nsize_params; i++) {
    bool found = false;
    for (int j = 0; j < s->head->subst->n && !found; j++)
      if (s->head->subst->names[j] == k->size_params[i] && s->head->subst->is_size[j]) {
        l->nats[i] = s->head->subst->sizes[j];
        found = true;
      }
    if (!found) INTERNAL("kernel %s: no size for %s", k->name, k->size_params[i]);
  }
  Vec bufs = {0};
  *out = results(pl, l, &bufs, rt);
  l->nresults = bufs.len;
  l->results = NEWARRAY(pl->a, PipeBuf, bufs.len);
  for (int i = 0; i < bufs.len; i++) l->results[i] = *(PipeBuf *)bufs.items[i];
  vec_push(pl->a, &pl->launches, l);
  return true;
}

/* an input's buffer as a value */
static const PVal *buffer(Planner *pl, PipeBuf b) {
  PVal *v = NEW(pl->a, PVal);
  v->buf = b;
  return v;
}

static bool eval(Planner *pl, PEnv *env, const Phrase *p, const PVal **out) {
  PhraseSpine s;
  phrase_spine(pl->a, p, &s);
  switch (s.head->kind) {
  case PH_VAR:
    if (s.nargs) break;
    for (PEnv *e = env; e; e = e->next)
      if (e->binder == s.head->binder) {
        *out = e->val;
        return true;
      }
    INTERNAL("pipeline %s: unbound %s", pl->def->name, s.head->binder->name);
  case PH_DEF:
    if (s.head->def->is_kernel) return launch(pl, env, p, &s, out);
    break; /* the checker lets only kernels into a pipeline */
  case PH_LAM: {
    /* let x = v in b, or (\x -> b) v: v once, then b with x bound to it */
    if (s.nargs != 1) break;
    PEnv *e = NEW(pl->a, PEnv);
    if (!eval(pl, env, s.args[0], &e->val)) return false;
    e->binder = s.head->lam_binder;
    e->next = env;
    return eval(pl, e, s.head->body, out);
  }
  case PH_PRIM: {
    Prim prim = s.head->prim;
    if (!(prim_info[prim].flags & PF_VIEW)) return computation_error(pl, p);
    if (prim == PRIM_PAIR && s.nargs == 2) {
      /* (a, b): both values, as a kernel's pair of outputs is (the
       * result of a pipeline with two outputs) */
      PVal *v = NEW(pl->a, PVal);
      if (!eval(pl, env, s.args[0], &v->fst) || !eval(pl, env, s.args[1], &v->snd)) return false;
      *out = v;
      return true;
    }
    if ((prim == PRIM_FST || prim == PRIM_SND) && s.nargs == 1) {
      /* one of a kernel's outputs: its buffer */
      const PVal *v;
      if (!eval(pl, env, s.args[0], &v)) return false;
      if (v->fst) {
        *out = prim == PRIM_FST ? v->fst : v->snd;
        return true;
      }
    }
    if (!keeps_layout(prim)) {
      diag_error(pl->diag, ERR_PIPELINE_UNSUPPORTED, s.head->span,
                 "'%s' between kernels is not supported: it moves the elements of an array in memory; only split, "
                 "join, asVector and asScalar, which keep the layout, can rearrange data in pipeline '%s'; apply "
                 "'%s' inside the kernel that reads the array",
                 prim_info[prim].name, pl->def->name, prim_info[prim].name);
      return false;
    }
    if (s.nargs != 1) break;
    return eval(pl, env, s.args[0], out);
  }
  default: break;
  }
  return computation_error(pl, p);
}

/* Drop the launches whose result nothing reads (a let-bound kernel result
 * that is not used), renumbering the temporaries. */
static void prune(Planner *pl, Pipeline *pipe) {
  int n = pl->launches.len;
  bool *needed = NEWARRAY(pl->a, bool, n > 0 ? n : 1);
  for (int i = n - 1; i >= 0; i--) {
    const PipeLaunch *l = pl->launches.items[i];
    for (int j = 0; j < l->nresults; j++) needed[i] = needed[i] || l->results[j].kind == PB_OUTPUT;
    if (!needed[i]) continue;
    for (int j = 0; j < l->kernel->nparams; j++)
      if (l->args[j].kind == PB_TEMP) needed[((PipeTemp *)pl->temps.items[l->args[j].index])->made_by] = true;
  }
  int *renum = NEWARRAY(pl->a, int, pl->temps.len > 0 ? pl->temps.len : 1);
  pipe->launches = NEWARRAY(pl->a, PipeLaunch, n > 0 ? n : 1);
  pipe->temps = NEWARRAY(pl->a, PipeTemp, pl->temps.len > 0 ? pl->temps.len : 1);
  for (int i = 0; i < n; i++) {
    PipeLaunch *l = pl->launches.items[i];
    if (!needed[i]) continue;
    for (int j = 0; j < l->nresults; j++) {
      PipeBuf *r = &l->results[j];
      if (r->kind != PB_TEMP) continue;
      renum[r->index] = pipe->ntemps;
      PipeTemp t = *(PipeTemp *)pl->temps.items[r->index];
      t.made_by = pipe->nlaunches;
      r->index = pipe->ntemps;
      pipe->temps[pipe->ntemps++] = t;
    }
    for (int j = 0; j < l->kernel->nparams; j++)
      if (l->args[j].kind == PB_TEMP) l->args[j].index = renum[l->args[j].index];
    pipe->launches[pipe->nlaunches++] = *l;
  }
}

Pipeline *pipeline_plan(Arena *a, Diag *diag, DefInfo *const *defs, int ndefs, DefInfo *def) {
  ASSERT(def->is_pipeline && def->body);
  Planner pl = {a, diag, defs, ndefs, def, {0}, {0}};
  PEnv *env = NULL;
  for (int i = 0; i < def->nparams; i++) {
    PEnv *e = NEW(a, PEnv);
    e->binder = def->params[i];
    e->val = buffer(&pl, (PipeBuf){PB_INPUT, i});
    e->next = env;
    env = e;
  }
  const PVal *value;
  if (!eval(&pl, env, def->body, &value)) return NULL;
  /* the outputs: the value's buffer, or the two of a pair of arrays */
  const PVal *outs[2] = {value, NULL};
  int nout = 1;
  if (value->fst) {
    outs[0] = value->fst;
    outs[1] = value->snd;
    nout = 2;
  }
  for (int o = 0; o < nout; o++) {
    const char *which = nout == 1 ? "the result"
                        : o == 0  ? "the first array of the result"
                                  : "the second array of the result";
    if (outs[o]->fst) {
      /* output_1 and output_2 of the header's launcher, dpia run and the
       * metadata: one buffer each (docs/language.md section 8) */
      diag_error(diag, ERR_PIPELINE_UNSUPPORTED, def->body->span,
                 "the result of pipeline '%s' holds more than two arrays (its %s component is a pair); a pipeline's "
                 "result is an array or a pair of arrays, an output buffer each: return two of them, or end with a "
                 "kernel that reads the others",
                 def->name, o == 0 ? "first" : "second");
      return NULL;
    }
    if (outs[o]->buf.kind == PB_INPUT) {
      diag_error(diag, ERR_PIPELINE_RESULT_IS_INPUT, def->body->span,
                 "%s of pipeline '%s' is its input '%s'; a pipeline computes its result with kernels", which, def->name,
                 def->params[outs[o]->buf.index]->name);
      return NULL;
    }
  }
  if (nout == 2 && outs[0]->buf.index == outs[1]->buf.index) {
    diag_error(diag, ERR_PIPELINE_RESULT_TWICE, def->body->span,
               "both arrays of the result of pipeline '%s' are the same kernel result; a pipeline's outputs are two "
               "buffers, each written by the kernel that computes it: return the array once",
               def->name);
    return NULL;
  }
  /* the temporaries holding the result are the outputs, wherever they are used */
  for (int o = 0; o < nout; o++) {
    int out_temp = outs[o]->buf.index;
    for (int i = 0; i < pl.launches.len; i++) {
      PipeLaunch *l = pl.launches.items[i];
      for (int j = 0; j < l->kernel->nparams; j++)
        if (l->args[j].kind == PB_TEMP && l->args[j].index == out_temp) l->args[j] = (PipeBuf){PB_OUTPUT, o};
      for (int j = 0; j < l->nresults; j++)
        if (l->results[j].kind == PB_TEMP && l->results[j].index == out_temp) l->results[j] = (PipeBuf){PB_OUTPUT, o};
    }
  }
  Pipeline *pipe = NEW(a, Pipeline);
  pipe->def = def;
  pipe->noutputs = nout;
  prune(&pl, pipe);
  return pipe;
}

bool pipeline_uses(const Pipeline *p, int decl_index) {
  for (int i = 0; p && i < p->nlaunches; i++)
    if (p->launches[i].decl_index == decl_index) return true;
  return false;
}

/* the name of a pipeline buffer in messages, metadata and printouts */
const char *pipeline_buf_name(Arena *a, const Pipeline *p, PipeBuf b) {
  switch (b.kind) {
  case PB_INPUT: return p->def->params[b.index]->name;
  case PB_TEMP: return arena_printf(a, "tmp%d", b.index);
  case PB_OUTPUT: return p->noutputs == 1 ? "output" : arena_printf(a, "output_%d", b.index + 1);
  }
  INTERNAL("bad buffer kind %d", (int)b.kind);
}

int pipeline_slot(const Pipeline *p, PipeBuf b) {
  switch (b.kind) {
  case PB_OUTPUT: return b.index;
  case PB_INPUT: return p->noutputs + b.index;
  case PB_TEMP: return p->noutputs + p->def->nparams + b.index;
  }
  INTERNAL("bad buffer kind %d", (int)b.kind);
}

PipeBuf pipeline_slot_buf(const Pipeline *p, int slot) {
  if (slot < p->noutputs) return (PipeBuf){PB_OUTPUT, slot};
  slot -= p->noutputs;
  if (slot < p->def->nparams) return (PipeBuf){PB_INPUT, slot};
  return (PipeBuf){PB_TEMP, slot - p->def->nparams};
}

DataType *pipeline_output_type(const Pipeline *p, int o) {
  DataType *t = dt_resolve(p->def->result->data);
  if (p->noutputs == 1) return t;
  return o == 0 ? t->fst : t->snd;
}

void pipeline_print_launches(Arena *a, Buf *out, const Pipeline *p) {
  for (int i = 0; i < p->nlaunches; i++) {
    const PipeLaunch *l = &p->launches[i];
    emit(out, "  launch %s", l->kernel->name);
    for (int j = 0; j < l->kernel->nsize_params; j++) {
      emit(out, " %s=", l->kernel->size_params[j]);
      size_print(out, l->nats[j]);
    }
    for (int j = 0; j < l->kernel->nparams; j++) emit(out, " %s", pipeline_buf_name(a, p, l->args[j]));
    emit(out, " -> %s", l->nresults > 1 ? "(" : "");
    for (int j = 0; j < l->nresults; j++) emit(out, "%s%s", j ? ", " : "", pipeline_buf_name(a, p, l->results[j]));
    emit(out, "%s : ", l->nresults > 1 ? ")" : "");
    dt_print(out, l->result_type);
    buf_putc(out, '\n');
  }
}
