"""_torchrun.py: gshmem's PEs under torchrun, on one node.

torchrun starts the processes and leaves RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT and TORCHELASTIC_RUN_ID; gshmem's
local bootstrap wants gshmemrun's rendezvous (GSHMEMRUN_SOCKET, _PE,
_N_PES, _DIR). setup(), called by init() before gshmem_init, bridges the
two. Decided:

- When: GSHMEMRUN_SOCKET is unset, torchrun's variables are set, no other
  launcher's are (OMPI_COMM_WORLD_SIZE, PMI_RANK, PMIX_RANK: the C
  bootstrap's auto picks mpi or pmix there), and GSHMEM_BOOTSTRAP is unset,
  auto or local. Otherwise nothing changes.
- One node only: WORLD_SIZE != LOCAL_WORLD_SIZE is refused (the local
  bootstrap is a Unix socket); mpirun / srun with the mpi or pmix bootstrap
  span nodes.
- The PE number is torchrun's RANK, the PE count WORLD_SIZE.
- The process with LOCAL_RANK 0 starts `gshmemrun --serve -n WORLD_SIZE
  --dir D --keep` as its child (gshmemrun found as _lib.gshmemrun_candidates
  says). --keep: the server stays while that process lives, so init and
  finalize may repeat as under gshmemrun; it exits (and removes D) when that
  process exits, when a PE fails (it then tells the PEs waiting in a
  bootstrap exchange), or on a signal. It cannot end the other workers:
  torchrun does that when one fails.
- D is <runtime dir>/gshmem-<uid>-<16 hex digits of a hash of
  TORCHELASTIC_RUN_ID, MASTER_ADDR, MASTER_PORT and
  TORCHELASTIC_RESTART_COUNT>: the same on every rank of one job, another
  for another job or a restart. The runtime dir is XDG_RUNTIME_DIR, else
  TMPDIR, else /tmp, the first where D/rdv.sock stays under 100 bytes (a
  Unix socket path). A stale D of an earlier run with the same id (a server
  killed with SIGKILL) is replaced by gshmemrun: it takes over a 0700
  directory of this user on whose socket nothing answers.
- Every rank, LOCAL_RANK 0 included, waits until a connection to D/rdv.sock
  succeeds (a stale socket refuses), up to GSHMEM_TIMEOUT seconds (60 when
  it is unset or 0), then sets GSHMEMRUN_* in os.environ, where gshmem_init reads
  them.
- D's name can be guessed, so another local user may create it first with
  a server of their own: a D that is not a directory of this user with
  mode 0700 (a link, someone else's, open to others) is refused at once,
  naming it, and gshmem_init itself talks only to a server of its own user
  (SO_PEERCRED, src/base/bootstrap/bootstrap_local.c).
"""
import hashlib
import os
import socket
import stat
import subprocess
import time

from ._lib import GshmemError, gshmemrun_candidates

