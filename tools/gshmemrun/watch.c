/* watch.c: what gshmemrun leaves when it dies, removed anyway: a reaped
 * PE's /dev/shm objects, and (by a watcher process) the job's directory and
 * the objects of its PEs after gshmemrun itself was killed. */
#define _GNU_SOURCE
#include "launcher.h"
#include "base/util/proc_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LR_WATCH_WAIT_S 2.0   /* the watcher waits this long for killed PEs to be gone */

/* What a PE that did not finalize leaves in /dev/shm: libfabric's shm
 * provider names its endpoint gshmem-<pid>-<16 hex digits> (src/transports/
 * ofi/ofi.c), a 16 MiB object that nobody else would remove. Only this
 * user's objects of that exact name are taken. */
void lr_remove_pe_shm(pid_t pid)
{
    char prefix[32];
    int n = snprintf(prefix, sizeof prefix, "gshmem-%d-", (int)pid);
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, prefix, (size_t)n) != 0 || strlen(e->d_name + n) != 16 ||
            strspn(e->d_name + n, "0123456789abcdef") != 16)
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_uid == geteuid())
            (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* ---- the watcher ----------------------------------------------------
 * A SIGKILLed gshmemrun cannot remove its directory, and its PEs, killed
 * with it (PR_SET_PDEATHSIG), cannot either. So a watcher, forked before
 * anything else, holds the read end of a pipe whose write end only
 * gshmemrun holds (O_CLOEXEC: the PEs close it at exec). gshmemrun writes
 * each PE's pid as it starts it and -pid once it reaped it (and removed its
 * objects itself); 0 when it cleaned up at a normal end. EOF without the 0
 * means gshmemrun is gone, however it died: the watcher removes the
 * directory, then waits (LR_WATCH_WAIT_S at most) for each PE still listed
 * to be gone or a zombie and removes its /dev/shm objects (a PE still alive
 * when gshmemrun's files close may yet make one), and exits. It is in its
 * own process group (a Ctrl-C or a kill of gshmemrun's group does not end it
 * before its work), has /dev/null for its standard files (it prints nothing:
 * there may be nobody to read it) and is not a PE: no rendezvous, never
 * signalled, its exit status ignored. At a normal end it exits at the 0, and
 * gshmemrun waits for that (killing it if it does not go at once). */

/* 1 when pid is gone or a zombie. */
static int proc_gone(pid_t pid)
{
    char st = gshmemi_proc_state((int)pid);
    return st == 0 || st == 'Z' || st == 'X';
}

/* After gshmemrun's death: each listed PE's objects once it is gone (one
 * still alive at the deadline keeps them: it may still use them). */
static void watch_clean_pes(const pid_t *pids, int n)
{
    double until = lr_now() + LR_WATCH_WAIT_S;
    for (int i = 0; i < n; i++) {
        while (!proc_gone(pids[i]) && lr_now() < until)
            usleep(10 * 1000);
        if (proc_gone(pids[i]))
            lr_remove_pe_shm(pids[i]);
    }
}

static void __attribute__((noreturn)) watch_main(int rfd, const char *dir, int n_max)
{
    pid_t *pids = calloc((size_t)n_max, sizeof *pids);
    int n = 0, keep = fcntl(rfd, F_DUPFD, 3), null_fd = open("/dev/null", O_RDWR);
    int32_t v;
    prctl(PR_SET_NAME, "gshmemrun-watch");
    setpgid(0, 0);
    for (int fd = 0; fd < 3 && null_fd >= 0; fd++)
        dup2(null_fd, fd);
    if (keep != 3)
        dup2(keep, 3);   /* the pipe becomes fd 3, every other file is closed */
    close_range(4, ~0u, 0);
    while (read(3, &v, sizeof v) == (ssize_t)sizeof v) {
        if (v == 0)
            _exit(0);   /* gshmemrun cleaned up itself */
        for (int i = 0; i < n && v < 0; i++)
            if (pids[i] == -v)
                pids[i--] = pids[--n];
        if (v > 0 && pids != NULL && n < n_max)
            pids[n++] = v;
    }
    gshmemi_rmtree(dir);
    watch_clean_pes(pids, n);
    _exit(0);
}

/* Starts the watcher of job->dir; without one (pipe or fork failed, said)
 * the job runs as before. */
void lr_watch_start(lr_job_t *job)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        fprintf(stderr, "gshmemrun: no watcher for %s (pipe: %s); a SIGKILLed gshmemrun will "
                "leave it\n", job->dir, strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[1]);
        watch_main(p[0], job->dir, job->n);
    }
    close(p[0]);
    if (pid > 0)
        setpgid(pid, pid);   /* as the watcher does itself: whoever runs first */
    if (pid < 0) {
        fprintf(stderr, "gshmemrun: no watcher for %s (fork: %s); a SIGKILLed gshmemrun will "
                "leave it\n", job->dir, strerror(errno));
        close(p[1]);
        return;
    }
    job->watch_fd = p[1];
    job->watch_pid = pid;
}

/* Tells the watcher: pid started (> 0), reaped (< 0), all cleaned up (0). */
void lr_watch_tell(lr_job_t *job, int32_t v)
{
    if (job->watch_fd >= 0 && write(job->watch_fd, &v, sizeof v) != (ssize_t)sizeof v) {
        close(job->watch_fd);   /* the watcher is gone: nothing more to tell */
        job->watch_fd = -1;
    }
}

/* A normal end: the watcher goes at the 0; one that does not within
 * 0.1 s (stopped, say) is killed, so that it never outlives the job. */
void lr_watch_stop(lr_job_t *job)
{
    lr_watch_tell(job, 0);
    if (job->watch_fd >= 0)
        close(job->watch_fd);
    job->watch_fd = -1;
    for (double until = lr_now() + 0.1; job->watch_pid > 0;) {
        if (waitpid(job->watch_pid, NULL, WNOHANG) != 0)
            break;   /* gone (or reaped already: ECHILD) */
        if (lr_now() > until) {
            kill(job->watch_pid, SIGKILL);
            waitpid(job->watch_pid, NULL, 0);
            break;
        }
        usleep(1000);
    }
    job->watch_pid = 0;
}

