"""Launch a kernel or a pipeline that dpia translated, with pyopencl, from
its metadata (parameters with roles, element counts and shapes, launch
sizes and preconditions as C expressions over the nat parameters; for a
pipeline its temporaries and launches too).

    k = Kernel(ctx, metadata)               # builds metadata["source"]
    outs = k(queue, sizes={"N": 1 << 20}, args={"xs": xs, "ys": ys})
    outs["output"]                          # numpy arrays, one per output
    p = Pipeline(ctx, dpia.translate(src, kernel="dot").metadata)
    p(queue, {"N": 1 << 18}, {"xs": xs, "ys": ys})["output"]

A call checks the sizes (integers, each a nat parameter of the kernel, all
given) and the preconditions at them (PreconditionError names the failing
ones), checks each argument's name, type and shape (the metadata's
"shape" at the sizes, with a last axis of the lanes for vector elements:
a [M][N]float parameter takes an (M, N) float32 array, [N]float4 an (N, 4)
one), allocates the outputs, the global temporaries and the local buffers,
passes the nat parameters, launches with the metadata's NDRange and reads
the outputs back in their shape.  k.last_ms is the kernel's time when the
queue profiles (a pipeline's: from its first kernel's start to its last
one's end).

A pipeline (docs/language.md section 8; Kernel(ctx, metadata) of a
pipeline's metadata gives a Pipeline) is checked the same way on its
interface; its temporaries, the buffers between its kernels, are
allocated for the call, and its kernels launched in order, each with the
arguments and NDRange of the metadata's "launches".  A pipeline whose
result is a pair of arrays has two outputs, output_1 and output_2, which
the call returns by name as it does a two-output kernel's.

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

In place: a kernel that updates an input (`updates xs`, docs/language.md
section 27; its output's metadata says "updates": "xs") takes no output
argument: the output is xs's buffer.  Given xs as a device array or
buffer, the call updates it there and returns it as the output; given a
numpy array, it is copied to the device, updated there, and the output is
read back into a new array (the numpy array given is left as it was).
Another buffer argument sharing bytes with xs is refused with AliasError.

Permutations: an input the kernel declares a permutation (`permutation p`,
docs/language.md section 29; its metadata says "permutation": true), whose
elements are the positions a scatter writes to, is checked when given as
a numpy array: a value outside 0 .. n-1 or a repeated one is refused with
ValueError naming the first such element (E0812's check); a device array
or buffer is the caller's precondition, as in the C header, since reading
it back would cost a copy.

Device limits: before anything is enqueued, the kernel of each launch,
its arguments set, is checked against the queue's device: the local
memory it needs (CL_KERNEL_LOCAL_MEM_SIZE, with the local buffers it is
given) against CL_DEVICE_LOCAL_MEM_SIZE, and its work-group against
CL_DEVICE_MAX_WORK_ITEM_SIZES, CL_DEVICE_MAX_WORK_GROUP_SIZE and the built
kernel's CL_KERNEL_WORK_GROUP_SIZE.  DeviceLimitError (E0007,
docs/errors.md) says what the kernel needs and what the device has, as
dpia run and the header's launchers do; unchecked, the launch fails with
INVALID_WORK_GROUP_SIZE, or PoCL aborts the process on too much local
memory.
"""
import numbers
import re

import numpy as np
import pyopencl as cl

from . import Error

__all__ = ["Kernel", "Pipeline", "PreconditionError", "AliasError", "DeviceLimitError", "EmptyRangeError",
           "numpy_type", "evaluate"]

_SCALARS = {"float": np.float32, "double": np.float64, "int": np.int32, "bool": np.int32}
_VECTOR = re.compile(r"^(float|double|int)(2|3|4|8|16)$")


class PreconditionError(Error, ValueError):
    """the sizes violate a precondition of the kernel (dpia run refuses
    them the same way)"""


class AliasError(Error, ValueError):
    """an output shares bytes with another buffer argument"""


class EmptyRangeError(Error, ValueError):
    """a launch has no work-item at the sizes (a grid of ceil(N/64) groups
    at N = 0) but an output that is not empty, which no work-item would
    write (docs/errors.md E0413, as dpia run reports it)"""

    code = "E0413"


class DeviceLimitError(Error, RuntimeError):
    """a launch needs more local memory or larger work-groups than the
    device has (docs/errors.md E0007, as dpia run reports it)"""

    code = "E0007"


