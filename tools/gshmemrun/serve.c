/* serve.c: gshmemrun --serve -n N --dir D [--timeout S] [--keep]: the
 * rendezvous of the local bootstrap without the launcher. It starts no PE:
 * another launcher (torchrun, through python/gshmem/_torchrun.py) starts N
 * processes that set GSHMEMRUN_SOCKET=D/rdv.sock, GSHMEMRUN_PE,
 * GSHMEMRUN_N_PES=N and GSHMEMRUN_DIR=D themselves. Same server and
 * protocol as the normal mode (rdv_server.c, local_proto.h).
 *
 * Decided:
 * - D is created 0700. An existing D is used only when it is a directory
 *   (not a link) of this user with mode 0700 and no server answers on its
 *   socket: a stale one from an earlier run of the same job id is then
 *   removed and made again. Anything else is refused with the reason.
 * - It ends: with status 0 when every PE finished (each said HELLO, then
 *   BYE, and closed its connection; with --keep only once the parent has
 *   exited too, so that a PE may init again: without it, a PE that inits
 *   again after all PEs finished finds no server); when a PE fails
 *   (connection lost without BYE, at once: no exit status will come; ABORT;
 *   EXIT): the same messages and statuses as the normal mode, and the
 *   connected PEs get the same ERROR; on SIGINT, SIGTERM, SIGHUP
 *   (128+signal) or --timeout (124); with status 1 when the process that
 *   started it exits while PEs are still connected (after a grace for their
 *   last BYE) or before all of them came.
 * - It never signals a PE: they are not its children (kill_running is off).
 *   A PE that waits in a bootstrap exchange gets the ERROR and fails; one
 *   that waits elsewhere (a transport's quiet) is ended by its launcher,
 *   as torchrun ends the other workers when one exits non-zero. (So a
 *   gshmem_global_exit(0) reaches only the PEs that next enter a bootstrap
 *   exchange: torchrun ends nobody for a zero status.)
 * - The parent's exit is seen by polling getppid() each round (<= 0.1 s),
 *   not PR_SET_PDEATHSIG, which fires when the forking thread exits (Python
 *   may call gshmem.init from a thread that ends before the process). */
#define _GNU_SOURCE
#include "launcher.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define LR_SERVE_GRACE_S 2.0   /* for the last BYEs after the parent exited */
#define LR_SERVE_FLUSH_S 1.0   /* for the ERRORs to go out once failing */

/* 1 when a server accepts connections on sock. */
static int sock_is_live(const char *sock)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int live = fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
    if (fd >= 0)
        close(fd);
    return live;
}

/* An existing dir: 0 when it is a stale private directory of ours (removed
 * then), else -1 with the reason printed. */
