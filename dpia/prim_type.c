/* prim_type.c: the type of a primitive at one use, instantiated from its
 * signature in the primitive table (prims.h; spec section 4, paper
 * Figure 4).
 *
 * The signatures are parsed once per process, by the parser of the
 * language's own types, into PrimSigs: the type, the names of the static
 * arguments and the constraints after "where".  That table is the only data
 * the library builds outside a translation: written once under
 * pthread_once and read-only afterwards, so the library stays reentrant
 * and thread-safe, and a search driver's thousands of translations do not
 * parse the table again each time (with a parse per checker, the
 * translation throughput benchmark lost 8%).  It lives in its own arena and
 * interner, from the default allocator, for the life of the process; its
 * names are compared with each other only.  Each use then walks the type, giving every
 * implicit name a fresh metavariable (a size metavariable in a size
 * position, a data metavariable in a type position) and every static name
 * the argument written after the primitive, and records the constraints.
 *
 * A signature the parser rejects or that breaks these rules is a bug of the
 * table, not of the program: it aborts (tests/check's prims-table test
 * instantiates every row). */
#include "check_int.h"

#include <pthread.h>
#include <string.h>

typedef enum ClauseKind {
  CL_NUMERIC,  /* a: numeric scalar or vector */
  CL_FLOATING, /* a: floating scalar or vector */
  CL_VECTOR,   /* `vector v s w`: a v, b s, c w */
  CL_CONVERT,  /* a s, b r, target: r is target with the width of s */
  CL_WIDTH,    /* a: a static size that is a vector width */
  CL_POSITIVE, /* a: a size >= 1; what names it */
  CL_LANE,     /* `lane v s k`: a v, b s, c k (v has lane k, of type s) */
} ClauseKind;

typedef struct Clause {
  ClauseKind kind;
  Sym a, b, c;
  ScalarKind target; /* CL_CONVERT */
  const char *what;  /* CL_POSITIVE */
} Clause;

enum { SIG_MAX_STATICS = 3, SIG_MAX_CLAUSES = 4, SIG_MAX_NAMES = 12 };

typedef struct Recipe Recipe;

typedef struct PrimSig {
  Sym statics[SIG_MAX_STATICS]; /* the static sizes, then the type argument */
  int nstatics;
  const TypeAst *type;
  Clause clauses[SIG_MAX_CLAUSES];
  int nclauses;
  const Recipe *recipe; /* the type as a recipe (below); NULL: walk the type */
} PrimSig;

/* ---- reading a signature ---- */

typedef struct SigReader {
  Arena *arena;
  Interner *in;
  Prim prim;
  const char *at;
} SigReader;

static void sig_bug(const SigReader *r, const char *what) {
  INTERNAL("the signature of %s in prims.h: %s", prim_info[r->prim].name, what);
}

static void skip_blanks(SigReader *r) {
  while (*r->at == ' ' || *r->at == ',') r->at++;
}

