/* consts.c: what a kernel's text defines before the kernel itself: the
 * constant arrays of its array literals and the foreign functions it calls
 * (docs/language.md sections 13 and 14).
 *
 * Both are found by one walk of the imperative program before anything is
 * generated, and their names are declared in the kernel's outermost scope
 * with its parameters, so that no local variable hides one (spec section 8:
 * no shadowing).  An array literal is passive data: every use of it (a
 * let-bound literal is substituted at each use) reads the one constant
 * array of its value, `constant float gauss[5] = {...};`, found by value,
 * so the same literal written twice is one array too.  Nested literals
 * are flat arrays, like every buffer (cgen.h). */
#include "cgen.h"

#include <string.h>

typedef struct ConstTable {
  const char *name;
  const Phrase *lit;
  bool read; /* the kernel reads it (the zeros a literal of computed
                elements starts from, take 0 [0.0], are never read) */
} ConstTable;

static bool same_element(const Phrase *x, const Phrase *y) {
  return x->lit_int == y->lit_int && x->lit_is_float == y->lit_is_float &&
         memcmp(&x->lit_float, &y->lit_float, sizeof x->lit_float) == 0;
}

/* same type and the same element values */
static bool same_literal(const Phrase *a, const Phrase *b) {
  if (a->lit_nelems != b->lit_nelems || !dt_equal(a->type->data, b->type->data)) return false;
  for (int i = 0; i < a->lit_nelems; i++)
    if (!same_element(a->lit_elems[i], b->lit_elems[i])) return false;
  return true;
}

bool cg_literal_splat(const Phrase *lit) {
  for (int i = 1; i < lit->lit_nelems; i++)
    if (!same_element(lit->lit_elems[i], lit->lit_elems[0])) return false;
  return lit->lit_nelems > 0;
}

static const ConstTable *find_table(const CG *cg, const Phrase *lit) {
  for (int i = 0; i < cg->tables.len; i++) {
    const ConstTable *t = cg->tables.items[i];
    if (same_literal(t->lit, lit)) return t;
  }
  return NULL;
}

static bool has_foreign(const CG *cg, const DefInfo *f) {
  for (int i = 0; i < cg->foreigns.len; i++)
    if (cg->foreigns.items[i] == f) return true;
  return false;
}

static bool taken_in_program(const void *ctx, const char *name) {
  const CG *cg = ctx;
  return nameset_has(&cg->visible, name) || nameset_has(&cg->program->taken, name);
}

/* A constant array's name: the literal's own (a let's), else "table"; in
 * a program of several kernels, an earlier kernel's array of the same
 * values lends its name, and a name another definition of the program may
 * have is not taken (ProgramNames, kernel.h). */
static const char *table_name(CG *cg, const Phrase *lit) {
  const char *base = lit->lit_name ? lit->lit_name : "table";
  if (!cg->program) return cg_name(cg, base);
  for (int i = 0; i < cg->program->tables.len; i++) {
    const ProgramTable *t = cg->program->tables.items[i];
    if (same_literal(t->lit, lit) && !nameset_has(&cg->visible, t->name)) return cg_declare(cg, t->name);
  }
  return cg_declare(cg, cg_c_name(cg->arena, cg->backend, base, taken_in_program, cg, NULL));
}

/* One phrase of the walk, in program order (pre-order, left to right):
 * recursion on a node's first child, a loop on its last, so that a
 * sequence or a lambda's body costs no call, and no stack of pending
 * phrases is kept (issue 35: the walk visits every node of the kernel). */
