/* fuzz_parse.c: libFuzzer target for the parser (lex.c, parse.c) and the
 * printer of the tree (ast_print.c).
 *
 * Any input: parse and render the diagnostics.  An input that parses
 * without errors must print to a program that parses without errors and
 * prints identically (the round trip of tests/parse, on any program). */
#include "ast.h"
#include "fuzz_common.h"

typedef struct Parsed {
  Arena arena;
  Interner interner;
  Diag diag;
  Source src;
  Program *program;
} Parsed;

static void parse_text(Parsed *ps, DpiaMem *mem, const char *text, size_t len) {
  arena_init(&ps->arena, mem);
  ps->arena.block_size = FUZZ_ARENA_BLOCK;
  intern_init(&ps->interner, &ps->arena);
  diag_init(&ps->diag, &ps->arena);
  char *copy = arena_alloc(&ps->arena, len ? len : 1);
  memcpy(copy, text, len);
  source_init(&ps->src, &ps->arena, "fuzz.dpia", copy, len);
  ps->program = parse_program(&ps->arena, &ps->interner, &ps->diag, &ps->src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  Parsed first, second;
  Parsed *volatile live[2] = {NULL, NULL};
  if (setjmp(oom)) {
    for (int i = 0; i < 2; i++)
      if (live[i]) arena_free(&live[i]->arena);
    return 0;
  }
  live[0] = &first;
  parse_text(&first, &mem, (const char *)data, size);
  Buf text;
  buf_init(&text, &first.arena);
  diag_render_text(&first.diag, &text);
  buf_clear(&text);
  diag_render_json(&first.diag, &text);
  if (first.diag.nerrors == 0) {
    Buf printed1;
    buf_init(&printed1, &first.arena);
    program_print(&printed1, first.program);
    live[1] = &second;
    parse_text(&second, &mem, printed1.data, printed1.len);
    Buf errors;
    buf_init(&errors, &second.arena);
    diag_render_text(&second.diag, &errors);
    FUZZ_ASSERT(second.diag.nerrors == 0, "the printed program does not parse:\n%s\n%s", printed1.data,
                errors.data);
    Buf printed2;
    buf_init(&printed2, &second.arena);
    program_print(&printed2, second.program);
    FUZZ_ASSERT(printed1.len == printed2.len && memcmp(printed1.data, printed2.data, printed1.len) == 0,
                "printing is not a fixed point:\n--- first\n%s\n--- second\n%s", printed1.data, printed2.data);
    arena_free(&second.arena);
  }
  arena_free(&first.arena);
  return 0;
}