static bool is_word_char(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'); }

/* the next word of a where-clause, interned */
static Sym sig_word(SigReader *r) {
  skip_blanks(r);
  const char *start = r->at;
  while (is_word_char(*r->at)) r->at++;
  if (r->at == start) sig_bug(r, "a name is missing in a constraint");
  return intern(r->in, start, (size_t)(r->at - start));
}

static bool word_is(Sym w, const char *text) { return strcmp(w, text) == 0; }

static Clause read_clause(SigReader *r) {
  Clause cl = {0};
  Sym kind = sig_word(r);
  if (word_is(kind, "numeric") || word_is(kind, "floating")) {
    cl.kind = word_is(kind, "numeric") ? CL_NUMERIC : CL_FLOATING;
    cl.a = sig_word(r);
  } else if (word_is(kind, "vector")) {
    cl.kind = CL_VECTOR;
    cl.a = sig_word(r);
    cl.b = sig_word(r);
    cl.c = sig_word(r);
  } else if (word_is(kind, "convert")) {
    cl.kind = CL_CONVERT;
    cl.a = sig_word(r);
    cl.b = sig_word(r);
    Sym target = sig_word(r);
    cl.target = word_is(target, "float") ? SC_FLOAT : word_is(target, "int") ? SC_INT : SC_DOUBLE;
    if (cl.target == SC_DOUBLE && !word_is(target, "double")) sig_bug(r, "a conversion to an unknown type");
  } else if (word_is(kind, "lane")) {
    cl.kind = CL_LANE;
    cl.a = sig_word(r);
    cl.b = sig_word(r);
    cl.c = sig_word(r);
  } else if (word_is(kind, "width")) {
    cl.kind = CL_WIDTH;
    cl.a = sig_word(r);
  } else if (word_is(kind, "positive")) {
    cl.kind = CL_POSITIVE;
    cl.a = sig_word(r);
    skip_blanks(r);
    cl.what = prim_info[r->prim].name;
    if (*r->at == '(') {
      const char *close = strchr(r->at, ')');
      if (!close) sig_bug(r, "an unclosed '(' in a constraint");
      cl.what = arena_printf(r->arena, "%.*s", (int)(close - r->at - 1), r->at + 1);
      r->at = close + 1;
    }
  } else {
    sig_bug(r, "an unknown constraint");
  }
  return cl;
}

static PrimSig *read_signature(Arena *a, Interner *in, Prim prim) {
  const PrimInfo *info = &prim_info[prim];
  SigReader r = {a, in, prim, info->signature};
  PrimSig *sig = NEW(a, PrimSig);
  /* "k t. type": the static arguments */
  const char *dot = strchr(r.at, '.');
  if (dot) {
    while (r.at < dot) {
      skip_blanks(&r);
      if (r.at == dot) break;
      if (sig->nstatics == SIG_MAX_STATICS) sig_bug(&r, "too many static arguments");
      const char *start = r.at;
      while (is_word_char(*r.at)) r.at++;
      if (r.at == start) sig_bug(&r, "a static argument is not a name");
      sig->statics[sig->nstatics++] = intern(in, start, (size_t)(r.at - start));
    }
    r.at = dot + 1;
  }
  if (sig->nstatics != info->nsizes + info->takes_type) sig_bug(&r, "the static arguments do not match the row");
  /* "type where clauses" */
  const char *where = strstr(r.at, " where ");
  size_t type_len = where ? (size_t)(where - r.at) : strlen(r.at);
  Source *src = NEW(a, Source);
  source_init(src, a, info->name, arena_printf(a, "%.*s", (int)type_len, r.at), type_len);
  Diag scratch;
  diag_init(&scratch, a);
  sig->type = parse_phrase_type_text(a, in, &scratch, src);
  if (!sig->type || scratch.nerrors) sig_bug(&r, scratch.first ? scratch.first->message : "it does not parse");
  if (where) {
    r.at = where + strlen(" where ");
    for (skip_blanks(&r); *r.at; skip_blanks(&r)) {
      if (sig->nclauses == SIG_MAX_CLAUSES) sig_bug(&r, "too many constraints");
      sig->clauses[sig->nclauses++] = read_clause(&r);
    }
  }
  return sig;
}

/* ---- instantiating ---- */

typedef struct Binding {
  Sym name;
  bool is_size;
  Size size;      /* is_size */
  DataType *data; /* !is_size */
} Binding;

typedef struct Inst {
  Checker *c;
  Prim prim;
  Span span;
  Binding names[SIG_MAX_NAMES];
  int nnames;
  /* inside a dependent array's element: its index as the table names it,
   * and as the instantiated type does (the checker's interner) */
  Sym dep_written, dep_index;
} Inst;

static Binding *bind_fresh(Inst *in, Sym name, bool is_size);

/* the binding of a name of the signature: found here, inlined into the
 * walk (a signature has a few names, each met several times: translation
 * throughput), made by bind_fresh at the first */
static inline Binding *bind(Inst *in, Sym name, bool is_size) {
  for (int i = 0; i < in->nnames; i++) {
    Binding *b = &in->names[i];
    if (b->name != name) continue;
    if (b->is_size != is_size)
      INTERNAL("the signature of %s in prims.h uses '%s' as a size and as a type", prim_info[in->prim].name, name);
    return b;
  }
  return bind_fresh(in, name, is_size);
}

static Binding *bind_fresh(Inst *in, Sym name, bool is_size) {
  if (in->nnames == SIG_MAX_NAMES) INTERNAL("the signature of %s in prims.h has too many names", prim_info[in->prim].name);
  Binding *b = &in->names[in->nnames++];
  b->name = name;
  b->is_size = is_size;
  /* an implicit argument: a fresh metavariable */
  if (is_size) b->size = size_var(&in->c->tc->sizes, fresh_size_meta(in->c, in->span));
  else b->data = dt_meta(in->c->tc, MC_ANY, in->span);
  return b;
}

static Size inst_size(Inst *in, const SizeAst *s) {
  SizeCtx *sc = &in->c->tc->sizes;
  switch (s->kind) {
  case SZA_NUM: return size_const(sc, (int64_t)s->num);
  case SZA_VAR:
    if (s->name == in->dep_written) return size_var(sc, in->dep_index);
    return bind(in, s->name, true)->size;
  case SZA_ADD:
  case SZA_MUL: {
    /* left first: implicit names are numbered in the order they appear */
    Size a = inst_size(in, s->lhs), b = inst_size(in, s->rhs);
    return s->kind == SZA_ADD ? size_add(sc, a, b) : size_mul(sc, a, b);
  }
  case SZA_SUB:
    /* a row of a dependent array, n - i: natural for every index i < n
     * (triangle) */
    if (in->dep_written) {
      Size a = inst_size(in, s->lhs), b = inst_size(in, s->rhs);
      return size_sub(sc, a, b);
    }
    break;
  case SZA_DIV:
  case SZA_MOD:
  case SZA_CEIL:
  case SZA_FLOOR: break;
  }
  INTERNAL("the signature of %s in prims.h subtracts, divides or rounds sizes", prim_info[in->prim].name);
}

static DataType *inst_data(Inst *in, const TypeAst *t) {
  TypeCtx *tc = in->c->tc;
  switch (t->kind) {
  case TYA_SCALAR: return dt_scalar(tc, t->scalar, t->vec_width);
  case TYA_ARRAY: {
    Size n = inst_size(in, t->size);
    return dt_array(tc, n, inst_data(in, t->elem));
  }
  case TYA_PAIR: {
    DataType *a = inst_data(in, t->fst);
    return dt_pair(tc, a, inst_data(in, t->snd));
  }
  case TYA_IDX: return dt_idx(tc, inst_size(in, t->size));
  case TYA_NAMED: return bind(in, t->name, false)->data;
  case TYA_DEPARRAY: {
    /* [n](\i -> elem), docs/language.md section 30: elem made with the
     * index written, then renamed to its canonical name (dt_dep_index).
     * One level: the table's dependent arrays do not nest, and their
     * elements' type names are not dependent arrays (the checker refuses
     * those where the row type is made: triangle's elements) */
    if (in->dep_written) INTERNAL("the signature of %s in prims.h nests dependent arrays", prim_info[in->prim].name);
    Size n = inst_size(in, t->size);
    in->dep_written = t->name;
    in->dep_index = intern_cstr(in->c->in, t->name);
    DataType *elem = inst_data(in, t->elem);
    Sym written = in->dep_index;
    in->dep_written = in->dep_index = NULL;
    Sym index = dt_dep_index(in->c->in, elem);
    Size canonical = size_var(&tc->sizes, index);
    bool is_size = true;
    TypeSubst s = {1, &written, &is_size, &canonical, NULL};
    return dt_deparray(tc, n, index, written, dt_subst(tc, &s, elem));
  }
  case TYA_EXP:
  case TYA_ACC:
  case TYA_VAR:
  case TYA_COMM:
  case TYA_WITH:
  case TYA_FN:
  case TYA_FN_P: break;
  }
  INTERNAL("the signature of %s in prims.h has a phrase type inside a data type", prim_info[in->prim].name);
}

static PhraseType *inst_phrase(Inst *in, const TypeAst *t) {
  TypeCtx *tc = in->c->tc;
  switch (t->kind) {
  case TYA_EXP: return pt_exp(tc, inst_data(in, t->elem));
  case TYA_ACC: return pt_acc(tc, inst_data(in, t->elem));
  case TYA_VAR: return pt_var(tc, inst_data(in, t->elem));
  case TYA_COMM: return tc->t_comm;
  case TYA_WITH:
  case TYA_FN:
  case TYA_FN_P: {
    PhraseType *a = inst_phrase(in, t->fst), *b = inst_phrase(in, t->snd);
    return t->kind == TYA_WITH ? pt_with(tc, a, b) : t->kind == TYA_FN ? pt_fn(tc, a, b) : pt_fn_p(tc, a, b);
  }
  case TYA_SCALAR:
  case TYA_ARRAY:
  case TYA_PAIR:
  case TYA_IDX:
  case TYA_DEPARRAY:
  case TYA_NAMED: break;
  }
  /* a data type where a phrase type is expected means exp[T], as in a
   * program; the table writes exp[...] everywhere */
  INTERNAL("the signature of %s in prims.h has a bare data type", prim_info[in->prim].name);
}

static bool vector_width_ok(int64_t w) { return w == 2 || w == 3 || w == 4 || w == 8 || w == 16; }

/* Constraints that must hold before the type is built: a vector width must
 * be a constant now, because the type's vector depends on it.  k is the
 * width named by a CL_WIDTH clause. */
static bool width_ok(Checker *c, Prim prim, Span span, Size k) {
  int64_t kv;
  if (size_const_value(k, &kv) && vector_width_ok(kv)) return true;
  /* a width of tune parameters is known once --set gives them
   * (docs/language.md section 6) */
  check_error(c, ERR_BAD_VECTOR_WIDTH, span, "%s needs a vector width of 2, 3, 4, 8 or 16%s", prim_info[prim].name,
              size_const_value(k, &kv) ? "" : " (a constant: a tune parameter used as the width needs --set)");
  return false;
}

static bool check_widths(Inst *in, const PrimSig *sig) {
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    if (cl->kind != CL_WIDTH) continue;
    if (!width_ok(in->c, in->prim, in->span, bind(in, cl->a, true)->size)) return false;
  }
  return true;
}

/* One constraint recorded, its names' bindings given (a, b, c as the
 * Clause names them; each NULL where the kind has none). */
static void record_clause(Checker *c, const Clause *cl, const Binding *a, const Binding *b, const Binding *k,
                          Span span) {
  switch (cl->kind) {
  case CL_VECTOR: defer(c, DEFER_VECTOR_OF, b->data, a->data, k->size, SC_INT, span); break;
  case CL_CONVERT:
    defer(c, DEFER_CONVERT, a->data, b->data, size_const(&c->tc->sizes, 0), cl->target, span);
    break;
  case CL_POSITIVE: require(c, REQ_POSITIVE, a->size, span, cl->what); break;
  case CL_LANE: defer(c, DEFER_LANE, a->data, b->data, k->size, SC_INT, span); break;
  case CL_NUMERIC:
  case CL_FLOATING:
  case CL_WIDTH: break; /* before the type was built */
  }
}

/* whether a clause's names a, b, c are sizes (true) or types (false), by
 * its kind; a name a kind does not have is NULL in the Clause */
static void clause_name_kinds(const Clause *cl, bool *a, bool *b, bool *k) {
  *a = cl->kind == CL_POSITIVE || cl->kind == CL_WIDTH;
  *b = false;
  *k = true;
}

static void record_constraints(Inst *in, const PrimSig *sig) {
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    if (cl->kind == CL_NUMERIC || cl->kind == CL_FLOATING || cl->kind == CL_WIDTH) continue;
    bool a_size, b_size, k_size;
    clause_name_kinds(cl, &a_size, &b_size, &k_size);
    /* in the order the clause names them */
    const Binding *a = bind(in, cl->a, a_size);
    const Binding *b = cl->b ? bind(in, cl->b, b_size) : NULL;
    const Binding *k = cl->c ? bind(in, cl->c, k_size) : NULL;
    record_clause(in->c, cl, a, b, k, in->span);
  }
}

