/* gshmemrun: starts N PEs of a program on this node and serves their
 * bootstrap (rendezvous over a Unix socket in a private directory).
 *
 *   gshmemrun -n N [--timeout S] [--prefix] [--] prog [args...]
 *   gshmemrun --serve -n N --dir D [--timeout S] [--keep]
 *
 * --serve (serve.c) starts nothing: it serves the rendezvous in D for N PEs
 * that another launcher started (torchrun: python/gshmem/_torchrun.py).
 *
 * Each PE gets GSHMEMRUN_SOCKET, GSHMEMRUN_PE, GSHMEMRUN_N_PES and
 * GSHMEMRUN_DIR. When a PE dies, exits non-zero, exits or drops its
 * connection without gshmem_finalize, or aborts, gshmemrun names it and the
 * cause, tells the others, sends them SIGTERM (SIGKILL 2 s later) and exits
 * with the first failure's status (128+signal for a signal, 124 on timeout).
 * A PE's gshmem_global_exit(status) ends the job the same way, and
 * gshmemrun exits with that status, 0 included. A program that cannot run
 * (looked up as execvp would) is said once, before any PE starts, with the
 * shell's status: 127 not found, 126 not executable.
 *
 * A PE stopped (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) for longer than
 * GSHMEM_STOPPED_TIMEOUT seconds (default 10; 0: never) ends the job like
 * a death, with status 128 + the stop signal (a shell's status for a
 * stopped job); one continued in time is only slow. A watcher process
 * removes the private directory and the PEs' /dev/shm objects when
 * gshmemrun dies without doing it (SIGKILL). */
#define _GNU_SOURCE
#include "launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/bootstrap/local_proto.h"

#define LR_GRACE_S 2.0
#define LR_STOPPED_ENV "GSHMEM_STOPPED_TIMEOUT"
#define LR_STOPPED_DEFAULT_S 10

typedef struct lr_args {
    int n;
    double timeout;
    int prefix;
    int serve, keep;   /* --serve, --keep */
    const char *dir;   /* --dir */
    char **argv;       /* program and its arguments */
    int stopped_limit; /* GSHMEM_STOPPED_TIMEOUT, seconds (0: never) */
} lr_args_t;

static int sig_pipe[2] = {-1, -1};
static volatile sig_atomic_t got_term_sig;

double lr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void lr_buf_append(lr_buf_t *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            fprintf(stderr, "gshmemrun: out of memory (%zu bytes)\n", cap);
            exit(1);
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void lr_buf_consume(lr_buf_t *b, size_t n)
{
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gshmemrun -n N [--timeout S] [--prefix] [--] prog [args...]\n"
               "       gshmemrun --serve -n N --dir D [--timeout S] [--keep]\n"
               "  -n, --np N      number of PEs to start on this node\n"
               "  --timeout S     end the job after S seconds (exit status 124)\n"
               "  --prefix        prefix each output line with \"[PE i] \"\n"
               "  --serve         start no PE: serve the rendezvous of N PEs started by\n"
               "                  another launcher (they set GSHMEMRUN_SOCKET=D/rdv.sock,\n"
               "                  GSHMEMRUN_PE, GSHMEMRUN_N_PES=N, GSHMEMRUN_DIR=D); exit when\n"
               "                  they finished, one failed, or the parent process exited\n"
               "  --dir D         --serve's private directory (created 0700, removed at exit;\n"
               "                  a stale one of this user without a live server is replaced)\n"
               "  --keep          --serve: once every PE finished, keep serving (a PE may init\n"
               "                  again) until the parent process exits\n"
               "environment:\n"
               "  GSHMEM_STOPPED_TIMEOUT S  end the job when a PE stays stopped (SIGSTOP,\n"
               "                  SIGTSTP, SIGTTIN, SIGTTOU) S seconds (default 10; 0: never)\n");
}

