/* test_names.c: OpenCL C's reserved names (codegen/backend_opencl_names.c).
 * opencl_name_use, which the code generator asks about every name it makes
 * or keeps, answers most names from their first two bytes (the heads no
 * list or family has), skips the families a name's first character rules
 * out and hashes the name in the pass that looks for a prime; it must
 * answer as
 * opencl_name_use_each, which asks every family in turn, message
 * included.  Compared on every name of up to two characters, on names
 * made from each family's members (keywords, types with vector widths and
 * matrix forms, conversions, vector loads and stores, prefixes, macros)
 * with prefixes and suffixes added, on pseudo-random names, and on every
 * identifier of the kernels, programs and generated code under the
 * directories given (tests/, samples/: every name a test kernel has or
 * gets); and against answers known from OpenCL C, since the two share
 * their helpers.
 *
 * Prints `names: P passed, F failed` and exits non-zero if anything failed. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "backend_opencl.h"
#include "cgen.h"

#include <ftw.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;
static long compared, reserved;
static int shown;

static void record_at(bool ok, int line, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "test_names.c:%d: FAILED: %s\n", line, what);
  }
}
#define CHECK(cond) record_at((cond), __LINE__, #cond)

/* the two answers for name agree (NULL, or the same message) */
static bool agrees(const char *name) {
  const char *fast = opencl_name_use(name), *each = opencl_name_use_each(name);
  compared++;
  reserved += each != NULL;
  bool same = fast == each || (fast && each && strcmp(fast, each) == 0);
  if (!same && shown++ < 10)
    fprintf(stderr, "test_names.c: '%s': %s, each family asked: %s\n", name, fast ? fast : "free",
            each ? each : "free");
  return same;
}

static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'";

static bool short_names(void) {
  bool all = true;
  char name[3] = {0};
  for (size_t i = 0; alphabet[i]; i++) {
    name[0] = alphabet[i];
    name[1] = 0;
    all &= agrees(name);
    for (size_t j = 0; alphabet[j]; j++) {
      name[1] = alphabet[j];
      all &= agrees(name);
    }
  }
  return all;
}

/* every name of three characters (the heads opencl_name_use tells a
 * name's answer by when its first two bytes do not: a listed name's
 * first three, a family's head) */
static bool three_character_names(void) {
  bool all = true;
  char name[4] = {0};
  for (size_t i = 0; alphabet[i]; i++)
    for (size_t j = 0; alphabet[j]; j++)
      for (size_t k = 0; alphabet[k]; k++) {
        name[0] = alphabet[i], name[1] = alphabet[j], name[2] = alphabet[k];
        all &= agrees(name);
      }
  return all;
}

/* members of each family, free names beside them, and names a kernel
 * has (binders, fresh names, pair typedefs) */
static const char *const stems[] = {
    "auto",
    "const",
    "constant",
    "global",
    "local",
    "kernel",
    "private",
    "restrict",
    "vec_step",
    "while",
    "void",
    "size_t",
    "intptr_t",
    "uintptr_t",
    "ptrdiff_t",
    "image2d_t",
    "sampler_t",
    "event_t",
    "bool",
    "char",
    "uchar",
    "short",
    "ushort",
    "int",
    "uint",
    "long",
    "ulong",
    "ulonglong",
    "half",
    "float",
    "double",
    "quad",
    "float4x4",
    "double2x16",
    "int3",
    "convert_int",
    "convert_float4_sat_rte",
    "convert_uchar16_rtz",
    "convert_",
    "as_float",
    "as_size_t",
    "as_intptr_t",
    "as_",
    "vload",
    "vload4",
    "vload16",
    "vstore8",
    "vload_half",
    "vload_half4",
    "vloada_half8",
    "vstore_half_rte",
    "vstorea_half2_rtn",
    "vstore",
    "get_global_id",
    "get_local_id",
    "get_group_id",
    "get_rows",
    "barrier",
    "mad24",
    "dot",
    "min",
    "max",
    "select",
    "shuffle2",
    "ndrange_1D",
    "M_PI",
    "M_PI_2",
    "M_PI_4",
    "M_PI_F",
    "M_1_PI",
    "INT_MAX",
    "FLT_MAX",
    "NULL",
    "NAN",
    "INFINITY",
    "CHAR_BIT",
    "kernel_exec",
    "memory_order",
    "memory_order_relaxed",
    "memory_scope_device",
    "main",
    "__x",
    "__",
    "_",
    "_Tmp",
    "_tmp",
    "cl_khr",
    "cl",
    "CL_X",
    "CL",
    "CLK_LOCAL_MEM_FENCE",
    "CLK",
    "atomic_inc",
    "atomic",
    "atom_add",
    "atom",
    "sub_group_reduce_add",
    "sub_group",
    "work_group_barrier",
    "work_group",
    "pair_float_int",
    "pair",
    "acc",
    "lid",
    "lid_2",
    "loc",
    "wg",
    "gid",
    "i",
    "i_2",
    "x",
    "a",
    "xs",
    "ys",
    "zs1",
    "output",
    "N",
    "v",
    "v_x",
    "s",
    "tmp",
    "float_",
    "int_",
    "floaty",
    "integer",
    "lng",
    "ulongs",
    "halfway",
    "quadrant",
    "vloadx",
    "vstore_halfx",
};

