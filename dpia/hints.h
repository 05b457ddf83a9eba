/* hints.h: what the checker's messages suggest to someone learning DPIA
 * (tests/check's message goldens): the name a construct was written with, "did you
 * mean" for unknown names, and the text of a fix for common slips.  Pure
 * functions of their arguments (the library is reentrant); text is built in
 * the caller's arena. */
#ifndef DPIA_HINTS_H
#define DPIA_HINTS_H

#include "ast.h"
#include "diag.h"
#include "prims.h"

/* A primitive as the user wrote it: the dimension suffix only when it was
 * spelled (mapGlobal0) or is not 0 (mapGlobal1), so that every message
 * names a construct the way the program does.  at is where it is written
 * (its text begins with the name), or an empty span. */
const char *prim_display_name(Arena *a, Prim p, int dim, Span at);

/* Edit distance with transpositions (optimal string alignment), where a
 * difference in letter case alone costs nothing: reduceseq is reduceSeq. */
int name_distance(const char *a, const char *b);

/* Collects candidate names and keeps the closest one to an unknown name
 * that is close enough to be a slip (mapGloabl -> mapGlobal, not y -> x). */
typedef struct NameGuess {
  const char *unknown;
  const char *best;
  int best_distance;
} NameGuess;
void guess_init(NameGuess *g, const char *unknown);
void guess_offer(NameGuess *g, const char *candidate);
/* every primitive name (functional ones first; imperative and
 * intermediate ones only if imperative is set) */
void guess_offer_prims(NameGuess *g, bool imperative);
/* the best guess, or NULL */
const char *guess_best(const NameGuess *g);

/* `split 2048 * 128`: a primitive with static size arguments as the left
 * operand of an arithmetic operator, whose right operand is a number or a
 * name, parses as (split 2048) * 128.  Returns the message that says so and
 * how to write it, or NULL if e is not that slip. */
const char *static_size_operator_hint(Arena *a, const Ast *e);

/* The text of span in its source. */
const char *span_text(Arena *a, Span s);

#endif
