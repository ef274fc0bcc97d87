"""pe_py_torch.py: gshmem.torch's symmetric tensors and communication on the
heap the PE got (CPU tensors over a host heap in CI; CUDA tensors over a
CUDA heap on GPU machines, where the calls are stream-ordered): every dtype
allocates and views, put / put_signal / signal_wait / quiet / barrier move
the right bytes, peer_tensor reads and writes the peer's twin, a tensor
keeps its block until it goes, and misuse raises errors that name it.
Run: gshmemrun -n N python3 pe_py_torch.py [host|cuda|auto] (default host)."""
import sys
import warnings

import torch

import gshmem
import gshmem.torch as gt
from gshmem import GshmemError
from pecheck import check, expect_error, ok

gshmem.init(heap=sys.argv[1] if len(sys.argv) > 1 else "host")
me, n = gshmem.my_pe(), gshmem.n_pes()
right, left = (me + 1) % n, (me + n - 1) % n
dev = gt.heap_device()
if dev.type == "cuda":
    torch.cuda.set_device(dev)


def host_sync():
    """The stream's work done (CUDA) before the host looks or a barrier."""
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


# every dtype: the tensor's shape, dtype, device and bytes are the heap's
for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
           torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool):
    t = gt.zeros((3, 4), dt)
    check(t.shape == (3, 4) and t.dtype == dt and t.device == dev and t.is_contiguous(),
          "zeros %s: %s %s %s", dt, tuple(t.shape), t.dtype, t.device)
    check(not t.any(), "zeros %s is not zero", dt)
del t

# put (stream-ordered on CUDA), then quiet + barrier
x = gt.zeros((256,), torch.float32)
src = torch.arange(256, dtype=torch.float32, device=dev) + 1000 * me
gt.put(x, src, right)
gt.quiet()
gt.barrier()
host_sync()
check(torch.equal(x.cpu(), torch.arange(256, dtype=torch.float32) + 1000 * left),
      "put from the left PE: %s", x[:4].tolist())

# put_signal: the data is there once the signal is (rounds of new data)
y = gt.zeros((64,), torch.int32)
sig = gt.zeros((2,), torch.int64)
for r in range(1, 6):
    gt.barrier()                                   # the last round was read everywhere
    gt.put_signal(y, torch.full((64,), 100 * me + r, dtype=torch.int32, device=dev),
                  sig[0:1], r, right)
    gt.signal_wait(sig[0:1], "ge", r)
    seen = y.clone()                               # in stream order after the wait
    host_sync()
    check(bool((seen == 100 * left + r).all()), "round %d: %s", r, seen[:4].tolist())
gt.barrier()                                       # the last round was read everywhere
gt.put_signal(y, torch.zeros(64, dtype=torch.int32, device=dev), sig[1:2], 3, right, op="add")
gt.put_signal(y, torch.zeros(64, dtype=torch.int32, device=dev), sig[1:2], 4, right, op="add")
gt.signal_wait(sig[1:2], "eq", 7)
host_sync()
check(int(sig[1]) == 7, "signal add: %d", int(sig[1]))

# peer_tensor: the right PE's twin, same shape and strides, loads and stores
gt.barrier()
host_sync()
view = gt.peer_tensor(x[10:20], right)
check(view.shape == (10,) and view.device == dev, "peer view: %s on %s", tuple(view.shape),
      view.device)
check(torch.equal(view.cpu(), torch.arange(10, 20, dtype=torch.float32) + 1000 * me),
      "peer view reads: %s", view[:3].tolist())
view.fill_(-1 - me)                               # stores into the right PE's x[10:20]
host_sync()
gshmem.barrier_all()
check(bool((x[10:20] == -1 - left).all()) and float(x[9]) == 9 + 1000 * left,
      "stores through the left PE's peer view: %s", x[8:12].tolist())

