/* tree_depth.h: the depth limit on a declaration's finished trees (tree_depth.c). */
#ifndef DPIA_TREE_DEPTH_H
#define DPIA_TREE_DEPTH_H

#include "ast.h"
#include "diag.h"

/* A node of any of the three trees (Ast, TypeAst, SizeAst). */
typedef enum NodeKind { NODE_AST, NODE_TYPE, NODE_SIZE } NodeKind;
typedef struct NodeRef {
  NodeKind kind;
  int depth; /* number of ancestors */
  const void *node;
} NodeRef;

/* The walk's work list, kept from one declaration to the next. */
typedef struct DepthWalk {
  Arena *arena;
  NodeRef *stack;
  int stack_len, stack_cap;
} DepthWalk;

/* Whether every node of d is at most max_depth levels deep; else an
 * error (E-code ERR_TOO_DEEP) at the first node found deeper, and
 * diag->limit_hit. */
bool decl_within_depth(DepthWalk *w, Diag *diag, const Decl *d, int max_depth);

#endif