static const char *const heads[] = {"", "_", "__", "v_", "x", "convert_", "as_", "vload", "get_", "M_", "cl_"};
static const char *const tails[] = {"",    "_2",  "_3",       "2",      "3",     "4",  "8", "16", "1",
                                    "x4",  "4x4", "_sat",     "_rte",   "_rtz",  "_t", "'", "''", "_p",
                                    "_1D", "_F",  "_sat_rte", "16_sat", "_half", "a",  "_", "0"};

static bool family_names(void) {
  bool all = true;
  char name[128];
  for (size_t h = 0; h < DPIA_COUNTOF(heads); h++)
    for (size_t s = 0; s < DPIA_COUNTOF(stems); s++)
      for (size_t t = 0; t < DPIA_COUNTOF(tails); t++) {
        snprintf(name, sizeof name, "%s%s%s", heads[h], stems[s], tails[t]);
        all &= agrees(name);
      }
  return all;
}

/* names of 1 to 14 characters, mostly of the letters that begin a family */
static bool random_names(void) {
  static const char likely[] = "abcfilsuvwxC_'0123456789";
  bool all = true;
  uint64_t state = 0x2545F4914F6CDD1Du;
  char name[16];
  for (int n = 0; n < 200000; n++) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    int len = 1 + (int)(state % 14);
    uint64_t r = state >> 8;
    for (int i = 0; i < len; i++) {
      const char *from = (r & 1) ? likely : alphabet;
      size_t size = (r & 1) ? sizeof likely - 1 : sizeof alphabet - 1;
      r = r * 6364136223846793005u + 1442695040888963407u;
      name[i] = from[(r >> 33) % size];
    }
    name[len] = 0;
    all &= agrees(name);
  }
  return all;
}

/* the identifiers of the test kernels and their generated code: names
 * of letters, digits, _ and primes (a DPIA name's xs') */
static long file_names;
static bool all_file_names = true;

static bool is_name_char(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '\'';
}

static bool has_suffix(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  return n >= k && strcmp(path + n - k, suffix) == 0;
}

static int names_of_file(const char *path, const struct stat *st, int kind, struct FTW *at) {
  (void)st;
  (void)at;
  static const char *const kinds[] = {".dpia", ".cl", ".c", ".cu", ".imperative", ".intermediate", ".out"};
  bool wanted = false;
  for (size_t i = 0; i < DPIA_COUNTOF(kinds); i++) wanted |= has_suffix(path, kinds[i]);
  if (kind != FTW_F || !wanted) return 0;
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char name[256];
  size_t len = 0;
  int c;
  do {
    c = fgetc(f);
    bool starts = len > 0 || (c != '\'' && !(c >= '0' && c <= '9'));
    if (c != EOF && is_name_char(c) && starts) {
      if (len < sizeof name - 1) name[len++] = (char)c;
    } else if (len > 0) {
      name[len] = 0;
      all_file_names &= agrees(name);
      file_names++;
      len = 0;
    }
  } while (c != EOF);
  fclose(f);
  return 0;
}

/* answers known from OpenCL C itself, which the two share helpers to give
 * (starts_with, is_type_name): a helper broken for both fails here */
