"""_lib.py: finds and loads libgshmem (and libgshmem_dlrm_op) with ctypes.

No compiled extension: one build of gshmem serves every Python and PyTorch
version. Where libgshmem.so.0 is looked for (the first that loads wins):
  1. the package's own copy: the folder _config.py names, relative to the
     package. The build writes gshmem/_libs (copies of the build's
     libraries and gshmemrun) into <build>/python, so PYTHONPATH=<build>/python
     and `pip install <build>/python` (whose wheel carries _libs) load the
     build's; `cmake --install` names the install's libdir. A package
     installed from the source tree (`pip install ./python`) has none;
  2. GSHMEM_LIB: the library file, or the folder holding it (a build
     folder, or <prefix>/lib);
  3. the dynamic loader's own search (LD_LIBRARY_PATH, ldconfig: the system).
libgshmem_dlrm_op.so is looked for in the folder libgshmem came from first,
then the same way. The gshmemrun program (for torchrun: _torchrun.py) is
looked for beside libgshmem too (gshmemrun_candidates).
"""
import ctypes
import os
import shutil

try:
    from . import _config
except ImportError:   # the source tree: no build wrote one
    _config = None

LIB_NAME = "libgshmem.so.0"
OP_LIB_NAME = "libgshmem_dlrm_op.so"

c_void_p, c_size_t, c_int, c_uint64 = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                       ctypes.c_uint64)

# name: (restype, argtypes). The host API the package uses (include/gshmem.h).
_HOST = {
    "gshmem_init": (c_int, []),
    "gshmem_get_uniqueid": (c_int, [c_void_p]),
    "gshmem_finalize": (None, []),
    "gshmem_initialized": (c_int, []),
    "gshmem_my_pe": (c_int, []),
    "gshmem_n_pes": (c_int, []),
    "gshmem_barrier_all": (None, []),
    "gshmem_malloc": (c_void_p, [c_size_t]),
    "gshmem_free": (None, [c_void_p]),
    "gshmem_ptr": (c_void_p, [c_void_p, c_int]),
    "gshmem_addr_accessible": (c_int, [c_void_p, c_int]),
    "gshmem_putmem": (None, [c_void_p, c_void_p, c_size_t, c_int]),
    "gshmem_getmem": (None, [c_void_p, c_void_p, c_size_t, c_int]),
    "gshmem_putmem_signal": (None, [c_void_p, c_void_p, c_size_t, c_void_p, c_uint64, c_int,
                                    c_int]),
    "gshmem_signal_wait_until": (c_uint64, [c_void_p, c_int, c_uint64]),
    "gshmem_quiet": (None, []),
    "gshmem_int64_max_reduce": (c_int, [c_int, c_void_p, c_void_p, c_size_t]),
    "gshmem_broadcastmem": (c_int, [c_int, c_void_p, c_void_p, c_size_t, c_int]),
    "gshmem_strerror": (ctypes.c_char_p, [c_int]),
}
# The on-stream calls (include/gshmemx.h): CUDA builds only.
_STREAM = {
    "gshmemx_putmem_on_stream": (None, [c_void_p, c_void_p, c_size_t, c_int, c_void_p]),
    "gshmemx_putmem_signal_on_stream": (None, [c_void_p, c_void_p, c_size_t, c_void_p,
                                               c_uint64, c_int, c_int, c_void_p]),
    "gshmemx_signal_wait_until_on_stream": (None, [c_void_p, c_int, c_uint64, c_void_p]),
    "gshmemx_quiet_on_stream": (None, [c_void_p]),
    "gshmemx_barrier_all_on_stream": (None, [c_void_p]),
}
# The text of the gshmem-info tool (include/gshmem.h): optional, so that an
# older library still loads. The text is returned as a pointer, to be freed.
_INFO = {
    "gshmemx_info": (c_void_p, [c_int]),
    "gshmemx_info_free": (None, [c_void_p]),
}
# dlrm_op.h
_OP = {
    "dlrm_op_create": (c_void_p, [c_int, ctypes.c_int64, ctypes.c_int64, c_int, c_int, c_int,
                                  c_int, c_void_p, c_void_p, c_void_p, ctypes.c_double,
                                  ctypes.c_char_p, c_size_t]),
    "dlrm_op_forward": (c_uint64, [c_void_p, c_void_p, c_void_p, c_void_p, ctypes.c_char_p,
                                   c_size_t]),
    "dlrm_op_destroy": (None, [c_void_p]),
    "dlrm_op_have_gpu": (c_int, []),
}


