"""gshmem.torch: torch tensors in the symmetric heap, stream-ordered
communication on them, and the fused DLRM embedding + all-to-all op.

    import gshmem, gshmem.torch as gt
    gshmem.init()                          # a CUDA heap on a GPU machine
    x = gt.empty((1024,), torch.float32)   # on the heap's device
    sig = gt.zeros((1,), torch.int64)      # signal words: int64 (uint64 bits)
    gt.put_signal(x, y, sig, 1, peer)      # on torch.cuda.current_stream()
    gt.signal_wait(sig, "ge", 1)           # the stream waits, not the host

Tensors: CPU tensors over a host heap (torch.from_numpy of the block's
NumPy view), CUDA tensors over a CUDA heap (__cuda_array_interface__); the
tensor keeps its block alive, the block is freed collectively after every
PE dropped it (gshmem/_runtime.py). The heap's kind is gshmem's choice at
init (GSHMEM_HEAP): device=None means the heap's device; another device is
refused.

Communication: on CUDA tensors the calls are gshmemx_*_on_stream calls on
torch.cuda.current_stream() (ordered with the kernels around them,
capturable into CUDA graphs, the host never waits); on CPU tensors the
blocking host calls. Signals are int64 tensors of one element (gshmem's
uint64 signal words; torch 1.13 has no uint64).

The legacy default stream and the queue path: a PE reached through the
queue path (another node, or P2P off) gets its data from this process's
engine thread, which makes CUDA calls (copies into and out of the heap,
small kernels) for it. While any thread of the process is inside a
synchronous copy on the legacy default stream (torch's default stream:
tensor.cpu(), print(tensor), cudaMemcpy) that waits for a kernel, CUDA
holds every other thread's copies back, the engine's too: if that kernel
waits for queue-path data (a signal_wait, a barrier, the DLRM op), nothing
moves again (measured: docs/DESIGN.md, "The legacy default stream"). So,
with queue-path peers: run gshmem work on a stream of your own
(`with torch.cuda.stream(torch.cuda.Stream()):`), or synchronize the stream
(torch.cuda.current_stream().synchronize()) before such a copy. The calls
here warn once when they are issued on the legacy default stream with such
peers; the DLRM op synchronizes there itself (queue_path_peers()).
"""
try:
    import torch
except ImportError as e:   # the rest of the package works without torch
    raise ImportError("gshmem.torch needs PyTorch (Debian: apt-get install python3-torch; "
                      "pip: torch): %s" % e) from e

import socket
import warnings

from . import _array
from . import _runtime as rt
from ._lib import has_stream_api, lib
from ._runtime import S, fail

_CMP = {"eq": 0, "ne": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5}   # GSHMEM_CMP_*
_SIG_OP = {"set": 0, "add": 1}                                  # GSHMEM_SIGNAL_*


def heap_device():
    """The torch.device of the symmetric heap: cuda:k for a CUDA heap, cpu."""
    rt.require("torch.heap_device")
    return torch.device("cpu") if S.heap_device is None else torch.device("cuda",
                                                                           S.heap_device)


def _device(call, device):
    want, have = heap_device(), device if device is None else torch.device(device)
    if have is None or (have.type == want.type and have.index in (None, want.index)):
        return want
    fail(call, "device %s: the symmetric heap is %s (GSHMEM_HEAP picks it at init: host "
         "for CPU tensors, cuda for CUDA tensors)" % (have, want))


class _CudaView:
    """__cuda_array_interface__ of nbytes at addr on the heap's GPU; the
    tensor keeps the view, and so the block, alive."""
    __slots__ = ("block", "__cuda_array_interface__")

    def __init__(self, block, addr, nbytes):
        self.block = block
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                         "data": (addr, False), "version": 2}


def _over(block, addr, dev):
    """A uint8 tensor over the whole block (at addr: the block's own address
    or a peer's copy of it)."""
    if dev.type == "cuda":
        return torch.as_tensor(_CudaView(block, addr, block.nbytes), device=dev)
    import numpy as np
    return torch.from_numpy(np.asarray(_array._HostView(block, addr, (block.nbytes,),
                                                        np.dtype(np.uint8))))


