"""Launch a kernel that dpia translated, with pyopencl, from its metadata
(parameters with roles, element counts and shapes, launch sizes and
preconditions as C expressions over the nat parameters).

    k = Kernel(ctx, metadata)               # builds metadata["source"]
    outs = k(queue, sizes={"N": 1 << 20}, args={"xs": xs, "ys": ys})
    outs["output"]                          # numpy arrays, one per output

A call checks the sizes (integers, each a nat parameter of the kernel, all
given) and the preconditions at them (PreconditionError names the failing
ones), checks each argument's name, type and shape (the metadata's
"shape" at the sizes, with a last axis of the lanes for vector elements:
a [M][N]float parameter takes an (M, N) float32 array, [N]float4 an (N, 4)
one), allocates the outputs, the global temporaries and the local buffers,
passes the nat parameters, launches with the metadata's NDRange and reads
the outputs back in their shape.  k.last_ms is the kernel's time when the
queue profiles.

Device data: an input may be a pyopencl.array.Array (checked like a numpy
array; C-contiguous) or a pyopencl Buffer (at least as many bytes as the
kernel reads), and an output may be given the same way in args: the kernel
writes into it and the call returns it as given, without reading it back.
The kernel's buffers are restrict (it never computes in place), so an
output that is the same buffer as another buffer argument, or overlaps it
(sub-buffers or array views of one buffer, in the bytes the kernel
touches), is refused with AliasError naming both, as the C header's
launchers refuse it (DPIA_ERROR_ALIAS).  A numpy input is copied to the
device (in C order) and cannot alias.
"""
import numbers
import re

import numpy as np
import pyopencl as cl

__all__ = ["Kernel", "PreconditionError", "AliasError", "numpy_type", "evaluate"]

_SCALARS = {"float": np.float32, "double": np.float64, "int": np.int32, "bool": np.int32}
_VECTOR = re.compile(r"^(float|double|int)(2|3|4|8|16)$")


class PreconditionError(ValueError):
    """the sizes violate a precondition of the kernel (dpia run refuses
    them the same way)"""


class AliasError(ValueError):
    """an output shares bytes with another buffer argument"""


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