static bool known_answers(void) {
  static const struct {
    const char *name, *use; /* use: the message's start, NULL for free */
  } known[] = {
      {"while", "an OpenCL C keyword"},
      {"float4", "an OpenCL C type name"},
      {"double2x16", "an OpenCL C type name"},
      {"size_t", "an OpenCL C type name"},
      {"dot", "an OpenCL C built-in function"},
      {"convert_int4_sat_rte", "an OpenCL C built-in function"},
      {"as_float", "an OpenCL C built-in function"},
      {"vload4", "an OpenCL C built-in function"},
      {"vstorea_half2_rtn", "an OpenCL C built-in function"},
      {"M_PI_F", "an OpenCL C predefined macro"},
      {"atomic_inc", "an OpenCL C atomic function"},
      {"work_group_barrier", "an OpenCL C work-group function"},
      {"CLK_LOCAL_MEM_FENCE", "an OpenCL C predefined macro"},
      {"__x", "reserved in C and OpenCL C"},
      {"_Tmp", "reserved in C and OpenCL C"},
      {"xs'", "not an OpenCL C identifier"},
      {"gid", NULL},
      {"lid_2", NULL},
      {"acc", NULL},
      {"dotVar", NULL},
      {"floaty", NULL},
      {"get_rows", NULL},
      {"vstore_halfx", NULL},
  };
  bool all = true;
  for (size_t i = 0; i < DPIA_COUNTOF(known); i++) {
    const char *use = opencl_name_use(known[i].name);
    bool ok = known[i].use ? use && strncmp(use, known[i].use, strlen(known[i].use)) == 0 : use == NULL;
    if (!ok)
      fprintf(stderr, "test_names.c: '%s': %s, not %s\n", known[i].name, use ? use : "free",
              known[i].use ? known[i].use : "free");
    all &= ok;
  }
  return all;
}

/* cg_c_name's suffix search (codegen/opencl.c) writes name_n without a
 * format, and asks about the generator's own family (pair_*) byte by
 * byte first: each as the format and strncmp give it */
static int taken_below; /* base and base_2 .. base_{taken_below - 1} are taken */
static const char *taken_base;
static bool taken_name(const void *ctx, const char *name) {
  (void)ctx;
  size_t len = strlen(taken_base);
  if (strncmp(name, taken_base, len) != 0) return false;
  if (name[len] == '\0') return true;
  if (name[len] != '_' || !name[len + 1]) return false;
  int n = 0;
  for (const char *c = name + len + 1; *c; c++) {
    if (*c < '0' || *c > '9') return false;
    n = 10 * n + (*c - '0');
  }
  return n >= 2 && n < taken_below;
}

static bool suffixes(void) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  Arena a;
  arena_init(&a, &mem);
  const Backend *be = backend_of(TARGET_OPENCL);
  bool all = true;
  const char *bases[] = {"lid", "x", "acc_tmp", "v"};
  for (size_t b = 0; b < DPIA_COUNTOF(bases); b++) {
    taken_base = bases[b];
    for (taken_below = 2; taken_below < 1200; taken_below++) {
      char want[64];
      snprintf(want, sizeof want, "%s_%d", bases[b], taken_below);
      const char *got = cg_c_name(&a, be, bases[b], taken_name, NULL, NULL);
      if (strcmp(got, want) != 0) {
        fprintf(stderr, "test_names.c: cg_c_name('%s'), taken to _%d: %s, not %s\n", bases[b], taken_below - 1, got,
                want);
        all = false;
      }
    }
  }
  const char *family[] = {"pair_", "pair_x", "pair_float_int", "pair", "pai", "p", "pairs", "Pair_x", "xpair_", "",
                          "pa", "pair_2", "q", "float4", "gid"};
  for (size_t i = 0; i < DPIA_COUNTOF(family); i++) {
    bool want = backend_reserved(be, family[i]) || strncmp(family[i], "pair_", 5) == 0;
    if (cg_is_reserved(be, family[i]) != want) {
      fprintf(stderr, "test_names.c: cg_is_reserved('%s') is not %d\n", family[i], want);
      all = false;
    }
  }
  arena_free(&a);
  return all;
}

int main(int argc, char **argv) {
  CHECK(suffixes());
  CHECK(known_answers());
  CHECK(short_names());
  CHECK(three_character_names());
  CHECK(family_names());
  CHECK(random_names());
  for (int i = 1; i < argc; i++) CHECK(nftw(argv[i], names_of_file, 16, FTW_PHYS) == 0);
  CHECK(all_file_names);
  /* the directories were read: every test kernel's names */
  CHECK(argc == 1 || file_names > 100000);
  /* both kinds of answer were compared, not only free names */
  CHECK(reserved > 5000 && compared - reserved > 100000);
  printf("names: %d passed, %d failed (%ld names, %ld reserved, %ld from files)\n", passed, failed, compared, reserved,
         file_names);
  return failed == 0 ? 0 : 1;
}