def evaluate(c_expr, values):
    """a C size or precondition of the metadata (integer /, &&, ||) at values"""
    py = c_expr.replace("/", "//").replace("&&", " and ").replace("||", " or ")
    return eval(py, {"__builtins__": {}}, dict(values))


def _check_permutation(name, title, v):
    """raise ValueError unless v holds each of 0 .. len(v)-1 once (docs/language.md section 29)"""
    n = v.size
    out = np.flatnonzero((v < 0) | (v >= n))
    if out.size:
        i = int(out[0])
        raise ValueError("dpia.opencl: input %s of %s is declared a permutation of 0 .. %d, but %s[%d] = %d is "
                         "outside it" % (name, title, n - 1, name, i, int(v[i])))
    order = np.argsort(v, kind="stable")  # equal values in the order of their elements
    s = v[order]
    dup = np.flatnonzero(s[1:] == s[:-1])
    if dup.size:
        later = order[dup + 1]
        i = int(later.min())
        earlier = int(order[np.searchsorted(s, v[i])])  # the value's first element
        raise ValueError("dpia.opencl: input %s of %s is declared a permutation, but %s[%d] = %d repeats "
                         "%s[%d]" % (name, title, name, i, int(v[i]), name, earlier))


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


def _one(metadata):
    """the metadata of one kernel or pipeline (a list of one is that one)"""
    if isinstance(metadata, list):
        if len(metadata) != 1:
            raise ValueError("dpia.opencl: metadata of %d kernels: translate with kernel=NAME" % len(metadata))
        metadata = metadata[0]
    return metadata


def _place(buf, offset):
    """(base buffer's address, offset in it) of offset bytes into buf: a
    sub-buffer's bytes belong to the buffer it was made from"""
    parent = buf.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT)
    if parent is None:
        return buf.int_ptr, offset
    return parent.int_ptr, buf.get_info(cl.mem_info.OFFSET) + offset


def _work_group(local):
    """"64 work-items", or "16x16 = 256 work-items", as dpia run says it"""
    items = int(np.prod(local))
    if sum(1 for n in local if n > 1) > 1:
        return "%s = %d work-items" % ("x".join(map(str, local)), items)
    return "%d work-items" % items


class _Launch:
    """one kernel launch of a call: its kernel, the arguments in the
    kernel's order, the NDRange, the local buffers it is given
    ([(parameter, bytes)], for the message of a device limit) and the
    buffers it writes ([(parameter, buffer, bytes)]: a launch with no
    work-item is left out only when they are empty)"""

    def __init__(self, name, kernel, args, global_size, local_size, local_buffers, writes):
        self.name, self.kernel, self.args = name, kernel, args
        self.global_size, self.local_size, self.local_buffers = global_size, local_size, local_buffers
        self.writes = writes