/* --serve's options; n_left: arguments after the options (none allowed). */
static int check_serve_args(const lr_args_t *a, int n_left)
{
    const char *bad = a->n < 1 ? "-n N is required" : !a->dir || !*a->dir ? "--dir D is required"
                      : a->prefix ? "--prefix has no output to label (no PE is started)"
                      : n_left > 0 ? "starts no program (drop the program and its arguments)"
                      : NULL;
    if (bad) {
        fprintf(stderr, "gshmemrun --serve: %s\n", bad);
        usage(stderr);
        return -1;
    }
    return 0;
}

/* mpirun's and oshrun's host options: a list of nodes gshmemrun cannot serve. */
static int is_host_option(const char *o)
{
    static const char *const host_opts[] = {"-H", "--host", "-host", "--hostfile", "-hostfile",
                                            "--machinefile", "-machinefile", "-f", "--hosts",
                                            "-hosts"};
    for (size_t k = 0; k < sizeof host_opts / sizeof host_opts[0]; k++) {
        size_t n = strlen(host_opts[k]);
        if (strncmp(o, host_opts[k], n) == 0 && (o[n] == '\0' || o[n] == '='))
            return 1;
    }
    return 0;
}

static int parse_args(int argc, char **argv, lr_args_t *a)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *o = argv[i];
        char *end;
        if (strcmp(o, "--") == 0) {
            i++;
            break;
        } else if (strcmp(o, "--prefix") == 0) {
            a->prefix = 1;
        } else if (strcmp(o, "--serve") == 0) {
            a->serve = 1;
        } else if (strcmp(o, "--keep") == 0) {
            a->keep = 1;
        } else if (strcmp(o, "--dir") == 0 && i + 1 < argc) {
            a->dir = argv[++i];
        } else if (is_host_option(o)) {
            fprintf(stderr, "gshmemrun: %s: gshmemrun starts PEs on this node only (its "
                    "rendezvous is a Unix socket); across nodes use mpirun --hostfile, srun "
                    "--mpi=pmix, torchrun --nnodes, or the unique-ID bootstrap "
                    "(GSHMEM_BOOTSTRAP_UID; README, \"Running programs\")\n", o);
            return -1;
        } else if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if ((strcmp(o, "-n") == 0 || strcmp(o, "-np") == 0 || strcmp(o, "--np") == 0) &&
                   i + 1 < argc) {
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 4096) {
                fprintf(stderr, "gshmemrun: -n %s: expected a PE count in 1..4096\n", argv[i]);
                return -1;
            }
            a->n = (int)v;
        } else if (strcmp(o, "--timeout") == 0 && i + 1 < argc) {
            double v = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(v > 0 && v <= 1e9)) {   /* nan, inf: refused */
                fprintf(stderr, "gshmemrun: --timeout %s: expected a number of seconds > 0 "
                        "(at most 1e9)\n", argv[i]);
                return -1;
            }
            a->timeout = v;
        } else {
            fprintf(stderr, "gshmemrun: unknown or incomplete option %s\n", o);
            usage(stderr);
            return -1;
        }
    }
    if (a->serve)
        return check_serve_args(a, argc - i);
    if (a->dir || a->keep) {
        fprintf(stderr, "gshmemrun: --dir and --keep go with --serve only\n");
        return -1;
    }
    if (a->n < 1 || i >= argc) {
        usage(stderr);
        return -1;
    }
    a->argv = argv + i;
    return 0;
}

static int make_dir(lr_job_t *job)
{
    const char *bases[2] = {getenv("TMPDIR"), "/tmp"};
    for (int k = 0; k < 2; k++) {
        if (!bases[k] || !*bases[k])
            continue;
        char d[256];
        int l = snprintf(d, sizeof d, "%s/gshmemrun-XXXXXX", bases[k]);
        if (l < 0 || (size_t)l + sizeof "/rdv.sock" > sizeof job->sock)
            continue;   /* a Unix socket path must fit in sun_path */
        if (!mkdtemp(d))
            continue;
        chmod(d, 0700);
        snprintf(job->dir, sizeof job->dir, "%s", d);
        memcpy(job->sock, d, (size_t)l);   /* fits: checked above */
        memcpy(job->sock + l, "/rdv.sock", sizeof "/rdv.sock");
        return 0;
    }
    fprintf(stderr, "gshmemrun: cannot create a private directory under $TMPDIR or /tmp: %s\n",
            strerror(errno));
    return -1;
}