/* ---- recipes: a signature's type as a template filled at each use ----
 *
 * The walk above finds every name of the signature by its text, at every
 * use, in a type tree read from the table, and makes each part of the type
 * by a call of its own.  A recipe is that walk done once, when the table is
 * read: the type's sizes in the order the walk makes them, its data and
 * phrase types as nodes whose parts are other nodes or slots, every name
 * resolved to a slot (the statics, then the class metavariables, then the
 * implicit names in order of first occurrence).  An instance makes the
 * sizes (a fresh size metavariable at a name's first occurrence, sums and
 * products of the rest), then the fresh data metavariables, in the walk's
 * order, so that they are numbered as the walk numbers them (the numbers
 * reach messages and the order of requirements); then it fills every node
 * of the type in one allocation per kind, without a lookup, a recursion or
 * a constructor call (translation throughput; tests/unit test_recipes
 * compares the two, sharing included, on every row).  A signature the
 * recipe does not cover (a dependent array, a name used as a size and as a
 * type, a constraint on a name the type does not have, more parts than the
 * recipe holds) keeps the walk, which reports the table's bugs. */

/* a part of a type: a node of the recipe, a slot, or a scalar type */
typedef enum RefKind { REF_NODE, REF_SLOT, REF_SCALAR, REF_COMM } RefKind;
typedef struct Ref {
  RefKind kind;
  int index;         /* REF_NODE: the node; REF_SLOT: the slot */
  ScalarKind scalar; /* REF_SCALAR */
  int width;         /* REF_SCALAR */
} Ref;

typedef enum RecipeSizeKind { RS_SLOT, RS_FRESH, RS_CONST, RS_ADD, RS_MUL } RecipeSizeKind;
typedef struct RecipeSize {
  RecipeSizeKind kind;
  int slot;    /* RS_SLOT, RS_FRESH */
  int64_t num; /* RS_CONST */
  int a, b;    /* RS_ADD, RS_MUL: earlier sizes */
} RecipeSize;

/* a data node (DT_ARRAY, DT_PAIR, DT_IDX) or a phrase node (PT_EXP,
 * PT_ACC, PT_WITH, PT_FN, PT_FN_P) */
typedef struct RecipeNode {
  int kind;  /* a DataKind or a PhraseKind */
  int size;  /* DT_ARRAY, DT_IDX: the size */
  Ref a, b;  /* elem; fst and snd; data (PT_EXP, PT_ACC) */
} RecipeNode;

/* the most a recipe holds (float16's 16 arguments take 33 phrase nodes) */
enum { RECIPE_MAX_SIZES = 16, RECIPE_MAX_NODES = 40 };

struct Recipe {
  const RecipeSize *sizes;
  int nsizes;
  int fresh_data[SIG_MAX_NAMES]; /* the slots of the implicit type names, in order */
  int nfresh_data;
  const RecipeNode *datas, *phrases;
  int ndatas, nphrases;
  Ref root;
  /* per clause: the slots of its names a, b, c (-1: none) */
  int clause_slot[SIG_MAX_CLAUSES][3];
  /* for the shortcut (instance_begin): every slot, the fresh sizes, and
   * the type as parameters exp[d1] -> ... -> exp[dn] -> exp[result]
   * (matchable: the type is so, its constraints are ones instance_end
   * decides and its static arguments are sizes) */
  int nslots, nfresh_sizes;
  bool matchable;
  /* partial: some parameters are functions (late: their arguments are
   * checked after the values'), no constraints: instance_begin matches
   * the values' parameters the caller chooses and makes metavariables
   * for the names they do not fix (instance_end) */
  bool partial;
  int nparams;
  Ref params[INSTANCE_MAX_ARGS], result; /* a value's data, a late one's phrase type */
  bool late[INSTANCE_MAX_ARGS];
  bool passive[INSTANCE_MAX_ARGS]; /* the arrow after parameter i is ->p */
  bool slot_is_size[SIG_MAX_NAMES];
};

/* the names as the walk binds them, and the parts written so far, while a
 * recipe is written */
typedef struct RecipeWriter {
  Recipe *r;
  RecipeSize sizes[RECIPE_MAX_SIZES];
  RecipeNode datas[RECIPE_MAX_NODES], phrases[RECIPE_MAX_NODES];
  Sym names[SIG_MAX_NAMES];
  bool is_size[SIG_MAX_NAMES];
  int nnames;
  bool ok; /* false: the recipe does not cover this signature */
} RecipeWriter;

/* bind()'s slot for a name, a new one at the first occurrence (*fresh);
 * -1 where bind would stop */
static int recipe_slot(RecipeWriter *w, Sym name, bool is_size, bool *fresh) {
  *fresh = false;
  for (int i = 0; i < w->nnames; i++) {
    if (w->names[i] != name) continue;
    if (w->is_size[i] != is_size) w->ok = false;
    return i;
  }
  if (w->nnames == SIG_MAX_NAMES) {
    w->ok = false;
    return -1;
  }
  *fresh = true;
  w->names[w->nnames] = name;
  w->is_size[w->nnames] = is_size;
  return w->nnames++;
}

static int recipe_add_size(RecipeWriter *w, RecipeSize s) {
  if (w->r->nsizes == RECIPE_MAX_SIZES) {
    w->ok = false;
    return 0;
  }
  w->sizes[w->r->nsizes] = s;
  return w->r->nsizes++;
}

static Ref recipe_add_node(RecipeWriter *w, bool data, RecipeNode n) {
  RecipeNode *nodes = data ? w->datas : w->phrases;
  int *count = data ? &w->r->ndatas : &w->r->nphrases;
  if (*count == RECIPE_MAX_NODES) {
    w->ok = false;
    return (Ref){REF_NODE, 0, 0, 0};
  }
  nodes[*count] = n;
  return (Ref){REF_NODE, (*count)++, 0, 0};
}

/* inst_size's order: left first */
static int recipe_size(RecipeWriter *w, const SizeAst *s) {
  switch (s->kind) {
  case SZA_NUM: return recipe_add_size(w, (RecipeSize){.kind = RS_CONST, .num = (int64_t)s->num});
  case SZA_VAR: {
    bool fresh;
    int slot = recipe_slot(w, s->name, true, &fresh);
    return recipe_add_size(w, (RecipeSize){.kind = fresh ? RS_FRESH : RS_SLOT, .slot = slot});
  }
  case SZA_ADD:
  case SZA_MUL: {
    int a = recipe_size(w, s->lhs), b = recipe_size(w, s->rhs);
    return recipe_add_size(w, (RecipeSize){.kind = s->kind == SZA_ADD ? RS_ADD : RS_MUL, .a = a, .b = b});
  }
  case SZA_SUB: /* only inside a dependent array, which the walk makes */
  case SZA_DIV:
  case SZA_MOD:
  case SZA_CEIL:
  case SZA_FLOOR: break;
  }
  w->ok = false;
  return 0;
}

/* inst_data's order: a size before the element, the left part first */
static Ref recipe_data(RecipeWriter *w, const TypeAst *t) {
  switch (t->kind) {
  case TYA_SCALAR: return (Ref){REF_SCALAR, 0, t->scalar, t->vec_width};
  case TYA_ARRAY: {
    int n = recipe_size(w, t->size);
    Ref elem = recipe_data(w, t->elem);
    return recipe_add_node(w, true, (RecipeNode){.kind = DT_ARRAY, .size = n, .a = elem});
  }
  case TYA_IDX: return recipe_add_node(w, true, (RecipeNode){.kind = DT_IDX, .size = recipe_size(w, t->size)});
  case TYA_PAIR: {
    Ref a = recipe_data(w, t->fst);
    Ref b = recipe_data(w, t->snd);
    return recipe_add_node(w, true, (RecipeNode){.kind = DT_PAIR, .a = a, .b = b});
  }
  case TYA_NAMED: {
    bool fresh;
    int slot = recipe_slot(w, t->name, false, &fresh);
    if (fresh) w->r->fresh_data[w->r->nfresh_data++] = slot;
    return (Ref){REF_SLOT, slot, 0, 0};
  }
  case TYA_DEPARRAY: /* its element's index renamed: the walk's */
  case TYA_EXP:
  case TYA_ACC:
  case TYA_VAR:
  case TYA_COMM:
  case TYA_WITH:
  case TYA_FN:
  case TYA_FN_P: break;
  }
  w->ok = false;
  return (Ref){REF_SLOT, 0, 0, 0};
}

