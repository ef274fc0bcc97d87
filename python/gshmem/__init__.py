"""gshmem from Python: the host API of libgshmem through ctypes, NumPy arrays
in the host symmetric heap, and (gshmem.torch) symmetric torch tensors and
the fused DLRM embedding + all-to-all as a torch op.

    import gshmem
    gshmem.init(heap="host")               # collective; heap: host | cuda | auto
    me, n = gshmem.my_pe(), gshmem.n_pes()
    a = gshmem.zeros(4, "int64")           # NumPy, in the symmetric heap
    gshmem.put(a, numpy.full(4, me), (me + 1) % n)
    gshmem.barrier_all()                   # a now holds the previous PE's number
    del a                                  # freed collectively later (see _runtime)
    gshmem.finalize()

Run every PE with the launcher: gshmemrun -n 4 python3 prog.py, or on one
node torchrun --standalone --nproc_per_node 4 prog.py (_torchrun.py). Misuse
raises gshmem.GshmemError naming the call, the PE and the value; what only
the library can check (a non-symmetric address in a C call) ends the job
with libgshmem's own message, as from C. The library is found as _lib.py
says (the package's own copy, GSHMEM_LIB, the system); python3 -m
gshmem.info prints what gshmem-info prints.
"""
from ._version import __version__
from ._lib import GshmemError
from ._runtime import (barrier_all, collect, finalize, free, init, malloc, my_pe, n_pes,
                       quiet)
from ._array import empty, get, peer_array, put, zeros

__all__ = ["GshmemError", "init", "finalize", "my_pe", "n_pes", "barrier_all", "quiet",
           "malloc", "free", "collect", "empty", "zeros", "peer_array", "put", "get",
           "initialized"]
try:
    from ._heaparray import HeapArray   # the type of empty/zeros/peer_array (NumPy)
    __all__.append("HeapArray")
except ImportError:
    pass


def initialized():
    """True between init() and finalize()."""
    from ._runtime import S
    return S.up
