"""_runtime.py: init/finalize, the PE queries, and symmetric blocks whose
lifetime follows Python objects.

Freeing is collective in gshmem (every PE frees the same block at the same
point: the allocator is deterministic), while Python drops an array or a
tensor whenever its last reference goes, which a garbage-collected cycle
may do at a different point on each PE. So a managed block (Block: what
gshmem.empty and gshmem.torch.empty allocate) is never freed from a
destructor. When its last user goes, the block joins this PE's pending
list; the next collective call of the package that allocates or frees
(empty, zeros, malloc, free, collect, finalize) first runs collect(): the
PEs agree, by one int64 max-reduction per step, on the blocks that every PE
has let go (the intersection of the pending lists, by allocation number,
which is the same on every PE), and free those, in the same order
everywhere. A block still used on one PE stays until it is let go there too.
"""
import ctypes
import os
import sys
import weakref

from . import _torchrun
from ._cuda import device_of
from ._lib import GshmemError, lib, strerror

_WORLD = 0          # GSHMEM_TEAM_WORLD
_NONE = 1 << 62     # "no pending block" in the agreement


class _State:
    def __init__(self):
        self.gen = 0                # init count: blocks of an earlier init are never freed
        self.up = False
        self.me = self.npes = -1
        self.ctl = None             # 32 symmetric bytes: [0, 16) reductions,
                                    # [16, 24) and [24, 32) a broadcast's source, dest
        self.heap_device = None     # CUDA device of the heap, None: host heap
        self.seq = 0                # allocation number of the next managed block
        self.pending = {}           # seq -> address: blocks this PE let go
        self.live = 0               # managed blocks not yet freed
        self.blocks = weakref.WeakValueDictionary()   # seq -> Block still in use


S = _State()


def fail(call, what):
    """Raises GshmemError "gshmem.<call>: PE <me>: <what>"."""
    pe = "PE %d" % S.me if S.up else "not initialized"
    raise GshmemError("gshmem.%s: %s: %s" % (call, pe, what))


def require(call):
    if not S.up:
        fail(call, "gshmem.init() has not been called (or finalize already was)")


def init(heap=None):
    """Starts gshmem on this PE (collective). heap: None (GSHMEM_HEAP as
    set, "auto" by default), or "host", "cuda", "auto" (sets GSHMEM_HEAP).
    Under torchrun (one node) the PEs are its ranks: see _torchrun.py."""
    if S.up:
        fail("init", "already initialized (call finalize first)")
    if heap is not None:
        if heap not in ("host", "cuda", "auto"):
            fail("init", "heap=%r: expected 'host', 'cuda', 'auto' or None" % (heap,))
        os.environ["GSHMEM_HEAP"] = heap
    _torchrun.setup()   # under torchrun: its rendezvous, GSHMEMRUN_* set (_torchrun.py)
    rc = lib.gshmem_init()
    if rc != 0:
        fail("init", "gshmem_init failed: %s (status %d; the cause is logged above)"
             % (strerror(rc), rc))
    _torchrun.joined()  # every rank is in: the pointer to the rendezvous goes
    S.up, S.gen = True, S.gen + 1
    S.me, S.npes = lib.gshmem_my_pe(), lib.gshmem_n_pes()
    S.seq, S.pending, S.live, S.blocks = 0, {}, 0, weakref.WeakValueDictionary()
    S.ctl = lib.gshmem_malloc(32)
    if not S.ctl:
        fail("init", "the symmetric heap has no room for the package's 32-byte control block")
    S.heap_device = device_of(S.ctl)


def finalize():
    """Frees what every PE let go, then ends gshmem on this PE (collective).
    Arrays and tensors still alive over the heap must not be used after it:
    their memory is gone (a warning counts them)."""
    require("finalize")
    collect()
    if S.live:
        print("gshmem.finalize: PE %d: %d symmetric array(s)/tensor(s) still alive; their "
              "memory goes with the heap (drop them before finalize)" % (S.me, S.live),
              file=sys.stderr, flush=True)
    lib.gshmem_free(S.ctl)
    lib.gshmem_finalize()
    S.up, S.ctl, S.pending, S.live = False, None, {}, 0


def my_pe():
    require("my_pe")
    return S.me


def n_pes():
    require("n_pes")
    return S.npes


def barrier_all():
    """Completes this PE's puts, then waits for every PE (host call)."""
    require("barrier_all")
    lib.gshmem_barrier_all()


def quiet():
    require("quiet")
    lib.gshmem_quiet()


def check_pe(call, pe):
    if not isinstance(pe, int) or not 0 <= pe < S.npes:
        fail(call, "pe %r is not a PE of this job (0 .. %d)" % (pe, S.npes - 1))


# ---- collective helpers on the control block --------------------------------