static Ref recipe_phrase(RecipeWriter *w, const TypeAst *t) {
  switch (t->kind) {
  case TYA_EXP:
  case TYA_ACC: {
    Ref d = recipe_data(w, t->elem);
    return recipe_add_node(w, false, (RecipeNode){.kind = t->kind == TYA_EXP ? PT_EXP : PT_ACC, .a = d});
  }
  case TYA_VAR: { /* acc[d] & exp[d], pt_var */
    Ref d = recipe_data(w, t->elem);
    Ref acc = recipe_add_node(w, false, (RecipeNode){.kind = PT_ACC, .a = d});
    Ref exp = recipe_add_node(w, false, (RecipeNode){.kind = PT_EXP, .a = d});
    return recipe_add_node(w, false, (RecipeNode){.kind = PT_WITH, .a = acc, .b = exp});
  }
  case TYA_COMM: return (Ref){REF_COMM, 0, 0, 0};
  case TYA_WITH:
  case TYA_FN:
  case TYA_FN_P: {
    Ref a = recipe_phrase(w, t->fst);
    Ref b = recipe_phrase(w, t->snd);
    int kind = t->kind == TYA_WITH ? PT_WITH : t->kind == TYA_FN ? PT_FN : PT_FN_P;
    return recipe_add_node(w, false, (RecipeNode){.kind = kind, .a = a, .b = b});
  }
  case TYA_SCALAR:
  case TYA_ARRAY:
  case TYA_PAIR:
  case TYA_IDX:
  case TYA_DEPARRAY:
  case TYA_NAMED: break;
  }
  w->ok = false;
  return (Ref){REF_COMM, 0, 0, 0};
}

/* Whether the shortcut covers a recipe (Recipe.matchable): its type a
 * chain of value parameters to a value, its static arguments sizes, its
 * constraints a positive static size, a static vector width and its
 * vector (asVector's), or a class; the parameters and result noted */
static void recipe_matchable(Recipe *r, const RecipeNode *phrases, const PrimSig *sig, Prim prim) {
  r->matchable = false;
  if (sig->nstatics != prim_info[prim].nsizes) return;
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    const int *k = r->clause_slot[i];
    switch (cl->kind) {
    case CL_NUMERIC:
    case CL_FLOATING:
    case CL_WIDTH: break;
    case CL_POSITIVE:
      if (k[0] >= sig->nstatics) return;
      break;
    case CL_VECTOR:
      /* a static width (asVector: the vector made of its scalar), or the
       * vector an argument gives (asScalar: its scalar and width read off
       * it, instance_end) */
      if (k[2] >= sig->nstatics && (k[0] < sig->nstatics || k[1] < sig->nstatics)) return;
      break;
    case CL_CONVERT:
    case CL_LANE: return;
    }
  }
  Ref t = r->root;
  r->nparams = 0;
  int nlate = 0;
  while (t.kind == REF_NODE && (phrases[t.index].kind == PT_FN || phrases[t.index].kind == PT_FN_P)) {
    const RecipeNode *fn = &phrases[t.index];
    if (r->nparams == INSTANCE_MAX_ARGS || fn->a.kind != REF_NODE) return;
    int kind = phrases[fn->a.index].kind;
    bool late = kind == PT_FN || kind == PT_FN_P;
    if (!late && kind != PT_EXP) return;
    nlate += late;
    r->late[r->nparams] = late;
    r->passive[r->nparams] = fn->kind == PT_FN_P;
    r->params[r->nparams++] = late ? fn->a : phrases[fn->a.index].a;
    t = fn->b;
  }
  if (r->nparams == 0 || t.kind != REF_NODE || phrases[t.index].kind != PT_EXP) return;
  r->result = phrases[t.index].a;
  r->matchable = nlate == 0;
  r->partial = nlate > 0 && sig->nclauses == 0;
}

/* The recipe of a signature, in the table's arena, or NULL where the walk
 * stays: written in prim_type's order (statics, widths, class
 * metavariables, the type, the constraints) so that its slots are bind's. */
static const Recipe *write_recipe(Arena *a, Prim prim, const PrimSig *sig) {
  RecipeWriter w;
  w.r = NEW(a, Recipe);
  w.nnames = 0;
  w.ok = true;
  for (int i = 0; i < sig->nstatics; i++) {
    w.names[w.nnames] = sig->statics[i];
    w.is_size[w.nnames++] = i < prim_info[prim].nsizes;
  }
  bool fresh;
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    /* a width is a static size (a fresh one is never a constant) */
    if (cl->kind == CL_WIDTH && (recipe_slot(&w, cl->a, true, &fresh) < 0 || fresh)) w.ok = false;
  }
  /* the class metavariables, appended as prim_type appends them */
  for (int i = 0; i < sig->nclauses && w.ok; i++) {
    const Clause *cl = &sig->clauses[i];
    if (cl->kind != CL_NUMERIC && cl->kind != CL_FLOATING) continue;
    if (w.nnames == SIG_MAX_NAMES) w.ok = false;
    else {
      w.names[w.nnames] = cl->a;
      w.is_size[w.nnames++] = false;
    }
  }
  if (w.ok) w.r->root = recipe_phrase(&w, sig->type);
  for (int i = 0; i < sig->nclauses && w.ok; i++) {
    const Clause *cl = &sig->clauses[i];
    Sym names[3] = {cl->a, cl->b, cl->c};
    bool kinds[3];
    clause_name_kinds(cl, &kinds[0], &kinds[1], &kinds[2]);
    for (int j = 0; j < 3; j++) {
      w.r->clause_slot[i][j] = names[j] ? recipe_slot(&w, names[j], kinds[j], &fresh) : -1;
      /* a constraint on a name the type does not have: the walk's */
      if (names[j] && fresh) w.ok = false;
    }
  }
  if (!w.ok) return NULL;
  w.r->nslots = w.nnames;
  for (int i = 0; i < w.nnames; i++) w.r->slot_is_size[i] = w.is_size[i];
  for (int i = 0; i < w.r->nsizes; i++) w.r->nfresh_sizes += w.sizes[i].kind == RS_FRESH;
  recipe_matchable(w.r, w.phrases, sig, prim);
  w.r->sizes = arena_dup(a, w.sizes, sizeof(RecipeSize) * (size_t)w.r->nsizes);
  w.r->datas = arena_dup(a, w.datas, sizeof(RecipeNode) * (size_t)w.r->ndatas);
  w.r->phrases = arena_dup(a, w.phrases, sizeof(RecipeNode) * (size_t)w.r->nphrases);
  return w.r;
}

static inline DataType *data_ref(TypeCtx *tc, const Binding *slot, DataType *block, Ref r) {
  switch (r.kind) {
  case REF_NODE: return &block[r.index];
  case REF_SLOT: return slot[r.index].data;
  case REF_SCALAR: return dt_scalar(tc, r.scalar, r.width);
  case REF_COMM: break;
  }
  INTERNAL("a recipe's data type is a phrase type");
}

static inline PhraseType *phrase_ref(TypeCtx *tc, PhraseType *block, Ref r) {
  return r.kind == REF_COMM ? tc->t_comm : &block[r.index];
}