class GshmemError(RuntimeError):
    """A gshmem call refused or failed; the message names the call and the PE."""


def _candidates(name, beside=None):
    """Paths to try for library name, in the order of the module's docstring
    (beside: a folder to try first)."""
    out = [os.path.join(beside, name)] if beside else []
    if _config is not None:
        out.append(os.path.normpath(os.path.join(
            os.path.dirname(os.path.abspath(_config.__file__)), _config.LIB_DIR, name)))
    env = os.environ.get("GSHMEM_LIB", "")
    if os.path.isdir(env):
        out.append(os.path.join(env, name))
    elif env:   # the file of libgshmem: the other library beside it
        out.append(env if name == LIB_NAME else os.path.join(os.path.dirname(env), name))
    out.append(name)   # the loader's search
    return out


def _load(name, protos, tried_hint, beside=None):
    errors = []
    for path in _candidates(name, beside):
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            errors.append("%s (%s)" % (path, e))
            continue
        for fn, (res, args) in protos.items():
            f = getattr(lib, fn)
            f.restype, f.argtypes = res, args
        return lib, os.path.dirname(path)
    raise ImportError("gshmem: cannot load %s; tried: %s. %s" % (name, "; ".join(errors),
                                                                  tried_hint))


_HINT = ("Set GSHMEM_LIB to a gshmem build folder (or <prefix>/lib), install gshmem on the "
         "system, or use the package of a build (<build>/python, pip install <build>/python) "
         "or of an installed prefix.")
lib, lib_dir = _load(LIB_NAME, _HOST, _HINT)

# The on-stream calls, where the build has them.
has_stream_api = all(hasattr(lib, fn) for fn in _STREAM)
if has_stream_api:
    for _fn, (_res, _args) in _STREAM.items():
        getattr(lib, _fn).restype, getattr(lib, _fn).argtypes = _res, _args

# gshmemx_info and its free, where the library has them.
has_info_api = all(hasattr(lib, fn) for fn in _INFO)
if has_info_api:
    for _fn, (_res, _args) in _INFO.items():
        getattr(lib, _fn).restype, getattr(lib, _fn).argtypes = _res, _args

_op_lib = None


def op_lib():
    """libgshmem_dlrm_op, loaded on first use (from libgshmem's folder first)."""
    global _op_lib
    if _op_lib is None:
        _op_lib = _load(OP_LIB_NAME, _OP, _HINT, beside=lib_dir)[0]
    return _op_lib


def gshmemrun_candidates():
    """Paths to try for the gshmemrun program, best first: GSHMEMRUN (an
    explicit path: nothing else is tried), else beside the libgshmem that
    loaded: the package's gshmem/_libs/gshmemrun,
    <build>/tools/gshmemrun/gshmemrun in a build folder, <prefix>/bin/gshmemrun
    for <prefix>/lib or <prefix>/lib/<multiarch>; then gshmemrun on PATH."""
    env = os.environ.get("GSHMEMRUN", "")
    if env:
        return [env]
    out = []
    if lib_dir:   # "" when the loader's own search found libgshmem
        out += [os.path.normpath(os.path.join(lib_dir, *rel, "gshmemrun")) for rel in
                ((), ("tools", "gshmemrun"), ("..", "bin"), ("..", "..", "bin"))]
    on_path = shutil.which("gshmemrun")
    if on_path:
        out.append(on_path)
    return out


def strerror(status):
    return lib.gshmem_strerror(status).decode()