def empty(shape, dtype=torch.float32, device=None):
    """An uninitialized tensor in the symmetric heap (collective: the same
    shape and dtype on every PE)."""
    rt.require("torch.empty")
    dims = _array.norm_shape("torch.empty", shape)
    if not isinstance(dtype, torch.dtype):
        fail("torch.empty", "dtype %r is not a torch.dtype" % (dtype,))
    dev = _device("torch.empty", device)
    itemsize = torch.empty((), dtype=dtype).element_size()
    n = 1
    for d in dims:
        n *= d
    block = rt.alloc_block("torch.empty", n * itemsize)
    if block.addr is None:
        return torch.empty(dims, dtype=dtype, device=dev)   # nothing to share
    return _over(block, block.addr, dev).view(dtype).view(dims)


def zeros(shape, dtype=torch.float32, device=None):
    """empty(), zeroed on every PE before any PE returns (collective; a CUDA
    heap: the host waits for the zeroing)."""
    t = empty(shape, dtype, device)
    t.zero_()
    if t.is_cuda:
        torch.cuda.synchronize(t.device)
    rt.barrier_all()
    return t


def _block(call, t, what="tensor"):
    if not isinstance(t, torch.Tensor):
        fail(call, "%s is a %s, not a torch.Tensor" % (what, type(t).__name__))
    return rt.block_of(call, t.data_ptr(), t.numel() * t.element_size(), what)


def peer_tensor(t, pe):
    """The view of symmetric tensor t's twin on pe, read and written by
    loads and stores (same shape, strides, dtype and device), or
    GshmemError when pe is not reachable by load/store from here."""
    rt.require("torch.peer_tensor")
    rt.check_pe("torch.peer_tensor", pe)
    block = _block("torch.peer_tensor", t)
    peer = lib.gshmem_ptr(block.addr, pe)
    if not peer:
        fail("torch.peer_tensor", "PE %d is not reachable by load/store from here (gshmem_ptr "
             "gave NULL: another node, or P2P off): use put/get" % pe)
    if block.nbytes % t.element_size():
        fail("torch.peer_tensor", "the tensor's dtype %s does not tile its %d-byte block"
             % (t.dtype, block.nbytes))
    whole = _over(block, peer, t.device).view(t.dtype)
    off = (t.data_ptr() - block.addr) // t.element_size()
    return whole.as_strided(t.size(), t.stride(), off)


# ---- communication -----------------------------------------------------------

_raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def current_stream_handle(index):
    """The cudaStream_t (an int) of the current stream of CUDA device index:
    torch's raw getter where it has one (about 0.3 us; torch.cuda.
    current_stream builds a Stream object, about 5 us per call)."""
    return _raw(index) if _raw is not None else torch.cuda.current_stream(index).cuda_stream


_QPAYLOAD = 64      # bytes a queue entry carries (GSHMEMI_QPAYLOAD, gshmem_dev_queue.h)
_LEGACY = (0, 1)   # torch's default stream (the legacy default stream), cudaStreamLegacy
_queue_peers = (0, ())   # (init count, the PEs) of queue_path_peers
_warned = []


def queue_path_peers():
    """The PEs this PE reaches only through the queue path (device queue,
    engine, libfabric: another node, or P2P off), not by load/store."""
    global _queue_peers
    rt.require("torch.queue_path_peers")
    if _queue_peers[0] != S.gen:
        _queue_peers = (S.gen, tuple(q for q in range(S.npes)
                                     if q != S.me and not lib.gshmem_ptr(S.ctl, q)))
    return _queue_peers[1]


def on_legacy_stream(stream):
    """stream (a raw handle) is the legacy default stream."""
    return stream in _LEGACY