static int reclaim_dir(lr_job_t *job)
{
    struct stat st;
    if (lstat(job->dir, &st) != 0) {
        fprintf(stderr, "gshmemrun --serve: --dir %s: %s\n", job->dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700) {
        fprintf(stderr, "gshmemrun --serve: --dir %s exists and is not a private directory "
                "of uid %d (%s, owner uid %d, mode %04o); remove it or choose another --dir\n",
                job->dir, (int)geteuid(), S_ISDIR(st.st_mode) ? "a directory"
                : S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory",
                (int)st.st_uid, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    if (sock_is_live(job->sock)) {
        fprintf(stderr, "gshmemrun --serve: another gshmemrun serves %s (a job with the same "
                "--dir is running); choose another --dir\n", job->sock);
        return -1;
    }
    if (gshmemi_rmtree(job->dir) != 0) {
        fprintf(stderr, "gshmemrun --serve: cannot remove the stale %s: %s\n", job->dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* Creates dir 0700 (see the file's comment) and sets job->dir, job->sock. */
static int serve_make_dir(lr_job_t *job, const char *dir)
{
    struct sockaddr_un addr;
    if (strlen(dir) + sizeof "/rdv.sock" > sizeof addr.sun_path) {
        fprintf(stderr, "gshmemrun --serve: --dir %s is too long: %s/rdv.sock must fit a Unix "
                "socket path (%zu bytes)\n", dir, dir, sizeof addr.sun_path - 1);
        return -1;
    }
    snprintf(job->dir, sizeof job->dir, "%s", dir);
    snprintf(job->sock, sizeof job->sock, "%s/rdv.sock", dir);
    int rc = mkdir(dir, 0700);
    if (rc != 0 && errno == EEXIST) {
        if (reclaim_dir(job) != 0)
            return -1;
        rc = mkdir(dir, 0700);
    }
    if (rc != 0) {
        fprintf(stderr, "gshmemrun --serve: cannot create --dir %s: %s\n", dir, strerror(errno));
        return -1;
    }
    if (chmod(dir, 0700) != 0) {   /* mkdir's mode went through the umask */
        fprintf(stderr, "gshmemrun --serve: chmod 0700 %s: %s\n", dir, strerror(errno));
        gshmemi_rmtree(dir);
        return -1;
    }
    return 0;
}

static int pe_connected(const lr_pe_t *pe)
{
    return pe->in_session || pe->conn >= 0;
}

static int pe_unfinished(const lr_pe_t *pe)
{
    return pe->sessions == 0 || pe_connected(pe);
}

static int conns_open(const lr_job_t *job)
{
    for (int i = 0; i < job->n_conns; i++)
        if (job->conns[i].fd >= 0)
            return 1;
    return 0;
}

/* After a round of the loop: 1 when the job is over (done or failed and
 * its ERRORs out), else 0; ends the job on parent exit as decided above. */
static int serve_over(lr_job_t *job, int keep, pid_t parent, double *gone_at_p,
                      double *failed_at_p)
{
    double now = lr_now();
    char list[512];
    if (job->failing) {
        if (*failed_at_p == 0)
            *failed_at_p = now;
        return !conns_open(job) || now - *failed_at_p > LR_SERVE_FLUSH_S;
    }
    int finished = lr_pe_list(job, pe_unfinished, list, sizeof list)[0] == '\0';
    if (*gone_at_p == 0 && getppid() != parent)
        *gone_at_p = now;
    if (finished && (!keep || *gone_at_p > 0))
        return 1;
    if (*gone_at_p == 0)
        return 0;
    if (lr_pe_list(job, pe_connected, list, sizeof list)[0] == '\0')
        lr_job_fail(job, 1, "the process that started gshmemrun --serve (pid %d) exited "
                    "before every PE finished (PEs not finished:%s)", (int)parent,
                    lr_pe_list(job, pe_unfinished, list, sizeof list));
    else if (now - *gone_at_p > LR_SERVE_GRACE_S)
        lr_job_fail(job, 1, "the process that started gshmemrun --serve (pid %d) exited "
                    "(PEs still connected %g s later:%s)", (int)parent, LR_SERVE_GRACE_S, list);
    return 0;
}

static void serve_loop(lr_job_t *job, double timeout, int keep, pid_t parent, int sig_fd)
{
    int max = 2 + job->n_conns;   /* the signal pipe, the listening socket, the connections */
    struct pollfd *pfds = calloc((size_t)max, sizeof *pfds);
    double deadline = timeout > 0 ? lr_now() + timeout : 0, gone_at = 0, failed_at = 0;
    while (!serve_over(job, keep, parent, &gone_at, &failed_at)) {
        pfds[0] = (struct pollfd){.fd = sig_fd, .events = POLLIN};
        int n = lr_rdv_pollfds(job, pfds + 1, max - 1);
        if (poll(pfds, (nfds_t)(1 + n), 100) > 0)
            lr_rdv_handle(job, pfds + 1, n);
        lr_signals_check(job);
        lr_rdv_check(job);
        if (deadline > 0 && lr_now() >= deadline && !job->failing)
            lr_job_timeout(job, timeout, "not finished", pe_unfinished);
    }
    free(pfds);
}

int lr_serve(lr_job_t *job, const char *dir, double timeout, int keep)
{
    pid_t parent = getppid();
    int sig_fd = lr_signals_setup();
    if (serve_make_dir(job, dir) != 0 || lr_job_open(job) != 0)
        return 1;
    serve_loop(job, timeout, keep, parent, sig_fd);
    return lr_job_close(job);
}
