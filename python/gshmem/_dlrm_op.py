"""_dlrm_op.py: the fused DLRM embedding + all-to-all of apps/dlrm as the
torch op gshmem::dlrm_embedding_all_to_all, through libgshmem_dlrm_op's C
ABI (apps/dlrm/dlrm_op.h): the persistent kernel of dlrm_fused.h on GPU
PEs (CUDA heap), the threads of dlrm_cpu_fused.h on CPU PEs (host heap).

Model-parallel tables, data-parallel output: PE p holds the global tables
[t0, t0 + tn) (dlrm_local_tables) for the whole global batch B; forward
pools every bag of its tables (sum) and each PE q ends with out[b][t*D + d],
its B/P samples x all T tables, fp32: what EmbeddingBag + all_to_all_single
+ a permute give, in one step. The output is the op's symmetric tensor
itself (zero copies): the next forward overwrites it (clone what you keep).
Every PE consumed the last output before peers write the next: on GPUs
by the kernel's handshake (the rows bound for PE q wait until q's current
stream reached its forward: read the output on that stream, or order your
stream before it), on CPU PEs by a barrier at the start of each forward.

Inputs per forward (this PE's tables, all B samples):
  offsets: int64 [tn, B + 1], row t = table t's EmbeddingBag offsets with
           include_last_offset=True, as positions in indices (a
           KeyedJaggedTensor's key-major offsets o[tn * B + 1] give it as
           o.as_strided((tn, B + 1), (B, 1)));
  indices: int64 [nnz], rows local to their table.
Shapes, dtypes and devices are checked on every call; with check=True
(the default) the values too (offsets non-decreasing and inside indices,
indices inside their table): that reads them on the host, a
synchronisation on GPUs; turn it off for timed runs.

The queue path and the legacy default stream: on a GPU PE with peers
reached through the queue path (gshmem.torch.queue_path_peers()), a
forward or backward issued on the legacy default stream (torch's default)
returns only once its stream work is done (a host synchronization of the
stream). Otherwise a tensor.cpu() of the output right after it would wait
for the kernel inside a synchronous copy, CUDA would hold the engine's
copies back, and the kernel would wait forever for the data they bring
(gshmem.torch's docstring; docs/DESIGN.md, "The legacy default stream").
On a stream of your own, or with P2P peers only, the call returns at once.

Backward (weights that require grad, grad mode on): the gradient of the
output goes back to the tables' owners the way the forward's rows came
(each PE puts its B/P samples' columns of each owner's tables into the
owner's symmetric gradient buffer, then a barrier: in stream order on
GPUs), and each PE adds every bag's gradient row into the rows of its
bag (index_add_, fp32; the weights' dtype at the end): what EmbeddingBag
(mode "sum") + all_to_all_single give. It is collective, like forward:
every PE runs backward for every forward that recorded a graph. Its
buffers, both symmetric (a peer reached through the queue path gets puts
whose source the engine reads, and it reads only symmetric or registered
memory), are allocated at the first forward that records a graph: the
gradients in (B x the largest local table count x D fp32) and out, laid
out by owner (B/P x T x D fp32).
"""
import contextlib
import ctypes
import weakref

import torch

from . import _runtime as rt
from ._lib import op_lib
from ._runtime import S, fail

_NAME = "dlrm_embedding_all_to_all"
_CALL = "dlrm_embedding_all_to_all"
_DTYPES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}   # dlrm_dtype_t
_ops = {}                      # handle -> weakref of DlrmEmbeddingAllToAll
_library = None                # torch.library.Library("gshmem"), once per process


