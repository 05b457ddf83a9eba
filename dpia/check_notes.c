/* check_notes.c: what the checker says of a function argument that does
 * not fit (check.c's apply_spine): whose function it is, and a
 * reduction's order of parameters (check_int.h). */
#include "check_int.h"
#include "hints.h"

/* What a function argument is given to, for messages: "mapSeq's
 * function", "the function given to 'f'". */
const char *check_function_role(Checker *c, const Phrase *fn) {
  if (fn->kind == PH_PRIM) return arena_printf(c->arena, "%s's function", prim_display_name(c->arena, fn->prim, fn->dim, fn->span));
  if (fn->kind == PH_DEF) return arena_printf(c->arena, "the function given to '%s'", fn->def->name);
  if (fn->kind == PH_VAR) return arena_printf(c->arena, "the function given to '%s'", fn->binder->name);
  return "the function expected here";
}

/* A reduction: its function takes the element, then the accumulator, and
 * it takes the function, the initial value, then the array (messages say
 * so when a program mixes them up). */
bool check_is_reduction(const Phrase *fn) {
  if (fn->kind != PH_PRIM) return false;
  DPIA_EXHAUSTIVE_BEGIN
  switch (fn->prim) {
  PRIM_CASES_REDUCE:
  PRIM_CASES_SCAN:
  PRIM_CASES_REDUCE_RANGE: return true;
  PRIM_CASES_MAP:
  PRIM_CASES_WINDOW:
  PRIM_CASES_VIEW:
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
  PRIM_CASES_FOR_RANGE:
  PRIM_CASES_WINDOW_I:
  case PRIM_COUNT: return false;
  }
  DPIA_EXHAUSTIVE_END
  return false;
}

/* After an error inside the function of a reduce whose element and
 * accumulator types differ: the order of its parameters may be the cause
 * (\acc x -> ...), so say which comes first. */
void check_reduce_order_note(Checker *c, const Phrase *fn, const Ast *arg, const PhraseType *want) {
  if (!check_is_reduction(fn)) return;
  if (arg->kind != AST_LAMBDA || arg->body->kind != AST_LAMBDA) return;
  if (want->kind != PT_FN || want->fst->kind != PT_EXP || !want->snd || want->snd->kind != PT_FN ||
      want->snd->fst->kind != PT_EXP)
    return;
  /* zonked: a solved metavariable is no unknown (and the shortcut,
   * check_instance.c, makes the same types without one) */
  DataType *elem = dt_resolve(zonk_data_type(c, want->fst->data));
  DataType *acc = dt_resolve(zonk_data_type(c, want->snd->fst->data));
  /* types that could be the same: the order does not matter to the types */
  if (dt_has_unknowns(elem) || dt_equal(elem, acc)) return;
  if (acc->kind == DT_META &&
      (acc->meta->cls == MC_ANY || (acc->meta->cls == MC_NUMERIC ? dt_is_numeric(elem) : dt_is_floating(elem))))
    return;
  if (acc->kind != DT_META && dt_has_unknowns(acc)) return;
  TypeNamer tn;
  check_namer(c, &tn);
  diag_note(c->diag, arg->span,
            "%s takes the element first and the accumulator second: \\x acc -> ...; here an element is %s and "
            "the accumulator is %s", check_function_role(c, fn), tn_data(&tn, elem),
            acc->kind == DT_META && acc->meta->cls == MC_NUMERIC ? "a number" : tn_data(&tn, acc));
}