/* execvp's verdict on path, a file it would try: 0 (an executable file),
 * EACCES (there, but not executable) or ENOENT. */
static int prog_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return ENOENT;
    return S_ISREG(st.st_mode) && access(path, X_OK) == 0 ? 0 : EACCES;
}

/* The first file named prog in path's folders that execvp would run: 0,
 * EACCES (only files that are not executable) or ENOENT. */
static int prog_search(const char *prog, const char *path)
{
    int rc = ENOENT;
    for (const char *d = path;;) {
        const char *end = strchrnul(d, ':');
        char full[4096];
        if (end == d)   /* an empty entry: the current folder */
            snprintf(full, sizeof full, "%s", prog);
        else
            snprintf(full, sizeof full, "%.*s/%s", (int)(end - d), d, prog);
        int r = prog_file(full);
        if (r == 0)
            return 0;
        if (r == EACCES)
            rc = EACCES;
        if (*end == '\0')
            return rc;
        d = end + 1;
    }
}

/* Before any PE starts, the program as execvp would find it (a name with
 * a '/' as it is, else searched in PATH): 0, or the shell's status, said
 * once: 127 not found, 126 not executable. */
static int check_prog(const char *prog)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/bin:/usr/bin";   /* execvp's default */
    int direct = strchr(prog, '/') != NULL;
    int rc = !*prog ? ENOENT : direct ? prog_file(prog) : prog_search(prog, path);
    if (rc == 0)
        return 0;
    if (direct)
        fprintf(stderr, "gshmemrun: cannot run %s: %s; no PE was started\n", prog,
                strerror(rc));
    else
        fprintf(stderr, "gshmemrun: cannot run %s: %s in PATH (%s); no PE was started\n",
                prog, rc == EACCES ? "not executable" : "not found", path);
    return rc == EACCES ? 126 : 127;
}

