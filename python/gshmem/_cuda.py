"""_cuda.py: which memory a heap address is, asked of the CUDA driver
(libcuda.so.1, through ctypes: the driver's name is the same on every CUDA
machine, whichever runtime PyTorch or gshmem carries).

gshmem decides the heap's kind at init (GSHMEM_HEAP, "auto" by default: GPU
memory in a CUDA build where a GPU is visible). The package asks the driver
about one heap address after init rather than re-deriving that rule. No
driver, or a process that never started CUDA: host memory.
"""
import ctypes

_CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2
_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
_CU_MEMORYTYPE_DEVICE = 2


def _driver():
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None


def device_of(addr):
    """The CUDA device ordinal holding addr, or None for host memory."""
    cu = _driver()
    if cu is None or not addr:
        return None
    kind = ctypes.c_uint(0)
    if cu.cuPointerGetAttribute(ctypes.byref(kind), _CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                ctypes.c_uint64(addr)) != 0:
        return None   # not CUDA memory, or CUDA never started in this process
    if kind.value != _CU_MEMORYTYPE_DEVICE:
        return None
    dev = ctypes.c_int(0)
    if cu.cuPointerGetAttribute(ctypes.byref(dev), _CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                ctypes.c_uint64(addr)) != 0:
        return 0
    return dev.value
