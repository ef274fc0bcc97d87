"""_heaparray.py: the NumPy side of host heap memory. HostView gives an
address the array interface; HeapArray is the array type of gshmem.empty,
zeros and peer_array.

gshmem.finalize unmaps the heap (and the peers' heaps mapped here): a plain
ndarray over it would crash the interpreter at its next read. A HeapArray
first checks that the heap it lies in is still the one it was made in and
raises GshmemError otherwise. Checked: indexing, iteration, printing,
conversions, every ufunc (the operators) and NumPy function, and every
attribute and method. Views and slices are HeapArrays, checked the same
way; a copy (a.copy(), np.concatenate) keeps the type but owns its memory,
which the check lets through; ufuncs give plain arrays. Not checked: the
buffer protocol (memoryview), and the plain views np.asarray(a) and
torch.from_numpy(a) give.
"""
import numpy as np

from . import _runtime as rt

_base_of = np.ndarray.base.__get__     # a.base without HeapArray's check


class HostView:
    """The NumPy array interface of host memory at addr (the block's, or a
    peer's copy of it): the array keeps the view, and so the block, alive."""
    __slots__ = ("block", "__array_interface__")

    def __init__(self, block, addr, shape, dtype):
        self.block = block
        self.__array_interface__ = {"shape": shape, "typestr": dtype.str,
                                    "descr": dtype.descr, "data": (addr, False),
                                    "version": 3}


def _check(a, what):
    """GshmemError when array a views a block of an earlier (finalized) heap."""
    base = a
    while isinstance(base, np.ndarray):
        base = _base_of(base)
    if isinstance(base, HostView) and not (rt.S.up and base.block.gen == rt.S.gen):
        rt.fail("HeapArray", "%s of an array of the symmetric heap after gshmem.finalize() "
                "released that heap (its memory is gone; copy what you need before "
                "finalize)" % what)


def _plain(items, what):
    """items with every HeapArray checked and viewed as a plain ndarray."""
    plain = []
    for x in items:
        if isinstance(x, HeapArray):
            _check(x, what)
            x = np.ndarray.view(x, np.ndarray)
        plain.append(x)
    return tuple(plain)


def _check_all(items, what):
    for x in items:
        if isinstance(x, HeapArray):
            _check(x, what)
        elif isinstance(x, (list, tuple)):
            _check_all(x, what)


class HeapArray(np.ndarray):
    """A NumPy array over symmetric heap memory (see the module's docstring)."""
    __module__ = "gshmem"     # what it is called: gshmem.HeapArray

    def __getattribute__(self, name):
        if name != "__class__":          # isinstance() asks for it: no memory read
            _check(self, name)
        return np.ndarray.__getattribute__(self, name)

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        out = kw.get("out")
        if out is not None:
            kw["out"] = _plain(out, ufunc.__name__)
        result = getattr(ufunc, method)(*_plain(inputs, ufunc.__name__), **kw)
        if out is None or method == "at":
            return result
        return out[0] if len(out) == 1 else out

    def __array_function__(self, func, types, args, kwargs):
        _check_all(args, func.__name__)
        _check_all(kwargs.values(), func.__name__)
        return super().__array_function__(func, types, args, kwargs)


def _guarded(name):
    method = getattr(np.ndarray, name)

    def guarded(self, *args, **kw):
        _check(self, name)
        return method(self, *args, **kw)
    guarded.__name__ = name
    return guarded


# The type slots, which Python calls without __getattribute__.
for _name in ("__getitem__", "__setitem__", "__iter__", "__contains__", "__repr__", "__str__",
              "__format__", "__bool__", "__int__", "__float__", "__complex__", "__index__",
              "__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__"):
    setattr(HeapArray, _name, _guarded(_name))