def _legacy_warn(call, stream):
    """Warns once per process when a waiting on-stream call goes on the
    legacy default stream while some peer is on the queue path (see the
    module's docstring)."""
    if on_legacy_stream(stream) and not _warned and queue_path_peers():
        _warned.append(call)
        warnings.warn("gshmem.%s on the legacy default stream (torch's default) with PEs %s on "
                      "the queue path: a synchronous copy on that stream (tensor.cpu(), "
                      "cudaMemcpy) that waits for this call holds back the CUDA calls the "
                      "engine needs to bring the data, and the PE hangs; use a stream of your "
                      "own (with torch.cuda.stream(torch.cuda.Stream()): ...) or synchronize "
                      "the stream before such a copy" % (call, list(queue_path_peers())),
                      RuntimeWarning, stacklevel=3)


def _stream(call, t):
    """The current stream of t's device (CUDA tensors), None for CPU ones."""
    if not t.is_cuda:
        return None
    if not has_stream_api:
        fail(call, "this libgshmem has no on-stream calls (a build without CUDA)")
    return current_stream_handle(t.device.index)


def _pair(call, dest, source, pe):
    """Checks a put's tensors; returns (bytes, stream)."""
    rt.require(call)
    rt.check_pe(call, pe)
    _block(call, dest, "dest")
    if not isinstance(source, torch.Tensor):
        fail(call, "source is a %s, not a torch.Tensor" % type(source).__name__)
    for what, x in (("dest", dest), ("source", source)):
        if not x.is_contiguous():
            fail(call, "%s is not contiguous (shape %s, strides %s)"
                 % (what, tuple(x.shape), x.stride()))
    if source.device != dest.device:
        fail(call, "source is on %s, dest on %s" % (source.device, dest.device))
    n = dest.numel() * dest.element_size()
    if source.numel() * source.element_size() != n:
        fail(call, "sizes differ: source %d bytes, dest %d"
             % (source.numel() * source.element_size(), n))
    stream = _stream(call, dest)
    if stream is not None and n > _QPAYLOAD and not lib.gshmem_ptr(dest.data_ptr(), pe) and \
            not lib.gshmem_addr_accessible(source.data_ptr(), S.me):
        fail(call, "source (%d bytes at %#x) is not a symmetric tensor, and PE %d is reached "
             "through the queue path (no load/store from here), whose engine reads only the "
             "symmetric heap: put from a gshmem.torch tensor (up to %d bytes travel in the "
             "queue entry and may come from anywhere)" % (n, source.data_ptr(), pe, _QPAYLOAD))
    return n, stream


def _signal(call, sig):
    _block(call, sig, "sig")
    if sig.dtype != torch.int64 or sig.numel() != 1:
        fail(call, "sig must be one int64 element of a symmetric tensor (got %s, %d elements)"
             % (sig.dtype, sig.numel()))
    return sig.data_ptr()


def put(dest, source, pe, _warn=True):
    """source's bytes into symmetric dest on pe: CUDA, in stream order
    (delivered before the stream's next work starts); CPU, blocking. A
    CUDA source of more than 64 bytes for a PE that is not reachable by
    load/store (the queue path: another node, or P2P off) must be symmetric
    too, as NVSHMEM's remote transports want (GshmemError otherwise)."""
    n, stream = _pair("torch.put", dest, source, pe)
    if stream is None:
        lib.gshmem_putmem(dest.data_ptr(), source.data_ptr(), n, pe)
    else:
        if _warn:   # the DLRM op's backward synchronizes instead (_dlrm_op.py)
            _legacy_warn("torch.put", stream)
        lib.gshmemx_putmem_on_stream(dest.data_ptr(), source.data_ptr(), n, pe, stream)


def put_signal(dest, source, sig, value, pe, op="set"):
    """put, then sig at pe set to (op "set") or increased by (op "add")
    value, visible at pe only after the data."""
    n, stream = _pair("torch.put_signal", dest, source, pe)
    s = _signal("torch.put_signal", sig)
    if op not in _SIG_OP:
        fail("torch.put_signal", "op %r: expected 'set' or 'add'" % (op,))
    args = (dest.data_ptr(), source.data_ptr(), n, s, int(value), _SIG_OP[op], pe)
    if stream is None:
        lib.gshmem_putmem_signal(*args)
    else:
        _legacy_warn("torch.put_signal", stream)
        lib.gshmemx_putmem_signal_on_stream(*args, stream)


