#!/usr/bin/env python3
"""torch_op_profile.py: where the time of one forward step goes, for the
PyTorch baseline (EmbeddingBag + all_to_all_single + permute) and for the
gshmem op (torch.ops.gshmem.dlrm_embedding_all_to_all), on GPU PEs.

Four ways of timing each step, on the same inputs (times: median over
--iters of the max over PEs, in ms):

  wall, aligned, piped
            torch_example.py's three timings (its docstring; their code is
            torch_example's): the stream idle behind a host barrier; GPU time
            from an on-stream barrier and a PROFILE_SPIN_US (300) spin; steps
            back to back
  host_us   the host's time to return from step() (microseconds), the
            stream idle before it

and for the op two more rows: "ctypes" calls the op's C forward
(dlrm_op_forward) straight through ctypes, without torch.ops' dispatch and
the Python checks; "c+barr" puts gshmem's on-stream barrier before it (the
forward as it was before the kernel's handshake). PROFILE_WAYS picks rows
(default torch,op,ctypes,c+barr); PROFILE_HOST_LAYERS=0 skips the host
time per layer of the forward (a tiny case, first).

  gshmemrun -n P python3 apps/dlrm/tools/torch_op_profile.py --config G \
      --batch 512,8192 --tables-per-pe 32,256 --iters 20 --warmup 3
"""
import ctypes
import os
import sys
import time

import torch
import torch.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.append(os.path.join(HERE, "..", "..", "..", "python"))
import torch_baseline as tb    # noqa: E402
import torch_example as te     # noqa: E402
import gshmem                  # noqa: E402
import gshmem.torch as gt      # noqa: E402
from gshmem._lib import lib as glib, op_lib  # noqa: E402


def t_host(step, iters, dev):
    times = []
    for _ in range(iters):
        torch.cuda.synchronize(dev)
        dist.barrier()
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize(dev)
    return te.max_median(times, dev)


def profile(name, step, args, dev, spin_us):
    for _ in range(args.warmup):
        step()
    return [name, te.time_events(step, args.iters, dev),
            te.time_events(step, args.iters, dev, te.aligned_lead(dev, spin_us)),
            te.time_piped(step, args.iters, dev), t_host(step, args.iters, dev)]


def op_of(pt, dev):
    """Point pt's torch_baseline inputs and the op over them (as
    torch_example.py makes them): (inp, offsets, indices, op)."""
    pt["t0"], pt["Tl"] = tb.local_tables(pt["T"], pt["P"], pt["rank"])
    inp = tb.build_inputs(pt, dev)
    return (inp,) + te.make_op(pt, inp)


def c_forward(op, offsets, indices):
    """The op's C forward (dlrm_op_forward) through ctypes, on the stream
    given, without torch.ops and the Python checks."""
    fwd, c, o, i, why = op_lib().dlrm_op_forward, op._c, offsets.data_ptr(), \
        indices.data_ptr(), ctypes.create_string_buffer(512)
    return lambda stream: fwd(c, o, i, stream, why, len(why))


def profile_point(pt, args, dev, spin):
    """The rows of one point (None when the op and torch disagree)."""
    inp, offsets, indices, op = op_of(pt, dev)
    torch_step = tb.make_step(pt, inp, "fused")
    ref = torch_step()
    diff = te.max_over_pes((op(offsets, indices) - ref).abs().max().item(), dev)
    if diff > 1e-3:
        print("torch_op_profile: PE %d: the op and torch differ by %g" % (pt["rank"], diff),
              file=sys.stderr)
        return None
    op.check = False
    fwd, stream = c_forward(op, offsets, indices), gt.current_stream_handle

    def with_barrier():   # the forward of before the handshake: a barrier kernel first
        s = stream(dev.index)
        glib.gshmemx_barrier_all_on_stream(s)
        fwd(s)

    ways = {"torch": torch_step, "op": lambda: op(offsets, indices),
            "ctypes": lambda: fwd(stream(dev.index)), "c+barr": with_barrier}
    pick = os.environ.get("PROFILE_WAYS", "torch,op,ctypes,c+barr").split(",")
    res = [profile(w, ways[w], args, dev, spin) for w in pick]
    op.close()
    return res


