"""_torchrun.py: gshmem's PEs under torchrun, on one node or several.

torchrun starts the processes and leaves RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT and TORCHELASTIC_RUN_ID; gshmem's
local bootstrap wants gshmemrun's rendezvous (GSHMEMRUN_SOCKET, _PE,
_N_PES, _DIR). setup(), called by init() before gshmem_init, bridges the
two. Decided:

- When: GSHMEMRUN_SOCKET is unset, torchrun's variables are set, no other
  launcher's are (OMPI_COMM_WORLD_SIZE, PMI_RANK, PMIX_RANK: the C
  bootstrap's auto picks mpi or pmix there), and GSHMEM_BOOTSTRAP is unset,
  auto or local. Otherwise nothing changes.
- Several nodes (WORLD_SIZE != LOCAL_WORLD_SIZE): the unique-ID bootstrap
  (C: bootstrap_uid.c), its ID handed over torch's store, the one torchrun's
  agents share with the workers when TORCHELASTIC_USE_AGENT_STORE is True
  (torch 2.x with --rdzv_backend c10d, and static rendezvous in every
  version): a TCPStore client at MASTER_ADDR:MASTER_PORT. RANK 0 calls
  gshmem_get_uniqueid (listening on GSHMEM_BOOTSTRAP_UID_IFACE, by default
  the address of the interface that routes to MASTER_ADDR), puts the ID at
  the key gshmem/uid/<run id>/<restart count>/<init count>; every rank
  reads it there (waiting up to the timeout below) and sets
  GSHMEM_BOOTSTRAP_UID, _PE = RANK and _N_PES = WORLD_SIZE, which
  gshmem_init reads. No agent store (torch 1.x with c10d) is refused,
  naming the alternatives; so is GSHMEM_BOOTSTRAP=local (one node). A
  failing rank ends the others (PE 0 of the uid bootstrap does), whatever
  they are doing.
- One node: the local bootstrap, as follows.
- The PE number is torchrun's RANK, the PE count WORLD_SIZE.
- The process with LOCAL_RANK 0 starts `gshmemrun --serve -n WORLD_SIZE
  --dir D --keep` as its child (gshmemrun found as _lib.gshmemrun_candidates
  says). --keep: the server stays while that process lives, so init and
  finalize may repeat as under gshmemrun; it exits (and removes D) when that
  process exits, when a PE fails (it then tells the PEs waiting in a
  bootstrap exchange), or on a signal. It cannot end the other workers:
  torchrun does that when one fails.
- D, the server's directory, is <runtime dir>/gshmem-<uid>-rdv-<16 random hex
  digits>: nobody can guess it, so nobody can make it first. The process of
  LOCAL_RANK 0 draws it and writes its path into the job's pointer file
  P = <runtime dir>/gshmem-<uid>-<16 hex digits of a hash of
  TORCHELASTIC_RUN_ID, MASTER_ADDR, MASTER_PORT and
  TORCHELASTIC_RESTART_COUNT> (the same on every rank of one job, another
  for another job or a restart), mode 0600, created O_EXCL|O_NOFOLLOW and
  renamed into place; the other ranks read D from P. The runtime dir is
  XDG_RUNTIME_DIR, else TMPDIR, else /tmp, the first where D/rdv.sock stays
  under 100 bytes (a Unix socket path). LOCAL_RANK 0 removes P once its
  gshmem_init returns (every rank has read it by then), or at its exit when
  init failed; gshmemrun --serve removes D.
  Decided: P, not torch's store. torchrun's store is the agent's only with
  static rendezvous; with c10d (--standalone) nothing serves MASTER_PORT
  until the program's own init_process_group starts a store there, and one
  started here would take that port from it.
- Every rank, LOCAL_RANK 0 included, waits until P names a D whose
  rdv.sock accepts a connection (a stale P of an earlier run names a D
  that is gone or refuses; it is read again), up to GSHMEM_TIMEOUT seconds
  (60 when it is unset or 0), then sets GSHMEMRUN_* in os.environ, where
  gshmem_init reads them.
- P's name can be guessed, so another local user may create it first: a P
  that is not a regular file of this user closed to others is refused at
  once, naming it, and so is a D that is not a directory of this user with
  mode 0700 (a link, someone else's, open to others); gshmem_init itself
  talks only to a server of its own user (SO_PEERCRED,
  src/base/bootstrap/bootstrap_local.c).
"""
import atexit
import ctypes
import hashlib
import os
import socket
import stat
import subprocess
import time

from ._lib import GshmemError, gshmemrun_candidates, lib

