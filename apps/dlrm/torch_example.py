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
against torch_baseline.py's fp64 reference), then times both, each of the
ways of TIMINGS (--timing all, the default on GPUs, or one of them; CPU
PEs: wall, on the host clock), and prints both times and their ratio:

  wall     the stream idle, a host barrier (dist.barrier), CUDA events
           around the step: the host's time to enqueue the step and the
           PEs' exit skew from the host barrier count (both ways pay the
           skew: an all-to-all ends after its last PE starts); the median
           over --iters of the per-iteration maximum over PEs
  aligned  gshmem-dlrm's way (BENCHMARKS.md, the C app's 2.5-3.1x): a host
           barrier, gshmem's on-stream barrier, a 300 us GPU spin while the
           host enqueues the step, then the events: the GPU time of the step,
           every PE starting together; median of the maxima as above
  piped    --iters steps back to back after a host barrier, one pair of
           events around them, / --iters (a training loop: the host enqueues
           ahead of the GPU); the median of 3 such runs' maxima over PEs

  gshmemrun -n P python3 apps/dlrm/torch_example.py --config tiny|W|S|G|custom
      [--timing all|wall|aligned|piped]
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
import argparse
import math
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

TIMINGS = ("wall", "aligned", "piped")   # the docstring says what each times


def max_median(times, dev):
    """The median over iterations of the per-iteration maximum over PEs."""
    t = torch.tensor(times, dtype=torch.float64, device=dev if dev.type == "cuda" else "cpu")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return statistics.median(t.cpu().tolist())


def events():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def aligned_lead(dev, spin_us=300.0):
    """The aligned way's lead (see TIMINGS): gshmem's on-stream barrier,
    then a GPU spin of spin_us while the host enqueues the step."""
    khz = getattr(torch.cuda.get_device_properties(dev), "clock_rate", 1980000)
    cycles = int(spin_us * khz / 1000)

    def lead():
        gt.barrier()
        torch.cuda._sleep(cycles)
    return lead


def time_events(step, iters, dev, lead=None):
    """Per-iteration ms of step on the stream: idle stream, host barrier,
    lead() if any, CUDA events around the step (CPU PEs: the host clock)."""
    cuda = dev.type == "cuda"
    times = []
    for _ in range(iters):
        if cuda:
            torch.cuda.synchronize(dev)
        dist.barrier()
        if not cuda:
            t0 = time.perf_counter()
            step()
            times.append((time.perf_counter() - t0) * 1e3)
            continue
        if lead is not None:
            lead()
        start, end = events()
        start.record()
        step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return max_median(times, dev)


def time_piped(step, iters, dev, rounds=3):
    """ms per step of iters steps back to back after one host barrier (one
    pair of events around them); the median of rounds such runs."""
    per = []
    for _ in range(rounds):
        torch.cuda.synchronize(dev)
        dist.barrier()
        start, end = events()
        start.record()
        for _ in range(iters):
            step()
        end.record()
        end.synchronize()
        per.append(start.elapsed_time(end) / iters)
    return max_median(per, dev)


def time_step(step, args, dev, way):
    """One timing of step (warmed up before): way in TIMINGS."""
    if way == "wall":
        return time_events(step, args.iters, dev)
    if way == "aligned":
        return time_events(step, args.iters, dev, aligned_lead(dev))
    return time_piped(step, args.iters, dev)


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
    """Both ways on one configuration: (agree, the table row PE 0 prints,
    {timing: torch / gshmem})."""
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
    speedups = {}
    row = "%-6s %2d %5d %8d %4d %6d %5d" % (pt["config"], P, T, pt["rows"], pt["D"], pt["B"],
                                            pt["lmax"])
    if not ok:
        op.close()
        return ok, "%s FAILED: max |gshmem - torch| %.3g, vs fp64 %s (tol %.3g)" % (
            row, diff, "-" if err is None else "%.3g" % err, tol), speedups
    op.check = False                      # timed forwards: no host-side input checks
    def gshmem_step():
        return op(offsets, indices)

    for _ in range(args.warmup):
        torch_step()
        gshmem_step()
    for way in args.timings:
        t_torch, t_gshmem = time_step(torch_step, args, dev, way), \
            time_step(gshmem_step, args, dev, way)
        row += " %9.4f %9.4f %6.2f" % (t_torch, t_gshmem, t_torch / t_gshmem)
        speedups[way] = t_torch / t_gshmem
    op.close()
    return ok, "%s %10.2g %s" % (row, diff, "OK+ref" if args.check else "OK"), speedups


def heap_bytes(args):
    """Symmetric heap for the largest point: the op's output [B/P, T*D] and
    staging [B, tmax*D] floats, each at most B*T*D*4 bytes at P = 1 (with
    --tables-per-pe the same at any P), plus 64 MiB."""
    return max(2 * pt["B"] * pt["T"] * pt["D"] * 4 for pt in tb.points(args, 1, 0)) + (64 << 20)


def parse_args(argv):
    """torch_baseline.py's flags, and --timing (see TIMINGS)."""
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--timing", default="all", choices=["all"] + list(TIMINGS))
    if "-h" in argv or "--help" in argv:
        print("torch_example.py [--timing all|wall|aligned|piped] (default all; see the "
              "docstring), then torch_baseline.py's flags:")
    own, rest = ap.parse_known_args(argv)
    args = tb.parse_args(rest)
    args.timings = list(TIMINGS) if own.timing == "all" else [own.timing]
    return args


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
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
        args.timings = ["wall"]   # the others time the GPU's stream
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
              "max over PEs, ms, timed %s (see the docstring)"
              % (P, where, torch.__version__, args.iters, args.warmup, ", ".join(args.timings)))
        print("%42s" % "" + "".join(" %-26s" % ("-- %s " % w).ljust(26, "-")
                                    for w in args.timings))
        print("%-6s %2s %5s %8s %4s %6s %5s" % ("config", "P", "T", "rows", "D", "B", "Lmax") +
              " %9s %9s %6s" % ("torch", "gshmem", "x") * len(args.timings) +
              " %10s %s" % ("max|diff|", "check"), flush=True)
    good, speedups = True, []
    with torch.no_grad():
        for pt in pts:
            ok, row, sp = run_point(pt, args, dev, threads)
            good = good and ok
            speedups.append(sp)
            if rank == 0:
                print(row, flush=True)
    if rank == 0 and good:
        print("torch_example: speedup torch / gshmem over %d point%s: " % (
            len(pts), "s"[len(pts) == 1:]) + "; ".join(
            "%s geomean %.2f, min %.2f, >= 2.5 at %d" % (
                w, geomean([s[w] for s in speedups]), min(s[w] for s in speedups),
                sum(s[w] >= 2.5 for s in speedups)) for w in args.timings), flush=True)
    if rank == 0:
        print("torch_example: %s" % ("OK" if good else "FAILED (the two ways disagree)"),
              flush=True)
    dist.destroy_process_group()
    gshmem.finalize()
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
