/* test_prims.c: the primitive table (dpia/prims.h) is consistent, and every
 * row's signature instantiates.
 *
 * Lists each primitive's type, instantiated with the static sizes 4 and
 * the type argument float, and compares the listing with the file given
 * (prims_types.txt; `--update FILE` rewrites it), so a change to a
 * signature shows as a diff of readable types.  The consistency rules are
 * the ones the translation relies on when it reads the LOWERED and LEVEL
 * columns instead of naming primitives. */
#include "unit_env.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void expect(bool ok, const char *prim, const char *rule) {
  if (ok) return;
  failures++;
  fprintf(stderr, "test_prims: %s: %s\n", prim, rule);
}

static bool is_parallel_level(PrimLevel l) { return l == PLVL_GLOBAL || l == PLVL_WORKGROUP || l == PLVL_LOCAL; }

static void check_row(Prim p) {
  const PrimInfo *info = &prim_info[p];
  const char *name = info->name;
  Prim low = info->lowered;
  switch (info->family) {
  case PFAM_MAP:
    expect(low != PRIM_COUNT && prim_family(low) == PFAM_MAP_I && prim_level(low) == info->level, name,
           "a map lowers to the mapI of its level");
    break;
  case PFAM_MAP_I:
    expect(low != PRIM_COUNT &&
               ((prim_family(low) == PFAM_PARFOR && prim_level(low) == info->level) || prim_family(low) == PFAM_FOR),
           name, "a mapI lowers to the parfor of its level, or a for");
    expect(is_parallel_level(info->level) == (prim_family(low) == PFAM_PARFOR), name,
           "a mapI lowers to a parfor exactly when it has an OpenCL level");
    break;
  case PFAM_REDUCE: expect(low == PRIM_REDUCE_I, name, "a reduction lowers to reduceI"); break;
  case PFAM_SCAN: expect(low == PRIM_SCAN_I, name, "a scan lowers to scanI"); break;
  case PFAM_REDUCE_RANGE: expect(low == PRIM_REDUCE_RANGE_I, name, "reduceRange lowers to reduceRangeI"); break;
  case PFAM_WINDOW: expect(low == PRIM_SLIDE_SEQ_I, name, "a sliding window lowers to slideSeqI"); break;
  case PFAM_MEMORY:
    expect(low != PRIM_COUNT && prim_family(low) == PFAM_NEW && prim_level(low) == info->level, name,
           "toX lowers to the new of its address space");
    break;
  case PFAM_VIEW:
    expect(low == PRIM_COUNT || prim_family(low) == PFAM_VIEW_ACC, name, "a view's acceptor twin is an acceptor view");
    expect(info->flags & PF_VIEW, name, "a view has PF_VIEW");
    break;
  case PFAM_VIEW_ACC: expect(info->flags & PF_VIEW, name, "an acceptor view has PF_VIEW"); /* fall through */
  case PFAM_SCALAR:
  case PFAM_MATH:
  case PFAM_CONVERT:
  case PFAM_FOREIGN:
  case PFAM_SKIP:
  case PFAM_NEW:
  case PFAM_FOR:
  case PFAM_FOR_RANGE:
  case PFAM_IF:
  case PFAM_PARFOR:
  case PFAM_REDUCE_I:
  case PFAM_SCAN_I:
  case PFAM_WINDOW_I:
    expect(low == PRIM_COUNT || info->family == PFAM_VIEW_ACC, name, "nothing to lower to");
    break;
  }
  bool loop = info->family == PFAM_MAP || info->family == PFAM_MAP_I || info->family == PFAM_PARFOR;
  expect(!!(info->flags & PF_DIM) == (loop && is_parallel_level(info->level)), name,
         "a dimension suffix exactly on the loops of an OpenCL level");
}

/* The family whose PRIM_CASES_ list names p (prims.h), by an exhaustive
 * switch built from those lists only: it compiles only if the lists cover
 * every primitive, and main compares its answer with the FAMILY column. */
static PrimFamily listed_family(Prim p) {
  DPIA_EXHAUSTIVE_BEGIN
  switch (p) {
  PRIM_CASES_MAP: return PFAM_MAP;
  PRIM_CASES_REDUCE: return PFAM_REDUCE;
  PRIM_CASES_SCAN: return PFAM_SCAN;
  PRIM_CASES_REDUCE_RANGE: return PFAM_REDUCE_RANGE;
  PRIM_CASES_WINDOW: return PFAM_WINDOW;
  PRIM_CASES_VIEW: return PFAM_VIEW;
  PRIM_CASES_MEMORY: return PFAM_MEMORY;
  PRIM_CASES_SCALAR: return PFAM_SCALAR;
  PRIM_CASES_MATH: return PFAM_MATH;
  PRIM_CASES_CONVERT: return PFAM_CONVERT;
  PRIM_CASES_FOREIGN: return PFAM_FOREIGN;
  PRIM_CASES_SKIP: return PFAM_SKIP;
  PRIM_CASES_NEW: return PFAM_NEW;
  PRIM_CASES_FOR: return PFAM_FOR;
  PRIM_CASES_FOR_RANGE: return PFAM_FOR_RANGE;
  PRIM_CASES_IF: return PFAM_IF;
  PRIM_CASES_PARFOR: return PFAM_PARFOR;
  PRIM_CASES_VIEW_ACC: return PFAM_VIEW_ACC;
  PRIM_CASES_MAP_I: return PFAM_MAP_I;
  PRIM_CASES_REDUCE_I: return PFAM_REDUCE_I;
  PRIM_CASES_SCAN_I: return PFAM_SCAN_I;
  PRIM_CASES_WINDOW_I: return PFAM_WINDOW_I;
  case PRIM_COUNT: break;
  }
  DPIA_EXHAUSTIVE_END
  abort();
}

