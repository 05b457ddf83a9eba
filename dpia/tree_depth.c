/* tree_depth.c: the depth limit on a declaration's finished trees
 * (ast.h, DPIA_MAX_NESTING).  The parser bounds its own recursion as it
 * goes; a tree can still be deeper than that where one level of parsing
 * makes several levels of nodes, so every declaration is measured once
 * more after it is parsed, without recursion (parse.c). */
#include "tree_depth.h"

#include <string.h>

static void push_node(DepthWalk *p, NodeKind kind, const void *node, int depth) {
  if (!node) return;
  if (p->stack_len == p->stack_cap) {
    int cap = p->stack_cap ? p->stack_cap * 2 : 64;
    NodeRef *stack = NEWARRAY(p->arena, NodeRef, cap);
    if (p->stack_len) memcpy(stack, p->stack, sizeof(NodeRef) * (size_t)p->stack_len);
    p->stack = stack;
    p->stack_cap = cap;
  }
  NodeRef r = {kind, depth, node};
  p->stack[p->stack_len++] = r;
}

static Span node_span(const NodeRef *r) {
  switch (r->kind) {
  case NODE_AST: return ((const Ast *)r->node)->span;
  case NODE_TYPE: return ((const TypeAst *)r->node)->span;
  case NODE_SIZE: return ((const SizeAst *)r->node)->span;
  }
  INTERNAL("bad node kind %d", (int)r->kind);
}

static void push_children(DepthWalk *p, const NodeRef *r) {
  int d = r->depth + 1;
  switch (r->kind) {
  case NODE_SIZE: {
    const SizeAst *s = r->node;
    if (s->kind != SZA_NUM && s->kind != SZA_VAR) {
      push_node(p, NODE_SIZE, s->lhs, d);
      push_node(p, NODE_SIZE, s->rhs, d);
    }
    return;
  }
  case NODE_TYPE: {
    const TypeAst *t = r->node;
    push_node(p, NODE_SIZE, t->size, d);
    push_node(p, NODE_TYPE, t->elem, d);
    push_node(p, NODE_TYPE, t->fst, d);
    push_node(p, NODE_TYPE, t->snd, d);
    return;
  }
  case NODE_AST: {
    const Ast *e = r->node;
    switch (e->kind) {
    case AST_VAR:
    case AST_INT:
    case AST_FLOAT:
    case AST_BOOL:
      return;
    case AST_PRIM:
      for (int i = 0; i < prim_info[e->prim].nsizes; i++) push_node(p, NODE_SIZE, e->sizes[i], d);
      push_node(p, NODE_TYPE, e->type_arg, d);
      return;
    case AST_LAMBDA:
      push_node(p, NODE_AST, e->body, d);
      return;
    case AST_LET:
      push_node(p, NODE_AST, e->value, d);
      push_node(p, NODE_AST, e->body, d);
      return;
    case AST_NEG:
    case AST_NOT:
    case AST_PROJ:
    case AST_LANE: push_node(p, NODE_AST, e->lhs, d); return;
    case AST_ASCRIBE:
      push_node(p, NODE_AST, e->lhs, d);
      push_node(p, NODE_TYPE, e->type, d);
      return;
    case AST_ARRAY:
      for (int i = 0; i < e->nelems; i++) push_node(p, NODE_AST, e->elems[i], d);
      return;
    case AST_ITERATE:
      push_node(p, NODE_SIZE, e->count, d);
      push_node(p, NODE_AST, e->iter_fn, d);
      return;
    case AST_APP:
    case AST_COMPOSE:
    case AST_SEQ:
    case AST_ASSIGN:
    case AST_BINOP:
    case AST_TUPLE:
    case AST_PPAIR:
      push_node(p, NODE_AST, e->lhs, d);
      push_node(p, NODE_AST, e->rhs, d);
      return;
    case AST_COUNT:
      break;
    }
    INTERNAL("bad Ast kind %d", (int)e->kind);
  }
  }
}

/* Reject a declaration with a node more than max_depth levels deep (the
 * parser's limit, parse.c), walking with an explicit stack. */
bool decl_within_depth(DepthWalk *p, Diag *diag, const Decl *d, int max_depth) {
  p->stack_len = 0;
  for (int i = 0; i < d->nparams; i++) push_node(p, NODE_TYPE, d->params[i].type, 0);
  push_node(p, NODE_TYPE, d->result, 0);
  push_node(p, NODE_AST, d->body, 0);
  while (p->stack_len > 0) {
    NodeRef r = p->stack[--p->stack_len];
    if (r.depth > max_depth) {
      diag_error(diag, ERR_TOO_DEEP, node_span(&r), "nesting too deep (more than %d levels)", max_depth);
      diag->limit_hit = true;
      return false;
    }
    push_children(p, &r);
  }
  return true;
}
