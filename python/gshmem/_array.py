"""_array.py: NumPy arrays over the host symmetric heap, and host put/get
between them.

An array from empty()/zeros() is a view of one managed block (_runtime.py):
the block stays allocated while the array, or anything viewing it (slices,
torch.from_numpy), lives, and is freed collectively after every PE let go.
Their type, HeapArray (_heaparray.py), refuses use after finalize.
"""
from . import _runtime as rt
from ._runtime import S, fail

try:
    import numpy as np
    from ._heaparray import HeapArray, HostView as _HostView
except ImportError:   # the package works without NumPy; these calls say so
    np = None


def _numpy(call):
    if np is None:
        raise ImportError("gshmem.%s needs NumPy (Debian: apt-get install python3-numpy)"
                          % call)
    return np


def norm_shape(call, shape):
    """shape as a tuple of ints >= 0, or GshmemError naming it."""
    dims = (shape,) if isinstance(shape, int) else shape
    try:
        dims = tuple(dims)
    except TypeError:
        fail(call, "shape %r is neither an int nor a sequence of ints" % (shape,))
    if not all(isinstance(d, int) and d >= 0 for d in dims):
        fail(call, "shape %r: every dimension must be an int >= 0" % (shape,))
    return dims


def empty(shape, dtype="float64"):
    """An uninitialized NumPy array in the host symmetric heap (collective:
    the same shape and dtype on every PE)."""
    npm = _numpy("empty")
    rt.require("empty")
    dims, dt = norm_shape("empty", shape), npm.dtype(dtype)
    if dt.hasobject or dt.itemsize == 0:
        fail("empty", "dtype %s has no fixed size in memory" % dt)
    if S.heap_device is not None:
        fail("empty", "the symmetric heap is GPU memory (a CUDA heap on GPU %d): NumPy arrays "
             "need a host heap (gshmem.init(heap='host')); or use gshmem.torch.empty(..., "
             "device='cuda')" % S.heap_device)
    n = int(npm.prod(dims, dtype=npm.int64)) * dt.itemsize
    block = rt.alloc_block("empty", n)
    if block.addr is None:
        return npm.empty(dims, dt)   # nothing to share
    return npm.asarray(_HostView(block, block.addr, dims, dt)).view(HeapArray)


def zeros(shape, dtype="float64"):
    """empty(), zeroed on every PE before any PE returns (collective)."""
    a = empty(shape, dtype)
    a.fill(0)
    rt.barrier_all()
    return a


def _ndarray(call, what, a):
    if not isinstance(a, np.ndarray):
        fail(call, "%s must be a NumPy array, not %s" % (what, type(a).__name__))


def _sym_block(call, a, what="the array"):
    """The block under array a, or GshmemError."""
    _ndarray(call, what, a)
    return rt.block_of(call, a.__array_interface__["data"][0], a.nbytes, what)


def _contiguous(call, what, a):
    if not a.flags.c_contiguous:
        fail(call, "%s is not C-contiguous (shape %s, strides %s)" % (what, a.shape, a.strides))


def peer_array(a, pe):
    """The view of array a's twin on pe (loads and stores go straight to pe's
    memory), or GshmemError when pe is not reachable by load/store."""
    _numpy("peer_array")
    rt.require("peer_array")
    rt.check_pe("peer_array", pe)
    block = _sym_block("peer_array", a)
    _contiguous("peer_array", "the array", a)
    addr = a.__array_interface__["data"][0]
    peer = rt.lib.gshmem_ptr(addr, pe) if a.nbytes else addr
    if not peer:
        fail("peer_array", "PE %d is not reachable by load/store from here (gshmem_ptr gave "
             "NULL): use gshmem.put/gshmem.get" % pe)
    return np.asarray(_HostView(block, peer, a.shape, a.dtype)).view(HeapArray)


def _rma(call, fn, local, sym, pe, names):
    """names: what local and sym are called in call's signature."""
    _numpy(call)
    rt.require(call)
    rt.check_pe(call, pe)
    _sym_block(call, sym, "%s (the symmetric array)" % names[1])
    _ndarray(call, "%s (the local array)" % names[0], local)
    _contiguous(call, "the symmetric array", sym)
    _contiguous(call, "the local array", local)
    if local.nbytes != sym.nbytes:
        fail(call, "sizes differ: %d bytes local, %d symmetric" % (local.nbytes, sym.nbytes))
    fn(local.__array_interface__["data"][0], sym.__array_interface__["data"][0],
       local.nbytes)


def put(dest, source, pe):
    """Blocking put: source's bytes (any C-contiguous array of the same byte
    size) into dest (a symmetric array) on pe; source may be reused after."""
    _rma("put", lambda src, dst, n: rt.lib.gshmem_putmem(dst, src, n, pe), source, dest, pe,
         ("source", "dest"))


def get(dest, source, pe):
    """Blocking get: source (a symmetric array) on pe into dest."""
    _rma("get", lambda dst, src, n: rt.lib.gshmem_getmem(dst, src, n, pe), dest, source, pe,
         ("dest", "source"))