/* the arguments of a type's spine: exp[a] -> exp[b] -> exp[c] has two */
static int type_arity(const PhraseType *t) {
  int n = 0;
  for (; t->kind == PT_FN || t->kind == PT_FN_P; t = t->snd) n++;
  return n;
}

/* a primitive that takes a command, or a function giving one, gives a
 * command: so no command is below an expression or acceptor, which the
 * passes that rewrite commands only skip (dpia/phrase.h, phrase_is_value) */
static bool command_in_command_out(const PhraseType *t) {
  bool takes = false;
  for (; t->kind == PT_FN || t->kind == PT_FN_P; t = t->snd) takes = takes || phrase_type_holds_comm(t->fst);
  return !takes || t->kind == PT_COMM;
}

int main(int argc, char **argv) {
  bool update = argc == 3 && strcmp(argv[1], "--update") == 0;
  if (argc != 2 && !update) {
    fprintf(stderr, "usage: test_prims [--update] prims_types.txt\n");
    return 2;
  }
  const char *expected_path = argv[argc - 1];
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_prims");
  /* the acceptor twins of zip and pair are followed by their second halves */
  expect(PRIM_ZIP_ACC2 == PRIM_ZIP_ACC1 + 1 && PRIM_PAIR_ACC2 == PRIM_PAIR_ACC1 + 1, "zipAcc2, pairAcc2",
         "the second projection follows the first in the table");
  Buf listing;
  buf_init(&listing, &env.arena);
  for (int p = 0; p < PRIM_COUNT; p++) {
    check_row((Prim)p);
    /* widths must be vector widths: 4 is one, and a positive size */
    type_ctx_init(&env.tc, &env.arena); /* metavariables numbered from 1 on each line */
    Size sizes[PRIM_MAX_SIZES];
    for (int i = 0; i < PRIM_MAX_SIZES; i++) sizes[i] = size_const(&env.tc.sizes, 4);
    /* depJoinAcc's is the dependent array it writes: the triangle's */
    DataType *type_arg = env.tc.t_float;
    if (p == PRIM_DEP_JOIN_ACC) {
      SizeCtx *sc = &env.tc.sizes;
      Sym index = intern_cstr(&env.in, "#0");
      DataType *row = dt_array(&env.tc, size_sub(sc, sizes[0], size_var(sc, index)), env.tc.t_float);
      type_arg = dt_deparray(&env.tc, sizes[0], index, intern_cstr(&env.in, "i"), row);
    }
    PhraseType *t = check_prim_instance(&env.arena, &env.in, &env.diag, &env.tc, (Prim)p, sizes, type_arg);
    expect(t != NULL && env.diag.nerrors == 0, prim_info[p].name, "the signature instantiates");
    if (t) emit(&listing, "%s: %s\n", prim_info[p].name, pt_str(&env.arena, t));
    expect(t && prim_arity_of((Prim)p) == type_arity(t), prim_info[p].name,
           "prim_arity_of counts the arguments of the signature");
    expect(t && command_in_command_out(t), prim_info[p].name, "a primitive that takes a command gives one");
    expect(listed_family((Prim)p) == prim_family((Prim)p), prim_info[p].name,
           "the PRIM_CASES_ list of its family names it");
  }
  FILE *f = fopen(expected_path, update ? "w" : "r");
  if (!f) {
    perror(expected_path);
    return 2;
  }
  if (update) {
    fputs(listing.data, f);
  } else {
    /* line by line, so a failure names the primitive that changed */
    char line[512];
    const char *at = listing.data;
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
      lineno++;
      size_t n = strcspn(at, "\n");
      if (strncmp(line, at, n) != 0 || line[n] != '\n') {
        fprintf(stderr, "%s:%d: expected: %s       got: %.*s\n", expected_path, lineno, line, (int)n, at);
        failures++;
        break;
      }
      at += n + (at[n] == '\n');
    }
    if (!failures && *at) {
      fprintf(stderr, "%s: %d lines, but the table has more: %s", expected_path, lineno, at);
      failures++;
    }
  }
  fclose(f);
  arena_free(&env.arena);
  if (failures) fprintf(stderr, "test_prims: %d failed\n", failures);
  return failures ? 1 : 0;
}
