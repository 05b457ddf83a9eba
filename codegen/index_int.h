/* index_int.h: what index.c and index_print.c share. */
#ifndef DPIA_INDEX_INT_H
#define DPIA_INDEX_INT_H

#include "index.h"

#include <stdint.h>

/* record e's printed length and structural hash (index_print.c); every
 * constructor calls it on the node it makes */
void ix_seal(Ix *e);
/* the characters e takes as the right operand of a parent node of kind
 * parent: its length, and 2 for parentheses where it needs them */
size_t ix_right_operand_length(IxKind parent, const Ix *e);
/* the same as the left operand */
size_t ix_left_operand_length(IxKind parent, const Ix *e);
/* the characters of the constant v, as ix_print writes it */
size_t ix_decimal_length(int64_t v);
/* a name's hash, by its text (not its address: deterministic) */
uint64_t ix_name_hash(Sym name);
/* the text of an expression atom (IX_EXPR), through the printer given */
void ix_print_atom(Buf *out, const KirExpr *e, IxExprPrinter print_expr);

#endif
