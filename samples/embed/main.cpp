// Embedding dpia kernels in a C++17 program.
//
// The build runs `dpia translate --emit=header` on samples/dot_vec.dpia and
// samples/gemv.dpia; this program includes the two headers, makes its own
// OpenCL context, queues and buffers, runs the vectorised dot product and
// the fused gemv through the generated launchers, checks them against the
// host and prints the results.  The pipelines of samples/dot_full.dpia and
// samples/mm_packed.dpia compute a whole dot product and a whole matrix
// product in one call each (dpia_dot_launch, dpia_mm_launch: the launcher
// allocates the intermediate buffer and enqueues both kernels).  It also
// launches dotVec from several
// std::threads at once, each with its own queue in the shared context (the
// headers' launchers need no set-up and are thread-safe).
//
//   build/samples/embed/embed [N] [M]     (defaults: N = 1048576, M = 512)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dot_full.h"
#include "dot_vec.h"
#include "gemv.h"
#include "mm_packed.h"

namespace {

// An OpenCL failure: what failed and dpia_error_string's name of the code.
struct Failure {
  std::string what;
};

void check(int code, const char *what) {
  if (code != CL_SUCCESS) throw Failure{std::string(what) + ": " + dpia_error_string(code)};
}

// Owning handles for the OpenCL objects this program makes.
template <typename T, cl_int (*Release)(T)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T h) : h_(h) {}
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  Handle(Handle &&o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Handle &operator=(Handle &&o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  ~Handle() {
    if (h_) Release(h_);
  }
  T get() const { return h_; }

 private:
  T h_ = nullptr;
};
using Context = Handle<cl_context, clReleaseContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Mem = Handle<cl_mem, clReleaseMemObject>;

struct Device {
  cl_device_id id = nullptr;
  std::string name;
  Context context;
};

Device open_device() {
  cl_platform_id platform;
  cl_uint n = 0;
  check(clGetPlatformIDs(1, &platform, &n), "clGetPlatformIDs");
  if (n == 0) throw Failure{"no OpenCL platform"};
  Device d;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &d.id, &n), "clGetDeviceIDs");
  char name[256] = {0};
  clGetDeviceInfo(d.id, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  d.name = name;
  cl_int err;
  d.context = Context(clCreateContext(nullptr, 1, &d.id, nullptr, nullptr, &err));
  check(err, "clCreateContext");
  return d;
}

Queue make_queue(const Device &d) {
  cl_int err;
  Queue q(clCreateCommandQueue(d.context.get(), d.id, 0, &err));
  check(err, "clCreateCommandQueue");
  return q;
}