_TORCHRUN_VARS = ("TORCHELASTIC_RUN_ID", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")
_OTHER_LAUNCHERS = ("OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK")
_SOCK_MAX = 100          # bytes of D/rdv.sock (sun_path holds 108)

_server = None           # LOCAL_RANK 0: the gshmemrun --serve child (kept for its lifetime)
_uid_inits = 0           # several nodes: the inits so far (one ID each)
_uid_ours = False        # GSHMEM_BOOTSTRAP_UID is ours (an earlier init), not the user's
_pointer = None          # LOCAL_RANK 0: (P, D) while P names D


def _fail(rank, what):
    raise GshmemError("gshmem.init: torchrun RANK %s: %s" % (rank, what))


def _wanted():
    env = os.environ
    if env.get("GSHMEMRUN_SOCKET") or any(env.get(v) for v in _OTHER_LAUNCHERS):
        return False
    if env.get("GSHMEM_BOOTSTRAP_UID") and not _uid_ours:
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


def _runtime_base(name_len):
    """The runtime dir where <base>/<name of name_len bytes>/rdv.sock fits."""
    env = os.environ
    for base in (env.get("XDG_RUNTIME_DIR"), env.get("TMPDIR"), "/tmp"):
        if base and os.path.isdir(base) and \
                len(os.path.join(base, "x" * name_len, "rdv.sock").encode()) < _SOCK_MAX:
            return base
    return "/tmp"


def job_pointer():
    """P, the job's pointer file (see the module's docstring)."""
    env = os.environ
    key = "\0".join(env.get(v, "") for v in ("TORCHELASTIC_RUN_ID", "MASTER_ADDR", "MASTER_PORT",
                                            "TORCHELASTIC_RESTART_COUNT"))
    name = "gshmem-%d-%s" % (os.getuid(), hashlib.sha256(key.encode()).hexdigest()[:16])
    return os.path.join(_runtime_base(len(name) + 4), name)


def _new_job_dir():
    """A fresh random D beside P (not created: gshmemrun --serve makes it)."""
    name = "gshmem-%d-rdv-%s" % (os.getuid(), os.urandom(8).hex())
    return os.path.join(_runtime_base(len(name)), name)


def _write_pointer(rank, p, d):
    tmp = "%s.%d.tmp" % (p, os.getpid())
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(d)
        os.replace(tmp, p)
    except OSError as e:
        _fail(rank, "cannot write the job's pointer %s: %s" % (p, e.strerror or e))
    global _pointer
    _pointer = (p, d)
    atexit.register(joined)


def joined():
    """After gshmem_init, and at exit: LOCAL_RANK 0 removes P (every rank
    has read it once init returns: init's first exchange needs them all;
    a later init finds GSHMEMRUN_* set and reads nothing)."""
    global _pointer
    if _pointer is None:
        return
    p, d = _pointer
    _pointer = None
    try:
        with open(p) as f:
            if f.read() == d:
                os.unlink(p)
    except OSError:
        pass


def _read_pointer(rank, p):
    """D from P, or None while P is not there; P must be this user's own."""
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as e:
        _fail(rank, "the job's pointer %s cannot be opened (%s): refused, another user may have "
              "made it (remove it, or set XDG_RUNTIME_DIR to a directory of your own)"
              % (p, e.strerror or e))
    with os.fdopen(fd) as f:
        what = _not_private(os.fstat(f.fileno()), stat.S_ISREG, "not a regular file", "600")
        if what is None:
            return f.read() or None
    _fail(rank, "the job's pointer %s is %s: refused, another user may have made it to send "
          "this job to a rendezvous of theirs (remove it, or set XDG_RUNTIME_DIR to a "
          "directory of your own)" % (p, what))


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


def _not_private(st, is_kind, not_kind, mode):
    """Why st (lstat/fstat) is not this user's own file of the kind is_kind
    tests (stat.S_ISDIR, S_ISREG: a link is neither), closed to others; None
    when it is."""
    if not is_kind(st.st_mode):
        return not_kind
    if st.st_uid != os.geteuid():
        return "owned by uid %d, not by this user (uid %d)" % (st.st_uid, os.geteuid())
    if st.st_mode & 0o077:
        return "open to other users (mode %o, not %s)" % (stat.S_IMODE(st.st_mode), mode)
    return None


def _check_dir(rank, d):
    """d, once it exists, must be this user's own directory, closed to others."""
    try:
        st = os.lstat(d)
    except FileNotFoundError:
        return
    what = _not_private(st, stat.S_ISDIR, "not a directory (a link or a file)", "700")
    if what is None:
        return
    _fail(rank, "the rendezvous directory %s is %s: refused, another user may have made it "
          "to catch this job's rendezvous (remove it, or set XDG_RUNTIME_DIR to a directory "
          "of your own)" % (d, what))


def _wait_for_server(rank, p, limit, server):
    """Until P names a D whose socket accepts a connection (the server then
    sees a connection without HELLO and drops it); returns D."""
    deadline, why = time.monotonic() + limit, "not there yet"
    while True:
        d = _read_pointer(rank, p)
        if d is not None:
            _check_dir(rank, d)
        if server is not None and server.poll() is not None:
            _fail(rank, "gshmemrun --serve exited with status %d before serving %s (its "
                  "message is above)" % (server.returncode, d))
        if d is None:
            why = "the pointer %s is not there yet" % p
        else:
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.connect(os.path.join(d, "rdv.sock"))
                return d
            except OSError as e:
                why = "%s: %s" % (os.path.join(d, "rdv.sock"), e.strerror or str(e))
        if time.monotonic() >= deadline:
            _fail(rank, "waited %d s (GSHMEM_TIMEOUT) for the rendezvous that the process of "
                  "LOCAL_RANK 0 starts in gshmem.init (gshmemrun --serve) and names in %s: %s; "
                  "did that process call gshmem.init?" % (limit, p, why))
        time.sleep(0.05)


def setup():
    """Under torchrun (see the module's docstring): start or find the
    rendezvous and set GSHMEMRUN_* for gshmem_init. Else nothing."""
    global _server
    if not _wanted():
        return
    rank = os.environ["RANK"]
    rank_i, world, local_rank, local_world = _ints(rank)
    if not 0 <= rank_i < world:
        _fail(rank, "RANK=%d is not in 0 .. WORLD_SIZE-1 = %d" % (rank_i, world - 1))
    if world != local_world:
        _several_nodes(rank, rank_i, world, local_world)
        return
    limit, p = _timeout(rank), job_pointer()
    if local_rank == 0 and _server is None:
        d = _new_job_dir()
        _server = _start_server(rank, world, d)
        _write_pointer(rank, p, d)
    d = _wait_for_server(rank, p, limit, _server)
    os.environ.update({"GSHMEMRUN_SOCKET": os.path.join(d, "rdv.sock"),
                       "GSHMEMRUN_PE": str(rank_i), "GSHMEMRUN_N_PES": str(world),
                       "GSHMEMRUN_DIR": d})


def _route_addr(host, port):
    """This host's address on the way to host (no packet is sent), or None."""
    try:
        fam = socket.getaddrinfo(host, port, 0, socket.SOCK_DGRAM)[0]
        with socket.socket(fam[0], socket.SOCK_DGRAM) as s:
            s.connect(fam[4])
            return s.getsockname()[0]
    except OSError:
        return None


def _several_nodes(rank, rank_i, world, local_world):
    """The unique-ID bootstrap, the ID through the agent's store (see the
    module's docstring)."""
    global _uid_inits, _uid_ours
    env = os.environ
    if env.get("GSHMEM_BOOTSTRAP", "auto") == "local":
        _fail(rank, "GSHMEM_BOOTSTRAP=local is one node (a Unix socket), but WORLD_SIZE=%d over "
              "LOCAL_WORLD_SIZE=%d spans nodes; unset it" % (world, local_world))
    if env.get("TORCHELASTIC_USE_AGENT_STORE") != "True":
        _fail(rank, "WORLD_SIZE=%d over LOCAL_WORLD_SIZE=%d per node: across nodes gshmem hands "
              "its unique ID over the store torchrun's agents share with the workers, but "
              "TORCHELASTIC_USE_AGENT_STORE=%r (torch 1.x shares it only with --rdzv_backend "
              "static; torch 2.x with c10d too); use --rdzv_backend static (--master_addr, "
              "--master_port, --node_rank), a newer torch, or mpirun / srun"
              % (world, local_world, env.get("TORCHELASTIC_USE_AGENT_STORE")))
    try:
        import datetime
        from torch.distributed import TCPStore
    except ImportError as e:
        _fail(rank, "across nodes gshmem needs torch.distributed.TCPStore: %s" % e)
    limit = _timeout(rank)
    addr, port = env.get("MASTER_ADDR", ""), env.get("MASTER_PORT", "")
    try:
        store = TCPStore(addr, int(port), world, False, datetime.timedelta(seconds=limit))
    except (RuntimeError, ValueError) as e:
        _fail(rank, "cannot reach torchrun's store at MASTER_ADDR:MASTER_PORT = %s:%s: %s"
              % (addr, port, e))
    key = "gshmem/uid/%s/%s/%d" % (env.get("TORCHELASTIC_RUN_ID", ""),
                                   env.get("TORCHELASTIC_RESTART_COUNT", "0"), _uid_inits)
    _uid_inits += 1
    if rank_i == 0:
        if not env.get("GSHMEM_BOOTSTRAP_UID_IFACE"):
            mine = _route_addr(addr, int(port))
            if mine:
                env["GSHMEM_BOOTSTRAP_UID_IFACE"] = mine
        buf = ctypes.create_string_buffer(128)
        rc = lib.gshmem_get_uniqueid(buf)
        if rc != 0:
            _fail(rank, "gshmem_get_uniqueid failed (status %d; the cause is logged above)" % rc)
        uid = buf.value.decode()
        store.set(key, uid)
    else:
        try:
            uid = store.get(key).decode()
        except RuntimeError as e:
            _fail(rank, "waited %d s (GSHMEM_TIMEOUT, 60 when unset) for RANK 0's unique ID in "
                  "torchrun's store (key %s): %s; did RANK 0 call gshmem.init?" % (limit, key, e))
    env.update({"GSHMEM_BOOTSTRAP_UID": uid, "GSHMEM_BOOTSTRAP_UID_PE": str(rank_i),
                "GSHMEM_BOOTSTRAP_UID_N_PES": str(world)})
    _uid_ours = True
