import sys, time, torch, gshmem, gshmem.torch as gt
from pecheck import torch_baseline
tb = torch_baseline()
mode = sys.argv[1]
gshmem.init(heap="cuda")
me, P = gshmem.my_pe(), gshmem.n_pes()
dev = gt.heap_device(); torch.cuda.set_device(dev)
T, B, D, rows, lmax = 2 * P + 1, 6 * P, 8, 40, 6
t0, tn = gt.dlrm_local_tables(T, P, me)
pt = dict(T=T, B=B, D=D, P=P, rank=me, seed=1, rows=rows, lmax=lmax, fixed=False, t0=t0, Tl=tn, wdtype=None)
inp = tb.build_inputs(pt, dev)
offsets, indices = gt.dlrm_inputs(inp["offs"], inp["idxs"])
op = gt.DlrmEmbeddingAllToAll(T, B, D, inp["weight"], [rows] * tn, slice_rows=4, threads=2, mean_bag=3)
t = time.time()
for f in range(int(sys.argv[2]) if len(sys.argv) > 2 else 30):
    out = op(offsets, indices)
    if mode == "cpu":
        x = out.cpu()
    elif mode == "sync":
        torch.cuda.current_stream().synchronize(); x = out.cpu()
    elif mode == "item":
        x = out.sum().item()
torch.cuda.synchronize()
err = tb.compare(op.out, pt, True)
print("PE %d mode %s: %d forwards OK in %.2f s, err %.2g" % (me, mode, f + 1, time.time() - t, err), flush=True)
gshmem.barrier_all()
gshmem.finalize()