# a view keeps the block: the tensor's memory stays symmetric and in use
tail = x[128:]
del x, view
gt.put(tail, torch.zeros(128, device=dev), right)
gt.barrier()
host_sync()
check(not tail.any(), "put into a view of a dropped tensor")
del tail
check(gshmem.collect() == 1, "the dropped tensor's block was not freed")

# misuse
expect_error(GshmemError, ["gshmem.torch.put", "sizes differ", "512", "256"], gt.put, y,
             torch.zeros(128, device=dev), right)
expect_error(GshmemError, ["gshmem.torch.put", "pe %d" % n], gt.put, y, y.clone(), n)
expect_error(GshmemError, ["gshmem.torch.put", "dest", "not in a symmetric"], gt.put,
             torch.zeros(64, dtype=torch.int32, device=dev), y, right)
expect_error(GshmemError, ["gshmem.torch.put", "not contiguous"], gt.put, y,
             torch.zeros(128, dtype=torch.int32, device=dev)[::2], right)
expect_error(GshmemError, ["gshmem.torch.signal_wait", "int64"], gt.signal_wait, y[0:1], "ge", 1)
expect_error(GshmemError, ["gshmem.torch.signal_wait", "'gte'"], gt.signal_wait, sig[0:1],
             "gte", 1)
expect_error(GshmemError, ["gshmem.torch.put_signal", "'mul'"], gt.put_signal, y, y.clone(),
             sig[0:1], 1, right, op="mul")
other = "cpu" if dev.type == "cuda" else "cuda"
expect_error(GshmemError, ["gshmem.torch.empty", "device %s" % other], gt.empty, (4,),
             torch.float32, other)
expect_error(GshmemError, ["gshmem.torch.empty", "not a torch.dtype"], gt.empty, (4,), "float")
expect_error(GshmemError, ["gshmem.torch.peer_tensor", "pe -2"], gt.peer_tensor, y, -2)


class _QueuePeer:
    """gshmem.torch as a CUDA heap whose peer is reached through the queue
    path sees it (a stream, gshmem_ptr NULL), for the source check that
    runs before any call: works on a host heap and over P2P alike."""

    def __enter__(self):
        self.saved = gt._stream, gt.lib.gshmem_ptr
        gt._stream = lambda call, t: 1
        gt.lib.gshmem_ptr = lambda addr, pe: None

    def __exit__(self, *exc):
        gt._stream, gt.lib.gshmem_ptr = self.saved


with _QueuePeer():   # a plain tensor as the source of a put to a queue-path peer
    expect_error(GshmemError, ["gshmem.torch.put", "not a symmetric tensor", "PE %d" % right,
                               "queue path"], gt.put, y,
                 torch.zeros(64, dtype=torch.int32, device=dev), right)
    expect_error(GshmemError, ["gshmem.torch.put_signal", "not a symmetric tensor"],
                 gt.put_signal, y, torch.zeros(64, dtype=torch.int32, device=dev), sig[0:1],
                 1, right)

with _QueuePeer():   # the legacy default stream with queue-path peers: one warning
    gt._queue_peers, gt._warned[:] = (0, ()), []
    check(gt.queue_path_peers() == tuple(q for q in range(n) if q != me),
          "queue_path_peers %s with every peer on the queue path", gt.queue_path_peers())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gt._legacy_warn("torch.signal_wait", 123456)   # a stream of the caller's own: none
        gt._legacy_warn("torch.barrier", 0)
        gt._legacy_warn("torch.put", 1)                # once per process
    texts = [str(c.message) for c in caught]
    check(len(texts) == 1 and all(w in texts[0] for w in ["gshmem.torch.barrier",
          "legacy default stream", "queue path", "torch.cuda.Stream()"]), "warnings %s", texts)
gt._queue_peers, gt._warned[:] = (0, ()), []   # the real peers again

gt.barrier()
host_sync()
del y, sig
ok("pe_py_torch")
gshmem.finalize()