class _Launcher:
    """what Kernel and Pipeline share: the checks of the interface (sizes,
    preconditions, argument names, types, shapes, aliasing) and of the
    device's limits, the outputs allocated and read back; each subclass
    says which kernels it launches with what: _launches(sizes, bound), a
    list of _Launch at sizes with the interface's arguments bound"""

    kind = None  # "kernel" or "pipeline": the metadata's field naming it

    def __init__(self, ctx, metadata, options=None):
        metadata = _one(metadata)
        if self.kind not in metadata:
            other = "pipeline" if self.kind == "kernel" else "kernel"
            raise ValueError("dpia.opencl: the metadata is not a %s's (it has no %r field%s)" % (
                self.kind, self.kind, "; it is a %s's" % other if other in metadata else ""))
        self.ctx = ctx
        self.meta = metadata
        self.name = metadata[self.kind]
        self.title = "%s %s" % (self.kind, self.name)
        self.program = cl.Program(ctx, metadata["source"]).build(options=options or [])
        self.last_ms = None
        self._own_local = {}  # (kernel, device): its local memory without local arguments
        # in place: {output name: the input whose buffer it is}
        self._updates = {p["name"]: p["updates"] for p in self.params if p["role"] == "output" and "updates" in p}

    @property
    def params(self):
        return self.meta["params"]

    def nat_names(self):
        return [p["name"] for p in self.params if p["role"] == "nat"]

    def arg_names(self):
        """the names args may hold: inputs, scalars and outputs"""
        return [p["name"] for p in self.params
                if p["role"] in ("input", "scalar", "output") and p["name"] not in self._updates]

    def _sizes(self, sizes):
        """sizes as ints, each a nat parameter; TypeError or ValueError naming the culprit"""
        nats = self.nat_names()
        unknown = [n for n in sizes if n not in nats]
        if unknown:
            raise ValueError("dpia.opencl: %s has no size %s; its sizes are %s" % (
                self.title, ", ".join(map(str, unknown)), ", ".join(nats) or "none"))
        out = {}
        for n, v in sizes.items():
            # a float is not truncated (8.7 is no size), nor a bool taken for 0 or 1
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError("dpia.opencl: size %s = %r of %s is not an integer" % (n, v, self.title))
            out[n] = int(v)
        return out

    def check(self, sizes):
        """raise PreconditionError unless every nat is given and every
        precondition holds (TypeError or ValueError for a size that is not
        an integer or not a nat parameter)"""
        sizes = self._sizes(sizes)
        missing = [n for n in self.nat_names() if n not in sizes]
        if missing:
            raise PreconditionError("%s needs a value for %s" % (self.title, ", ".join(missing)))
        failing = [p for p in self.meta["preconditions"] if not evaluate(p, sizes)]
        if failing:
            raise PreconditionError("%s: %s violate%s %s" % (
                self.title, ", ".join("%s = %s" % kv for kv in sorted(sizes.items())),
                "" if len(sizes) != 1 else "s", " and ".join(failing)))
        return sizes

    @staticmethod
    def _ndrange(launch, sizes):
        """(global size, local size or None) of a kernel's or a launch's metadata at sizes"""
        g = tuple(int(evaluate(e, sizes)) for e in launch["global_size"])
        loc = launch["local_size"]
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
        return "the %s's %s is %s%s: shape %s at %s" % (
            self.kind, p["role"], dims, p["type"], shape,
            _sizes_text(sizes))

    def _device(self, p, a, sizes, dtype, shape, nbytes):
        """(buffer to pass, its (base, offset), bytes) of a device argument
        for buffer p, after checking it"""
        name = p["name"]
        if isinstance(a, cl.Buffer):
            if a.size < nbytes:
                raise ValueError("dpia.opencl: %s %s of %s is a buffer of %d bytes, the %s %s %d" % (
                    p["role"], name, self.title, a.size, self.kind,
                    "writes" if p["role"] == "output" else "reads", nbytes))
            return a, _place(a, 0)
        # a pyopencl.array.Array
        if a.dtype != np.dtype(dtype) or a.shape != shape:
            raise (TypeError if a.dtype != np.dtype(dtype) else ValueError)(
                "dpia.opencl: %s %s of %s is a device array of %s with shape %s, %s" % (
                    p["role"], name, self.title, a.dtype, a.shape, self._expect(p, sizes, shape)))
        if not a.flags.c_contiguous:
            raise ValueError("dpia.opencl: %s %s of %s is a device array that is not C-contiguous: the %s "
                             "reads it as one block in C order (copy it)" % (p["role"], name, self.title, self.kind))
        # a view at an offset is passed as a sub-buffer, made after the alias check
        buf = a.base_data if a.offset == 0 else lambda: a.base_data.get_sub_region(a.offset, max(1, a.nbytes))
        return buf, _place(a.base_data, a.offset)

    def _check_aliases(self, places):
        """places: [(param, (base, offset), bytes)] of the device buffers;
        AliasError when an output shares bytes the kernels touch with another"""
        updated = set(self._updates.values())
        for i, (p, (base, off), n) in enumerate(places):
            if (p["role"] != "output" and p["name"] not in updated) or n == 0:
                continue
            for j, (q, (qbase, qoff), m) in enumerate(places):
                if j == i or (q["role"] == "output" and j < i) or m == 0:
                    continue
                if base == qbase and off < qoff + m and qoff < off + n:
                    if p["name"] in updated:
                        raise AliasError(
                            "dpia.opencl: input %s, which %s updates in place, and %s %s share memory (bytes %d "
                            "to %d and %d to %d of one buffer); pass separate buffers" % (
                                p["name"], self.title, q["role"], q["name"], off, off + n, qoff, qoff + m))
                    raise AliasError(
                        "dpia.opencl: output %s and %s %s of %s share memory (bytes %d to %d and %d to %d of "
                        "one buffer): the %s does not compute in place (its buffers are restrict); pass "
                        "separate buffers" % (p["name"], q["role"], q["name"], self.title, off, off + n, qoff,
                                              qoff + m, self.kind))

    def _interface(self, sizes, args):
        """the parameters at sizes, after checking args: ({name: OpenCL
        argument, or a function making it after the alias check},
        {output name: (buffer to read back or None, numpy array to read
        into or the device data given)}, the device buffers' places)"""
        mf = cl.mem_flags
        bound, outputs, places = {}, {}, []
        into = {i: o for o, i in self._updates.items()}  # in place: input -> output
        for p in self.params:
            role, name = p["role"], p["name"]
            if name in self._updates:
                continue  # the buffer of the input it updates (below)
            if role == "nat":
                bound[name] = np.int32(sizes[name])
            elif role == "scalar":
                if name not in args:
                    raise ValueError("dpia.opencl: %s needs the scalar %s" % (self.title, name))
                dtype, lanes = numpy_type(p["type"])
                v = np.asarray(args[name], dtype=dtype)
                bound[name] = v.reshape(lanes) if lanes > 1 else dtype(v)
            else:
                dtype, shape, count, nbytes = self._layout(p, sizes)
                a = args.get(name)
                device = a is not None and (isinstance(a, cl.Buffer) or hasattr(a, "base_data"))
                if p.get("space") == "local":
                    bound[name] = cl.LocalMemory(max(1, nbytes))
                elif device and role in ("input", "output"):
                    bound[name], place = self._device(p, a, sizes, dtype, shape, nbytes)
                    places.append((p, place, nbytes))
                    if role == "output":
                        outputs[name] = (None, a)
                    elif name in into:  # updated there, returned as given
                        outputs[into[name]] = (None, a)
                elif role == "input":
                    if a is None:
                        raise ValueError("dpia.opencl: %s needs the input %s" % (self.title, name))
                    a = np.asarray(a)
                    if a.dtype != np.dtype(dtype):
                        raise TypeError("dpia.opencl: input %s of %s is %s, the %s reads %s" % (
                            name, self.title, a.dtype, self.kind, np.dtype(dtype)))
                    if a.shape != shape:
                        raise ValueError("dpia.opencl: input %s of %s has shape %s (%d elements), %s" % (
                            name, self.title, a.shape, a.size, self._expect(p, sizes, shape)))
                    # C order: a view (a transposed matrix) is copied as the matrix it shows
                    a = np.ascontiguousarray(a)
                    if p.get("permutation"):
                        _check_permutation(name, self.title, a.ravel())
                    flags = mf.READ_WRITE if name in into else mf.READ_ONLY
                    bound[name] = (cl.Buffer(self.ctx, flags | mf.COPY_HOST_PTR, hostbuf=a)
                                   if a.size else cl.Buffer(self.ctx, flags, 1))
                    if name in into:  # a copy updated on the device, read back
                        outputs[into[name]] = (bound[name], np.empty(shape, dtype=dtype))
                elif role == "output" and a is not None:
                    raise TypeError("dpia.opencl: output %s of %s is given as %s: give a pyopencl Buffer or "
                                    "array to write into, or nothing (the call returns it)" % (
                                        name, self.title, type(a).__name__))
                else:  # output or global temporary
                    buf = bound[name] = cl.Buffer(self.ctx, mf.READ_WRITE, max(1, nbytes))
                    if role == "output":
                        outputs[name] = (buf, np.empty(shape, dtype=dtype))
        return bound, outputs, places

    def _own_local_memory(self, name, device):
        """the local memory kernel name needs of device without its local
        arguments: CL_KERNEL_LOCAL_MEM_SIZE of a kernel object whose local
        arguments are not set (OpenCL 1.2 section 5.9.3 counts them as 0).
        Not of the launched kernel, its arguments set: pyopencl keeps the
        first answer of get_work_group_info per kernel object (its
        _wg_info_cache), whatever local arguments are set since."""
        key = name, device.int_ptr
        if key not in self._own_local:
            self._own_local[key] = cl.Kernel(self.program, name).get_work_group_info(
                cl.kernel_work_group_info.LOCAL_MEM_SIZE, device)
        return self._own_local[key]

    def _check_device(self, device, launch):
        """DeviceLimitError unless the device runs launch (its arguments
        set): the local memory it needs, and its work-groups, as dpia run
        and the header's launchers check (docs/errors.md E0007)"""
        k, problems = launch.kernel, []
        own = self._own_local_memory(launch.name, device)
        needs = own + sum(n for _, n in launch.local_buffers)
        if needs > device.local_mem_size:
            parts = ["its own: %d bytes by CL_KERNEL_LOCAL_MEM_SIZE" % own] if own else []
            parts += ["%s: a local temporary of %d bytes" % b for b in launch.local_buffers]
            problems.append("kernel %s needs %d bytes of local memory a work-group (%s), more than the device's %d "
                            "(CL_DEVICE_LOCAL_MEM_SIZE)" % (launch.name, needs, ", ".join(parts),
                                                           device.local_mem_size))
        loc = launch.local_size
        if loc is not None:
            items = int(np.prod(loc))
            too_many = items > device.max_work_group_size
            for d, n in enumerate(loc):
                # one dimension over both limits: the work-group's says it
                if too_many and n == items:
                    continue
                if d < len(device.max_work_item_sizes) and n > device.max_work_item_sizes[d]:
                    problems.append("kernel %s is launched with a local size of %d in dimension %d, more than the "
                                    "device's %d (CL_DEVICE_MAX_WORK_ITEM_SIZES[%d])" % (
                                        launch.name, n, d, device.max_work_item_sizes[d], d))
            most = k.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, device)
            if too_many:
                problems.append("kernel %s is launched with work-groups of %s, more than the device's %d "
                                "(CL_DEVICE_MAX_WORK_GROUP_SIZE)" % (launch.name, _work_group(loc),
                                                                     device.max_work_group_size))
            elif most and items > most:
                problems.append("kernel %s is launched with work-groups of %s; the device runs it in work-groups "
                                "of at most %d (CL_KERNEL_WORK_GROUP_SIZE)" % (launch.name, _work_group(loc), most))
        if problems:
            raise DeviceLimitError("dpia.opencl: error[E0007]: %sOpenCL device %s: %s" % (
                "%s on " % self.title if self.kind == "pipeline" else "", device.name.strip(), "; ".join(problems)))

    def _skip_empty(self, launches, sizes):
        """the launches without those whose NDRange has no work-item (a grid
        of ceil(N/64) groups at N = 0): nothing to compute when every
        buffer the launch writes is empty, as the C launchers decide (a
        pipeline's stage by stage); else EmptyRangeError naming the launch and
        the output no work-item would write, before anything is enqueued"""
        kept = []
        for i, launch in enumerate(launches):
            if 0 not in tuple(launch.global_size):
                kept.append(launch)
                continue
            full = [(param, buf) for param, buf, nbytes in launch.writes if nbytes > 0]
            if not full:
                continue
            param, buf = full[0]
            if self.kind == "pipeline":
                what = "launch %d (kernel %s) has no work-item, but its output %s (buffer %s) is not empty" % (
                    i, launch.name, param, buf)
            else:
                what = "the NDRange of %s has no work-item, but output %s is not empty" % (launch.name, param)
            raise EmptyRangeError("dpia.opencl: error[E0413]: %s at %s: %s" % (self.title, _sizes_text(sizes), what))
        return kept

    def __call__(self, queue, sizes, args, wait=True):
        """launch at sizes ({nat: int}) with args ({input, scalar or output
        name: numpy array, device array or buffer, or number}); returns
        {output name: numpy array in the output's shape, or the device
        array or buffer given for it}"""
        sizes = self.check(sizes)
        unknown = [n for n in args if n not in self.arg_names()]
        if unknown:
            raise ValueError("dpia.opencl: %s has no argument %s; its arguments are %s" % (
                self.title, ", ".join(map(str, unknown)), ", ".join(self.arg_names())))
        bound, outputs, places = self._interface(sizes, args)
        self._check_aliases(places)
        bound = {n: a() if callable(a) else a for n, a in bound.items()}
        for out, updated in self._updates.items():
            bound[out] = bound[updated]  # one buffer (one sub-buffer object), read back as the output
        launches = self._launches(sizes, bound)
        launches = self._skip_empty(launches, sizes)
        # every launch fits the device before anything is enqueued
        for launch in launches:
            launch.kernel.set_args(*launch.args)
            self._check_device(queue.device, launch)
        events = [cl.enqueue_nd_range_kernel(queue, launch.kernel, launch.global_size, launch.local_size)
                  for launch in launches]
        if not events:
            self.last_ms = None
            return {name: host for name, (buf, host) in outputs.items()}
        for name, (buf, host) in outputs.items():
            if buf is not None and host.size:
                cl.enqueue_copy(queue, host, buf, wait_for=events[-1:])
        if wait:
            queue.finish()
            try:
                # from the first kernel's start to the last one's end, as dpia run times a pipeline
                self.last_ms = (events[-1].profile.end - events[0].profile.start) * 1e-6
            except (cl.RuntimeError, cl.LogicError):
                self.last_ms = None
        return {name: host for name, (buf, host) in outputs.items()}


