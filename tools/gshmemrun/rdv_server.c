/* rdv_server.c: gshmemrun's rendezvous server. PEs connect to a Unix socket
 * in the job's private directory, say HELLO, then run allgather rounds
 * (a barrier is a 0-byte round); the server answers each round when all
 * PEs have contributed. Protocol: src/base/bootstrap/local_proto.h. The
 * normal mode (gshmemrun.c) and --serve (serve.c) share it. */
#define _GNU_SOURCE
#include "launcher.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/bootstrap/local_proto.h"

#define LR_LOST_GRACE_S 1.0   /* wait this long for the exit status of a lost PE */
/* How long an ABORT is held back for a death that came first (see
 * hold_abort). Chosen by measurement (4 PEs in a put loop over ofi
 * tcp;ofi_rxm, PE 1 calls exit(3) or is SIGKILLed): the survivors' first
 * ABORT came up to 30 ms before PE 1's exit status, up to 60 ms with two
 * such jobs on two cores. 250 ms leaves room for a busier machine and
 * stays well inside the 2 s in which a death must end the job. */
#define LR_HOLD_S 0.25

int lr_rdv_open(lr_job_t *job)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(job->sock) >= sizeof addr.sun_path) {
        fprintf(stderr, "gshmemrun: socket path too long: %s\n", job->sock);
        return -1;
    }
    strcpy(addr.sun_path, job->sock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(fd, job->n + 16) != 0) {
        fprintf(stderr, "gshmemrun: cannot listen on %s: %s\n", job->sock, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    job->listen_fd = fd;
    job->n_conns = 2 * job->n + 8;
    job->conns = calloc((size_t)job->n_conns, sizeof *job->conns);
    for (int i = 0; i < job->n_conns; i++)
        job->conns[i].fd = -1;
    return 0;
}

static void conn_close(lr_job_t *job, lr_conn_t *c)
{
    if (c->pe >= 0 && job->pes[c->pe].conn == (int)(c - job->conns))
        job->pes[c->pe].conn = -1;
    close(c->fd);
    free(c->in.data);
    free(c->out.data);
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->pe = -1;
}

static void conn_flush(lr_job_t *job, lr_conn_t *c)
{
    while (c->out.len > 0) {
        ssize_t w = send(c->fd, c->out.data, c->out.len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (w <= 0) {   /* the peer is gone: drop what is left */
            c->out.len = 0;
            break;
        }
        lr_buf_consume(&c->out, (size_t)w);
    }
    if (c->closing)
        conn_close(job, c);
}

static void conn_send(lr_job_t *job, lr_conn_t *c, uint32_t type, int32_t arg,
                      const void *payload, size_t len)
{
    gshmemi_lp_hdr_t h = {.magic = GSHMEMI_LP_MAGIC, .type = type, .pe = c->pe,
                          .arg = arg, .len = len};
    lr_buf_append(&c->out, &h, sizeof h);
    if (len)
        lr_buf_append(&c->out, payload, len);
    conn_flush(job, c);
}

static void conn_send_error(lr_job_t *job, lr_conn_t *c, const char *text)
{
    conn_send(job, c, GSHMEMI_LP_ERROR, 0, text, strlen(text) + 1);
    if (c->fd >= 0) {
        c->closing = 1;
        if (c->out.len == 0)
            conn_close(job, c);
    }
}

void lr_rdv_send_error_all(lr_job_t *job, const char *text)
{
    for (int i = 0; i < job->n_conns; i++)
        if (job->conns[i].fd >= 0 && !job->conns[i].closing)
            conn_send_error(job, &job->conns[i], text);
}

static void missing_list(lr_job_t *job, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "PEs not arrived:");
    for (int p = 0; p < job->n && used < cap; p++)
        if (!job->pes[p].has_contrib)
            used += (size_t)snprintf(buf + used, cap - used, " %d", p);
}

static void round_complete(lr_job_t *job)
{
    size_t len = job->pes[0].contrib_len;
    char *all = malloc(len * (size_t)job->n + 1);
    for (int p = 0; p < job->n; p++) {
        if (len)
            memcpy(all + (size_t)p * len, job->pes[p].contrib, len);
        free(job->pes[p].contrib);
        job->pes[p].contrib = NULL;
        job->pes[p].has_contrib = 0;
    }
    for (int p = 0; p < job->n; p++)
        if (job->pes[p].conn >= 0)
            conn_send(job, &job->conns[job->pes[p].conn], GSHMEMI_LP_RESULT, 0, all,
                      len * (size_t)job->n);
    free(all);
    job->round++;
}

static void on_allgather(lr_job_t *job, lr_conn_t *c, const char *payload, size_t len)
{
    lr_pe_t *me = &job->pes[c->pe];
    if (me->has_contrib) {
        lr_job_fail(job, 1, "PE %d (pid %d) sent two contributions to bootstrap round %llu",
                    c->pe, (int)me->pid, (unsigned long long)job->round);
        return;
    }
    for (int p = 0; p < job->n; p++) {
        if (job->pes[p].has_contrib && job->pes[p].contrib_len != len) {
            lr_job_fail(job, 1, "bootstrap allgather size mismatch in round %llu: PE %d gave "
                        "%zu bytes, PE %d gave %zu bytes",
                        (unsigned long long)job->round, c->pe, len, p, job->pes[p].contrib_len);
            return;
        }
    }
    me->contrib = malloc(len ? len : 1);
    memcpy(me->contrib, payload, len);
    me->contrib_len = len;
    me->has_contrib = 1;
    for (int p = 0; p < job->n; p++)
        if (!job->pes[p].has_contrib)
            return;
    round_complete(job);
}

/* The process at the other end of fd (0: unknown), for messages only. */
static pid_t peer_pid(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 ? cred.pid : 0;
}

static void on_hello(lr_job_t *job, lr_conn_t *c, const gshmemi_lp_hdr_t *h)
{
    char text[256];
    if (h->pe < 0 || h->pe >= job->n || h->arg != job->n) {
        snprintf(text, sizeof text, "HELLO with PE %d of %d does not fit this job of %d PEs",
                 h->pe, h->arg, job->n);
        conn_send_error(job, c, text);
        return;
    }
    lr_pe_t *pe = &job->pes[h->pe];
    if (pe->in_session && pe->conn >= 0) {
        snprintf(text, sizeof text, "PE %d is already connected (a second HELLO for it)", h->pe);
        conn_send_error(job, c, text);
        return;
    }
    c->pe = h->pe;
    pe->conn = (int)(c - job->conns);
    pe->in_session = 1;
    pe->lost_at = 0;
    pe->sessions++;
    if (job->serve)
        pe->pid = peer_pid(c->fd);
    conn_send(job, c, GSHMEMI_LP_WELCOME, job->n, NULL, 0);
}

/* A PE's ABORT is held back, not acted on at once: over a network
 * transport the PEs that lose a peer get transport errors and abort, and
 * their ABORTs may come before waitpid reports the death that caused them
 * (in the same poll round, or while the dying PE still runs its exit
 * handlers). A death reported meanwhile ends the job as its cause, this
 * ABORT printed after it as a consequence ("then PE 0 aborted ..."); else
 * the ABORT ends the job LR_HOLD_S later (held_check). The aborting PE's
 * own exit is the abort's consequence, never a cause. First ABORT only. */
static void hold_abort(lr_job_t *job, int pe, int32_t status, const char *payload, size_t len)
{
    job->pes[pe].aborted = 1;
    if (job->failing || job->held_at > 0)
        return;
    job->held_rc = status ? status : 1;
    snprintf(job->held_text, sizeof job->held_text, "PE %d aborted the job (status %d): %.*s",
             pe, status, (int)len, len ? payload : "");
    job->held_at = lr_now();
}

/* The held ABORT ends the job once LR_HOLD_S has passed and no other PE
 * that closed its connection without BYE may still be exiting (it gets
 * its LR_LOST_GRACE_S, after which lr_rdv_check names it first). */
static void held_check(lr_job_t *job, double now)
{
    double until = job->held_at + LR_HOLD_S;
    for (int p = 0; p < job->n; p++) {
        const lr_pe_t *pe = &job->pes[p];
        if (pe->running && !pe->aborted && pe->lost_at > 0 && pe->lost_at + LR_LOST_GRACE_S > until)
            until = pe->lost_at + LR_LOST_GRACE_S;
    }
    if (job->held_at > 0 && now >= until)
        lr_rdv_held_fail(job);
}

void lr_rdv_held_fail(lr_job_t *job)
{
    if (job->held_at == 0)
        return;
    job->held_at = 0;
    lr_job_fail(job, job->held_rc, "%s", job->held_text);
}

/* One complete message in c->in. */
static void on_message(lr_job_t *job, lr_conn_t *c, const gshmemi_lp_hdr_t *h,
                       const char *payload)
{
    char text[512];
    if (h->type != GSHMEMI_LP_HELLO && c->pe < 0) {
        conn_send_error(job, c, "first message must be HELLO");
        return;
    }
    switch (h->type) {
    case GSHMEMI_LP_HELLO:
        on_hello(job, c, h);
        break;
    case GSHMEMI_LP_ALLGATHER:
        on_allgather(job, c, payload, h->len);
        break;
    case GSHMEMI_LP_ABORT:
        hold_abort(job, c->pe, h->arg, payload, h->len);
        break;
    case GSHMEMI_LP_EXIT:   /* gshmem_global_exit: its status is the job's, 0 included */
        lr_job_fail(job, h->arg, "PE %d ended the job with status %d: %.*s", c->pe, h->arg,
                    (int)h->len, h->len ? payload : "");
        break;
    case GSHMEMI_LP_BYE:
        job->pes[c->pe].in_session = 0;
        conn_send(job, c, GSHMEMI_LP_BYE_ACK, 0, NULL, 0);
        break;
    case GSHMEMI_LP_QUERY:
        missing_list(job, text, sizeof text);
        conn_send(job, c, GSHMEMI_LP_QUERY_REPLY, 0, text, strlen(text) + 1);
        break;
    default:
        snprintf(text, sizeof text, "unknown message type %u", h->type);
        conn_send_error(job, c, text);
    }
}

/* Parse what has arrived; returns 0, or -1 when c was closed. */
static int conn_parse(lr_job_t *job, lr_conn_t *c)
{
    while (c->fd >= 0 && c->in.len >= sizeof(gshmemi_lp_hdr_t)) {
        gshmemi_lp_hdr_t h;
        memcpy(&h, c->in.data, sizeof h);
        if (h.magic != GSHMEMI_LP_MAGIC || h.len > GSHMEMI_LP_MAX_PAYLOAD) {
            conn_send_error(job, c, "bad message header (not a gshmem bootstrap client?)");
            return -1;
        }
        if (c->in.len < sizeof h + h.len)
            return 0;
        on_message(job, c, &h, c->in.data + sizeof h);
        if (c->fd < 0 || c->closing)
            return -1;
        lr_buf_consume(&c->in, sizeof h + h.len);
    }
    return c->fd >= 0 ? 0 : -1;
}

static void conn_eof(lr_job_t *job, lr_conn_t *c)
{
    if (c->pe >= 0 && job->pes[c->pe].in_session && job->pes[c->pe].lost_at == 0)
        job->pes[c->pe].lost_at = lr_now();
    conn_close(job, c);
}

/* Read everything available; returns 0 while open. */
static int conn_read(lr_job_t *job, lr_conn_t *c)
{
    char tmp[65536];
    for (;;) {
        ssize_t r = recv(c->fd, tmp, sizeof tmp, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (r <= 0) {
            conn_eof(job, c);
            return -1;
        }
        lr_buf_append(&c->in, tmp, (size_t)r);
        if (conn_parse(job, c) != 0)
            return -1;
    }
}

static void accept_all(lr_job_t *job)
{
    for (;;) {
        int fd = accept4(job->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        int slot = -1;
        for (int i = 0; i < job->n_conns && slot < 0; i++)
            if (job->conns[i].fd < 0)
                slot = i;
        if (slot < 0) {
            close(fd);
            continue;
        }
        lr_conn_t *c = &job->conns[slot];
        memset(c, 0, sizeof *c);
        c->fd = fd;
        c->pe = -1;
    }
}

int lr_rdv_pollfds(lr_job_t *job, struct pollfd *pfds, int max)
{
    int n = 0;
    if (job->listen_fd >= 0 && n < max)
        pfds[n++] = (struct pollfd){.fd = job->listen_fd, .events = POLLIN};
    for (int i = 0; i < job->n_conns && n < max; i++) {
        lr_conn_t *c = &job->conns[i];
        if (c->fd >= 0)
            pfds[n++] = (struct pollfd){
                .fd = c->fd, .events = (short)(POLLIN | (c->out.len ? POLLOUT : 0))};
    }
    return n;
}

void lr_rdv_handle(lr_job_t *job, struct pollfd *pfds, int n)
{
    for (int k = 0; k < n; k++) {
        if (!pfds[k].revents)
            continue;
        if (pfds[k].fd == job->listen_fd) {
            accept_all(job);
            continue;
        }
        for (int i = 0; i < job->n_conns; i++) {
            lr_conn_t *c = &job->conns[i];
            if (c->fd != pfds[k].fd)
                continue;
            if (pfds[k].revents & POLLOUT)
                conn_flush(job, c);
            if (c->fd >= 0 && (pfds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                conn_read(job, c);
            break;
        }
    }
}

void lr_rdv_drain_pe(lr_job_t *job, int pe)
{
    int ci = job->pes[pe].conn;
    if (ci >= 0 && job->conns[ci].fd >= 0)
        conn_read(job, &job->conns[ci]);
}

void lr_rdv_check(lr_job_t *job)
{
    if (job->failing)
        return;
    double now = lr_now();
    int round_open = 0;
    for (int p = 0; p < job->n; p++) {
        lr_pe_t *pe = &job->pes[p];
        round_open |= pe->has_contrib;
        /* --serve gets no exit status: no reason to wait for one; an
         * aborted PE's lost connection is its ABORT's (held) consequence */
        if (pe->running && pe->in_session && !pe->aborted && pe->lost_at > 0 &&
            (job->serve || now - pe->lost_at > LR_LOST_GRACE_S)) {
            lr_job_fail(job, 1, "PE %d (pid %d) closed its bootstrap connection without "
                        "gshmem_finalize", p, (int)pe->pid);
            return;
        }
    }
    held_check(job, now);
    if (!round_open || job->failing)
        return;
    for (int p = 0; p < job->n; p++) {
        lr_pe_t *pe = &job->pes[p];
        if (!pe->running && !pe->has_contrib && !pe->aborted) {
            char text[256];
            missing_list(job, text, sizeof text);
            lr_job_fail(job, 1, "PE %d (pid %d) exited while the other PEs wait for it in "
                        "bootstrap round %llu (%s)", p, (int)pe->pid,
                        (unsigned long long)job->round, text);
            return;
        }
    }
}

void lr_rdv_close(lr_job_t *job)
{
    for (int i = 0; i < job->n_conns; i++)
        if (job->conns[i].fd >= 0)
            conn_close(job, &job->conns[i]);
    free(job->conns);
    job->conns = NULL;
    if (job->listen_fd >= 0)
        close(job->listen_fd);
    job->listen_fd = -1;
    unlink(job->sock);
}
