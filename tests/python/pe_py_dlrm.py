"""pe_py_dlrm.py: the torch op gshmem::dlrm_embedding_all_to_all (the fused
DLRM embedding + all-to-all) against an fp64 reference of PyTorch ops, on
the heap the PE got (CPU PEs in CI, GPUs on a GPU machine): fp32, fp16 and
bf16 weights, tables that do not split evenly, a short last slice, several
forwards on one module (the output is the module's symmetric tensor,
poisoned before each and rewritten in place), the errors of misuse, and
the weights' gradient (backward) against an fp64 reference of plain loops.
Inputs and reference: apps/dlrm/torch_baseline.py's generator and
compare() (reference_block: every bag of every table, in fp64).
Run: gshmemrun -n N python3 pe_py_dlrm.py [host|cuda|auto] (default host)."""
import sys
import time

import torch

import gshmem
import gshmem.torch as gt
from gshmem import GshmemError
from pecheck import check, expect_error, ok, torch_baseline

tb = torch_baseline()
gshmem.init(heap=sys.argv[1] if len(sys.argv) > 1 else "host")
me, P = gshmem.my_pe(), gshmem.n_pes()
dev = gt.heap_device()
if dev.type == "cuda":
    torch.cuda.set_device(dev)
TOL = 1e-5   # fp32 sums of <= 6 terms of |w| <= 0.5 against fp64


def case(T, B, D, rows, lmax, seed, wdtype=torch.float32):
    """The generator's point (torch_baseline's pt) of this PE."""
    t0, tn = gt.dlrm_local_tables(T, P, me)
    check((t0, tn) == tb.local_tables(T, P, me), "table split differs from torch_baseline's")
    return dict(T=T, B=B, D=D, P=P, rank=me, seed=seed, rows=rows, lmax=lmax, fixed=False,
                t0=t0, Tl=tn, wdtype=None if wdtype == torch.float32 else wdtype)


def op_inputs(pt):
    """The generator's tables (torch_baseline.build_inputs) and the op's
    (offsets, indices) made of them."""
    inp = tb.build_inputs(pt, dev)
    return (inp,) + gt.dlrm_inputs(inp["offs"], inp["idxs"])