def signal_wait(sig, cmp, value):
    """Waits until the local signal sig compares cmp ("eq", "ne", "gt",
    "ge", "lt", "le") to value: CUDA, the current stream waits (a one-thread
    kernel; the host returns at once); CPU, the host waits."""
    rt.require("torch.signal_wait")
    s = _signal("torch.signal_wait", sig)
    if cmp not in _CMP:
        fail("torch.signal_wait", "cmp %r: expected one of %s" % (cmp, ", ".join(_CMP)))
    stream = _stream("torch.signal_wait", sig)
    if stream is None:
        lib.gshmem_signal_wait_until(s, _CMP[cmp], int(value))
    else:
        _legacy_warn("torch.signal_wait", stream)
        lib.gshmemx_signal_wait_until_on_stream(s, _CMP[cmp], int(value), stream)


def _on_heap(call, host_fn, stream_fn, warn=True):
    """host_fn() for a host heap, stream_fn(current stream) for a CUDA heap."""
    rt.require(call)
    if S.heap_device is None:
        return host_fn()
    if not has_stream_api:
        fail(call, "this libgshmem has no on-stream calls (a build without CUDA)")
    stream = current_stream_handle(S.heap_device)
    if warn:
        _legacy_warn(call, stream)
    return stream_fn(stream)


def quiet():
    """This PE's puts complete at their targets: a CUDA heap, in stream
    order (current stream); a host heap, before it returns."""
    _on_heap("torch.quiet", lib.gshmem_quiet, lambda s: lib.gshmemx_quiet_on_stream(s))


def barrier(_warn=True):
    """barrier_all: a CUDA heap, in stream order (the current stream passes
    once every PE's stream reached it); a host heap, on the host."""
    _on_heap("torch.barrier", lib.gshmem_barrier_all,
             lambda s: lib.gshmemx_barrier_all_on_stream(s), _warn)


# ---- torch.distributed beside gshmem -----------------------------------------

def init_process_group(backend=None, timeout_s=60):
    """torch.distributed over the same processes (collective): rank =
    my_pe, world size = n_pes. Under torchrun whose ranks are the PEs, its
    own rendezvous (env://: torch 2 joins the agent's store at MASTER_ADDR:
    MASTER_PORT as a client, so a store of our own would have no server);
    otherwise 127.0.0.1 at a port PE 0 found free and broadcast through
    gshmem (gshmemrun leaves no MASTER_ADDR / MASTER_PORT). backend: "nccl"
    for a CUDA heap, "gloo" for a host heap by default; gloo is bound to
    loopback (GLOO_SOCKET_IFNAME=lo unless set) on one node; across
    nodes (torchrun's WORLD_SIZE over LOCAL_WORLD_SIZE) gloo picks the
    interface itself unless GLOO_SOCKET_IFNAME is set."""
    import datetime
    import os

    import torch.distributed as dist
    rt.require("torch.init_process_group")
    backend = backend or ("gloo" if S.heap_device is None else "nccl")
    env = os.environ
    if env.get("WORLD_SIZE", "") == env.get("LOCAL_WORLD_SIZE", ""):
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")
    timeout = datetime.timedelta(seconds=timeout_s)
    if env.get("TORCHELASTIC_RUN_ID") and env.get("MASTER_ADDR") and env.get("MASTER_PORT") \
            and env.get("RANK") == str(S.me) and env.get("WORLD_SIZE") == str(S.npes):
        dist.init_process_group(backend, init_method="env://", rank=S.me, world_size=S.npes,
                                timeout=timeout)
        return
    port = 0
    if S.me == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    port = rt.broadcast_int("torch.init_process_group", port)
    dist.init_process_group(backend, init_method="tcp://127.0.0.1:%d" % port, rank=S.me,
                            world_size=S.npes, timeout=timeout)


from ._dlrm_op import DlrmEmbeddingAllToAll, dlrm_inputs, dlrm_local_tables  # noqa: E402,F401