def _place(buf, offset):
    """(base buffer's address, offset in it) of offset bytes into buf: a
    sub-buffer's bytes belong to the buffer it was made from"""
    parent = buf.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT)
    if parent is None:
        return buf.int_ptr, offset
    return parent.int_ptr, buf.get_info(cl.mem_info.OFFSET) + offset


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

    def arg_names(self):
        """the names args may hold: inputs, scalars and outputs"""
        return [p["name"] for p in self.params if p["role"] in ("input", "scalar", "output")]

    def _sizes(self, sizes):
        """sizes as ints, each a nat parameter; TypeError or ValueError naming the culprit"""
        nats = self.nat_names()
        unknown = [n for n in sizes if n not in nats]
        if unknown:
            raise ValueError("dpia.opencl: kernel %s has no size %s; its sizes are %s" % (
                self.name, ", ".join(map(str, unknown)), ", ".join(nats) or "none"))
        out = {}
        for n, v in sizes.items():
            # a float is not truncated (8.7 is no size), nor a bool taken for 0 or 1
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError("dpia.opencl: size %s = %r of kernel %s is not an integer" % (n, v, self.name))
            out[n] = int(v)
        return out

    def check(self, sizes):
        """raise PreconditionError unless every nat is given and every
        precondition holds (TypeError or ValueError for a size that is not
        an integer or not a nat parameter of the kernel)"""
        sizes = self._sizes(sizes)
        missing = [n for n in self.nat_names() if n not in sizes]
        if missing:
            raise PreconditionError("kernel %s needs a value for %s" % (self.name, ", ".join(missing)))
        failing = [p for p in self.meta["preconditions"] if not evaluate(p, sizes)]
        if failing:
            raise PreconditionError("kernel %s: %s violate%s %s" % (
                self.name, ", ".join("%s = %s" % kv for kv in sorted(sizes.items())),
                "" if len(sizes) != 1 else "s", " and ".join(failing)))
        return sizes

    def launch_sizes(self, sizes):
        g = tuple(int(evaluate(e, sizes)) for e in self.meta["global_size"])
        loc = self.meta["local_size"]
        return g, (tuple(int(evaluate(e, sizes)) for e in loc) if loc is not None else None)

    def _layout(self, p, sizes):
        """(numpy type, array shape, element count, bytes) of buffer p at sizes"""
        dtype, lanes = numpy_type(p["type"])
        if "element_bytes" in p:  # an array of 3-vectors, packed: 3 lanes an element
            lanes = p["element_bytes"] // np.dtype(dtype).itemsize
        count = int(evaluate(p["elements"], sizes))
        shape = tuple(int(evaluate(e, sizes)) for e in p.get("shape", [p["elements"]]))
        if lanes > 1:
            shape += (lanes,)
        return dtype, shape, count * lanes, count * lanes * np.dtype(dtype).itemsize

    def _expect(self, p, sizes, shape):
        """what a wrong array is told: the parameter's type and the shape at these sizes"""
        dims = "".join("[%s]" % e for e in p.get("shape", [p["elements"]]))
        return "the kernel's %s is %s%s: shape %s at %s" % (
            p["role"], dims, p["type"], shape, ", ".join("%s = %d" % kv for kv in sorted(sizes.items())) or "no sizes")

    def _device(self, p, a, sizes, dtype, shape, nbytes):
        """(buffer to pass, its (base, offset), bytes) of a device argument
        for buffer p, after checking it"""
        name = p["name"]
        if isinstance(a, cl.Buffer):
            if a.size < nbytes:
                raise ValueError("dpia.opencl: %s %s of kernel %s is a buffer of %d bytes, the kernel %s %d" % (
                    p["role"], name, self.name, a.size, "writes" if p["role"] == "output" else "reads", nbytes))
            return a, _place(a, 0)
        # a pyopencl.array.Array
        if a.dtype != np.dtype(dtype) or a.shape != shape:
            raise (TypeError if a.dtype != np.dtype(dtype) else ValueError)(
                "dpia.opencl: %s %s of kernel %s is a device array of %s with shape %s, %s" % (
                    p["role"], name, self.name, a.dtype, a.shape, self._expect(p, sizes, shape)))
        if not a.flags.c_contiguous:
            raise ValueError("dpia.opencl: %s %s of kernel %s is a device array that is not C-contiguous: the kernel "
                             "reads it as one block in C order (copy it)" % (p["role"], name, self.name))
        # a view at an offset is passed as a sub-buffer, made after the alias check
        buf = a.base_data if a.offset == 0 else lambda: a.base_data.get_sub_region(a.offset, max(1, a.nbytes))
        return buf, _place(a.base_data, a.offset)

    def _check_aliases(self, places):
        """places: [(param, (base, offset), bytes)] of the device buffers;
        AliasError when an output shares bytes the kernel touches with another"""
        for i, (p, (base, off), n) in enumerate(places):
            if p["role"] != "output" or n == 0:
                continue
            for j, (q, (qbase, qoff), m) in enumerate(places):
                if j == i or (q["role"] == "output" and j < i) or m == 0:
                    continue
                if base == qbase and off < qoff + m and qoff < off + n:
                    raise AliasError(
                        "dpia.opencl: output %s and %s %s of kernel %s share memory (bytes %d to %d and %d to %d of "
                        "one buffer): the kernel does not compute in place (its buffers are restrict); pass "
                        "separate buffers" % (p["name"], q["role"], q["name"], self.name, off, off + n, qoff, qoff + m))

    def __call__(self, queue, sizes, args, wait=True):
        """launch at sizes ({nat: int}) with args ({input, scalar or output
        name: numpy array, device array or buffer, or number}); returns
        {output name: numpy array in the output's shape, or the device
        array or buffer given for it}"""
        sizes = self.check(sizes)
        unknown = [n for n in args if n not in self.arg_names()]
        if unknown:
            raise ValueError("dpia.opencl: kernel %s has no argument %s; its arguments are %s" % (
                self.name, ", ".join(map(str, unknown)), ", ".join(self.arg_names())))
        mf = cl.mem_flags
        cl_args, outputs, places = [], {}, []
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
                dtype, shape, count, nbytes = self._layout(p, sizes)
                a = args.get(name)
                device = a is not None and (isinstance(a, cl.Buffer) or hasattr(a, "base_data"))
                if p.get("space") == "local":
                    cl_args.append(cl.LocalMemory(max(1, nbytes)))
                elif device and role in ("input", "output"):
                    buf, place = self._device(p, a, sizes, dtype, shape, nbytes)
                    cl_args.append(buf)
                    places.append((p, place, nbytes))
                    if role == "output":
                        outputs[name] = (None, a)
                elif role == "input":
                    if a is None:
                        raise ValueError("dpia.opencl: kernel %s needs the input %s" % (self.name, name))
                    a = np.asarray(a)
                    if a.dtype != np.dtype(dtype):
                        raise TypeError("dpia.opencl: input %s of kernel %s is %s, the kernel reads %s" % (
                            name, self.name, a.dtype, np.dtype(dtype)))
                    if a.shape != shape:
                        raise ValueError("dpia.opencl: input %s of kernel %s has shape %s (%d elements), %s" % (
                            name, self.name, a.shape, a.size, self._expect(p, sizes, shape)))
                    # C order: a view (a transposed matrix) is copied as the matrix it shows
                    a = np.ascontiguousarray(a)
                    cl_args.append(cl.Buffer(self.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
                                   if a.size else cl.Buffer(self.ctx, mf.READ_ONLY, 1))
                elif role == "output" and a is not None:
                    raise TypeError("dpia.opencl: output %s of kernel %s is given as %s: give a pyopencl Buffer or "
                                    "array to write into, or nothing (the call returns it)" % (
                                        name, self.name, type(a).__name__))
                else:  # output or global temporary
                    buf = cl.Buffer(self.ctx, mf.READ_WRITE, max(1, nbytes))
                    cl_args.append(buf)
                    if role == "output":
                        outputs[name] = (buf, np.empty(shape, dtype=dtype))
        self._check_aliases(places)
        cl_args = [a() if callable(a) else a for a in cl_args]
        g, loc = self.launch_sizes(sizes)
        event = self.kernel(queue, g, loc, *cl_args)
        for name, (buf, host) in outputs.items():
            if buf is not None and host.size:
                cl.enqueue_copy(queue, host, buf, wait_for=[event])
        if wait:
            queue.finish()
            try:
                self.last_ms = (event.profile.end - event.profile.start) * 1e-6
            except (cl.RuntimeError, cl.LogicError):
                self.last_ms = None
        return {name: host for name, (buf, host) in outputs.items()}
