#!/usr/bin/env python3
"""torch_example.py: one forward step of a model-parallel DLRM embedding
stage, done two ways on the same inputs in one script:

  torch   nn.EmbeddingBag over this PE's tables -> dist.all_to_all_single ->
          permute into [B/P, T*D] (torch_baseline.py's step, --emb fused:
          one EmbeddingBag over the concatenated tables, or --emb table)
  gshmem  the fused embedding + all-to-all op (gshmem.torch's
          DlrmEmbeddingAllToAll: torch.ops.gshmem.dlrm_embedding_all_to_all),
          whose output is its symmetric tensor

It checks that the two agree on every element (and with --check both
against torch_baseline.py's fp64 reference), then times both (median over
--iters of the per-iteration maximum over PEs) and prints both times.

  gshmemrun -n P python3 apps/dlrm/torch_example.py --config tiny|W|S|G|custom
      [torch_baseline.py's flags: --tables-per-pe, --tables, --rows, --dim,
       --batch, --lmax, --fixed-l, --seed, --iters, --warmup, --emb, --check]
  torchrun --standalone --nproc_per_node P apps/dlrm/torch_example.py ...

The processes are gshmem's PEs (gshmemrun; torchrun on one node, whose
RANK is the PE: gshmem.init starts gshmemrun --serve for them; or mpirun /
srun with gshmem's mpi or pmix bootstrap). torch.distributed runs over the
same processes: gshmem.torch.init_process_group() gives rank = PE, under
torchrun its own rendezvous (env://), else one on 127.0.0.1 at a port PE 0
finds free and broadcasts through gshmem; gloo on CPU PEs (host
heap), NCCL on GPUs (CUDA heap, one GPU per PE). On CPU PEs each PE gets
cores / P threads, for torch's pooling and the op's alike. The symmetric
heap is sized for the largest point unless GSHMEM_SYMMETRIC_SIZE is set.
"""
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

import torch_baseline as tb

# PYTHONPATH first (<build>/python, or an install); else the source tree's
# package, which then finds libgshmem through GSHMEM_LIB
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gshmem                 # noqa: E402
import gshmem.torch as gt     # noqa: E402


def time_step(step, args, dev):
    """Per-iteration time (ms), each iteration started together on all PEs;
    returns the median of the per-iteration maxima over PEs."""
    cuda = dev.type == "cuda"
    for _ in range(args.warmup):
        step()
    times = []
    for _ in range(args.iters):
        if cuda:
            torch.cuda.synchronize(dev)
        dist.barrier()
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            step()
            times.append((time.perf_counter() - t0) * 1e3)
    t = torch.tensor(times, dtype=torch.float64, device=dev if cuda else "cpu")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return statistics.median(t.cpu().tolist())


def max_over_pes(x, dev):
    t = torch.tensor([x], dtype=torch.float64, device=dev if dev.type == "cuda" else "cpu")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def make_op(pt, inp, **kw):
    """The op's inputs and module for point pt over torch_baseline's inputs
    inp (this PE's tables): (offsets, indices, op); kw: the module's."""
    offsets, indices = gt.dlrm_inputs(inp["offs"], inp["idxs"])
    mean_bag = pt["lmax"] if pt["fixed"] else (pt["lmax"] + 1) / 2
    op = gt.DlrmEmbeddingAllToAll(pt["T"], pt["B"], pt["D"], inp["weight"],
                                  [pt["rows"]] * pt["Tl"], mean_bag=mean_bag, **kw)
    return offsets, indices, op


def run_point(pt, args, dev, threads):
    """Both ways on one configuration; returns the table row (PE 0 prints it)."""
    T, P, rank = pt["T"], pt["P"], pt["rank"]
    pt["t0"], pt["Tl"] = tb.local_tables(T, P, rank)
    inp = tb.build_inputs(pt, dev)
    torch_step = tb.make_step(pt, inp, "table" if args.emb == "table" else "fused")
    offsets, indices, op = make_op(pt, inp, threads=threads)
    ref = torch_step()
    got = op(offsets, indices)            # checks the inputs' values, this once
    diff = max_over_pes((got - ref).abs().max().item(), dev)
    tol = max(1e-5, 0.5 * pt["lmax"] * pt["lmax"] * 2.0 ** -24)
    err = max_over_pes(max(tb.compare(got, pt, True), tb.compare(ref, pt, True)), dev) \
        if args.check else None
    ok = diff <= tol and (err is None or err <= tol)
    row = "%-6s %2d %5d %8d %4d %6d %5d" % (pt["config"], P, T, pt["rows"], pt["D"], pt["B"],
                                            pt["lmax"])
    if not ok:
        op.close()
        return ok, "%s FAILED: max |gshmem - torch| %.3g, vs fp64 %s (tol %.3g)" % (
            row, diff, "-" if err is None else "%.3g" % err, tol)
    op.check = False                      # timed forwards: no host-side input checks
    t_torch = time_step(torch_step, args, dev)
    t_gshmem = time_step(lambda: op(offsets, indices), args, dev)
    op.close()
    return ok, "%s %10.4f %10.4f %8.2f %10.2g %s" % (row, t_torch, t_gshmem, t_torch / t_gshmem,
                                                    diff, "OK+ref" if args.check else "OK")


def heap_bytes(args):
    """Symmetric heap for the largest point: the op's output [B/P, T*D] and
    staging [B, tmax*D] floats, each at most B*T*D*4 bytes at P = 1 (with
    --tables-per-pe the same at any P), plus 64 MiB."""
    return max(2 * pt["B"] * pt["T"] * pt["D"] * 4 for pt in tb.points(args, 1, 0)) + (64 << 20)


def main(argv=None):
    args = tb.parse_args(argv)
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")   # the GPU machine's rule
    os.environ.setdefault("GSHMEM_SYMMETRIC_SIZE", "%dM" % (heap_bytes(args) >> 20))
    gshmem.init()
    dev = gt.heap_device()
    P, rank = gshmem.n_pes(), gshmem.my_pe()
    threads = max(1, (os.cpu_count() or 1) // P)
    if dev.type == "cuda":
        torch.cuda.set_device(dev)
    else:
        torch.set_num_threads(threads)
    gt.init_process_group()
    try:
        pts = tb.points(args, P, rank)
    except ValueError as e:
        if rank == 0:
            print("torch_example: %s" % e, file=sys.stderr)
        return 2
    if rank == 0:
        where = (torch.cuda.get_device_name(dev) + ", NCCL") if dev.type == "cuda" else \
            "CPU PEs (host heap, %d thread%s each), gloo" % (threads, "s"[threads == 1:])
        print("torch_example: P=%d, %s, torch %s; iters %d warmup %d; times: median of the "
              "max over PEs" % (P, where, torch.__version__, args.iters, args.warmup))
        print("%-6s %2s %5s %8s %4s %6s %5s %10s %10s %8s %10s %s" % (
            "config", "P", "T", "rows", "D", "B", "Lmax", "torch_ms", "gshmem_ms", "speedup",
            "max|diff|", "check"), flush=True)
    good = True
    with torch.no_grad():
        for pt in pts:
            ok, row = run_point(pt, args, dev, threads)
            good = good and ok
            if rank == 0:
                print(row, flush=True)
    if rank == 0:
        print("torch_example: %s" % ("OK" if good else "FAILED (the two ways disagree)"),
              flush=True)
    dist.destroy_process_group()
    gshmem.finalize()
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