_TORCHRUN_VARS = ("TORCHELASTIC_RUN_ID", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")
_OTHER_LAUNCHERS = ("OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK")
_SOCK_MAX = 100          # bytes of D/rdv.sock (sun_path holds 108)

_server = None           # LOCAL_RANK 0: the gshmemrun --serve child (kept for its lifetime)


def _fail(rank, what):
    raise GshmemError("gshmem.init: torchrun RANK %s: %s" % (rank, what))


def _wanted():
    env = os.environ
    if env.get("GSHMEMRUN_SOCKET") or any(env.get(v) for v in _OTHER_LAUNCHERS):
        return False
    if env.get("GSHMEM_BOOTSTRAP", "auto") not in ("", "auto", "local"):
        return False
    return all(env.get(v) for v in _TORCHRUN_VARS)


def _ints(rank):
    """RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE as ints."""
    out = []
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
        try:
            out.append(int(os.environ[name]))
        except ValueError:
            _fail(rank, "%s=%r is not an integer" % (name, os.environ[name]))
    return out


def _timeout(rank):
    """The wait for the rendezvous: GSHMEM_TIMEOUT, or 60 s when unset or 0
    (the library's bound for waits nobody else can end)."""
    v = os.environ.get("GSHMEM_TIMEOUT", "0")
    try:
        t = int(v)
    except ValueError:
        t = -1
    if t < 0:
        _fail(rank, "GSHMEM_TIMEOUT=%r: expected a number of seconds >= 0" % (v,))
    return t if t > 0 else 60


def job_dir():
    """The job's private directory (see the module's docstring)."""
    env = os.environ
    key = "\0".join(env.get(v, "") for v in ("TORCHELASTIC_RUN_ID", "MASTER_ADDR", "MASTER_PORT",
                                            "TORCHELASTIC_RESTART_COUNT"))
    name = "gshmem-%d-%s" % (os.getuid(), hashlib.sha256(key.encode()).hexdigest()[:16])
    for base in (env.get("XDG_RUNTIME_DIR"), env.get("TMPDIR"), "/tmp"):
        if base and os.path.isdir(base):
            d = os.path.join(base, name)
            if len(os.path.join(d, "rdv.sock").encode()) < _SOCK_MAX:
                return d
    return os.path.join("/tmp", name)


def _start_server(rank, n, d):
    tried = []
    for exe in gshmemrun_candidates():
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            # stdout/stderr: the worker's, so that torchrun shows its messages
            return subprocess.Popen([exe, "--serve", "-n", str(n), "--dir", d, "--keep"],
                                    stdin=subprocess.DEVNULL, close_fds=True)
        tried.append(exe)
    _fail(rank, "cannot find the gshmemrun program to serve the PEs' rendezvous; tried: %s. Set "
          "GSHMEMRUN to its path (<build>/tools/gshmemrun/gshmemrun or <prefix>/bin/gshmemrun)"
          % ("; ".join(tried) or "nothing (no GSHMEMRUN, libgshmem's folder unknown, not on "
                                  "PATH)"))


def _check_dir(rank, d):
    """d, once it exists, must be this user's own directory, closed to others."""
    try:
        st = os.lstat(d)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        what = "not a directory (a link or a file)"
    elif st.st_uid != os.geteuid():
        what = "owned by uid %d, not by this user (uid %d)" % (st.st_uid, os.geteuid())
    elif st.st_mode & 0o077:
        what = "open to other users (mode %o, not 700)" % stat.S_IMODE(st.st_mode)
    else:
        return
    _fail(rank, "the rendezvous directory %s is %s: refused, another user may have made it "
          "to catch this job's rendezvous (remove it, or set XDG_RUNTIME_DIR to a directory "
          "of your own)" % (d, what))


def _wait_for_server(rank, sock, limit, server):
    """Until a connection to sock succeeds (the server then sees a
    connection without HELLO and drops it)."""
    deadline, why = time.monotonic() + limit, "not there yet"
    while True:
        _check_dir(rank, os.path.dirname(sock))
        if server is not None and server.poll() is not None:
            _fail(rank, "gshmemrun --serve exited with status %d before serving %s (its "
                  "message is above)" % (server.returncode, sock))
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(sock)
            return
        except OSError as e:
            why = e.strerror or str(e)
        if time.monotonic() >= deadline:
            _fail(rank, "waited %d s (GSHMEM_TIMEOUT) for %s, the rendezvous that the process "
                  "of LOCAL_RANK 0 starts in gshmem.init (gshmemrun --serve): %s; did that "
                  "process call gshmem.init?" % (limit, sock, why))
        time.sleep(0.05)


def setup():
    """Under torchrun (see the module's docstring): start or find the
    rendezvous and set GSHMEMRUN_* for gshmem_init. Else nothing."""
    global _server
    if not _wanted():
        return
    rank = os.environ["RANK"]
    rank_i, world, local_rank, local_world = _ints(rank)
    if world != local_world:
        _fail(rank, "WORLD_SIZE=%d over LOCAL_WORLD_SIZE=%d per node: multi-node torchrun is "
              "not supported by gshmem's bootstrap (its rendezvous is a Unix socket on one "
              "node); start the job with gshmemrun (one node), or mpirun / srun (gshmem's mpi "
              "or pmix bootstrap)" % (world, local_world))
    if not 0 <= rank_i < world:
        _fail(rank, "RANK=%d is not in 0 .. WORLD_SIZE-1 = %d" % (rank_i, world - 1))
    limit, d = _timeout(rank), job_dir()
    sock = os.path.join(d, "rdv.sock")
    if local_rank == 0 and _server is None:
        _server = _start_server(rank, world, d)
    _wait_for_server(rank, sock, limit, _server)
    os.environ.update({"GSHMEMRUN_SOCKET": sock, "GSHMEMRUN_PE": str(rank_i),
                       "GSHMEMRUN_N_PES": str(world), "GSHMEMRUN_DIR": d})