def _sizes_text(sizes):
    """N = 0, M = 4: sizes for messages"""
    return ", ".join("%s = %d" % kv for kv in sorted(sizes.items())) or "no sizes"


class Kernel(_Launcher):
    """a translated kernel (docs/reference.md section 9); Kernel(ctx,
    metadata) of a pipeline's metadata gives a Pipeline"""

    kind = "kernel"

    def __new__(cls, ctx, metadata, options=None):
        if "pipeline" in _one(metadata):
            return Pipeline(ctx, metadata, options)
        return super().__new__(cls)

    def __init__(self, ctx, metadata, options=None):
        super().__init__(ctx, metadata, options)
        self.kernel = cl.Kernel(self.program, self.name)

    def launch_sizes(self, sizes):
        return self._ndrange(self.meta, sizes)

    def _launches(self, sizes, bound):
        g, loc = self.launch_sizes(sizes)
        local_buffers = [(p["name"], self._layout(p, sizes)[3]) for p in self.params if p.get("space") == "local"]
        # an in-place output is no argument: the kernel writes the input's buffer (docs/language.md section 27)
        writes = [(p["name"], p["name"], self._layout(p, sizes)[3]) for p in self.params if p["role"] == "output"]
        return [_Launch(self.name, self.kernel, [bound[p["name"]] for p in self.params if p["name"] not in self._updates],
                        g, loc, local_buffers, writes)]