static void child_exec(lr_job_t *job, int pe, int out_w, int err_w, char **argv,
                       pid_t launcher)
{
    char v[32];
    /* A PE dies with its launcher, however the launcher ends (a SIGKILLed
     * gshmemrun left its PEs running at full CPU until their next barrier);
     * a launcher already gone before this line is caught by the check. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != launcher)
        _exit(127);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (out_w >= 0) {
        dup2(out_w, 1);
        dup2(err_w, 2);
    }
    setenv(GSHMEMI_LP_ENV_SOCKET, job->sock, 1);
    setenv(GSHMEMI_LP_ENV_DIR, job->dir, 1);
    snprintf(v, sizeof v, "%d", pe);
    setenv(GSHMEMI_LP_ENV_PE, v, 1);
    snprintf(v, sizeof v, "%d", job->n);
    setenv(GSHMEMI_LP_ENV_N_PES, v, 1);
    /* eager kernel loading unless the user chose: a lazily loaded kernel can
     * deadlock a kernel that waits for the queue path (src/base/heap/heap.h) */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    /* libfabric loads libpsm_infinipath, whose backtrace handler turns a
     * signal (the SIGTERM that ends the others when a PE died) into
     * exit(1): the PE then runs its exit handler, which may wait 2 s for
     * a busy library thread. Unless the user set it, the PEs die of the
     * signal itself. */
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    execvp(argv[0], argv);
    fprintf(stderr, "gshmemrun: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static int spawn_all(lr_job_t *job, char **argv)
{
    for (int p = 0; p < job->n; p++) {
        int o[2] = {-1, -1}, e[2] = {-1, -1};
        if (job->prefix && (pipe2(o, O_CLOEXEC) != 0 || pipe2(e, O_CLOEXEC) != 0)) {
            fprintf(stderr, "gshmemrun: pipe: %s\n", strerror(errno));
            return -1;
        }
        fflush(NULL);
        pid_t launcher = getpid(), pid = fork();
        if (pid < 0) {
            lr_job_fail(job, 1, "cannot start PE %d: fork: %s", p, strerror(errno));
            return -1;
        }
        if (pid == 0)
            child_exec(job, p, o[1], e[1], argv, launcher);
        job->pes[p].pid = pid;
        job->pes[p].running = 1;
        lr_watch_tell(job, (int32_t)pid);
        if (job->prefix) {
            close(o[1]);
            close(e[1]);
            job->pes[p].out_fd = o[0];
            job->pes[p].err_fd = e[0];
        }
    }
    return 0;
}

/* Only our children, by their own pid: never with --serve (its PEs are
 * another launcher's), never pid 0 or a negative one (a process group).
 * A stopped PE gets SIGKILL: a SIGTERM would wait for its SIGCONT. */
static void kill_running(lr_job_t *job, int sig)
{
    if (job->serve)
        return;
    for (int p = 0; p < job->n; p++)
        if (job->pes[p].running && job->pes[p].pid > 0)
            kill(job->pes[p].pid, job->pes[p].stopped_at > 0 ? SIGKILL : sig);
}

void lr_job_fail(lr_job_t *job, int rc, const char *fmt, ...)
{
    if (job->failing)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gshmemrun: %s\n", text);
    if (job->held_at > 0)   /* an ABORT that came first but was caused by this */
        fprintf(stderr, "gshmemrun: then %s\n", job->held_text);
    fflush(stderr);
    job->held_at = 0;
    job->failing = 1;
    job->rc = rc;
    lr_rdv_send_error_all(job, text);
    kill_running(job, SIGTERM);
    job->kill_at = lr_now() + LR_GRACE_S;
}

static void on_exit_pe(lr_job_t *job, int p, int st)
{
    lr_pe_t *pe = &job->pes[p];
    pe->running = 0;
    pe->wstatus = st;
    lr_remove_pe_shm(pe->pid);
    lr_watch_tell(job, -(int32_t)pe->pid);
    lr_rdv_drain_pe(job, p);   /* an ABORT or BYE it left behind comes first */
    if (job->failing || pe->aborted)   /* an aborted PE's exit follows its ABORT */
        return;
    if (WIFSIGNALED(st))
        lr_job_fail(job, 128 + WTERMSIG(st), "PE %d (pid %d) was killed by signal %d (%s)", p,
                    (int)pe->pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WEXITSTATUS(st) != 0)
        lr_job_fail(job, WEXITSTATUS(st), "PE %d (pid %d) exited with status %d", p,
                    (int)pe->pid, WEXITSTATUS(st));
    else if (pe->in_session)
        lr_job_fail(job, 1, "PE %d (pid %d) exited without gshmem_finalize", p, (int)pe->pid);
}

/* Exits, and stops and continues (a stopped PE is timed: stopped_check). */
static int reap(lr_job_t *job)
{
    int running = 0, st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG | WUNTRACED | WCONTINUED)) > 0) {
        if (pid == job->watch_pid && (WIFEXITED(st) || WIFSIGNALED(st)))
            job->watch_pid = 0;
        for (int p = 0; p < job->n; p++) {
            lr_pe_t *pe = &job->pes[p];
            if (pe->pid != pid || !pe->running)
                continue;
            if (WIFSTOPPED(st)) {
                pe->stop_sig = WSTOPSIG(st);
                if (pe->stopped_at == 0)
                    pe->stopped_at = lr_now();
            } else if (WIFCONTINUED(st)) {
                pe->stopped_at = 0;
            } else {
                on_exit_pe(job, p, st);
            }
        }
    }
    for (int p = 0; p < job->n; p++)
        running += job->pes[p].running;
    return running;
}