def _ctl_put(off, values):
    """int64 values into the control block at byte off: a put to this PE
    (the heap may be GPU memory), complete when it returns."""
    buf = (ctypes.c_int64 * len(values))(*values)
    lib.gshmem_putmem(S.ctl + off, buf, ctypes.sizeof(buf), S.me)
    lib.gshmem_quiet()


def _ctl_get(off, n):
    buf = (ctypes.c_int64 * n)()
    lib.gshmem_getmem(buf, S.ctl + off, ctypes.sizeof(buf), S.me)
    return list(buf)


def allreduce_max(call, values):
    """Elementwise max over all PEs of up to 2 int64 values (collective).
    The reduction pulls every source after a barrier and syncs before it
    writes dest, so one area serves as both, round after round."""
    _ctl_put(0, values)
    rc = lib.gshmem_int64_max_reduce(_WORLD, S.ctl, S.ctl, len(values))
    if rc != 0:
        fail(call, "gshmem_int64_max_reduce failed: %s" % strerror(rc))
    return _ctl_get(0, len(values))


def broadcast_int(call, value, root=0):
    """root's int64 value on every PE (collective). The broadcast pushes
    into dest when the root enters it: the barrier first makes sure every
    PE has read the previous one's."""
    if S.me == root:
        _ctl_put(16, [value])
    lib.gshmem_barrier_all()
    rc = lib.gshmem_broadcastmem(_WORLD, S.ctl + 24, S.ctl + 16, 8, root)
    if rc != 0:
        fail(call, "gshmem_broadcastmem failed: %s" % strerror(rc))
    return _ctl_get(24, 1)[0]


# ---- managed blocks --------------------------------------------------------

class Block:
    """One symmetric allocation of nbytes at addr (the same offset on every
    PE); joins the pending list when the last object over it is gone."""
    __slots__ = ("addr", "nbytes", "seq", "gen", "device", "__weakref__")

    def __init__(self, addr, nbytes, seq):
        self.addr, self.nbytes, self.seq, self.gen = addr, nbytes, seq, S.gen
        self.device = S.heap_device

    def __del__(self):
        if self.addr and S.up and self.gen == S.gen:
            S.pending[self.seq] = self.addr


def collect():
    """Collective: frees the managed blocks that every PE has let go (see
    the module's docstring); returns how many."""
    require("collect")
    cursor, freed = 0, 0
    while True:
        mine = min([s for s in list(S.pending) if s >= cursor], default=_NONE)
        hi, neg_lo = allreduce_max("collect", [mine, -mine])
        if hi == _NONE:
            return freed                  # some PE let go of nothing more
        if hi == -neg_lo:                 # every PE's next one is block hi
            lib.gshmem_free(S.pending.pop(hi))
            S.live -= 1
            freed += 1
            cursor = hi + 1
        else:
            cursor = hi                   # no PE holds a common one below hi


def _heap_alloc(call, nbytes):
    """gshmem_malloc of nbytes > 0, pending blocks freed first (collective)."""
    collect()
    addr = lib.gshmem_malloc(nbytes)
    if not addr:
        fail(call, "the symmetric heap has no room for %d bytes (every PE got none; raise "
             "GSHMEM_SYMMETRIC_SIZE, now %s)"
             % (nbytes, os.environ.get("GSHMEM_SYMMETRIC_SIZE", "unset: 256M")))
    return addr


def alloc_block(call, nbytes):
    """A managed block of nbytes >= 0 (collective)."""
    require(call)
    addr = _heap_alloc(call, nbytes) if nbytes else None
    S.seq += 1
    block = Block(addr, nbytes, S.seq)
    if addr:
        S.live += 1
        S.blocks[S.seq] = block
    return block


def block_of(call, addr, nbytes, what):
    """The managed block holding [addr, addr + nbytes), or GshmemError."""
    for b in list(S.blocks.values()):
        if b.addr <= addr and addr + nbytes <= b.addr + b.nbytes:
            return b
    fail(call, "%s (%d bytes at %#x) is not in a symmetric array or tensor of this PE (make "
         "it with gshmem.empty / gshmem.torch.empty)" % (what, nbytes, addr))


def malloc(nbytes):
    """gshmem_malloc (collective): an address (int), freed by free() only."""
    require("malloc")
    if not isinstance(nbytes, int) or nbytes <= 0:
        fail("malloc", "size %r is not a byte count > 0" % (nbytes,))
    return _heap_alloc("malloc", nbytes)


def free(addr):
    """gshmem_free (collective) of an address from malloc()."""
    require("free")
    if not isinstance(addr, int) or addr <= 0:
        fail("free", "%r is not an address from gshmem.malloc" % (addr,))
    collect()
    lib.gshmem_free(addr)