/* prim_type by the recipe of its signature */
static PhraseType *cook(Checker *c, const Phrase *p, Span span, const PrimSig *sig) {
  const Recipe *r = sig->recipe;
  TypeCtx *tc = c->tc;
  SizeCtx *sc = &tc->sizes;
  /* the slots, as Bindings for record_clause; written before read */
  Binding slot[SIG_MAX_NAMES];
  int nslots = 0;
  for (; nslots < sig->nstatics; nslots++) {
    if (nslots < prim_info[p->prim].nsizes) slot[nslots].size = p->sizes[nslots];
    else slot[nslots].data = p->type_arg;
  }
  for (int i = 0; i < sig->nclauses; i++)
    if (sig->clauses[i].kind == CL_WIDTH && !width_ok(c, p->prim, span, slot[r->clause_slot[i][0]].size))
      return NULL;
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    if (cl->kind == CL_NUMERIC || cl->kind == CL_FLOATING)
      slot[nslots++].data = dt_meta(tc, cl->kind == CL_NUMERIC ? MC_NUMERIC : MC_FLOATING, span);
  }
  /* the sizes, then the data metavariables: each kind in the walk's order */
  Size sizes[RECIPE_MAX_SIZES];
  for (int i = 0; i < r->nsizes; i++) {
    const RecipeSize *s = &r->sizes[i];
    switch (s->kind) {
    case RS_SLOT: sizes[i] = slot[s->slot].size; break;
    case RS_FRESH: sizes[i] = slot[s->slot].size = size_var(sc, fresh_size_meta(c, span)); break;
    case RS_CONST: sizes[i] = size_const(sc, s->num); break;
    case RS_ADD: sizes[i] = size_add(sc, sizes[s->a], sizes[s->b]); break;
    case RS_MUL: sizes[i] = size_mul(sc, sizes[s->a], sizes[s->b]); break;
    }
  }
  for (int i = 0; i < r->nfresh_data; i++) slot[r->fresh_data[i]].data = dt_meta(tc, MC_ANY, span);
  /* the nodes, zeroed as the constructors make them (types.c) */
  DataType *datas = r->ndatas ? NEWARRAY(tc->arena, DataType, r->ndatas) : NULL;
  for (int i = 0; i < r->ndatas; i++) {
    const RecipeNode *n = &r->datas[i];
    DataType *t = &datas[i];
    t->kind = (DataKind)n->kind;
    switch (t->kind) {
    case DT_ARRAY: t->elem = data_ref(tc, slot, datas, n->a); /* fall through */
    case DT_IDX: t->size = sizes[n->size]; break;
    case DT_PAIR:
      t->fst = data_ref(tc, slot, datas, n->a);
      t->snd = data_ref(tc, slot, datas, n->b);
      break;
    case DT_SCALAR:
    case DT_DEPARRAY:
    case DT_VAR:
    case DT_META: INTERNAL("a recipe's data node is not a compound");
    }
  }
  PhraseType *phrases = r->nphrases ? NEWARRAY(tc->arena, PhraseType, r->nphrases) : NULL;
  for (int i = 0; i < r->nphrases; i++) {
    const RecipeNode *n = &r->phrases[i];
    PhraseType *t = &phrases[i];
    t->kind = (PhraseKind)n->kind;
    switch (t->kind) {
    case PT_EXP:
    case PT_ACC: t->data = data_ref(tc, slot, datas, n->a); break;
    case PT_WITH:
    case PT_FN:
    case PT_FN_P:
      t->fst = phrase_ref(tc, phrases, n->a);
      t->snd = phrase_ref(tc, phrases, n->b);
      break;
    case PT_COMM: INTERNAL("a recipe's phrase node is comm");
    }
  }
  for (int i = 0; i < sig->nclauses; i++) {
    const int *k = r->clause_slot[i];
    record_clause(c, &sig->clauses[i], k[0] >= 0 ? &slot[k[0]] : NULL, k[1] >= 0 ? &slot[k[1]] : NULL,
                  k[2] >= 0 ? &slot[k[2]] : NULL, span);
  }
  return phrase_ref(tc, phrases, r->root);
}

typedef struct SigTable {
  DpiaMem mem;
  Arena arena;
  Interner in;
  const PrimSig *sigs[PRIM_COUNT];
} SigTable;

static SigTable sig_table;
static pthread_once_t sig_table_once = PTHREAD_ONCE_INIT;

static void read_sig_table(void) {
  SigTable *t = &sig_table;
  dpia_mem_default(&t->mem); /* no on_oom handler: running out aborts */
  arena_init(&t->arena, &t->mem);
  intern_init(&t->in, &t->arena);
  for (int p = 0; p < PRIM_COUNT; p++) {
    PrimSig *sig = read_signature(&t->arena, &t->in, (Prim)p);
    sig->recipe = write_recipe(&t->arena, (Prim)p, sig);
    t->sigs[p] = sig;
  }
}

static const PrimSig *prim_signature(Prim prim) {
  pthread_once(&sig_table_once, read_sig_table);
  return sig_table.sigs[prim];
}

/* depJoinAcc T: the flat acceptor it takes is T joined (dt_dep_join), the
 * type made so (the signature's [m]a is its shape) */
static PhraseType *dep_join_acc_type(Checker *c, const Phrase *p, Span span) {
  DataType *flat = p->type_arg ? dt_dep_join(c->tc, p->type_arg) : NULL;
  if (!flat) {
    TypeNamer tn;
    check_namer(c, &tn);
    check_error(c, ERR_BAD_DEP_JOIN, span,
                "depJoinAcc takes the dependent array it writes, [n](\\i -> [a + b*i]t), whose rows are arrays of "
                "one element type; this is %s",
                p->type_arg ? tn_data(&tn, p->type_arg) : "no type");
    return NULL;
  }
  return pt_fn(c->tc, pt_acc(c->tc, flat), pt_acc(c->tc, p->type_arg));
}

/* prim_type by the walk of its signature's type */
static PhraseType *walk_type(Checker *c, const Phrase *p, Span span, const PrimSig *sig) {
  /* the bindings are written before they are read (nnames counts them):
   * not zeroed, 12 of them at every instance (translation throughput) */
  Inst in;
  in.c = c;
  in.prim = p->prim;
  in.span = span;
  in.nnames = 0;
  in.dep_written = in.dep_index = NULL;
  /* the static arguments, as written */
  for (int i = 0; i < sig->nstatics; i++) {
    Binding *b = &in.names[in.nnames++];
    b->name = sig->statics[i];
    b->is_size = i < prim_info[p->prim].nsizes;
    if (b->is_size) b->size = p->sizes[i];
    else b->data = p->type_arg;
  }
  if (!check_widths(&in, sig)) return NULL;
  /* metavariables of a class first, in the order of the constraints */
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    if (cl->kind != CL_NUMERIC && cl->kind != CL_FLOATING) continue;
    Binding *b = &in.names[in.nnames++];
    b->name = cl->a;
    b->is_size = false;
    b->data = dt_meta(c->tc, cl->kind == CL_NUMERIC ? MC_NUMERIC : MC_FLOATING, span);
  }
  PhraseType *t = inst_phrase(&in, sig->type);
  record_constraints(&in, sig);
  return t;
}

static PhraseType *finish_prim_type(Checker *c, const Phrase *p, Span span, PhraseType *t) {
  if (t && p->prim == PRIM_DEP_JOIN_ACC) return dep_join_acc_type(c, p, span);
  return t;
}

PhraseType *prim_type(Checker *c, const Phrase *p, Span span) {
  const PrimSig *sig = prim_signature(p->prim);
  return finish_prim_type(c, p, span, sig->recipe ? cook(c, p, span, sig) : walk_type(c, p, span, sig));
}

PhraseType *prim_type_walked(Checker *c, const Phrase *p, Span span) {
  return finish_prim_type(c, p, span, walk_type(c, p, span, prim_signature(p->prim)));
}

bool prim_type_has_recipe(Prim prim) { return prim_signature(prim)->recipe != NULL; }

/* a checker for one primitive outside a program */
static Checker scratch_checker(Arena *a, Interner *in, Diag *diag, TypeCtx *tc) {
  Checker c = {.arena = a, .in = in, .diag = diag, .tc = tc};
  c.zonk_memo = NEW(a, ZonkMemo);
  return c;
}

/* select by a vector mask (check_ops.c, check_select_type;
 * docs/language.md section 19): exp[intN] -> exp[sN] -> exp[sN] -> exp[sN] */
static bool is_vector_select(const PhraseType *t) {
  if (t->kind != PT_FN || t->fst->kind != PT_EXP) return false;
  const DataType *m = dt_resolve(t->fst->data);
  if (m->kind != DT_SCALAR || m->scalar != SC_INT || m->width == 1) return false;
  const PhraseType *a = t->snd;
  if (a->kind != PT_FN || a->fst->kind != PT_EXP) return false;
  const DataType *v = dt_resolve(a->fst->data);
  const PhraseType *b = a->snd;
  return v->kind == DT_SCALAR && v->width == m->width && b->kind == PT_FN && pt_equal(b->fst, a->fst) &&
         pt_equal(b->snd, a->fst);
}

/* t with each dependent array [n](\i -> d) taken at the row k, [n]d[k/i]:
 * a primitive at a dependent map's row (its mapI, the idx of its row)
 * has the table's type so (docs/language.md section 30) */
