"""pe_py_basic.py: the gshmem package on CPU PEs (host heap), NumPy only:
init and the queries, host put/get between symmetric arrays, peer views,
malloc/free, collective frees after the arrays go (the agreement when PEs
let go at different times), and the errors of misuse.
Run: gshmemrun -n N python3 pe_py_basic.py (PYTHONPATH: the package)."""
import gc

import numpy as np

import gshmem
from gshmem import GshmemError
from gshmem._lib import lib
from pecheck import check, expect_error, ok

gshmem.init(heap="host")
me, n = gshmem.my_pe(), gshmem.n_pes()
right, left = (me + 1) % n, (me + n - 1) % n
check(n >= 2, "run at 2 PEs or more (got %d)", n)
expect_error(GshmemError, ["gshmem.init", "already initialized"], gshmem.init)

# put / get / peer views between symmetric arrays
a = gshmem.zeros((3, 5), "float32")
check(a.shape == (3, 5) and a.dtype == np.float32 and not a.any(), "zeros: %r", a)
gshmem.barrier_all()                          # every PE looked before any PE puts
gshmem.put(a, np.full((3, 5), me, np.float32), right)
gshmem.barrier_all()
check((a == left).all(), "put from the left PE: %r", a)
got = np.empty(15, np.float32)
gshmem.get(got, a, right)
check((got == me).all(), "get of the right PE's array: %r", got)
# peer views: PEs of one node (across nodes, e.g. torchrun --nnodes 2 on
# simulated nodes, the neighbour may be on the queue of another)
addr_a = a.__array_interface__["data"][0]
reach_right = bool(lib.gshmem_ptr(addr_a, right))
reach_left = bool(lib.gshmem_ptr(addr_a, left))   # shm: left reaches me just when I reach it
if reach_right:
    peer = gshmem.peer_array(a, right)
    check((peer == me).all(), "peer view of the right PE's array: %r", peer)
else:
    expect_error(GshmemError, ["gshmem.peer_array", "not reachable by load/store"],
                 gshmem.peer_array, a, right)
    peer = None
gshmem.barrier_all()
if reach_right:
    peer[1, 2] = 100 + me                     # a store into the right PE's memory
gshmem.barrier_all()
if reach_left:
    check(a[1, 2] == 100 + left, "store through the left PE's peer view: %r", a[1, 2])

# raw malloc/free, as in C
addr = gshmem.malloc(4096)
check(addr > 0, "malloc gave %r", addr)
gshmem.free(addr)

# a block is freed (collectively) once every PE let go: its address comes back
base = a.__array_interface__["data"][0]
del a, peer
b = gshmem.empty(15, "float32")
check(b.__array_interface__["data"][0] == base, "the dropped array's block was not reused")

# PEs letting go at different times: the block stays until the last one does
keep = gshmem.empty(64, "int64")
keep[:] = me
keep_addr = keep.__array_interface__["data"][0]
if me == 0:
    del keep
check(gshmem.collect() == 0, "collect freed a block another PE still uses")
other = gshmem.empty(64, "int64")
check(other.__array_interface__["data"][0] != keep_addr, "a block in use was handed out again")
if me != 0:
    check((keep == me).all(), "the array kept on PE %d was overwritten", me)
    del keep
gc.collect()
check(gshmem.collect() == 1, "collect did not free the block every PE let go")

# a slice keeps its block alive; a view's data lands where the array is
c = gshmem.zeros(8, "int32")
tail = c[4:]
del c
gshmem.put(tail, np.arange(4, dtype=np.int32), right)
gshmem.barrier_all()
check((tail == np.arange(4)).all(), "put into a slice of a dropped array: %r", tail)

# misuse: the call, the PE and the value are named
expect_error(GshmemError, ["gshmem.empty", "PE %d" % me, "-1"], gshmem.empty, (2, -1))
expect_error(GshmemError, ["gshmem.empty", "no fixed size"], gshmem.empty, 3, object)
expect_error(GshmemError, ["gshmem.put", "pe 99"], gshmem.put, tail, np.zeros(4, np.int32), 99)
expect_error(GshmemError, ["gshmem.put", "not in a symmetric"], gshmem.put,
             np.zeros(4, np.int32), np.zeros(4, np.int32), right)
expect_error(GshmemError, ["gshmem.get", "sizes differ"], gshmem.get, np.zeros(3, np.int32),
             tail, right)
expect_error(GshmemError, ["gshmem.malloc", "1099511627776", "GSHMEM_SYMMETRIC_SIZE"],
             gshmem.malloc, 1 << 40)
expect_error(GshmemError, ["gshmem.malloc", "byte count"], gshmem.malloc, -5)
expect_error(GshmemError, ["gshmem.peer_array", "pe -1"], gshmem.peer_array, tail, -1)
# not arrays: the argument and the type are named (was AttributeError)
expect_error(GshmemError, ["gshmem.put", "PE %d" % me, "source", "NoneType"], gshmem.put,
             tail, None, right)
expect_error(GshmemError, ["gshmem.put", "source", "list"], gshmem.put, tail, [1, 2, 3, 4],
             right)
expect_error(GshmemError, ["gshmem.put", "dest", "NoneType"], gshmem.put, None, tail, right)
expect_error(GshmemError, ["gshmem.get", "dest", "list"], gshmem.get, [0] * 4, tail, right)
expect_error(GshmemError, ["gshmem.peer_array", "list"], gshmem.peer_array, [1, 2], right)
check(isinstance(tail, gshmem.HeapArray) and isinstance(b, gshmem.HeapArray),
      "the heap's arrays are not HeapArrays: %s", type(tail))

del b, other, tail
ok("pe_py_basic")
gshmem.finalize()
expect_error(GshmemError, ["gshmem.my_pe", "not initialized"], gshmem.my_pe)