class Pipeline(_Launcher):
    """a translated pipeline (docs/language.md section 8): its interface
    checked as a kernel's, its temporaries allocated, its kernels launched
    in order with the arguments of the metadata's "launches" (local
    memory, "local_elements" of "type", sized at the call)."""

    kind = "pipeline"

    def __init__(self, ctx, metadata, options=None):
        super().__init__(ctx, metadata, options)
        interface = {p["name"] for p in self.params}
        temps = {t["name"] for t in self.meta["temporaries"]}
        # the pipeline's buffers by name: a temporary named like a parameter
        # would make a launch's "buffer" ambiguous
        clash = sorted(interface & temps)
        if clash:
            raise ValueError("dpia.opencl: the metadata of %s names both a parameter and a temporary %s: a "
                             "launch's buffer is ambiguous (rename the parameter)" % (self.title, ", ".join(clash)))
        self.temporaries = [dict(t, role="temp") for t in self.meta["temporaries"]]

    def _launches(self, sizes, bound):
        buffers = dict(bound)
        # the bytes of each buffer by name: the interface's and the temporaries'
        buffer_bytes = {p["name"]: self._layout(p, sizes)[3] for p in self.params + self.temporaries
                        if p["role"] in ("input", "output", "temp")}
        for t in self.temporaries:
            buffers[t["name"]] = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, max(1, buffer_bytes[t["name"]]))
        out = []
        for launch in self.meta["launches"]:
            args, local_buffers, writes = [], [], []
            for arg in launch["args"]:
                if "buffer" in arg:
                    args.append(buffers[arg["buffer"]])
                    if arg.get("writes"):
                        writes.append((arg["param"], arg["buffer"], buffer_bytes[arg["buffer"]]))
                elif "value" in arg:
                    args.append(bound[arg["value"]])
                elif "size" in arg:
                    args.append(np.int32(evaluate(arg["size"], sizes)))
                else:
                    dtype, lanes = numpy_type(arg["type"])
                    nbytes = int(evaluate(arg["local_elements"], sizes)) * lanes * np.dtype(dtype).itemsize
                    args.append(cl.LocalMemory(max(1, nbytes)))
                    local_buffers.append((arg["param"], nbytes))
            g, loc = self._ndrange(launch, sizes)
            out.append(_Launch(launch["kernel"], cl.Kernel(self.program, launch["kernel"]), args, g, loc,
                               local_buffers, writes))
        return out