static DataType *rows_at(TypeCtx *tc, DataType *t, Size k) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_DEPARRAY: return dt_array(tc, t->size, rows_at(tc, dt_dep_elem(tc, t, k), k));
  case DT_ARRAY: return dt_array(tc, t->size, rows_at(tc, t->elem, k));
  case DT_PAIR: return dt_pair(tc, rows_at(tc, t->fst, k), rows_at(tc, t->snd, k));
  case DT_SCALAR:
  case DT_IDX:
  case DT_VAR:
  case DT_META: return t;
  }
  return t;
}

static PhraseType *pt_rows_at(TypeCtx *tc, PhraseType *t, Size k) {
  switch (t->kind) {
  case PT_EXP: return pt_exp(tc, rows_at(tc, t->data, k));
  case PT_ACC: return pt_acc(tc, rows_at(tc, t->data, k));
  case PT_COMM: return t;
  case PT_WITH: return pt_with(tc, pt_rows_at(tc, t->fst, k), pt_rows_at(tc, t->snd, k));
  case PT_FN: return pt_fn(tc, pt_rows_at(tc, t->fst, k), pt_rows_at(tc, t->snd, k));
  case PT_FN_P: return pt_fn_p(tc, pt_rows_at(tc, t->fst, k), pt_rows_at(tc, t->snd, k));
  }
  return t;
}

bool prim_type_is_instance(Arena *a, Interner *in, TypeCtx *tc, const Phrase *p) {
  /* a foreign function's type is its declaration's (check.c) */
  if (p->prim == PRIM_FOREIGN) return p->foreign && pt_equal(p->type, p->foreign->type);
  if (p->prim == PRIM_SELECT && is_vector_select(p->type)) return true;
  /* depJoin's result is its argument's rows joined (dt_dep_join), which
   * the signature's shape does not say */
  if (p->prim == PRIM_DEP_JOIN) {
    const PhraseType *t = p->type;
    if (t->kind != PT_FN || t->fst->kind != PT_EXP || t->snd->kind != PT_EXP) return false;
    DataType *flat = dt_dep_join(tc, t->fst->data);
    return flat && dt_equal(flat, dt_resolve(t->snd->data));
  }
  /* a conversion of an index converts the int it is (check.c,
   * index_conversion; docs/language.md section 22): its type is the
   * conversion's of an int with exp[idx[n]] for exp[int] */
  if (prim_converts(p->prim) && p->type->kind == PT_FN && p->type->fst->kind == PT_EXP &&
      dt_resolve(p->type->fst->data)->kind == DT_IDX) {
    Phrase of_int = *p;
    of_int.type = pt_fn(tc, pt_exp(tc, tc->t_int), p->type->snd);
    return prim_type_is_instance(a, in, tc, &of_int);
  }
  Diag diag;
  diag_init(&diag, a);
  Checker c = scratch_checker(a, in, &diag, tc);
  Span nowhere = {0};
  PhraseType *t = prim_type(&c, p, nowhere);
  PhraseType *have = p->dep_index ? pt_rows_at(tc, p->type, size_var(&tc->sizes, p->dep_index)) : p->type;
  if (!t || !unify_phrase_types(&c, t, have)) return false;
  /* the deferred constraints (a conversion's result) hold of the types
   * unified, or a conversion giving the wrong scalar would pass */
  while (wake_deferred(&c)) {
  }
  return diag.nerrors == 0;
}

PhraseType *check_prim_instance(Arena *a, Interner *in, Diag *diag, TypeCtx *tc, Prim prim, const Size *sizes,
                                DataType *type_arg) {
  Checker c = scratch_checker(a, in, diag, tc);
  Span nowhere = {0};
  Phrase p = {.kind = PH_PRIM, .prim = prim, .type_arg = type_arg};
  for (int i = 0; i < prim_info[prim].nsizes; i++) p.sizes[i] = sizes[i];
  return prim_type(&c, &p, nowhere);
}

/* ---- the shortcut: an instance matched against known types ----
 *
 * (check_int.h, InstanceMatch; check_instance.c)  The general path makes
 * the instance's metavariables, then unifies each parameter with its
 * argument's type (expect_type), solving each implicit name at its first
 * occurrence, in unify_data's order (an array's size before its element,
 * a pair's parts left first), and zonks the type at the declaration's
 * end.  Where every argument's type is known, each name is read off the
 * argument instead: a data name is the part of the argument it stands
 * at; a size name k*?n (k a constant, 1 included) at a size s is s/k, as
 * unify_size solves it (size_solve_scaled), required natural at the
 * instance (solve_size_meta); a size made of names already known must be
 * the argument's; any other size (a sum or product with an unknown,
 * which unify_size solves by the general way or postpones) is not
 * covered.  The result is made of the names' values, as the zonk makes
 * it. */

_Static_assert((int)INSTANCE_MAX_SLOTS == (int)SIG_MAX_NAMES, "an instance's slots are a signature's names");

/* Two types without metavariables that unify_data unifies: equal, a
 * size's parts by their canonical forms (unify_size's size_eq; without a
 * metavariable nothing else can make them one) */
static bool known_same(DataType *a, DataType *b) {
  a = dt_resolve(a);
  b = dt_resolve(b);
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case DT_SCALAR: return a->scalar == b->scalar && a->width == b->width;
  case DT_ARRAY: return size_eq(a->size, b->size) && known_same(a->elem, b->elem);
  case DT_DEPARRAY: return a->index == b->index && size_eq(a->size, b->size) && known_same(a->elem, b->elem);
  case DT_PAIR: return known_same(a->fst, b->fst) && known_same(a->snd, b->snd);
  case DT_IDX: return size_eq(a->size, b->size);
  case DT_VAR: return a->name == b->name;
  case DT_META: return false;
  }
  return false;
}

bool instance_defers(Prim prim) {
  const PrimSig *sig = prim_signature(prim);
  for (int i = 0; i < sig->nclauses; i++)
    if (sig->clauses[i].kind == CL_VECTOR) return true;
  return false;
}

bool instance_covers(Prim prim, int nargs) {
  const Recipe *r = prim_signature(prim)->recipe;
  return r && r->matchable && r->nparams == nargs;
}

int instance_partial(Prim prim, int nargs, bool *late) {
  const Recipe *r = prim_signature(prim)->recipe;
  if (!r || !r->partial || r->nparams != nargs) return 0;
  for (int i = 0; i < nargs; i++) late[i] = r->late[i];
  return nargs;
}

bool instance_begin(Checker *c, Prim prim, const Size *sizes, int nargs, Span span, InstanceMatch *m) {
  const PrimSig *sig = prim_signature(prim);
  const Recipe *r = sig->recipe;
  if (!r || !(m->partial ? r->partial : r->matchable) || r->nparams != nargs) return false;
  m->sig = sig;
  m->recipe = r;
  m->span = span;
  m->nslots = r->nslots;
  m->nargs = 0;
  m->base_meta = c->tc->next_meta;
  int n = 0;
  for (; n < sig->nstatics; n++) {
    m->size[n] = sizes[n];
    m->solved[n] = true;
  }
  /* a width that is not one is cook's error (width_ok) */
  for (int i = 0; i < sig->nclauses; i++) {
    int64_t w;
    if (sig->clauses[i].kind == CL_WIDTH &&
        !(size_const_value(m->size[r->clause_slot[i][0]], &w) && vector_width_ok(w)))
      return false;
  }
  int nclass = 0;
  for (int i = 0; i < sig->nclauses; i++) {
    const Clause *cl = &sig->clauses[i];
    if (cl->kind != CL_NUMERIC && cl->kind != CL_FLOATING) continue;
    m->cls[n] = cl->kind == CL_NUMERIC ? MC_NUMERIC : MC_FLOATING;
    m->solved[n++] = false;
    nclass++;
  }
  for (; n < r->nslots; n++) {
    m->cls[n] = MC_ANY;
    m->solved[n] = false;
  }
  /* cook's metavariables, counted: those made after are numbered as the
   * general path numbers them (fresh_size_meta; dt_meta) */
  for (int i = 0; i < r->nfresh_sizes; i++) vec_push(c->arena, &c->size_metas, NULL);
  c->tc->next_meta += nclass + r->nfresh_data;
  m->nclass = nclass;
  /* cook's requirements (record_clause): a positive static size */
  for (int i = 0; i < sig->nclauses; i++)
    if (sig->clauses[i].kind == CL_POSITIVE)
      require(c, REQ_POSITIVE, m->size[r->clause_slot[i][0]], span, sig->clauses[i].what);
  return true;
}

