"""Launch a kernel that dpia translated, with pyopencl, from its metadata
(spec section 9: parameters with roles, element counts, launch sizes and
preconditions as C expressions over the nat parameters).

    k = Kernel(ctx, metadata)               # builds metadata["source"]
    outs = k(queue, sizes={"N": 1 << 20}, args={"xs": xs, "ys": ys})
    outs["output"]                          # numpy arrays, one per output

A call checks the preconditions at the sizes (PreconditionError names the
failing ones), checks each input's element count and type, allocates the
outputs, the global temporaries and the local buffers, passes the nat
parameters, launches with the metadata's NDRange and reads the outputs
back.  k.last_ms is the kernel's time when the queue profiles.
"""
import re

import numpy as np
import pyopencl as cl

__all__ = ["Kernel", "PreconditionError", "numpy_type", "evaluate"]

_SCALARS = {"float": np.float32, "double": np.float64, "int": np.int32, "bool": np.int32}
_VECTOR = re.compile(r"^(float|double|int)(2|3|4|8|16)$")


class PreconditionError(ValueError):
    """the sizes violate a precondition of the kernel (dpia run refuses
    them the same way)"""


def evaluate(c_expr, values):
    """a C size or precondition of the metadata (integer /, &&, ||) at values"""
    py = c_expr.replace("/", "//").replace("&&", " and ").replace("||", " or ")
    return eval(py, {"__builtins__": {}}, dict(values))


def numpy_type(t):
    """(numpy scalar type, lanes) of a metadata type: float -> (float32, 1),
    float4 -> (float32, 4); a pair (a struct) is not supported"""
    if t in _SCALARS:
        return _SCALARS[t], 1
    m = _VECTOR.match(t)
    if m:
        # a vector of 3 is stored as 4 (OpenCL C 6.1.5)
        lanes = int(m.group(2))
        return _SCALARS[m.group(1)], 4 if lanes == 3 else lanes
    raise TypeError("dpia.opencl: parameters of type %s (a pair) are not supported: pass a kernel without pairs in "
                    "its interface" % t)


class Kernel:
    def __init__(self, ctx, metadata, options=None):
        if isinstance(metadata, list):
            if len(metadata) != 1:
                raise ValueError("dpia.opencl: metadata of %d kernels: translate with kernel=NAME" % len(metadata))
            metadata = metadata[0]
        self.ctx = ctx
        self.meta = metadata
        self.name = metadata["kernel"]
        self.program = cl.Program(ctx, metadata["source"]).build(options=options or [])
        self.kernel = getattr(self.program, self.name)
        self.last_ms = None

    @property
    def params(self):
        return self.meta["params"]

    def nat_names(self):
        return [p["name"] for p in self.params if p["role"] == "nat"]

    def check(self, sizes):
        """raise PreconditionError unless every nat is given and every
        precondition holds"""
        missing = [n for n in self.nat_names() if n not in sizes]
        if missing:
            raise PreconditionError("kernel %s needs a value for %s" % (self.name, ", ".join(missing)))
        failing = [p for p in self.meta["preconditions"] if not evaluate(p, sizes)]
        if failing:
            raise PreconditionError("kernel %s: %s violate%s %s" % (
                self.name, ", ".join("%s = %s" % kv for kv in sorted(sizes.items())),
                "" if len(sizes) != 1 else "s", " and ".join(failing)))

    def launch_sizes(self, sizes):
        g = tuple(int(evaluate(e, sizes)) for e in self.meta["global_size"])
        loc = self.meta["local_size"]
        return g, (tuple(int(evaluate(e, sizes)) for e in loc) if loc is not None else None)

    def __call__(self, queue, sizes, args, wait=True):
        """launch at sizes ({nat: value}) with args ({input or scalar name:
        numpy array or number}); returns {output name: numpy array}"""
        sizes = {k: int(v) for k, v in sizes.items()}
        self.check(sizes)
        mf = cl.mem_flags
        cl_args, outputs = [], {}
        for p in self.params:
            role, name = p["role"], p["name"]
            if role == "nat":
                cl_args.append(np.int32(sizes[name]))
            elif role == "scalar":
                if name not in args:
                    raise ValueError("dpia.opencl: kernel %s needs the scalar %s" % (self.name, name))
                dtype, lanes = numpy_type(p["type"])
                v = np.asarray(args[name], dtype=dtype)
                if lanes > 1:
                    v = v.reshape(lanes)
                    cl_args.append(v)
                else:
                    cl_args.append(dtype(v))
            else:
                dtype, lanes = numpy_type(p["type"])
                if "element_bytes" in p:  # an array of 3-vectors, packed: 3 lanes an element
                    lanes = p["element_bytes"] // np.dtype(dtype).itemsize
                count = int(evaluate(p["elements"], sizes)) * lanes
                nbytes = max(1, count * np.dtype(dtype).itemsize)
                if p.get("space") == "local":
                    cl_args.append(cl.LocalMemory(nbytes))
                elif role == "input":
                    if name not in args:
                        raise ValueError("dpia.opencl: kernel %s needs the input %s" % (self.name, name))
                    a = np.ascontiguousarray(args[name])
                    if a.dtype != np.dtype(dtype):
                        raise TypeError("dpia.opencl: input %s of kernel %s is %s, the kernel reads %s" % (
                            name, self.name, a.dtype, np.dtype(dtype)))
                    if a.size != count:
                        raise ValueError("dpia.opencl: input %s of kernel %s has %d elements, the sizes %s make %d"
                                         % (name, self.name, a.size, sizes, count))
                    cl_args.append(cl.Buffer(self.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a))
                else:  # output or global temporary
                    buf = cl.Buffer(self.ctx, mf.READ_WRITE, nbytes)
                    cl_args.append(buf)
                    if role == "output":
                        outputs[name] = (buf, np.empty(count, dtype=dtype))
        g, loc = self.launch_sizes(sizes)
        event = self.kernel(queue, g, loc, *cl_args)
        for name, (buf, host) in outputs.items():
            cl.enqueue_copy(queue, host, buf, wait_for=[event])
        if wait:
            queue.finish()
            try:
                self.last_ms = (event.profile.end - event.profile.start) * 1e-6
            except (cl.RuntimeError, cl.LogicError):
                self.last_ms = None
        return {name: host for name, (buf, host) in outputs.items()}
