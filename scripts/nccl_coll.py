#!/usr/bin/env python3
"""nccl_coll.py: NCCL's all-reduce (float sum), broadcast (from rank 0) and
all_gather (gshmem's fcollect) between the GPUs of this host over its
default transports (NVLink here; NVLS off), the anchor of
gshmem-perf-dev-coll (docs/BENCHMARKS.md, team collectives). SIZE is the
bytes each rank contributes (all-reduce, all_gather) or the root sends.
Each row: the median of ITERS timed calls (after WARMUP), each one call
after a barrier, timed with CUDA events on every rank, the largest over
ranks; each size and op is checked once before timing (exact float sums,
the root's bytes, every rank's block).

    python3 scripts/nccl_coll.py [-p 2] [-b 8] [-e 256M] [-f 4] [-n 20] [-w 3] [-o out.csv]

Needs PyTorch with CUDA and P GPUs (the GPU machine's Python environment).
Output columns match gshmem-perf-dev-coll: size(B),op,median(us),GB/s with
op 0 = all-reduce, 1 = broadcast, 2 = all_gather (fcollect).
"""
import argparse
import os

from nccl_timing import emit_csv, median_us, parse_size   # scripts/nccl_timing.py


def sizes(args):
    s = args.b
    while s <= args.e:
        yield s
        s *= args.f


def worker(rank, args, port):
    import torch
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), NCCL_NVLS_ENABLE="0")
    p = args.p
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=p,
                            device_id=torch.device("cuda", rank))
    rows = []
    for op in (0, 1, 2):
        for size in sizes(args):
            n = max(size // 4, 1)
            nbytes = size if op != 0 else 4 * n
            if op == 0:
                i = torch.arange(n, device="cuda", dtype=torch.int64) % 61 + 1
                src = ((rank + 1) * i).to(torch.float32)
                want = (p * (p + 1) // 2 * i).to(torch.float32)
                buf = src.clone()
                fn = lambda: dist.all_reduce(buf)   # noqa: E731
                dist.all_reduce(buf)
                torch.cuda.synchronize()
                assert torch.equal(buf, want), "all_reduce: wrong sums at %d B" % size
            elif op == 1:
                g = torch.Generator(device="cuda").manual_seed(size)
                ref = torch.randint(0, 256, (size,), dtype=torch.uint8, device="cuda", generator=g)
                buf = ref.clone() if rank == 0 else torch.zeros(size, dtype=torch.uint8,
                                                                device="cuda")
                fn = lambda: dist.broadcast(buf, 0)   # noqa: E731
                dist.broadcast(buf, 0)
                torch.cuda.synchronize()
                assert torch.equal(buf, ref), "broadcast: wrong bytes at %d B" % size
            else:
                src = torch.full((size,), rank + 1, dtype=torch.uint8, device="cuda")
                out = torch.zeros(p * size, dtype=torch.uint8, device="cuda")
                fn = lambda: dist.all_gather_into_tensor(out, src)   # noqa: E731
                fn()
                torch.cuda.synchronize()
                want = torch.arange(1, p + 1, dtype=torch.uint8,
                                    device="cuda").repeat_interleave(size)
                assert torch.equal(out, want), "all_gather: wrong blocks at %d B" % size
            med = median_us(dist, torch, fn, args.w, args.n)
            rows.append((nbytes, op, med, nbytes / med / 1e3))
    if rank == 0:
        out = ["size(B),op,median(us),GB/s"]
        out += ["%d,%d,%.2f,%.3f" % r for r in rows]
        emit_csv(out, args.o)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-p", type=int, default=2)
    ap.add_argument("-b", type=parse_size, default=8)
    ap.add_argument("-e", type=parse_size, default=256 << 20)
    ap.add_argument("-f", type=int, default=4)
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("-w", type=int, default=3)
    ap.add_argument("-o", default="")
    args = ap.parse_args()
    import torch.multiprocessing as mp
    mp.spawn(worker, args=(args, 29500 + os.getpid() % 1000), nprocs=args.p, join=True)


if __name__ == "__main__":
    main()