/* slot s, a size not known yet, is s/k where k*s meets the size v
 * (unify_size's lone_meta_of and size_solve_scaled, solve_size_meta's
 * checks and requirement) */
static bool solve_slot(Checker *c, InstanceMatch *m, int s, int64_t k, Size v) {
  if (k == 0 || k == INT64_MIN || v.nterms >= SIZE_MAX_TERMS) return false;
  for (int i = 0; i < v.nterms; i++)
    if (v.terms[i].num == INT64_MIN) return false;
  Size value = v;
  if (k != 1 && !size_solve_scaled(&c->tc->sizes, k, 1, v, &value)) return false;
  int64_t n;
  if (size_const_value(value, &n) && n < 0) return false;
  if (!size_is_polynomial(value)) {
    bool any_var = false;
    for (int i = 0; i < value.nterms; i++) any_var = any_var || value.terms[i].nfactors > 0;
    if (!any_var) return false; /* report_unfit's "not a whole number" */
  }
  require_known(c, REQ_NATURAL, value, m->span, NULL, true); /* v, and so value, has no metavariable */
  m->size[s] = value;
  m->solved[s] = true;
  return true;
}

/* a recipe size whose names are all known, made of their values; false
 * where one is not known */
static bool known_size(Checker *c, const InstanceMatch *m, int si, Size *out) {
  const RecipeSize *rs = &m->recipe->sizes[si];
  SizeCtx *sc = &c->tc->sizes;
  Size a, b;
  switch (rs->kind) {
  case RS_SLOT:
  case RS_FRESH:
    if (!m->solved[rs->slot]) return false;
    *out = m->size[rs->slot];
    return true;
  case RS_CONST: *out = size_const(sc, rs->num); return true;
  case RS_ADD:
  case RS_MUL:
    if (!known_size(c, m, rs->a, &a) || !known_size(c, m, rs->b, &b)) return false;
    *out = rs->kind == RS_ADD ? size_add(sc, a, b) : size_mul(sc, a, b);
    return true;
  }
  return false;
}

/* the slot of a recipe size that is one name not known yet, else -1 */
static int unknown_slot(const InstanceMatch *m, int si) {
  const RecipeSize *rs = &m->recipe->sizes[si];
  return (rs->kind == RS_SLOT || rs->kind == RS_FRESH) && !m->solved[rs->slot] ? rs->slot : -1;
}

/* the parameter's size si met by the argument's size v (unify_size) */
static bool match_size(Checker *c, InstanceMatch *m, int si, Size v) {
  Size known;
  if (known_size(c, m, si, &known)) return size_eq(known, v);
  int s = unknown_slot(m, si);
  if (s >= 0) return solve_slot(c, m, s, 1, v);
  /* k*?n or ?n*k, k a constant (split's [n*k]) */
  const RecipeSize *rs = &m->recipe->sizes[si];
  if (rs->kind != RS_MUL) return false;
  int other = rs->b;
  s = unknown_slot(m, rs->a);
  if (s < 0) {
    s = unknown_slot(m, rs->b);
    other = rs->a;
  }
  int64_t k;
  if (s < 0 || !known_size(c, m, other, &known) || !size_const_value(known, &k)) return false;
  return solve_slot(c, m, s, k, v);
}

/* the parameter's data part r met by the argument's part t (unify_data) */
static bool match_data(Checker *c, InstanceMatch *m, Ref r, DataType *t) {
  t = dt_resolve(t);
  switch (r.kind) {
  case REF_SCALAR: return t->kind == DT_SCALAR && t->scalar == r.scalar && t->width == r.width;
  case REF_SLOT: {
    int s = r.index;
    if (m->solved[s]) return known_same(m->data[s], t);
    /* class_admits; t has no metavariable, so nothing occurs in it */
    if (m->cls[s] != MC_ANY &&
        (t->kind != DT_SCALAR || t->scalar == SC_BOOL || (m->cls[s] == MC_FLOATING && t->scalar == SC_INT)))
      return false;
    m->data[s] = t;
    m->solved[s] = true;
    return true;
  }
  case REF_NODE: {
    const RecipeNode *n = &m->recipe->datas[r.index];
    if (t->kind != (DataKind)n->kind) return false;
    switch (t->kind) {
    case DT_ARRAY: return match_size(c, m, n->size, t->size) && match_data(c, m, n->a, t->elem);
    case DT_IDX: return match_size(c, m, n->size, t->size);
    case DT_PAIR: return match_data(c, m, n->a, t->fst) && match_data(c, m, n->b, t->snd);
    case DT_SCALAR:
    case DT_DEPARRAY:
    case DT_VAR:
    case DT_META: break;
    }
    return false;
  }
  case REF_COMM: break;
  }
  return false;
}

/* whether a recipe size's names are all known (known_size without making it) */
static bool size_known(const InstanceMatch *m, int si) {
  const RecipeSize *rs = &m->recipe->sizes[si];
  switch (rs->kind) {
  case RS_SLOT:
  case RS_FRESH: return m->solved[rs->slot];
  case RS_CONST: return true;
  case RS_ADD:
  case RS_MUL: return size_known(m, rs->a) && size_known(m, rs->b);
  }
  return false;
}

/* whether match_size could meet the recipe size si with a size known
 * (its names known, one not known, or k times one not known) */
static bool size_solvable(const InstanceMatch *m, int si) {
  const RecipeSize *rs = &m->recipe->sizes[si];
  if (size_known(m, si) || rs->kind == RS_SLOT || rs->kind == RS_FRESH) return true;
  return rs->kind == RS_MUL && ((size_known(m, rs->a) && !size_known(m, rs->b) && unknown_slot(m, rs->b) >= 0) ||
                                (size_known(m, rs->b) && !size_known(m, rs->a) && unknown_slot(m, rs->a) >= 0));
}

/* the same of every size in the data part r (each name's first
 * occurrence not known: a name met twice is compared the second time) */
static bool data_solvable(const InstanceMatch *m, Ref r) {
  if (r.kind != REF_NODE) return r.kind != REF_COMM;
  const RecipeNode *n = &m->recipe->datas[r.index];
  switch ((DataKind)n->kind) {
  case DT_ARRAY: return size_solvable(m, n->size) && data_solvable(m, n->a);
  case DT_IDX: return size_solvable(m, n->size);
  case DT_PAIR: return data_solvable(m, n->a) && data_solvable(m, n->b);
  case DT_SCALAR:
  case DT_DEPARRAY:
  case DT_VAR:
  case DT_META: break;
  }
  return false;
}

bool instance_param_solvable(const InstanceMatch *m) {
  return m->recipe->nparams >= 1 && data_solvable(m, m->recipe->params[0]);
}

static PhraseType *made_phrase(Checker *c, const InstanceMatch *m, Ref r);

/* whether every name of the data part r is known */
static bool data_known(const InstanceMatch *m, Ref r) {
  if (r.kind == REF_SLOT) return m->solved[r.index];
  if (r.kind != REF_NODE) return r.kind == REF_SCALAR;
  const RecipeNode *n = &m->recipe->datas[r.index];
  switch ((DataKind)n->kind) {
  case DT_ARRAY: return size_known(m, n->size) && data_known(m, n->a);
  case DT_IDX: return size_known(m, n->size);
  case DT_PAIR: return data_known(m, n->a) && data_known(m, n->b);
  case DT_SCALAR:
  case DT_DEPARRAY:
  case DT_VAR:
  case DT_META: break;
  }
  return false;
}

/* the late parameter i's node when it is exp[d] -> exp[b], d made of
 * names known and b one data name not known of no class; NULL otherwise */
static const RecipeNode *late_of_result(const InstanceMatch *m, int i) {
  const Recipe *r = m->recipe;
  if (i >= r->nparams || !r->late[i] || r->params[i].kind != REF_NODE) return NULL;
  const RecipeNode *fn = &r->phrases[r->params[i].index];
  if (fn->kind != PT_FN || fn->a.kind != REF_NODE || fn->b.kind != REF_NODE) return NULL;
  const RecipeNode *param = &r->phrases[fn->a.index], *result = &r->phrases[fn->b.index];
  if (param->kind != PT_EXP || result->kind != PT_EXP || result->a.kind != REF_SLOT) return NULL;
  int s = result->a.index;
  return !m->solved[s] && m->cls[s] == MC_ANY && data_known(m, param->a) ? fn : NULL;
}