def host_layers(dev, calls=2000):
    """Host time per call (us, median of 5 rounds of `calls` back-to-back
    calls) of each layer of the op's forward, on a tiny case (the GPU keeps
    up): the C call through ctypes, the torch op's Python kernel called
    directly (checks, current stream, C call), the torch op through
    torch.ops' dispatcher, and the module."""
    from gshmem import _dlrm_op
    P, rank = gshmem.n_pes(), gshmem.my_pe()
    pt = dict(tb.points(tb.parse_args(["--config", "tiny"]), P, rank)[0])
    pt.update(T=P, B=4 * P, lmax=2)
    _, offsets, indices, op = op_of(pt, dev)
    op.check = False
    fwd, s = c_forward(op, offsets, indices), gt.current_stream_handle(dev.index)
    layers = [("ctypes", lambda: fwd(s)),
              ("stream+ctypes", lambda: fwd(gt.current_stream_handle(dev.index))),
              ("kernel_py", lambda: _dlrm_op._forward(op.handle, op.weights, offsets, indices,
                                                      op.out)),
              ("torch.ops", lambda: torch.ops.gshmem.dlrm_embedding_all_to_all(
                  op.handle, op.weights, offsets, indices, op.out)),
              ("module", lambda: op(offsets, indices))]
    out = []
    for name, f in layers:
        rounds = []
        for _ in range(5):
            torch.cuda.synchronize(dev)
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            rounds.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize(dev)
        out.append((name, te.max_median(rounds, dev)))
    op.close()
    return out


def main():
    args = tb.parse_args(sys.argv[1:] + ([] if "--config" in sys.argv else ["--config", "G"]))
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    os.environ.setdefault("GSHMEM_SYMMETRIC_SIZE", "%dM" % (te.heap_bytes(args) >> 20))
    gshmem.init()
    dev = gt.heap_device()
    if dev.type != "cuda":
        print("torch_op_profile: needs GPU PEs (a CUDA heap)", file=sys.stderr)
        return 2
    torch.cuda.set_device(dev)
    gt.init_process_group()
    P, rank = gshmem.n_pes(), gshmem.my_pe()
    spin = float(os.environ.get("PROFILE_SPIN_US", "300"))
    if rank == 0:
        print("torch_op_profile: P=%d, %s, torch %s; iters %d warmup %d; ms (host_us in us)"
              % (P, torch.cuda.get_device_name(dev), torch.__version__, args.iters,
                 args.warmup))
        print("%5s %6s %-8s %10s %10s %10s %10s" % ("T", "B", "way", "wall_ms", "aligned_ms",
                                                    "piped_ms", "host_us"), flush=True)
    rows = []
    with torch.no_grad():
        if os.environ.get("PROFILE_HOST_LAYERS", "1") == "1":
            layers = host_layers(dev)
            if rank == 0:
                print("host time per forward call, tiny case (us): " + ", ".join(
                    "%s %.1f" % nt for nt in layers), flush=True)
        for pt in tb.points(args, P, rank):
            res = profile_point(pt, args, dev, spin)
            if res is None:
                return 1
            torch.cuda.empty_cache()
            if rank == 0:
                for r in res:
                    print("%5d %6d %-8s %10.4f %10.4f %10.4f %10.1f"
                          % ((pt["T"], pt["B"]) + tuple(r)), flush=True)
                rows.append((pt["T"], pt["B"], res))
    if rank == 0 and len(rows) and [r[0] for r in rows[0][2][:2]] == ["torch", "op"]:
        print("torch_op_profile: speedups torch/op (wall, aligned, piped):")
        for T, B, res in rows:
            t, o = res[0], res[1]
            print("  T %5d B %6d: %.2f %.2f %.2f" % (T, B, t[1] / o[1], t[2] / o[2],
                                                     t[3] / o[3]))
    dist.destroy_process_group()
    gshmem.finalize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