static void on_signal(int sig)
{
    int saved = errno;
    if (sig != SIGCHLD)
        got_term_sig = sig;
    if (write(sig_pipe[1], "x", 1) < 0) {
        /* the pipe is full: a wake-up is already pending */
    }
    errno = saved;
}

int lr_signals_setup(void)
{
    if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        perror("gshmemrun: pipe");
        exit(1);
    }
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return sig_pipe[0];
}

void lr_signals_check(lr_job_t *job)
{
    char tmp[64];
    while (read(sig_pipe[0], tmp, sizeof tmp) > 0) {
    }
    if (got_term_sig && !job->failing)
        lr_job_fail(job, 128 + got_term_sig, "received signal %d (%s); ending the job",
                    (int)got_term_sig, strsignal(got_term_sig));
}

const char *lr_pe_list(const lr_job_t *job, int (*pick)(const lr_pe_t *), char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int p = 0; p < job->n && used < cap; p++)
        if (pick(&job->pes[p]))
            used += (size_t)snprintf(buf + used, cap - used, " %d", p);
    return buf;
}

void lr_job_timeout(lr_job_t *job, double limit, const char *what,
                    int (*pick)(const lr_pe_t *))
{
    char list[512];
    lr_job_fail(job, 124, "timeout after %g s; PEs %s:%s", limit, what,
                lr_pe_list(job, pick, list, sizeof list));
    job->rc = 124;
}

int lr_job_open(lr_job_t *job)
{
    if (lr_rdv_open(job) == 0)
        return 0;
    gshmemi_rmtree(job->dir);
    return -1;
}

int lr_job_close(lr_job_t *job)
{
    lr_rdv_close(job);
    if (gshmemi_rmtree(job->dir) != 0)
        fprintf(stderr, "gshmemrun: cannot remove %s: %s\n", job->dir, strerror(errno));
    return job->rc;
}

static int pe_running(const lr_pe_t *pe)
{
    return pe->running;
}

/* A PE stopped for limit seconds (0: never) ends the job as a death would,
 * with a shell's status for a stopped job (128 + the signal); slow is not
 * dead, but a stopped PE never comes back by itself, and the others would
 * wait for it forever. Only time in which gshmemrun ran counts: after a gap
 * between two calls (gshmemrun stopped too, as by a Ctrl-Z of the whole job,
 * or starved) the PEs' SIGCONT may not be reaped yet. */
static void stopped_check(lr_job_t *job, int limit)
{
    static double checked_at;
    double now = lr_now(), gap = checked_at > 0 ? now - checked_at : 0;
    checked_at = now;
    for (int p = 0; p < job->n && limit > 0 && !job->failing; p++) {
        lr_pe_t *pe = &job->pes[p];
        if (pe->stopped_at > 0 && gap > 1.0)
            pe->stopped_at += gap;
        if (pe->running && pe->stopped_at > 0 && now - pe->stopped_at >= limit) {
            const char *abbrev = sigabbrev_np(pe->stop_sig);
            lr_job_fail(job, 128 + pe->stop_sig, "PE %d (pid %d) has been stopped by signal %d "
                        "(SIG%s) for %d s; ending the job (%s=%d)", p, (int)pe->pid,
                        pe->stop_sig, abbrev ? abbrev : "?", limit, LR_STOPPED_ENV, limit);
        }
    }
}

/* GSHMEM_STOPPED_TIMEOUT: whole seconds >= 0, default LR_STOPPED_DEFAULT_S;
 * -1 (said) when it is something else. */
static int stopped_limit_of_env(void)
{
    const char *v = getenv(LR_STOPPED_ENV);
    char *end;
    if (v == NULL || *v == '\0')
        return LR_STOPPED_DEFAULT_S;
    long s = strtol(v, &end, 10);
    if (*end || s < 0 || s > 1000000000L) {
        fprintf(stderr, "gshmemrun: %s=%s: expected whole seconds from 0 (never) to "
                "1000000000\n", LR_STOPPED_ENV, v);
        return -1;
    }
    return (int)s;
}

