/* rewrite_int.h: what the files of the rewrite rules share (rewrite.c:
 * paths, matching and the rules; rewrite_vec.c: vectoriseLoop;
 * rewrite_tile.c: the tiles and the accumulators' reduction). */
#ifndef DPIA_REWRITE_INT_H
#define DPIA_REWRITE_INT_H

#include "rules.h"

/* The primitives whose function argument holds the position, innermost
 * first: what the lowering rules' side conditions look at (the
 * hierarchy rules of spec section 5, as strategy.c checks them). */
typedef struct Enclosing {
  Prim prims[64];
  int dims[64];
  int n;
  /* the position is the function of an application (map f in map f xs):
   * a part of the application's spine, whose rules are the
   * application's, at the application's own position */
  bool in_spine;
} Enclosing;

typedef struct Fresh {
  Arena *arena;
  Interner *in;
  const Program *prog;
} Fresh;

enum { MAX_SPINE = 8 };
typedef struct Spine {
  const Ast *head;
  const Ast *args[MAX_SPINE];
  int nargs;
} Spine;

/* The rule's right side for node e, or NULL with why (the left side or a
 * side condition that does not hold).  check_only: only decide (listing). */
typedef struct Match {
  const Fresh *fr;
  const Ast *e;
  const Enclosing *en;
  long long param;
  bool check_only;
  Buf *why;
  const Ast *root; /* the whole body (registerTile's and vectoriseTile's binders) */
} Match;

/* trees (rewrite.c, "building trees") */
int rw_count_free(const Ast *e, Sym x);
Sym rw_fresh_name(const Fresh *fr, const char *base, const Ast *const *avoid, int n);
bool rw_head_is(const Spine *s, Prim p);
bool rw_is_app_of(const Ast *e, Prim p, int n, Spine *out);
Ast *rw_mk(Arena *a, AstKind kind, Span span);
Ast *rw_mk_app(Arena *a, Ast *f, Ast *x, bool pipe);
Ast *rw_mk_binop(Arena *a, BinOp op, Ast *l, Ast *r);
Ast *rw_mk_lambda(Arena *a, Sym x, Ast *body, Span span);
SizeAst *rw_mk_num(Arena *a, long long v);
Ast *rw_mk_prim(Arena *a, Prim p, int dim, Span span);
Ast *rw_mk_sized(Arena *a, Prim p, SizeAst *k, Span span);
Ast *rw_mk_stages(Arena *a, Ast *x, Ast **stages, int n);
Ast *rw_mk_var(Arena *a, Sym name, Span span);
Ast *rw_refuse(Match *m, const char *what);
Spine rw_spine_of(const Ast *e);
Ast *rw_with_child(Arena *a, const Ast *e, int i, Ast *c);
Ast *rw_vectors_of(Arena *a, Ast *e, long long n, Span at, bool columns);
Ast *rw_apply_fn(const Fresh *fr, Ast *f, Ast *x);
int rw_nchildren(const Ast *e);
Ast *rw_child(const Ast *e, int i);
Ast *rw_subst(const Fresh *fr, const Ast *e, Sym x, Ast *v);

/* vectoriseLoop (rewrite_vec.c) */
Ast *rule_vectorise_loop(Match *m, const Spine *s);
/* its case of an element that is a floatK read lane by lane (rewrite_soa.c) */
Ast *rule_vectorise_soa(Match *m, const Spine *s);
/* is xs a kernel parameter of vectors ([N]float4), or a zip with one? */
bool rw_soa_element(const Match *m, const Ast *xs);

/* registerTile and vectoriseTile (rewrite_tile.c) */
Ast *rule_register_tile(Match *m, const Spine *s);
Ast *rule_vectorise_tile(Match *m, const Spine *s);
/* rowTile (rewrite_tile.c): n rows of a map whose element is a sum */
Ast *rule_row_tile(Match *m, const Spine *s);
/* The reduction of n accumulators side by side (rewrite_tile.c; of
 * accumulators, registerTile and rowTile): reduce (\p acc -> zip mine
 * acc |> map (\q -> f (g E) (snd q))) (from |> take 0 |> padCst n 0 z),
 * E the old reduction's element, fst q or, with a shared half of p,
 * (fst q, shared) if mine_first, else (shared, fst q).  p, acc, q are
 * fresh; mine and shared are made of p. */
typedef struct AccumulatorStep {
  Sym p, acc, q;
  Ast *mine, *shared;
  bool mine_first;
  const Ast *f, *g, *z, *from;
  long long n;
  Span at;
} AccumulatorStep;
Ast *rw_accumulators_reduce(const Fresh *fr, const AccumulatorStep *st);
/* e computes something (a computing primitive, or a declaration) */
bool rw_computes_any(const Fresh *fr, const Ast *e);

#endif