def dlrm_local_tables(T, P, pe):
    """(t0, tn): the global tables [t0, t0 + tn) of PE pe (apps/dlrm/dlrm_plan.h:
    T // P each, the first T % P PEs one more)."""
    return pe * (T // P) + min(pe, T % P), T // P + (1 if pe < T % P else 0)


def dlrm_inputs(offsets, indices):
    """The op's (offsets [tn, B + 1], indices) from per-table EmbeddingBag
    inputs: offsets[t] ([B + 1], include_last_offset=True, from 0) and
    indices[t] of local table t (one copy of each)."""
    starts, at = [], 0
    for i in indices:
        starts.append(at)
        at += i.numel()
    return (torch.stack([o + s for o, s in zip(offsets, starts)]).contiguous(),
            torch.cat(list(indices)))


def _on(dev):
    """The CUDA device context of dev (nothing for the CPU)."""
    return torch.cuda.device(dev) if dev.type == "cuda" else contextlib.nullcontext()


def _expect(cond, what):
    if not cond:
        fail(_CALL, what)


def _check_tensor(name, t, dtype, dim, device):
    """t is a contiguous torch.Tensor of dtype, dim dimensions, on device
    (the messages are formatted only on failure: this runs every forward)."""
    if not isinstance(t, torch.Tensor):
        fail(_CALL, "%s is a %s, not a torch.Tensor" % (name, type(t).__name__))
    if t.dtype != dtype:
        fail(_CALL, "%s has dtype %s, expected %s" % (name, t.dtype, dtype))
    if t.dim() != dim:
        fail(_CALL, "%s has %d dimensions (shape %s), expected %d"
             % (name, t.dim(), tuple(t.shape), dim))
    if t.device != device:
        fail(_CALL, "%s is on %s, the op's tensors on %s" % (name, t.device, device))
    if not t.is_contiguous():
        fail(_CALL, "%s is not contiguous (strides %s)" % (name, t.stride()))


def _check_values(op, offsets, indices):
    """offsets non-decreasing inside indices; indices inside their tables
    (one host synchronisation)."""
    nnz = indices.numel()
    o_min, o_max = int(offsets.min()), int(offsets.max())
    s_min = int((offsets[:, 1:] - offsets[:, :-1]).min()) if op.B else 0
    _expect(o_min >= 0 and o_max <= nnz and s_min >= 0,
            "offsets must be non-decreasing positions in indices [0, %d]: min %d, max %d, "
            "smallest step %d" % (nnz, o_min, o_max, s_min))
    zero = indices.new_zeros(())
    spans = zip(offsets[:, 0].tolist(), offsets[:, -1].tolist())
    ends = [(indices[a:b].min(), indices[a:b].max()) if b > a else (zero, zero)
            for a, b in spans]
    for t, (lo, hi) in enumerate(torch.stack([torch.stack(e) for e in ends]).tolist()):
        _expect(lo >= 0 and hi < op.table_rows[t], "indices of local table %d (global %d) "
                "must be in [0, %d): min %d, max %d" % (t, op.t0 + t, op.table_rows[t], lo, hi))


def _forward(handle, weights, offsets, indices, out):
    """The op's kernel (CPU and CUDA dispatch keys): checks, then the C call
    (which runs on the op's GPU whatever device is current)."""
    ref = _ops.get(handle)
    op = ref() if ref is not None else None
    if op is None:
        fail(_CALL, "handle %d is not a live DlrmEmbeddingAllToAll (closed?)" % handle)
    if weights.data_ptr() != op.weights.data_ptr() or out.data_ptr() != op.out.data_ptr():
        fail(_CALL, "weights and out must be the module's own tensors")
    dev = op.out.device
    _check_tensor("offsets", offsets, torch.int64, 2, dev)
    _check_tensor("indices", indices, torch.int64, 1, dev)
    if offsets.shape != op.offsets_shape:
        fail(_CALL, "offsets has shape %s, expected (local tables %d, batch + 1 = %d)"
             % (tuple(offsets.shape), op.tn, op.B + 1))
    if op.check:
        _check_values(op, offsets, indices)
    stream = op._stream(dev.index) if op._stream is not None else None
    if op._fwd(op._c, offsets.data_ptr(), indices.data_ptr(), stream, op._why,
               len(op._why)) == 0:
        fail(_CALL, "forward failed: %s" % op._why.value.decode())
    op._settle(stream)
    return out


def _register():
    """Defines gshmem::dlrm_embedding_all_to_all once per process, with
    torch.library calls that both torch 1.13 and 2.x have."""
    global _library
    if _library is not None:
        return
    lib = torch.library.Library("gshmem", "DEF")
    lib.define(_NAME + "(int handle, Tensor weights, Tensor offsets, Tensor indices, "
               "Tensor(a!) out) -> Tensor(a!)")
    lib.impl(_NAME, _forward, "CPU")
    lib.impl(_NAME, _forward, "CUDA")
    lib.impl(_NAME, lambda handle, weights, offsets, indices, out: out, "Meta")
    _library = lib


class _Autograd(torch.autograd.Function):
    """The op with a weight gradient (see the module's docstring)."""

    @staticmethod
    def forward(ctx, weights, offsets, indices, op):
        ctx.op = op
        ctx.save_for_backward(offsets, indices)
        out = torch.ops.gshmem.dlrm_embedding_all_to_all(op.handle, weights, offsets, indices,
                                                         op.out)
        return out.view(out.shape)   # a view: op.out itself stays a plain buffer

    @staticmethod
    def backward(ctx, grad_out):
        offsets, indices = ctx.saved_tensors
        return ctx.op._weight_grad(grad_out, offsets, indices), None, None, None


class DlrmEmbeddingAllToAll(torch.nn.Module):
    """Collective. num_tables T (global), batch B (global, B % P == 0), dim
    D (D % 4 == 0); weights: this PE's tables' rows one table after another,
    [sum(table_rows), D] of float32, float16 or bfloat16, on the heap's
    device (cuda:k for a CUDA heap, cpu for a host heap); table_rows: rows
    of each of this PE's tn tables. slice_rows: samples per slice (the unit
    sent to a PE); threads: CPU PEs' threads per PE; mean_bag: expected
    mean bag length (sizes the work items; 0: unknown)."""

    def __init__(self, num_tables, batch, dim, weights, table_rows, slice_rows=32, threads=1,
                 mean_bag=0.0, check=True):
        super().__init__()
        from . import torch as gt
        rt.require(_CALL)
        _register()
        self.T, self.B, self.D, self.P = int(num_tables), int(batch), int(dim), S.npes
        _expect(self.T >= self.P, "%d tables for %d PEs: every PE needs a table"
                % (self.T, self.P))
        _expect(self.B > 0 and self.B % self.P == 0, "batch %d is not a positive multiple of "
                "%d PEs" % (self.B, self.P))
        _expect(self.D > 0 and self.D % 4 == 0, "dim %d is not a positive multiple of 4"
                % self.D)
        self.t0, self.tn = dlrm_local_tables(self.T, self.P, S.me)
        self.table_rows = [int(r) for r in table_rows]
        _expect(len(self.table_rows) == self.tn and min(self.table_rows) > 0,
                "table_rows %s: expected %d positive row counts (PE %d holds tables %d..%d)"
                % (self.table_rows, self.tn, S.me, self.t0, self.t0 + self.tn - 1))
        dev = gt.heap_device()
        _expect(isinstance(weights, torch.Tensor), "weights is a %s, not a torch.Tensor"
                % type(weights).__name__)
        _expect(weights.dtype in _DTYPES, "weights has dtype %s, expected torch.float32, "
                "torch.float16 or torch.bfloat16" % weights.dtype)
        _check_tensor("weights", weights, weights.dtype, 2, dev)
        _expect(tuple(weights.shape) == (sum(self.table_rows), self.D),
                "weights has shape %s, expected (sum of table_rows = %d, dim %d)"
                % (tuple(weights.shape), sum(self.table_rows), self.D))
        _expect(weights.data_ptr() % 16 == 0, "weights must be 16-byte aligned (a fresh "
                "tensor is; a view at an odd offset is not)")
        self.check = check
        self.register_buffer("weights", weights, persistent=False)
        self.wrow = torch.tensor([0] + self.table_rows, dtype=torch.int64).cumsum(0).to(dev)
        self.out = gt.zeros((self.B // self.P, self.T * self.D), torch.float32, dev)
        why = ctypes.create_string_buffer(512)
        with _on(dev):   # the kernel's grid is sized on the current device
            self._c = op_lib().dlrm_op_create(int(dev.type == "cuda"), self.T, self.B, self.D,
                                              _DTYPES[weights.dtype], slice_rows, threads,
                                              weights.data_ptr(), self.wrow.data_ptr(),
                                              self.out.data_ptr(), float(mean_bag), why,
                                              len(why))
        _expect(self._c, "create failed: %s" % why.value.decode())
        self._gin = self._gout = None   # the backward's buffers (symmetric), at the first need
        self._fwd, self._why = op_lib().dlrm_op_forward, ctypes.create_string_buffer(512)
        self._stream = gt.current_stream_handle if dev.type == "cuda" else None
        self._queue = dev.type == "cuda" and bool(gt.queue_path_peers())
        self.offsets_shape = torch.Size((self.tn, self.B + 1))
        self.handle = int(self._c)
        _ops[self.handle] = weakref.ref(self)

    def _settle(self, stream):
        """Waits on the host for the op's stream work when the stream is the
        legacy default stream and some peer is on the queue path (see the
        module's docstring)."""
        if not self._queue:   # every forward passes here: nothing more for P2P peers
            return
        from . import torch as gt
        if gt.on_legacy_stream(stream):
            torch.cuda.current_stream(self.out.device).synchronize()

    def forward(self, offsets, indices):
        _expect(self._c is not None, "the op was closed")
        if torch.is_grad_enabled() and self.weights.requires_grad:
            if self._gin is None:   # collective, like the forward itself
                from . import torch as gt
                tmax = dlrm_local_tables(self.T, self.P, 0)[1]
                self._gin = gt.empty((self.B * tmax * self.D,), torch.float32,
                                     self.out.device)
                self._gout = gt.empty((self.B // self.P * self.T * self.D,), torch.float32,
                                      self.out.device)
            return _Autograd.apply(self.weights, offsets, indices, self)
        return torch.ops.gshmem.dlrm_embedding_all_to_all(self.handle, self.weights, offsets,
                                                          indices, self.out)

    def _weight_grad(self, grad_out, offsets, indices):
        """The weights' gradient from the output's (collective)."""
        from . import torch as gt
        T, B, D, P, bp = self.T, self.B, self.D, self.P, self.B // self.P
        for p in range(P):   # my samples' columns of p's tables, into p's buffer at my slot
            t0, tn = dlrm_local_tables(T, P, p)
            at = S.me * bp * tn * D
            # the source symmetric too: the queue path's engine reads only the
            # heap and registered memory (a torch temporary was rejected there)
            send = self._gout[bp * t0 * D:bp * (t0 + tn) * D]
            send.view(bp, tn * D).copy_(grad_out[:, t0 * D:(t0 + tn) * D])
            gt.put(self._gin[at:at + bp * tn * D], send, p, _warn=False)
        gt.barrier(_warn=False)   # every PE's puts delivered (stream-ordered on GPUs)
        stream = self._stream(self.out.device.index) if self._stream is not None else None
        self._settle(stream)      # before int(counts.sum()) below reads on the host
        pooled = self._gin[:B * self.tn * D].view(B, self.tn, D)   # [sample][local table]
        starts = offsets[:, :-1].reshape(-1)                        # bag k = table * B + sample
        counts = (offsets[:, 1:] - offsets[:, :-1]).reshape(-1)
        n = int(counts.sum())
        bag = torch.repeat_interleave(torch.arange(counts.numel(), device=counts.device),
                                      counts, output_size=n)
        pos = torch.arange(n, device=counts.device) + (starts - (counts.cumsum(0) - counts))[bag]
        table, sample = bag // B, bag % B
        rows = self.wrow[:-1][table] + indices[pos]
        grad = torch.zeros(self.weights.shape, dtype=torch.float32, device=self.out.device)
        grad.index_add_(0, rows, pooled[sample, table])
        gt.barrier(_warn=False)   # no PE's next backward puts into a buffer still being read
        grad = grad.to(self.weights.dtype)
        self._settle(stream)
        return grad

    def close(self):
        """Collective: frees the op's symmetric buffers (staging, signals);
        self.out goes with its last reference."""
        if self._c is not None:
            _ops.pop(self.handle, None)
            op_lib().dlrm_op_destroy(self._c)
            self._c = None
            self._gin = self._gout = None