Mem make_buffer(const Device &d, const std::vector<float> &host) {
  cl_int err;
  Mem m(clCreateBuffer(d.context.get(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(float),
                       const_cast<float *>(host.data()), &err));
  check(err, "clCreateBuffer");
  return m;
}

Mem make_output(const Device &d, size_t n) {
  cl_int err;
  Mem m(clCreateBuffer(d.context.get(), CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err));
  check(err, "clCreateBuffer");
  return m;
}

std::vector<float> read(cl_command_queue q, const Mem &m, size_t n) {
  std::vector<float> out(n);
  check(clEnqueueReadBuffer(q, m.get(), CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
  return out;
}

// deterministic inputs in [-1, 1), never all zero
std::vector<float> inputs(size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned s = seed * 2654435761u + 1;
  for (auto &x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

double relative_error(const std::vector<double> &want, const std::vector<float> &got) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); i++) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / den);
}

// dotVec: N/2048 partial sums, added up here
double dot_on_device(const Device &d, cl_command_queue q, const Mem &xs, const Mem &ys, int n) {
  Mem partial = make_output(d, static_cast<size_t>(n) / 2048);
  check(dpia_dotVec_launch(q, partial.get(), xs.get(), ys.get(), n), "dpia_dotVec_launch");
  double sum = 0;
  for (float p : read(q, partial, static_cast<size_t>(n) / 2048)) sum += p;
  return sum;
}

bool run(int n, int m) {
  Device d = open_device();
  Queue queue = make_queue(d);
  std::printf("device: %s\n", d.name.c_str());
  bool ok = true;

  // the vectorised dot product (section 6.3 of the paper)
  std::vector<float> x = inputs(static_cast<size_t>(n), 1), y = inputs(static_cast<size_t>(n), 2);
  double want = 0;
  for (int i = 0; i < n; i++) want += static_cast<double>(x[i]) * y[i];
  Mem dx = make_buffer(d, x), dy = make_buffer(d, y);
  double got = dot_on_device(d, queue.get(), dx, dy, n);
  double err = std::fabs(got - want) / std::fabs(want);
  std::printf("dotVec  N=%d: %.6f (host %.6f, relative error %.1e) %s\n", n, got, want, err,
              err <= 1e-4 ? "ok" : "WRONG");
  ok &= err <= 1e-4;

  // a launch whose precondition fails is refused before anything is enqueued
  int refused = dpia_dotVec_launch(queue.get(), dx.get(), dx.get(), dy.get(), n + 4);
  std::printf("dotVec  N=%d: %s\n", n + 4, dpia_error_string(refused));
  ok &= refused == DPIA_ERROR_PRECONDITION;

  // the fused gemv: y' = alpha * mat * x + beta * y, one work-group per row
  const float alpha = 1.5f, beta = -0.5f;
  std::vector<float> mat = inputs(static_cast<size_t>(m) * 1024, 3), gx = inputs(1024, 4),
                     gy = inputs(static_cast<size_t>(m), 5);
  std::vector<double> gwant(static_cast<size_t>(m));
  for (int r = 0; r < m; r++) {
    double s = 0;
    for (int c = 0; c < 1024; c++) s += static_cast<double>(mat[static_cast<size_t>(r) * 1024 + c]) * gx[c];
    gwant[r] = alpha * s + beta * gy[r];
  }
  Mem dmat = make_buffer(d, mat), dgx = make_buffer(d, gx), dgy = make_buffer(d, gy);
  Mem dout = make_output(d, static_cast<size_t>(m));
  check(dpia_gemv_launch(queue.get(), dout.get(), alpha, beta, dmat.get(), dgx.get(), dgy.get(), m, 1024),
        "dpia_gemv_launch");
  std::vector<float> gout = read(queue.get(), dout, static_cast<size_t>(m));
  double gerr = relative_error(gwant, gout);
  std::printf("gemv    M=%d N=1024: y'[0..3] = %.5f %.5f %.5f %.5f (host %.5f %.5f %.5f %.5f), "
              "relative error %.1e %s\n",
              m, gout[0], gout[1], gout[2], gout[3], gwant[0], gwant[1], gwant[2], gwant[3], gerr,
              gerr <= 1e-4 ? "ok" : "WRONG");
  ok &= gerr <= 1e-4;

  // the whole dot product in one call: a pipeline of two kernels
  Mem dsum = make_output(d, 1);
  check(dpia_dot_launch(queue.get(), dsum.get(), dx.get(), dy.get(), n), "dpia_dot_launch");
  double whole = read(queue.get(), dsum, 1)[0];
  double werr = std::fabs(whole - want) / std::fabs(want);
  std::printf("dot     N=%d: %.6f in one call (relative error %.1e) %s\n", n, whole, werr, werr <= 1e-4 ? "ok" : "WRONG");
  ok &= werr <= 1e-4;

  // the whole matrix product in one call: packing b, then the blocked multiply
  const int mm = 128;
  std::vector<float> a = inputs(static_cast<size_t>(mm) * mm, 6), b = inputs(static_cast<size_t>(mm) * mm, 7);
  std::vector<double> cwant(static_cast<size_t>(mm) * mm);
  for (int i = 0; i < mm; i++)
    for (int j = 0; j < mm; j++) {
      double s = 0;
      for (int l = 0; l < mm; l++) s += static_cast<double>(a[i * mm + l]) * b[l * mm + j];
      cwant[static_cast<size_t>(i) * mm + j] = s;
    }
  Mem da = make_buffer(d, a), db = make_buffer(d, b), dc = make_output(d, static_cast<size_t>(mm) * mm);
  check(dpia_mm_launch(queue.get(), dc.get(), da.get(), db.get(), mm, mm, mm), "dpia_mm_launch");
  double cerr = relative_error(cwant, read(queue.get(), dc, static_cast<size_t>(mm) * mm));
  std::printf("mm      %dx%dx%d in one call: relative error %.1e %s\n", mm, mm, mm, cerr, cerr <= 1e-4 ? "ok" : "WRONG");
  ok &= cerr <= 1e-4;

  // several threads, one queue each, one context: launchers are thread-safe
  const int threads = 4;
  std::vector<double> results(threads);
  std::vector<std::string> errors(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++)
    pool.emplace_back([&, t] {
      try {
        Queue q = make_queue(d);
        results[t] = dot_on_device(d, q.get(), dx, dy, n);
      } catch (const Failure &f) {
        errors[t] = f.what;
      }
    });
  for (auto &t : pool) t.join();
  bool same = true;
  for (int t = 0; t < threads; t++) {
    if (!errors[t].empty()) std::printf("thread %d: %s\n", t, errors[t].c_str());
    same &= errors[t].empty() && std::fabs(results[t] - want) / std::fabs(want) <= 1e-4;
  }
  std::printf("dotVec  from %d threads at once: %s\n", threads, same ? "ok" : "WRONG");
  ok &= same;
  dpia_dotVec_release();
  dpia_gemv_release();
  dpia_dot_release();
  dpia_mm_release();
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  int m = argc > 2 ? std::atoi(argv[2]) : 512;
  try {
    bool ok = run(n, m);
    std::printf("%s\n", ok ? "all results match the host" : "MISMATCH");
    return ok ? 0 : 1;
  } catch (const Failure &f) {
    std::fprintf(stderr, "embed: %s\n", f.what.c_str());
    return 1;
  }
}