/* The poll loop: returns when every PE has exited and its output is in. */
static void run_loop(lr_job_t *job, double deadline, double limit, int stopped_limit)
{
    int max = 2 + job->n_conns + 2 * job->n;
    struct pollfd *pfds = calloc((size_t)max, sizeof *pfds);
    double all_exited_at = 0;
    for (;;) {
        int running = reap(job);
        if (running == 0)
            lr_rdv_held_fail(job);   /* the PEs that aborted are all gone */
        if (running == 0 && all_exited_at == 0)
            all_exited_at = lr_now();
        /* Output still coming after the PEs exited belongs to their own
         * children: give it a second, not forever. */
        if (running == 0 && (lr_fwd_open_count(job) == 0 || lr_now() - all_exited_at > 1.0))
            break;
        pfds[0] = (struct pollfd){.fd = sig_pipe[0], .events = POLLIN};
        int n_rdv = lr_rdv_pollfds(job, pfds + 1, max - 1);
        int n_fwd = lr_fwd_pollfds(job, pfds + 1 + n_rdv, max - 1 - n_rdv);
        int ready = poll(pfds, (nfds_t)(1 + n_rdv + n_fwd), 100);
        reap(job);   /* a death comes before the messages it caused */
        if (ready > 0) {
            lr_rdv_handle(job, pfds + 1, n_rdv);
            lr_fwd_handle(job, pfds + 1 + n_rdv, n_fwd);
        }
        lr_signals_check(job);
        lr_rdv_check(job);
        stopped_check(job, stopped_limit);
        double now = lr_now();
        if (deadline > 0 && now >= deadline && !job->failing)
            lr_job_timeout(job, limit, "still running", pe_running);
        if (job->kill_at > 0 && now >= job->kill_at) {
            kill_running(job, SIGKILL);
            job->kill_at = 0;
        }
    }
    free(pfds);
}

/* The normal mode: start the PEs, serve them, return the job's status. */
static int launch(lr_job_t *job, const lr_args_t *a)
{
    int rc = check_prog(a->argv[0]);
    if (rc != 0)
        return rc;
    if (make_dir(job) != 0)
        return 1;
    lr_watch_start(job);   /* first: it must hold none of the job's other files */
    (void)lr_signals_setup();
    if (lr_job_open(job) != 0) {
        lr_watch_stop(job);
        return 1;
    }
    double start = lr_now();
    spawn_all(job, a->argv);
    run_loop(job, a->timeout > 0 ? start + a->timeout : 0, a->timeout, a->stopped_limit);
    lr_fwd_close_all(job);
    rc = lr_job_close(job);
    lr_watch_stop(job);
    return rc;
}

int main(int argc, char **argv)
{
    lr_args_t a = {0};
    if (parse_args(argc, argv, &a) != 0)
        return 2;
    if (!a.serve && (a.stopped_limit = stopped_limit_of_env()) < 0)
        return 2;
    lr_job_t job = {.n = a.n, .listen_fd = -1, .prefix = a.prefix, .serve = a.serve,
                    .watch_fd = -1};
    job.pes = calloc((size_t)a.n, sizeof *job.pes);
    for (int p = 0; p < a.n; p++)   /* --serve: "running" until the job ends (not our child) */
        job.pes[p] = (lr_pe_t){.running = a.serve, .conn = -1, .out_fd = -1, .err_fd = -1};
    int rc = a.serve ? lr_serve(&job, a.dir, a.timeout, a.keep) : launch(&job, &a);
    for (int p = 0; p < a.n; p++) {
        free(job.pes[p].contrib);
        free(job.pes[p].out_line.data);
        free(job.pes[p].err_line.data);
    }
    free(job.pes);
    return rc;
}