PhraseType *instance_late_param(Checker *c, const InstanceMatch *m, int i) {
  const RecipeNode *fn = late_of_result(m, i);
  return fn ? pt_fn(c->tc, made_phrase(c, m, fn->a), NULL) : NULL;
}

bool instance_late_result(Checker *c, InstanceMatch *m, int i, DataType *t) {
  const RecipeNode *fn = late_of_result(m, i);
  return fn && match_data(c, m, m->recipe->phrases[fn->b.index].a, t);
}

bool instance_result_size(Checker *c, const InstanceMatch *m, Size *out) {
  Ref r = m->recipe->result;
  if (r.kind != REF_NODE || m->recipe->datas[r.index].kind != DT_ARRAY) return false;
  return known_size(c, m, m->recipe->datas[r.index].size, out);
}

bool instance_outer_unknown(const InstanceMatch *m) {
  if (m->recipe->nparams < 1 || m->recipe->params[0].kind != REF_NODE) return false;
  const RecipeNode *n = &m->recipe->datas[m->recipe->params[0].index];
  return n->kind == DT_ARRAY && !size_known(m, n->size);
}

bool instance_arg(Checker *c, InstanceMatch *m, DataType *arg) {
  return m->nargs < m->recipe->nparams && match_data(c, m, m->recipe->params[m->nargs++], arg);
}

bool instance_arg_at(Checker *c, InstanceMatch *m, int i, DataType *arg) {
  return !m->recipe->late[i] && match_data(c, m, m->recipe->params[i], arg);
}

/* the result's part r of the names' values, marked ground (it has no
 * metavariable) as the zonk marks it */
static DataType *made_data(Checker *c, const InstanceMatch *m, Ref r) {
  TypeCtx *tc = c->tc;
  switch (r.kind) {
  case REF_SCALAR: return dt_scalar(tc, r.scalar, r.width);
  case REF_SLOT: return m->data[r.index];
  case REF_NODE: {
    const RecipeNode *n = &m->recipe->datas[r.index];
    DataType *t = NULL;
    Size size;
    switch ((DataKind)n->kind) {
    case DT_ARRAY:
      if (!known_size(c, m, n->size, &size)) INTERNAL("an instance's size not known");
      t = dt_array(tc, size, made_data(c, m, n->a));
      break;
    case DT_IDX:
      if (!known_size(c, m, n->size, &size)) INTERNAL("an instance's size not known");
      t = dt_idx(tc, size);
      break;
    case DT_PAIR: t = dt_pair(tc, made_data(c, m, n->a), made_data(c, m, n->b)); break;
    case DT_SCALAR:
    case DT_DEPARRAY:
    case DT_VAR:
    case DT_META: INTERNAL("a recipe's data node is not a compound");
    }
    /* a partial instance's names not fixed are metavariables (in no size:
     * every size name is fixed) */
    t->ground =
        !m->partial || (t->kind == DT_PAIR ? t->fst->ground && t->snd->ground : t->kind == DT_IDX || t->elem->ground);
    return t;
  }
  case REF_COMM: break;
  }
  INTERNAL("a recipe's data type is a phrase type");
}

/* a late parameter's phrase type r of the names' values */
static PhraseType *made_phrase(Checker *c, const InstanceMatch *m, Ref r) {
  TypeCtx *tc = c->tc;
  if (r.kind == REF_COMM) return tc->t_comm;
  const RecipeNode *n = &m->recipe->phrases[r.index];
  PhraseType *t, *a, *b;
  switch ((PhraseKind)n->kind) {
  case PT_EXP:
  case PT_ACC: {
    DataType *d = made_data(c, m, n->a);
    t = n->kind == PT_EXP ? pt_exp(tc, d) : pt_acc(tc, d);
    t->ground = d->ground;
    return t;
  }
  case PT_WITH:
  case PT_FN:
  case PT_FN_P:
    a = made_phrase(c, m, n->a);
    b = made_phrase(c, m, n->b);
    t = n->kind == PT_WITH ? pt_with(tc, a, b) : n->kind == PT_FN ? pt_fn(tc, a, b) : pt_fn_p(tc, a, b);
    t->ground = a->ground && b->ground;
    return t;
  case PT_COMM: break;
  }
  INTERNAL("a recipe's phrase node is comm");
}

PhraseType *instance_end(Checker *c, InstanceMatch *m, DataType *const *args) {
  const Recipe *r = m->recipe;
  if (!m->partial && m->nargs != r->nparams) return NULL;
  /* a vector of its scalar at its static width (wake_deferred's
   * DEFER_VECTOR_OF with the scalar and the width known: asVector's) */
  const PrimSig *sig = m->sig;
  for (int i = 0; i < sig->nclauses; i++) {
    if (sig->clauses[i].kind != CL_VECTOR) continue;
    const int *k = r->clause_slot[i];
    int64_t w;
    if (!m->solved[k[1]] && !m->solved[k[2]] && m->solved[k[0]]) {
      /* asScalar's: the vector v known, its scalar s and width w not, as
       * wake_deferred's DEFER_VECTOR_OF finds them after the argument met
       * the parameter (s of its class numeric: no bool vector), s first,
       * then w, solved as unify_size solves a lone metavariable: required
       * natural at the instance (solve_size_meta) */
      DataType *v = dt_resolve(m->data[k[0]]);
      if (v->kind != DT_SCALAR || v->width == 1 || v->scalar == SC_BOOL) return NULL;
      m->data[k[1]] = dt_scalar(c->tc, v->scalar, 1);
      m->solved[k[1]] = true;
      m->size[k[2]] = size_const(&c->tc->sizes, v->width);
      m->solved[k[2]] = true;
      require(c, REQ_NATURAL, m->size[k[2]], m->span, NULL);
      continue;
    }
    if (!m->solved[k[1]] || !size_const_value(m->size[k[2]], &w)) return NULL;
    DataType *s = dt_resolve(m->data[k[1]]);
    if (s->kind != DT_SCALAR || s->width != 1) return NULL;
    DataType *v = dt_scalar(c->tc, s->scalar, (int)w);
    if (m->solved[k[0]]) {
      if (!known_same(m->data[k[0]], v)) return NULL;
    } else {
      m->data[k[0]] = v;
      m->solved[k[0]] = true;
    }
  }
  /* a partial instance's sizes all fixed by the values it matched; its
   * data names not fixed become cook's metavariables, numbered as cook
   * numbers them (after its class metavariables, in the order of
   * fresh_data), made last, where nothing can fail any more */
  for (int s = 0; s < m->nslots; s++)
    if (!m->solved[s] && (!m->partial || r->slot_is_size[s])) return NULL;
  TypeCtx *tc = c->tc;
  if (m->partial) {
    int after = tc->next_meta;
    for (int j = 0; j < r->nfresh_data; j++) {
      int s = r->fresh_data[j];
      if (m->solved[s]) continue;
      tc->next_meta = m->base_meta + m->nclass + j;
      m->data[s] = dt_meta(tc, MC_ANY, m->span);
      m->solved[s] = true;
    }
    tc->next_meta = after;
  }
  DataType *result = made_data(c, m, r->result);
  PhraseType *t = pt_exp(tc, result);
  t->ground = result->ground;
  for (int i = r->nparams - 1; i >= 0; i--) {
    PhraseType *param;
    if (r->late[i]) {
      param = made_phrase(c, m, r->params[i]);
    } else if (args[i]) {
      param = pt_exp(tc, args[i]);
      param->ground = true;
    } else { /* a value the caller leaves to apply_spine (reduce's initial value) */
      DataType *d = made_data(c, m, r->params[i]);
      param = pt_exp(tc, d);
      param->ground = d->ground;
    }
    PhraseType *fn = r->passive[i] ? pt_fn_p(tc, param, t) : pt_fn(tc, param, t);
    fn->ground = param->ground && t->ground;
    t = fn;
  }
  return t;
}
