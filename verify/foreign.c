/* foreign.c: foreign functions compiled as C and called (foreign.h). */
#define _GNU_SOURCE /* mkdtemp */
#include "foreign.h"
#include "host_cc.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef void (*ForeignEntry)(const double *args, double *result);

typedef struct Loaded {
  const DefInfo *def;
  void *handle;
  ForeignEntry entry;
} Loaded;

struct ForeignFns {
  Arena *arena;
  Vec loaded; /* Loaded* */
};

/* What OpenCL C gives scalar code and C does not, or gives otherwise.
 * <tgmath.h> makes sqrt of a float sqrtf, as OpenCL's overloads are. */
static const char compat_header[] =
    "#include <float.h>\n"
    "#include <math.h>\n"
    "#include <stdbool.h>\n"
    "#include <tgmath.h>\n"
    "typedef unsigned char uchar;\n"
    "typedef unsigned short ushort;\n"
    "typedef unsigned int uint;\n"
    "typedef unsigned long ulong;\n"
    "#define private\n"
    "#define __private\n"
    "#define min(a, b) ((a) < (b) ? (a) : (b))\n"
    "#define max(a, b) ((a) > (b) ? (a) : (b))\n"
    "#define clamp(x, lo, hi) min(max((x), (lo)), (hi))\n"
    "#define mad(a, b, c) ((a) * (b) + (c))\n"
    "#define rsqrt(x) (1 / sqrt(x))\n"
    "#define native_sqrt sqrt\n"
    "#define native_rsqrt rsqrt\n"
    "#define native_exp exp\n"
    "#define native_log log\n"
    "#define native_sin sin\n"
    "#define native_cos cos\n"
    "#define native_powr pow\n"
    "#define native_recip(x) (1 / (x))\n"
    "#define native_divide(a, b) ((a) / (b))\n"
    "#define half_sqrt sqrt\n"
    "#define half_exp exp\n"
    "#define half_log log\n"
    "#define M_PI_F ((float)M_PI)\n"
    "#define MAXFLOAT FLT_MAX\n";

ForeignFns *foreign_fns_new(Arena *a) {
  ForeignFns *F = NEW(a, ForeignFns);
  F->arena = a;
  return F;
}

void foreign_fns_close(ForeignFns *F) {
  if (!F) return;
  for (int i = 0; i < F->loaded.len; i++) {
    Loaded *l = F->loaded.items[i];
    if (l->handle) dlclose(l->handle);
  }
  F->loaded.len = 0;
}

static const char *c_type(const DataType *t) {
  t = dt_resolve((DataType *)t);
  ASSERT(t->kind == DT_SCALAR && t->width == 1);
  return scalar_name(t->scalar);
}

/* the definition and the entry point dpia_foreign_entry(args, result) */
static void write_source(Buf *out, const DefInfo *f) {
  buf_puts(out, compat_header);
  emit(out, "#line 1 \"foreign function %s\"\n", f->name);
  foreign_c_definition(out, f, "static ");
  emit(out, "void dpia_foreign_entry(const double *a, double *r);\n");
  emit(out, "void dpia_foreign_entry(const double *a, double *r) { *r = (double)%s(", f->name);
  for (int i = 0; i < f->nparams; i++) emit(out, "%s(%s)a[%d]", i ? ", " : "", c_type(f->params[i]->type->data), i);
  buf_puts(out, "); }\n");
}

/* the compiler's messages, at most 4000 bytes of them */
static void append_log(Buf *err, const char *path) {
  Buf text;
  buf_init(&text, err->arena);
  host_append_file(&text, path, 4000);
  if (text.len) emit(err, ":\n%s", text.data);
}

/* Compile f into dir/f.so and load it; false with the reason in err. */
static bool compile_and_load(ForeignFns *F, const DefInfo *f, const char *dir, Loaded *l, Buf *err) {
  Arena *a = F->arena;
  const char *src = arena_printf(a, "%s/f.c", dir), *so = arena_printf(a, "%s/f.so", dir);
  const char *log = arena_printf(a, "%s/log", dir);
  Buf text;
  buf_init(&text, a);
  write_source(&text, f);
  bool ok = false;
  if (!host_write_file(src, text.data, text.len)) {
    emit(err, FOREIGN_FAILURE " '%s' on the host: cannot write %s: %s", f->name, src, strerror(errno));
    goto done;
  }
  const char *cc = host_cc();
  char *argv[] = {(char *)cc, "-std=gnu11", "-O1", "-fPIC", "-shared", "-ffp-contract=off", "-w",
                  "-o", (char *)so, (char *)src, "-lm", NULL};
  int status = 0;
  int rc = host_cc_run(argv, log, &status);
  if (rc != 0) {
    emit(err, FOREIGN_FAILURE " '%s' on the host: no C compiler (%s: %s; set CC)", f->name, cc, strerror(rc));
    goto done;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    emit(err,
         FOREIGN_FAILURE " '%s' on the host: its body does not compile as C with %s (the OpenCL C built-ins of "
         "scalar code are defined, verify/foreign.c; vectors and address spaces are not)",
         f->name, cc);
    append_log(err, log);
    goto done;
  }
  l->handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!l->handle) {
    emit(err, FOREIGN_FAILURE " '%s' on the host: cannot load it: %s", f->name, dlerror());
    goto done;
  }
  *(void **)&l->entry = dlsym(l->handle, "dpia_foreign_entry");
  if (!l->entry) {
    emit(err, FOREIGN_FAILURE " '%s' on the host: no entry point", f->name);
    dlclose(l->handle);
    l->handle = NULL;
    goto done;
  }
  ok = true;
done:
  /* a loaded object stays mapped without its file */
  unlink(src);
  unlink(so);
  unlink(log);
  return ok;
}

bool foreign_fns_call(ForeignFns *F, const DefInfo *f, const double *args, double *result, Buf *err) {
  Loaded *l = NULL;
  for (int i = 0; i < F->loaded.len && !l; i++)
    if (((Loaded *)F->loaded.items[i])->def == f) l = F->loaded.items[i];
  if (!l) {
    l = NEW(F->arena, Loaded);
    l->def = f;
    const char *tmp = getenv("TMPDIR");
    char *dir = arena_printf(F->arena, "%s/dpia-foreign-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
      emit(err, FOREIGN_FAILURE " '%s' on the host: cannot make a temporary directory: %s", f->name,
           strerror(errno));
      return false;
    }
    bool ok = compile_and_load(F, f, dir, l, err);
    rmdir(dir);
    if (!ok) return false;
    vec_push(F->arena, &F->loaded, l);
  }
  l->entry(args, result);
  return true;
}
