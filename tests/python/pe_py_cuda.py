"""pe_py_cuda.py: what only GPUs show of gshmem.torch: put_signal and
signal_wait ordered by the stream alone (the host never waits between the
rounds; a slow kernel before each put and poisoned slots would expose a
put that does not wait for its stream, or a wait that does not hold the
consumer), and the same exchange captured into a CUDA graph and replayed.
Exits 77 with "SKIP: <reason>" where PyTorch sees no GPU.
Run: gshmemrun -n N python3 pe_py_cuda.py (a CUDA build, one GPU per PE)."""
import sys

import torch

if not torch.cuda.is_available():
    print("SKIP: torch.cuda.is_available() is False (no GPU, or a CPU-only torch %s)"
          % torch.__version__, flush=True)
    sys.exit(77)

import gshmem                       # noqa: E402
import gshmem.torch as gt           # noqa: E402
from pecheck import check, ok       # noqa: E402

gshmem.init(heap="cuda")
me, n = gshmem.my_pe(), gshmem.n_pes()
right, left = (me + 1) % n, (me + n - 1) % n
dev = gt.heap_device()
check(dev.type == "cuda", "heap='cuda' gave a heap on %s", dev)
torch.cuda.set_device(dev)
ROUNDS, N, SPIN = 8, 1 << 16, 2_000_000   # SPIN: GPU cycles of torch.cuda._sleep (~1 ms)

# 1. stream order only: ROUNDS slots, signal r means slot r is in place
slots = gt.empty((ROUNDS, N), torch.float32)
slots.fill_(float("nan"))
sig = gt.zeros((1,), torch.int64)
got = torch.empty(ROUNDS, N, device=dev)
src = torch.empty(N, device=dev)
torch.cuda.synchronize()
gshmem.barrier_all()
for r in range(ROUNDS):
    torch.cuda._sleep(SPIN)                       # the producer is slow ...
    src.fill_(1000 * me + r)                      # ... and writes src last
    gt.put_signal(slots[r], src, sig, r + 1, right)
    gt.signal_wait(sig, "ge", r + 1)              # the consumer's stream waits
    got[r].copy_(slots[r])
torch.cuda.synchronize()
for r in range(ROUNDS):
    check(bool((got[r] == 1000 * left + r).all()), "stream order, round %d: %s", r,
          got[r][:3].tolist())

# 2. the same exchange in a CUDA graph, replayed
def graph_replays():
    slot = gt.zeros((N,), torch.float32)
    sig2 = gt.zeros((1,), torch.int64)
    counter = torch.zeros(1, device=dev)
    recv = torch.empty(N, device=dev)

    def exchange():
        gt.barrier()                              # every PE consumed the last round
        torch.cuda._sleep(SPIN)
        src.copy_(counter.expand(N))
        gt.put_signal(slot, src, sig2, 1, right)
        gt.signal_wait(sig2, "ge", 1)
        recv.copy_(slot)
        sig2.zero_()                              # before the next round's barrier

    counter.fill_(-1)
    exchange()                                    # eager once: lazy setup before capture
    torch.cuda.synchronize()
    check(bool((recv == -1).all()), "eager exchange: %s", recv[:3].tolist())
    graph = torch.cuda.CUDAGraph()
    # thread_local: gshmem's own threads (engine, transports) make CUDA calls
    # while this thread captures; the global mode would fail them
    with torch.cuda.graph(graph, capture_error_mode="thread_local"):
        exchange()
    results = []
    for k in range(ROUNDS):
        counter.fill_(1000 * me + k)
        graph.replay()
        results.append(recv.clone())
    torch.cuda.synchronize()
    for k, res in enumerate(results):
        check(bool((res == 1000 * left + k).all()), "graph replay %d: %s", k, res[:3].tolist())
    gshmem.barrier_all()                          # every PE's last replay is done


graph_replays()
gshmem.barrier_all()
del slots, sig
ok("pe_py_cuda")
gshmem.finalize()