def run_case(T, B, D, rows, lmax, wdtype, slice_rows, seed, forwards=1):
    """The op on one case, forwards times (the output poisoned with NaN
    before each: every element must be written again), each against the
    reference; returns the op and its inputs."""
    pt = case(T, B, D, rows, lmax, seed, wdtype)
    inp, offsets, indices = op_inputs(pt)
    op = gt.DlrmEmbeddingAllToAll(T, B, D, inp["weight"].to(wdtype), [rows] * pt["Tl"],
                                  slice_rows=slice_rows, threads=2, mean_bag=lmax / 2)
    for f in range(forwards):
        op.out.fill_(float("nan"))
        out = op(offsets, indices)
        check(out is op.out and out.data_ptr() == op.out.data_ptr(), "the output is a copy")
        check(out.shape == (B // P, T * D) and out.dtype == torch.float32 and out.device == dev,
              "output %s %s %s", tuple(out.shape), out.dtype, out.device)
        err = tb.compare(out, pt, True)
        check(err <= TOL, "T %d B %d D %d %s slice %d, forward %d: max |op - reference| = %.3g",
              T, B, D, wdtype, slice_rows, f + 1, err)
    return op, offsets, indices


# fp32, T % P != 0 (uneven tables), B/P not a multiple of the slice (a short last slice)
op, offsets, indices = run_case(2 * P + 1, 6 * P, 8, 40, 6, torch.float32, 4, 1, 3)
op.close()
for wdtype in (torch.float16, torch.bfloat16):
    run_case(P, 4 * P, 16, 30, 5, wdtype, 3, 2)[0].close()

def run_reuse(T, B, D, rows, lmax):
    """The reuse rule without the caller's help: PE 0 reads its output of
    forward 1 late (after a 0.2 s wait on its stream, or on the host for
    CPU PEs) while the others go straight on to forward 2 on other inputs;
    what PE 0 read must be forward 1's (the peers' rows of forward 2 wait
    for PE 0's forward: the GPU kernel's handshake, the CPU PEs' barrier)."""
    pts = [case(T, B, D, rows, lmax, seed) for seed in (11, 12)]
    ins = [op_inputs(pt) for pt in pts]
    op = gt.DlrmEmbeddingAllToAll(T, B, D, ins[0][0]["weight"], [rows] * pts[0]["Tl"],
                                  slice_rows=2, threads=2, mean_bag=lmax / 2)
    out = op(ins[0][1], ins[0][2])
    if me == 0:
        if dev.type == "cuda":
            torch.cuda._sleep(400000000)   # clock cycles: 0.2 s at 2 GHz
        else:
            time.sleep(0.2)
    kept = out.clone()
    op.weights.copy_(ins[1][0]["weight"])   # forward 2: the second seed's tables and bags
    op(ins[1][1], ins[1][2])
    err = tb.compare(kept, pts[0], True)
    check(err <= TOL, "PE %d read forward 1's output after peers started forward 2: max "
          "|output - forward 1's reference| = %.3g (overwritten by forward 2?)", me, err)
    check(tb.compare(op.out, pts[1], True) <= TOL, "forward 2 off its reference")
    op.close()


run_reuse(2 * P, 4 * P, 8, 50, 6)

# misuse: the op's call, the PE and the value are named
op, offsets, indices = run_case(P, 2 * P, 4, 10, 3, torch.float32, 32, 3)
W = ["gshmem.dlrm_embedding_all_to_all", "PE %d" % me]
expect_error(GshmemError, W + ["offsets", "torch.int32"], op, offsets.int(), indices)
expect_error(GshmemError, W + ["offsets", "shape"], op, offsets[:, :-1].contiguous(), indices)
expect_error(GshmemError, W + ["indices", "2 dimensions"], op, offsets, indices.view(1, -1))
bad = indices.clone()
bad[-1] = 10
expect_error(GshmemError, W + ["indices of local table", "[0, 10)", "max 10"], op, offsets, bad)
desc = offsets.clone()
desc[0, 1] = desc[0, 2] + 1
expect_error(GshmemError, W + ["non-decreasing"], op, desc, indices)
expect_error(GshmemError, W + ["batch 3", "%d PEs" % P], gt.DlrmEmbeddingAllToAll, P, 3, 4,
             torch.zeros(10, 4, device=dev), [10])
expect_error(GshmemError, W + ["dim 6"], gt.DlrmEmbeddingAllToAll, P, P, 6,
             torch.zeros(10, 6, device=dev), [10])
expect_error(GshmemError, W + ["weights has shape", "(11, 4)"], gt.DlrmEmbeddingAllToAll, P, P,
             4, torch.zeros(11, 4, device=dev), [10])
expect_error(GshmemError, W + ["weights has dtype"], gt.DlrmEmbeddingAllToAll, P, P, 4,
             torch.zeros(10, 4, dtype=torch.float64, device=dev), [10])
op.close()
del op


def grad_reference(pt, offsets, indices, rows, seed):
    """d/dw of sum over PEs q of (out_q * R_q).sum(), R_q drawn from (seed,
    q) on every PE, for this PE's tables: every bag's row of R added into
    its rows, in fp64 (plain loops: a second implementation)."""
    B, D, T, t0, tn, bp = pt["B"], pt["D"], pt["T"], pt["t0"], pt["Tl"], pt["B"] // P
    R = [torch.rand((bp, T * D), generator=torch.Generator().manual_seed(seed * 1000 + q),
                    dtype=torch.float64) for q in range(P)]
    ref = torch.zeros((tn * rows, D), dtype=torch.float64)
    o, ix = offsets.cpu().tolist(), indices.cpu().tolist()
    for t in range(tn):
        for b in range(B):
            r = R[b // bp][b % bp, (t0 + t) * D:(t0 + t + 1) * D]
            for j in range(o[t][b], o[t][b + 1]):
                ref[t * rows + ix[j]] += r
    return R[me], ref


def run_backward(T, B, D, rows, lmax, wdtype, seed, tol, steps=2):
    """The op's weight gradient against grad_reference, steps times on one
    module (the gradient buffer reused)."""
    pt = case(T, B, D, rows, lmax, seed, wdtype)
    inp, offsets, indices = op_inputs(pt)
    w = inp["weight"].to(wdtype).clone().requires_grad_()
    op = gt.DlrmEmbeddingAllToAll(T, B, D, w, [rows] * pt["Tl"], slice_rows=4, threads=2)
    R, ref = grad_reference(pt, offsets, indices, rows, seed)
    for s in range(steps):
        w.grad = None
        out = op(offsets, indices)
        check(out.data_ptr() == op.out.data_ptr(), "the output is a copy (grad mode)")
        check(tb.compare(out, pt, True) <= tol, "forward with grad: off the reference")
        (out * R.to(out)).sum().backward()
        check(w.grad is not None and w.grad.dtype == wdtype and w.grad.shape == w.shape,
              "grad %s", None if w.grad is None else (w.grad.dtype, tuple(w.grad.shape)))
        err = (w.grad.double().cpu() - ref).abs().max().item()
        scale = max(ref.abs().max().item(), 1.0)
        check(err <= tol * scale, "T %d B %d D %d %s step %d: max |grad - reference| = %.3g "
              "(scale %.3g)", T, B, D, wdtype, s + 1, err, scale)
    with torch.no_grad():   # no graph, no gradient
        check(op(offsets, indices).grad_fn is None, "a graph under no_grad")
    op.close()


run_backward(2 * P + 1, 6 * P, 8, 40, 6, torch.float32, 4, 1e-5)
run_backward(P, 4 * P, 16, 30, 5, torch.bfloat16, 5, 2e-2)

if dev.type == "cuda":
    # On a stream of the caller's own the op returns at once, queue-path
    # peers or not, and the .cpu() of compare() right after each forward or
    # backward goes through that stream (no legacy-default-stream copy to
    # hold the engine back). On the legacy default stream above, with
    # queue-path peers, the op synchronized itself: without that the first
    # compare() hung (PE 1's handshake never applied at PE 0).
    with torch.cuda.stream(torch.cuda.Stream()):
        run_case(2 * P + 1, 6 * P, 8, 40, 6, torch.float32, 4, 5, 3)[0].close()
        run_backward(P, 4 * P, 8, 30, 5, torch.float32, 6, 1e-5)
    torch.cuda.synchronize()
ok("pe_py_dlrm")
gshmem.finalize()
