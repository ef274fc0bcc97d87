/* launcher.h: gshmemrun's state, shared by its files: the job and its PEs
 * (gshmemrun.c), the watcher that cleans up after a killed gshmemrun
 * (watch.c), the
 * rendezvous server and its held ABORTs (rdv_server.c), the output
 * forwarding of --prefix (fwd.c) and the rendezvous-only mode --serve
 * (serve.c). Single-threaded: one poll loop. */
#ifndef GSHMEMRUN_LAUNCHER_H
#define GSHMEMRUN_LAUNCHER_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct lr_buf {
    char *data;
    size_t len, cap;
} lr_buf_t;

typedef struct lr_conn {
    int fd;            /* -1: free slot */
    int pe;            /* -1 until HELLO */
    int closing;       /* close once out is flushed */
    lr_buf_t in, out;
} lr_conn_t;

typedef struct lr_pe {
    pid_t pid;         /* --serve: the peer's, from SO_PEERCRED at HELLO (never signalled) */
    int running;       /* --serve: always 1 (not our child: no exit status) */
    int sessions;      /* HELLOs seen */
    int wstatus;       /* raw wait status once exited */
    int conn;          /* index in job->conns, or -1 */
    int in_session;    /* HELLO seen, no BYE yet */
    int aborted;       /* sent ABORT: its own death is that abort's consequence */
    double lost_at;    /* connection closed without BYE (0: no) */
    double stopped_at; /* waitpid saw it stopped, not continued since (0: no) */
    int stop_sig;      /* the signal that stopped it */
    int has_contrib;   /* contributed to the current allgather round */
    char *contrib;
    size_t contrib_len;
    int out_fd, err_fd;   /* --prefix pipes, -1 when closed */
    lr_buf_t out_line, err_line;
} lr_pe_t;

typedef struct lr_job {
    int n;
    lr_pe_t *pes;
    lr_conn_t *conns;
    int n_conns;
    int listen_fd;
    char dir[256];
    char sock[108];
    int prefix;
    int serve;          /* --serve: the PEs are not our children; never kill() */
    int failing;        /* the job is being ended */
    int rc;             /* exit status of gshmemrun */
    double kill_at;     /* SIGKILL the rest then (0: not armed) */
    uint64_t round;
    double held_at;     /* an ABORT held back (0: none); see lr_rdv_hold_abort */
    int held_rc;
    char held_text[1024];
    int watch_fd;       /* the watcher's pipe, write end (-1: no watcher) */
    pid_t watch_pid;
} lr_job_t;

double lr_now(void);
void lr_buf_append(lr_buf_t *b, const void *p, size_t n);
void lr_buf_consume(lr_buf_t *b, size_t n);

/* Ends the job: prints "gshmemrun: <text>" (and "gshmemrun: then <text>"
 * of a held ABORT: a consequence), tells every connected PE why, sends
 * SIGTERM to the running PEs (SIGKILL to stopped ones at once, to the rest
 * later; not with --serve, whose PEs are not its children). First call
 * wins. */
void lr_job_fail(lr_job_t *job, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* rdv_server.c */
int lr_rdv_open(lr_job_t *job);                  /* listen on job->sock */
int lr_rdv_pollfds(lr_job_t *job, struct pollfd *pfds, int max);
void lr_rdv_handle(lr_job_t *job, struct pollfd *pfds, int n);
void lr_rdv_drain_pe(lr_job_t *job, int pe);     /* read what a dead PE left */
void lr_rdv_check(lr_job_t *job);                /* lost PEs, stuck rounds, held ABORTs */
/* The held ABORT ends the job now (every PE has exited: no death can come
 * first any more); nothing when none is held. */
void lr_rdv_held_fail(lr_job_t *job);
void lr_rdv_send_error_all(lr_job_t *job, const char *text);
void lr_rdv_close(lr_job_t *job);

/* gshmemrun.c, both modes: the self-pipe of the signals that end the job
 * (SIGINT, SIGTERM, SIGHUP; SIGCHLD only wakes the loop): setup returns
 * its read end to poll; check, after each poll, drains it and ends the job
 * on such a signal (status 128 + signal). */
int lr_signals_setup(void);
void lr_signals_check(lr_job_t *job);
/* " 0 2 5": the PEs for which pick(pe) holds, into buf (cap bytes). */
const char *lr_pe_list(const lr_job_t *job, int (*pick)(const lr_pe_t *), char *buf, size_t cap);
/* Ends the job at its --timeout: status 124, "timeout after S s; PEs
 * <what>: <the PEs pick holds for>". */
void lr_job_timeout(lr_job_t *job, double limit, const char *what,
                    int (*pick)(const lr_pe_t *));
/* The rendezvous socket in the job's directory (made by the caller; removed
 * when the socket cannot listen): 0 or -1, the reason printed. */
int lr_job_open(lr_job_t *job);
/* The job's end: the socket closed, the directory removed; the job's status. */
int lr_job_close(lr_job_t *job);

/* serve.c (--serve): creates dir (0700; a stale one of ours is replaced),
 * serves job->n PEs there until they finished, one failed or the parent
 * process exited (keep: a finished job waits for the parent, so that a PE
 * may init again); removes dir. Returns gshmemrun's exit status. */
int lr_serve(lr_job_t *job, const char *dir, double timeout, int keep);

/* fwd.c (--prefix) */
int lr_fwd_pollfds(lr_job_t *job, struct pollfd *pfds, int max);
void lr_fwd_handle(lr_job_t *job, struct pollfd *pfds, int n);
int lr_fwd_open_count(const lr_job_t *job);
void lr_fwd_close_all(lr_job_t *job);

/* src/base/bootstrap/rmtree.c */
int gshmemi_rmtree(const char *path);

/* watch.c: a reaped PE's /dev/shm objects; the watcher that removes the
 * job's directory (and its PEs' objects) when gshmemrun dies. */
void lr_remove_pe_shm(pid_t pid);
void lr_watch_start(lr_job_t *job);
void lr_watch_tell(lr_job_t *job, int32_t v);   /* pid started (> 0), reaped (< 0), done (0) */
void lr_watch_stop(lr_job_t *job);

#endif /* GSHMEMRUN_LAUNCHER_H */
