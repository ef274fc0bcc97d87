"""nccl_timing.py: the timing loop the NCCL baselines share
(scripts/nccl_coll.py, scripts/nccl_sock_bw.py): after `warmup` untimed
calls, `iters` samples of one call between two CUDA events, each after a
barrier; a sample is the max over ranks; returns the median in us."""
import statistics


def median_us(dist, torch, fn, warmup, iters):
    times = []
    for it in range(warmup + iters):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = torch.cuda.Event(enable_timing=True)
        t1 = torch.cuda.Event(enable_timing=True)
        t0.record()
        fn()
        t1.record()
        t1.synchronize()
        if it >= warmup:
            times.append(t0.elapsed_time(t1) * 1e3)   # us
    t = torch.tensor(times, dtype=torch.float64, device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return statistics.median(t.tolist())
