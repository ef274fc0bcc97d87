#!/usr/bin/env python3
"""torch_baseline.py: the DLRM embedding + all-to-all as PyTorch users run it.

nn.EmbeddingBag(mode="sum") -> dist.all_to_all_single -> permute into the
output layout, timed on the same generated inputs as gshmem-dlrm (the
generator of docs/dlrm-contract.md, vectorised with int64 tensor ops;
gen_vectors.py beside it in tools/ is the plain-int reference).

  torchrun --nproc-per-node P apps/dlrm/torch_baseline.py --config W|S|G|tiny|custom
      [--tables-per-pe N[,N..] | --tables N[,N..]] [--rows R] [--dim D]
      [--batch B[,B..]] [--lmax L] [--fixed-l] [--seed S] [--iters N]
      [--warmup N] [--emb auto|fused|table] [--csv FILE] [--check]

Per PE p (model parallel): global tables [start_p, start_p + count_p), split
contiguously; with T % P != 0 the first T % P PEs hold one table more. Each
PE pools its tables for all B samples into pooled[B, T_local*D] (row-major,
sample-major), sends rows [q*B/P, (q+1)*B/P) to PE q, and reorders what it
receives into out[B/P, T*D], out[b_local][t*D + d] with t the global table.

Two ways to pool, both timed with --emb auto (default); the faster one is
the baseline written to the CSV (mode=torch), the table shows both:
  fused: one nn.EmbeddingBag over the local tables concatenated row-wise,
         indices shifted by table*rows, bags ordered (sample, table) so that
         its [B*T_local, D] output already is pooled[B, T_local*D]; this
         reordering of the inputs is done once at setup, not timed (input
         preparation, like building a KeyedJaggedTensor).
  table: one nn.EmbeddingBag per local table, then torch.cat(dim=1).
Timing: CUDA events around pool + all_to_all_single + permute, after a
warm-up, each iteration started together on all ranks; per iteration the
max over ranks (all_reduce MAX); the median of --iters (>= 20) is reported.
Correctness before timing: every run compares sampled output bags with an
fp64 reference computed on the CPU from the hash; --check (small configs)
compares the whole output and asserts that the torch generator reproduces
tools/gen_vectors.py.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
import gen_vectors as gv  # noqa: E402  (plain-int reference generator)

M32 = 0xFFFFFFFF

# BENCHMARKS.md section 2. Lists are swept (G is a grid). "custom" starts
# from tiny's values; the flags override any config's values.
CONFIGS = {
    "W": dict(tables_per_pe=[64], rows=1_000_000, dim=64, batch=[16384], lmax=128),
    "S": dict(tables=[96], rows=1_000_000, dim=64, batch=[16384], lmax=32),
    "G": dict(tables_per_pe=[32, 64, 128, 256], rows=100_000, dim=256,
              batch=[512, 1024, 2048, 4096, 8192], lmax=128),
    "tiny": dict(tables_per_pe=[4], rows=1000, dim=16, batch=[256], lmax=8),
    "custom": dict(tables_per_pe=[4], rows=1000, dim=16, batch=[256], lmax=8),
}
CHECK_MAX_ELEMS = 2e8     # --check: T * B * Lmax * D gathered on the CPU
WEIGHT_CHUNK = 1 << 24    # weight elements hashed per step (bounds temporaries)

# Imported here for the modules that reuse this one's generator and
# reference (torch_example.py, tests/python); --help works without torch.
try:
    import torch
    import torch.distributed as dist
except ImportError:
    torch = dist = None


# ---- the contract's generator on int64 tensors (values kept in [0, 2^32)) --

def t_lowbias32(x):
    # The products wrap in int64; their low 32 bits are the uint32 product.
    x = x ^ (x >> 16)
    x = (x * 0x7FEB352D) & M32
    x = x ^ (x >> 15)
    x = (x * 0x846CA68B) & M32
    return x ^ (x >> 16)


def t_mix(a, b):
    """mix(a, b) for a Python int a and an int64 tensor b."""
    return t_lowbias32(t_lowbias32(b & M32) ^ (a & M32))


def gen_lengths(seed, t, b0, b1, lmax, fixed, dev):
    """L(t, b) for b in [b0, b1), int64."""
    if fixed:
        return torch.full((b1 - b0,), lmax, dtype=torch.int64, device=dev)
    b = torch.arange(b0, b1, dtype=torch.int64, device=dev)
    return 1 + ((t_mix(gv.mix(gv.seeds(seed)[0], t), b) * lmax) >> 32)


def gen_indices(seed, t, k0, k1, rows, dev):
    """idx(t, k) for k in [k0, k1), int64 rows."""
    k = torch.arange(k0, k1, dtype=torch.int64, device=dev)
    return (t_mix(gv.mix(gv.seeds(seed)[1], t), k) * rows) >> 32


def weights_of(seed, t, r, dim, dtype):
    """w(t, r, d) for an int64 tensor of rows r: [len(r), dim] of dtype.
    M * 2^-24 - 0.5 with M < 2^24 is exact in fp32 and fp64."""
    e = (r.reshape(-1, 1) * dim + torch.arange(dim, dtype=torch.int64, device=r.device)) & M32
    m = t_mix(gv.mix(gv.seeds(seed)[2], t), e) >> 8
    return m.to(dtype) * (2.0 ** -24) - 0.5


def fill_weights(seed, t, out2d):
    """Writes table t's weights into out2d[rows, dim] (fp32, contiguous)."""
    rows, dim = out2d.shape
    step = max(1, WEIGHT_CHUNK // dim)
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        r = torch.arange(r0, r1, dtype=torch.int64, device=out2d.device)
        out2d[r0:r1].copy_(weights_of(seed, t, r, dim, torch.float32))


def local_tables(T, P, p):
    """(first global table, count) of PE p: contiguous, first T % P get one more."""
    base, extra = divmod(T, P)
    if p < extra:
        return p * (base + 1), base + 1
    return extra * (base + 1) + (p - extra) * base, base


# ---- checks -----------------------------------------------------------------

def check_generator(seed, dev):
    """Asserts that the tensor generator on dev reproduces gen_vectors.py."""
    n = 0
    for rec in gv.vectors(seed):
        kind, args, want = rec[0], rec[1:-1], rec[-1]
        if kind == "lowbias32":
            got = t_lowbias32(torch.tensor([args[0]], dtype=torch.int64, device=dev))
        elif kind == "mix":
            got = t_mix(args[0], torch.tensor([args[1]], dtype=torch.int64, device=dev))
        elif kind == "L":
            t, b, lmax = args
            got = gen_lengths(seed, t, b, b + 1, lmax, False, dev)
        elif kind == "off":
            t, b, lmax = args
            got = gen_lengths(seed, t, 0, b, lmax, False, dev).sum().reshape(1)
        elif kind == "idx":
            t, k, rows = args
            got = gen_indices(seed, t, k, k + 1, rows, dev)
        elif kind == "w":
            t, r, d, dim = args
            row = torch.tensor([r], dtype=torch.int64, device=dev)
            want32 = want * 2.0 ** -24 - 0.5
            for dtype in (torch.float32, torch.float64):
                v = weights_of(seed, t, row, dim, dtype)[0, d].item()
                assert v == want32, "w%s on %s %s: torch %r, gen_vectors %r" % (
                    args, dev, dtype, v, want32)
            n += 1
            continue
        else:
            raise AssertionError("unknown gen_vectors record %r" % (rec,))
        got = int(got.reshape(-1)[0].item())
        assert got == want, "%s%s on %s: torch %d, gen_vectors %d" % (kind, args, dev, got, want)
        n += 1
    return n


def reference_block(seed, t, b0, b1, rows, dim, lmax, fixed, wdtype=None):
    """fp64 reference on the CPU of table t's pooled bags b0..b1-1: [b1-b0, dim]
    (wdtype: the weights rounded to that storage type first, e.g. float16)."""
    cpu = torch.device("cpu")
    L = gen_lengths(seed, t, 0, b1, lmax, fixed, cpu)
    k0 = int(L[:b0].sum())
    k1 = k0 + int(L[b0:b1].sum())
    idx = gen_indices(seed, t, k0, k1, rows, cpu)
    w = weights_of(seed, t, idx, dim, torch.float64)
    if wdtype is not None:
        w = w.to(wdtype).double()
    seg = torch.repeat_interleave(torch.arange(b1 - b0), L[b0:b1])
    return torch.zeros(b1 - b0, dim, dtype=torch.float64).index_add_(0, seg, w)


def compare(out, pt, full):
    """Max abs error of this rank's out[B/P, T*D] against the fp64 reference:
    every bag when full, else sampled bags of a few tables (pt["wdtype"], if
    set: the weights' storage type)."""
    T, B, D, P, q = pt["T"], pt["B"], pt["D"], pt["P"], pt["rank"]
    Bl = B // P
    if full:
        tables, blocks = range(T), [(0, Bl)]
    else:
        tables = sorted({0, T - 1, T // 2, (q * T) // P, ((q + 1) * T) // P - 1})
        n = min(2, Bl)
        blocks = sorted({(0, n), (Bl // 2, min(Bl, Bl // 2 + n)), (Bl - n, Bl)})
    err = 0.0
    for t in tables:
        for bl0, bl1 in blocks:
            ref = reference_block(pt["seed"], t, q * Bl + bl0, q * Bl + bl1, pt["rows"], D,
                                  pt["lmax"], pt["fixed"], pt.get("wdtype"))
            got = out[bl0:bl1, t * D:(t + 1) * D].double().cpu()
            err = max(err, (got - ref).abs().max().item())
    return err


# ---- one configuration point ---------------------------------------------------

def build_inputs(pt, dev):
    """This PE's tables, CSR inputs (per table and fused) and modules."""
    nn = torch.nn
    seed, rows, D, B = pt["seed"], pt["rows"], pt["D"], pt["B"]
    t0, Tl = pt["t0"], pt["Tl"]
    lens = [gen_lengths(seed, t0 + j, 0, B, pt["lmax"], pt["fixed"], dev) for j in range(Tl)]
    offs = [torch.cat([torch.zeros(1, dtype=torch.int64, device=dev), torch.cumsum(L, 0)])
            for L in lens]
    nnz = [int(o[-1].item()) for o in offs]
    idxs = [gen_indices(seed, t0 + j, 0, nnz[j], rows, dev) for j in range(Tl)]
    weight = torch.empty(Tl * rows, D, dtype=torch.float32, device=dev)
    for j in range(Tl):
        fill_weights(seed, t0 + j, weight[j * rows:(j + 1) * rows])

    # Fused: bag (b, j) is number b*Tl + j, so the output rows are sample-major.
    flen = torch.stack(lens, dim=1).reshape(-1)
    foff = torch.cat([torch.zeros(1, dtype=torch.int64, device=dev), torch.cumsum(flen, 0)])
    fidx = torch.empty(sum(nnz), dtype=torch.int64, device=dev)
    bags = torch.arange(B, dtype=torch.int64, device=dev)
    for j in range(Tl):
        bag = torch.repeat_interleave(bags, lens[j])
        pos = torch.arange(nnz[j], dtype=torch.int64, device=dev) - offs[j][bag]
        fidx[foff[bag * Tl + j] + pos] = idxs[j] + j * rows
        del bag, pos
    del lens, flen, bags

    def bag_module(w):
        return nn.EmbeddingBag.from_pretrained(w, freeze=True, mode="sum",
                                               include_last_offset=True)
    return dict(weight=weight, offs=offs, idxs=idxs, foff=foff, fidx=fidx,
                emb_fused=bag_module(weight),
                emb_tables=[bag_module(weight[j * rows:(j + 1) * rows]) for j in range(Tl)])


def make_step(pt, inp, emb):
    """One iteration: pool, all_to_all_single, reorder. Returns out[B/P, T*D]."""
    B, D, P, T, Tl = pt["B"], pt["D"], pt["P"], pt["T"], pt["Tl"]
    Bl = B // P
    counts = [local_tables(T, P, s)[1] for s in range(P)]
    even = len(set(counts)) == 1

    if emb == "fused":
        def pool():
            return inp["emb_fused"](inp["fidx"], inp["foff"]).view(B, Tl * D)
    else:
        def pool():
            return torch.cat([e(i, o) for e, i, o in
                              zip(inp["emb_tables"], inp["idxs"], inp["offs"])], dim=1)

    def step():
        pooled = pool()
        if even:   # recv[src][b_local][t_local*D + d] -> out[b_local][(src*Tl + t_local)*D + d]
            recv = torch.empty_like(pooled)
            dist.all_to_all_single(recv, pooled)
            return recv.view(P, Bl, Tl * D).permute(1, 0, 2).reshape(Bl, T * D)
        recv = torch.empty(Bl * T * D, dtype=pooled.dtype, device=pooled.device)
        sizes_out = [Bl * c * D for c in counts]
        dist.all_to_all_single(recv, pooled.view(-1), output_split_sizes=sizes_out,
                               input_split_sizes=[Bl * Tl * D] * P)
        return torch.cat([ch.view(Bl, c * D) for ch, c in
                          zip(torch.split(recv, sizes_out), counts)], dim=1)
    return step


def align(dev):
    """All ranks leave together (an all_reduce, then the host waits for it)."""
    dist.all_reduce(torch.ones(1, device=dev))
    torch.cuda.synchronize()


def time_step(step, iters, warmup, dev):
    """Per-iteration max over ranks (ms) of iters timed iterations."""
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(iters):
        align(dev)
        start.record()
        step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    t = torch.tensor(times, dtype=torch.float64, device=dev)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.cpu().tolist()


def run_point(pt, args, dev):
    """Checks, then times, one configuration; returns a result dict."""
    T, P, rank = pt["T"], pt["P"], pt["rank"]
    pt["t0"], pt["Tl"] = local_tables(T, P, rank)
    tol = max(1e-5, 0.5 * pt["lmax"] * pt["lmax"] * 2.0 ** -24)
    need = pt["Tl"] * pt["rows"] * pt["D"] * 4
    free = torch.cuda.mem_get_info(dev)[0]
    if need > 0.8 * free:
        raise SystemExit("rank %d: config %s T=%d rows=%d D=%d needs %.1f GB of weights, "
                         "%.1f GB free" % (rank, pt["config"], T, pt["rows"], pt["D"],
                                           need / 1e9, free / 1e9))
    t_setup = time.time()
    inp = build_inputs(pt, dev)
    torch.cuda.synchronize()
    t_setup = time.time() - t_setup

    variants = ["fused", "table"] if args.emb == "auto" else [args.emb]
    res = dict(pt, setup_s=t_setup, times={}, err={}, tol=tol)
    for emb in variants:
        step = make_step(pt, inp, emb)
        out = step()
        torch.cuda.synchronize()
        err = torch.tensor([compare(out, pt, args.check)], dtype=torch.float64, device=dev)
        dist.all_reduce(err, op=dist.ReduceOp.MAX)
        res["err"][emb] = err.item()
        del out
        if res["err"][emb] > tol:
            return res           # wrong: do not time it
        res["times"][emb] = time_step(step, args.iters, args.warmup, dev)
    del inp
    torch.cuda.empty_cache()
    return res


# ---- driver ---------------------------------------------------------------------

def int_list(s):
    try:
        vals = [int(float(v)) for v in s.split(",") if v]
    except ValueError:
        raise argparse.ArgumentTypeError("expected integers separated by commas, got %r" % s)
    if not vals or min(vals) <= 0:
        raise argparse.ArgumentTypeError("expected positive integers, got %r" % s)
    return vals


def pos_int(s):
    v = int_list(s)
    if len(v) != 1:
        raise argparse.ArgumentTypeError("expected one integer, got %r" % s)
    return v[0]


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True, choices=sorted(CONFIGS))
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--tables-per-pe", type=int_list, help="tables per PE (list: swept)")
    g.add_argument("--tables", type=int_list, help="total tables (list: swept)")
    ap.add_argument("--rows", type=pos_int, help="rows per table (1e6 accepted)")
    ap.add_argument("--dim", type=pos_int, help="embedding dim D")
    ap.add_argument("--batch", type=int_list, help="global batch B (list: swept)")
    ap.add_argument("--lmax", type=pos_int, help="max (or fixed) bag length")
    ap.add_argument("--fixed-l", action="store_true", help="every bag has Lmax indices")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iters", type=pos_int, default=50, help="timed iterations (>= 20)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--emb", choices=["auto", "fused", "table"], default="auto",
                    help="pooling: one fused EmbeddingBag, one per table, or both (auto)")
    ap.add_argument("--csv", help="append rows config,P,T,rows,D,B,Lmax,mode,time_ms")
    ap.add_argument("--check", action="store_true",
                    help="compare the whole output with an fp64 CPU reference and the "
                         "generator with tools/gen_vectors.py (small configs)")
    args = ap.parse_args(argv)
    if args.iters < 20:
        ap.error("--iters %d: the median needs >= 20 iterations" % args.iters)
    if args.warmup < 1:
        ap.error("--warmup must be >= 1 (the first call starts NCCL)")
    if args.seed < 0:
        ap.error("--seed must be >= 0")
    return args


def points(args, P, rank):
    """The configuration points of the run (validated: same on every rank)."""
    c = dict(CONFIGS[args.config])
    if args.tables_per_pe:
        c.pop("tables", None)
        c["tables_per_pe"] = args.tables_per_pe
    if args.tables:
        c.pop("tables_per_pe", None)
        c["tables"] = args.tables
    for k in ("rows", "dim", "batch", "lmax"):
        if getattr(args, k) is not None:
            c[k] = getattr(args, k)
    totals = c["tables"] if "tables" in c else [n * P for n in c["tables_per_pe"]]
    out = []
    for T in totals:
        for B in c["batch"]:
            if T < P:
                raise ValueError("T=%d tables < P=%d PEs: every PE needs a table" % (T, P))
            if B % P:
                raise ValueError("batch B=%d is not divisible by P=%d" % (B, P))
            if c["rows"] >= 1 << 31 or c["lmax"] >= 1 << 20:
                raise ValueError("rows=%d / lmax=%d out of range" % (c["rows"], c["lmax"]))
            if args.check and T * B * c["lmax"] * c["dim"] > CHECK_MAX_ELEMS:
                raise ValueError("--check is for small configs: T*B*Lmax*D = %.3g > %.0e "
                                 "(config %s T=%d B=%d)" % (T * B * c["lmax"] * c["dim"],
                                                            CHECK_MAX_ELEMS, args.config, T, B))
            out.append(dict(config=args.config, P=P, rank=rank, T=T, rows=c["rows"],
                            D=c["dim"], B=B, lmax=c["lmax"], fixed=args.fixed_l,
                            seed=args.seed))
    return out


def report(res, args, lines):
    """Rank 0: table rows for res; CSV row of the faster variant."""
    key = "%-6s %2d %5d %8d %4d %6d %5d" % (res["config"], res["P"], res["T"], res["rows"],
                                            res["D"], res["B"], res["lmax"])
    best = None
    for emb in res["err"]:
        if emb not in res["times"]:
            print("%s %-6s FAILED: max abs err %.3g > tol %.3g" % (key, emb, res["err"][emb],
                                                                    res["tol"]), flush=True)
            continue
        t = res["times"][emb]
        med = statistics.median(t)
        if best is None or med < best[1]:
            best = (emb, med)
        print("%s %-6s %10.4f %9.4f %9.4f %9.2g %7.1f" % (key, emb, med, min(t), max(t),
                                                         res["err"][emb], res["setup_s"]),
              flush=True)
    if best and len(res["times"]) > 1:
        print("%s -> faster: %s" % (key, best[0]), flush=True)
    if best and args.csv:
        lines.append("%s,%d,%d,%d,%d,%d,%d,torch,%.6f" % (
            res["config"], res["P"], res["T"], res["rows"], res["D"], res["B"], res["lmax"],
            best[1]))
    return best is not None


def nccl_version():
    try:
        import torch.cuda.nccl as nccl
        return ".".join(str(v) for v in nccl.version())
    except Exception as e:   # informational only
        return "? (%s)" % e


def append_csv(path, lines):
    """Appends lines to the CSV (header first when the file is new or empty)."""
    if not path or not lines:
        return
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a") as f:
        if new:
            f.write("config,P,T,rows,D,B,Lmax,mode,time_ms\n")
        f.write("\n".join(lines) + "\n")


def main(argv=None):
    global torch, dist
    args = parse_args(argv)
    os.environ["NCCL_NVLS_ENABLE"] = "0"      # team rule: no NVLink multicast
    import torch as _torch
    import torch.distributed as _dist
    torch, dist = _torch, _dist
    if not torch.cuda.is_available():
        print("torch_baseline: no CUDA device", file=sys.stderr)
        return 2
    if "LOCAL_RANK" not in os.environ:
        print("torch_baseline: run under torchrun --nproc-per-node P", file=sys.stderr)
        return 2
    local = int(os.environ["LOCAL_RANK"])
    dev = torch.device("cuda", local)
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=dev)
    rank, P = dist.get_rank(), dist.get_world_size()
    try:
        pts = points(args, P, rank)
    except ValueError as e:
        if rank == 0:
            print("torch_baseline: %s" % e, file=sys.stderr)
        dist.destroy_process_group()
        return 2
    if args.config == "G" and P != 4 and rank == 0:
        print("torch_baseline: note: BENCHMARKS.md runs G at P=4 (this run: P=%d)" % P)

    ok = True
    with torch.no_grad():
        if args.check:
            n = check_generator(args.seed, dev) + check_generator(args.seed, torch.device("cpu"))
            if rank == 0:
                print("generator: %d gen_vectors.py values reproduced on cuda and cpu" % n)
        if rank == 0:
            print("torch %s, NCCL %s, %s; check: %s; iters %d warmup %d" % (
                torch.__version__, nccl_version(),
                torch.cuda.get_device_name(dev), "full" if args.check else "sampled bags",
                args.iters, args.warmup))
            print("%-6s %2s %5s %8s %4s %6s %5s %-6s %10s %9s %9s %9s %7s" % (
                "config", "P", "T", "rows", "D", "B", "Lmax", "emb", "median_ms", "min_ms",
                "max_ms", "max_err", "setup_s"), flush=True)
        for pt in pts:
            res = run_point(pt, args, dev)
            if rank == 0:
                lines = []
                ok = report(res, args, lines) and ok
                append_csv(args.csv, lines)
            ok = ok and all(e <= res["tol"] for e in res["err"].values())
    if rank == 0:
        print("torch_baseline: %s" % ("OK" if ok else "FAILED (wrong output)"), flush=True)
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