static void collect_scope(CG *cg, const Phrase *p) {
  for (;;) {
    switch (p->kind) {
    case PH_LIT:
      /* a literal of equal elements is read as its value: no array, and
       * no name taken from the others (access.c, gen_literal) */
      if (p->lit_nelems > 0 && !cg_literal_splat(p) && !find_table(cg, p)) {
        ConstTable *t = NEW(cg->arena, ConstTable);
        t->name = table_name(cg, p);
        t->lit = p;
        vec_push(cg->arena, &cg->tables, t);
        if (cg_elem_type(p->type->data)->scalar == SC_DOUBLE) cg->uses_double = true;
      }
      return;
    case PH_PRIM:
      if (p->prim == PRIM_FOREIGN && !has_foreign(cg, p->foreign)) {
        if (nameset_has(&cg->visible, p->foreign->name))
          cg_error(cg, ERR_CODEGEN_UNSUPPORTED, p->span,
                   "foreign function '%s' has the name of a parameter of the kernel: rename one of them",
                   p->foreign->name);
        else
          cg_name(cg, p->foreign->name); /* a checked C name: itself */
        vec_push(cg->arena, &cg->foreigns, (void *)p->foreign);
        if (foreign_uses_double(p->foreign)) cg->uses_double = true;
      }
      return;
    case PH_VAR:
    case PH_DEF: return;
    case PH_LAM: p = p->body; continue;
    default: {
      /* the first child, then the second: found, and named, in program order */
      const Phrase *next = p->kind != PH_PROJ && p->kind != PH_UNOP ? p->snd : NULL;
      if (!next) {
        if (!p->fst) return;
        p = p->fst;
        continue;
      }
      if (p->fst) collect_scope(cg, p->fst);
      p = next;
      continue;
    }
    }
  }
}

/* Every array literal and every use of a foreign function is made by the
 * checker (check_lit.c), which notes one in TypeCtx.program_scope: a
 * program without one has nothing to find in any kernel's body (the
 * translation makes neither), which then is not walked (issue 35: the
 * walk visits every node of the kernel) */
bool cg_collect_program_scope(CG *cg, const Phrase *body) {
  if (!cg->tc->program_scope && !cg->no_shortcuts) return false;
  collect_scope(cg, body);
  return true;
}

const char *cg_table_name(CG *cg, const Phrase *lit) {
  ConstTable *t = (ConstTable *)find_table(cg, lit);
  if (!t) INTERNAL("array literal not collected");
  if (!cg->trial) t->read = true; /* a trial's reads are not kept (CG.trial) */
  return t->name;
}

void cg_use_foreign(CG *cg, const DefInfo *f) {
  if (!has_foreign(cg, f)) INTERNAL("foreign function %s not collected", f->name);
}

static KirTop *add_top(CG *cg, Vec *tops, KirTopKind kind, const char *name) {
  KirTop *t = NEW(cg->arena, KirTop);
  *t = (KirTop){.kind = kind, .name = name};
  vec_push(cg->arena, tops, t);
  return t;
}

void cg_program_scope(CG *cg, Vec *tops) {
  for (int i = 0; cg->program && i < cg->tables.len; i++) {
    const ConstTable *t = cg->tables.items[i];
    ProgramTable *pt = NEW(cg->arena, ProgramTable);
    *pt = (ProgramTable){t->name, t->lit};
    vec_push(cg->arena, &cg->program->tables, pt);
    nameset_add(&cg->program->taken, t->name);
  }
  for (int i = 0; i < cg->foreigns.len; i++) {
    const DefInfo *f = cg->foreigns.items[i];
    Buf def;
    buf_init(&def, cg->arena);
    foreign_c_definition(&def, f, "");
    add_top(cg, tops, KT_FOREIGN, f->name)->text = def.data;
  }
  for (int i = 0; i < cg->tables.len; i++) {
    const ConstTable *t = cg->tables.items[i];
    if (!t->read) continue;
    DataType *elem = cg_elem_type(t->lit->type->data);
    const Phrase *lit = t->lit;
    int n = lit->lit_nelems;
    const KirType *type = cg_type(cg, elem);
    const KirExpr **vals = NEWARRAY(cg->arena, const KirExpr *, n > 0 ? n : 1);
    for (int j = 0; j < n; j++) {
      vals[j] = kir_lit(cg->arena, cg_scalar_literal(cg, elem->scalar, lit->lit_elems[j]));
      /* an element of vector type is the scalar broadcast (spec section 2) */
      if (elem->width > 1) vals[j] = kir_vector(cg->arena, type, 1, &vals[j]);
    }
    /* the rows of a nested literal, for the layout (a 3 x 3 kernel reads
     * as a matrix) */
    DataType *row = dt_resolve(t->lit->type->data);
    int per_row = n;
    if (dt_resolve(row->elem)->kind == DT_ARRAY) {
      DataType *inner = row;
      while (dt_resolve(inner->elem)->kind == DT_ARRAY) inner = dt_resolve(inner->elem);
      int64_t k = n;
      size_const_value(inner->size, &k);
      per_row = (int)k;
    }
    add_top(cg, tops, KT_CONST, t->name)->table = (KirTable){type, n, vals, per_row};
  }
}
