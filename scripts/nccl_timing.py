"""nccl_timing.py: what the NCCL baselines share (scripts/nccl_coll.py,
scripts/nccl_sock_bw.py): sizes with K/M/G suffixes, the timing loop
(after `warmup` untimed calls, `iters` samples of one call between two CUDA
events, each after a barrier; a sample is the max over ranks; the median in
us) and the CSV they print and optionally write."""
import statistics
import sys


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper()
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def emit_csv(lines, path):
    """Prints the CSV lines and writes them to path too when it is set."""
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if path:
        with open(path, "w") as f:
            f.write(text)


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
