#!/usr/bin/env python3
"""nccl_sock_bw.py: NCCL's socket transport between 2 GPUs of this host (P2P,
SHM and IB off, sockets on lo), the anchor of queue_bw (BENCHMARKS.md):
one direction, rank 0 sends SIZE bytes to rank 1 (send/recv), and
all_to_all_single of SIZE bytes per peer (both directions at once).
Each row: the median of ITERS timed repetitions (after WARMUP), each one
operation after a barrier, timed with CUDA events on both ranks, the
larger of the two (the receiver's: a send can complete before its bytes
arrive); the received bytes are checked once per size before timing.

    python3 scripts/nccl_sock_bw.py [-b 4K] [-e 256M] [-n 20] [-w 3] [-o out.csv]

Needs PyTorch with CUDA and 2 GPUs (the GPU machine's Python environment).
"""
import argparse
import os

from nccl_timing import emit_csv, median_us, parse_size   # scripts/nccl_timing.py


def worker(rank, args, port):
    import torch
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), NCCL_P2P_DISABLE="1",
                      NCCL_SHM_DISABLE="1", NCCL_IB_DISABLE="1", NCCL_SOCKET_IFNAME="lo",
                      NCCL_NVLS_ENABLE="0")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=2,
                            device_id=torch.device("cuda", rank))
    rows = []
    size = args.b
    while size <= args.e:
        n = size // 4
        src = torch.arange(n, dtype=torch.int32, device="cuda") * 3 + rank * 7 + 1
        dst = torch.zeros(n, dtype=torch.int32, device="cuda")
        a2a_src = torch.cat([src, src + 5])
        a2a_dst = torch.zeros(2 * n, dtype=torch.int32, device="cuda")

        def p2p():
            if rank == 0:
                dist.send(src, 1)
            else:
                dist.recv(dst, 0)

        def a2a():
            dist.all_to_all_single(a2a_dst, a2a_src)

        # checks before timing
        p2p()
        torch.cuda.synchronize()
        if rank == 1:
            want = torch.arange(n, dtype=torch.int32, device="cuda") * 3 + 1
            assert torch.equal(dst, want), "send/recv: wrong data at %d B" % size
        a2a()
        torch.cuda.synchronize()
        peer = 1 - rank
        want_other = torch.arange(n, dtype=torch.int32, device="cuda") * 3 + peer * 7 + 1 + \
            (5 if rank == 1 else 0)
        got_other = a2a_dst[peer * n:(peer + 1) * n]
        assert torch.equal(got_other, want_other), "all_to_all: wrong data at %d B" % size

        res = {}
        for name, fn in (("sendrecv", p2p), ("alltoall", a2a)):
            res[name] = median_us(dist, torch, fn, args.w, args.n)
        if rank == 0:
            rows.append((size, res["sendrecv"], res["alltoall"]))
        size *= 2
    if rank == 0:
        out = ["size(B),sendrecv_us,sendrecv_GBps,alltoall_us,alltoall_GBps_per_direction"]
        for size, sr, aa in rows:
            out.append("%d,%.1f,%.3f,%.1f,%.3f" % (size, sr, size / sr / 1e3, aa, size / aa / 1e3))
        emit_csv(out, args.o)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-b", type=parse_size, default=4 << 10)
    ap.add_argument("-e", type=parse_size, default=256 << 20)
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("-w", type=int, default=3)
    ap.add_argument("-o", default="")
    args = ap.parse_args()
    import torch.multiprocessing as mp
    mp.spawn(worker, args=(args, 29500 + os.getpid() % 1000), nprocs=2, join=True)


if __name__ == "__main__":
    main()
