/* bootstrap_local.c: the client of gshmemrun's rendezvous server (protocol:
 * local_proto.h). Waits are unbounded unless GSHMEM_TIMEOUT is set (the
 * server notices a dead PE and tells everyone); a connection the server
 * closes (a peer died, the job is being ended) is PEER_DEAD. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bootstrap_int.h"
#include "gshmem_types.h"
#include "local_proto.h"
#include "base/util/log.h"

#define SUBSYS GSHMEMI_SUBSYS_BOOTSTRAP

typedef struct local_priv {
    int fd;
    int timeout_ms;     /* -1: no limit */
    int broken;         /* after a timeout or a lost server: fail fast */
    unsigned long round;
} local_priv_t;

static double deadline_of(const local_priv_t *lp)
{
    return lp->timeout_ms < 0 ? -1.0 : gshmemi_boot_now_ms() + lp->timeout_ms;
}

static int send_msg(gshmemi_bootstrap_t *b, uint32_t type, int32_t arg, const void *p,
                    size_t len, const char *op)
{
    local_priv_t *lp = b->priv;
    gshmemi_lp_hdr_t h = {.magic = GSHMEMI_LP_MAGIC, .type = type, .pe = b->my_pe,
                          .arg = arg, .len = len};
    double dl = deadline_of(lp);
    int rc = gshmemi_boot_io(lp->fd, &h, sizeof h, 1, dl);
    if (rc == 0 && len)
        rc = gshmemi_boot_io(lp->fd, (void *)p, len, 1, dl);
    if (rc != 0) {
        lp->broken = 1;
        GSHMEMI_ERROR(SUBSYS, "bootstrap %s: PE %d cannot send to gshmemrun: %s", op, b->my_pe,
                      rc == GSHMEM_ERR_TIMEOUT ? "timed out" : "connection closed");
    }
    return rc;
}

/* Reads a text payload (ERROR, QUERY_REPLY) into buf. */
static int read_text(local_priv_t *lp, const gshmemi_lp_hdr_t *h, char *buf, size_t cap)
{
    return gshmemi_boot_read_text(lp->fd, h->len, buf, cap, deadline_of(lp));
}

/* After a timeout: ask the server who is missing (bounded, best effort). */
static void query_missing(gshmemi_bootstrap_t *b, char *buf, size_t cap)
{
    local_priv_t *lp = b->priv;
    gshmemi_lp_hdr_t q = {.magic = GSHMEMI_LP_MAGIC, .type = GSHMEMI_LP_QUERY, .pe = b->my_pe};
    double dl = gshmemi_boot_now_ms() + 2000;
    snprintf(buf, cap, "PEs not arrived: unknown");
    if (gshmemi_boot_io(lp->fd, &q, sizeof q, 1, dl) != 0)
        return;
    for (;;) {
        gshmemi_lp_hdr_t h;
        if (gshmemi_boot_io(lp->fd, &h, sizeof h, 0, dl) != 0 || h.magic != GSHMEMI_LP_MAGIC)
            return;
        if (h.type == GSHMEMI_LP_QUERY_REPLY) {
            read_text(lp, &h, buf, cap);
            return;
        }
        /* anything else (a late result) is of no use now: skip it */
        char tmp[4096];
        for (uint64_t left = h.len; left > 0;) {
            size_t n = left < sizeof tmp ? left : sizeof tmp;
            if (gshmemi_boot_io(lp->fd, tmp, n, 0, dl) != 0)
                return;
            left -= n;
        }
    }
}

/* Wait for a message of type want with exactly len payload bytes into out. */
static int recv_msg(gshmemi_bootstrap_t *b, uint32_t want, void *out, size_t len,
                    int32_t *arg_p, const char *op)
{
    local_priv_t *lp = b->priv;
    char text[1024];
    gshmemi_lp_hdr_t h;
    int rc;
    for (;;) {
        rc = gshmemi_boot_io(lp->fd, &h, sizeof h, 0, deadline_of(lp));
        if (rc != 0)
            break;
        if (h.magic != GSHMEMI_LP_MAGIC) {
            lp->broken = 1;
            GSHMEMI_ERROR(SUBSYS, "bootstrap %s: PE %d got a bad header from gshmemrun", op,
                          b->my_pe);
            return GSHMEM_ERR_BOOTSTRAP;
        }
        if (h.type == GSHMEMI_LP_ERROR) {
            read_text(lp, &h, text, sizeof text);
            lp->broken = 1;
            GSHMEMI_ERROR(SUBSYS, "bootstrap %s: PE %d: gshmemrun ended the exchange: %s", op,
                          b->my_pe, text);
            return GSHMEM_ERR_PEER_DEAD;
        }
        if (h.type == GSHMEMI_LP_QUERY_REPLY) {   /* stray, from an earlier timeout */
            read_text(lp, &h, text, sizeof text);
            continue;
        }
        if (h.type != want || h.len != len) {
            lp->broken = 1;
            GSHMEMI_ERROR(SUBSYS, "bootstrap %s: PE %d expected message %u of %zu bytes, got "
                          "%u of %llu bytes", op, b->my_pe, want, len, h.type,
                          (unsigned long long)h.len);
            return GSHMEM_ERR_BOOTSTRAP;
        }
        rc = gshmemi_boot_io(lp->fd, out, len, 0, deadline_of(lp));
        if (rc == 0 && arg_p)
            *arg_p = h.arg;
        if (rc == 0)
            return 0;
        break;
    }
    lp->broken = 1;
    if (rc == GSHMEM_ERR_TIMEOUT) {
        query_missing(b, text, sizeof text);
        GSHMEMI_ERROR(SUBSYS, "bootstrap %s (round %lu): PE %d waited %d s (GSHMEM_TIMEOUT) for "
                      "the other PEs; %s", op, lp->round, b->my_pe, lp->timeout_ms / 1000, text);
    } else {
        GSHMEMI_ERROR(SUBSYS, "bootstrap %s: PE %d: gshmemrun closed the connection (a peer "
                      "PE probably died; see gshmemrun's message)", op, b->my_pe);
    }
    return rc;
}

static int local_exchange(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len,
                          const char *op)
{
    local_priv_t *lp = b->priv;
    if (lp->broken) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap %s: PE %d: the bootstrap already failed", op, b->my_pe);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    GSHMEMI_CHECK(send_msg(b, GSHMEMI_LP_ALLGATHER, 0, in, len, op));
    GSHMEMI_CHECK(recv_msg(b, GSHMEMI_LP_RESULT, out, len * (size_t)b->n_pes, NULL, op));
    lp->round++;
    return 0;
}

static int local_allgather(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len)
{
    if ((uint64_t)len * (uint64_t)b->n_pes > GSHMEMI_LP_MAX_PAYLOAD) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap allgather: %zu bytes x %d PEs is over the limit", len,
                      b->n_pes);
        return GSHMEM_ERR_INVALID_ARG;
    }
    return local_exchange(b, in, out, len, "allgather");
}

static int local_barrier(gshmemi_bootstrap_t *b)
{
    char none = 0;
    return local_exchange(b, &none, &none, 0, "barrier");
}

/* Tells gshmemrun that this PE ends the job (ABORT or EXIT, with status
 * and msg), within 2 s, then exits with status; says so on stderr when
 * gshmemrun could not be told. */
static void local_end_job(gshmemi_bootstrap_t *b, uint32_t type, int status, const char *msg)
{
    local_priv_t *lp = b->priv;
    const char *m = msg ? msg : "";
    gshmemi_lp_hdr_t h = {.magic = GSHMEMI_LP_MAGIC, .type = type,
                          .pe = b->my_pe, .arg = status, .len = strlen(m)};
    double dl = gshmemi_boot_now_ms() + 2000;
    if (gshmemi_boot_io(lp->fd, &h, sizeof h, 1, dl) != 0 || gshmemi_boot_io(lp->fd, (void *)m, h.len, 1, dl) != 0)
        fprintf(stderr, "gshmem: PE %d %s the job (status %d): %s\n", b->my_pe,
                type == GSHMEMI_LP_ABORT ? "aborted" : "ended", status, m);
    _exit(status);
}

/* Between exchanges the server sends only ERROR (the job is failing; it
 * then closes) or a QUERY_REPLY left from a timed-out exchange; anything
 * else, or the connection closed, is a failure too. */
static int local_notice(gshmemi_bootstrap_t *b, char *why, size_t cap)
{
    local_priv_t *lp = b->priv;
    struct pollfd pfd = {.fd = lp->fd, .events = POLLIN};
    gshmemi_lp_hdr_t h;

    if (!lp->broken && poll(&pfd, 1, 0) <= 0)
        return 0;
    snprintf(why, cap, "gshmemrun closed the connection (a PE died, or the job is ending)");
    if (lp->broken)
        return GSHMEM_ERR_PEER_DEAD;
    if (gshmemi_boot_io(lp->fd, &h, sizeof h, 0, gshmemi_boot_now_ms() + 2000) == 0 &&
        h.magic == GSHMEMI_LP_MAGIC && h.len < (1u << 20)) {
        char text[1024];
        if (h.type == GSHMEMI_LP_QUERY_REPLY) {
            read_text(lp, &h, text, sizeof text);
            return 0;
        }
        if (h.type == GSHMEMI_LP_ERROR && read_text(lp, &h, text, sizeof text) == 0)
            snprintf(why, cap, "gshmemrun: %s", text);
    }
    lp->broken = 1;
    return GSHMEM_ERR_PEER_DEAD;
}

static void local_abort(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    local_end_job(b, GSHMEMI_LP_ABORT, status, msg);
}

static void local_global_exit(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    local_end_job(b, GSHMEMI_LP_EXIT, status, msg);
}

static int local_finalize(gshmemi_bootstrap_t *b)
{
    local_priv_t *lp = b->priv;
    int rc = 0;
    if (!lp->broken) {
        char none = 0;
        rc = send_msg(b, GSHMEMI_LP_BYE, 0, NULL, 0, "finalize");
        if (rc == 0)
            rc = recv_msg(b, GSHMEMI_LP_BYE_ACK, &none, 0, NULL, "finalize");
    }
    close(lp->fd);
    free(lp);
    free(b);
    return rc;
}

static const gshmemi_bootstrap_ops_t local_ops = {
    .size = sizeof(gshmemi_bootstrap_ops_t),
    .name = "local",
    .allgather = local_allgather,
    .barrier = local_barrier,
    .notice = local_notice,
    .abort = local_abort,
    .global_exit = local_global_exit,
    .finalize = local_finalize,
};

/* Reads GSHMEMRUN_* into b. */
static int local_env(gshmemi_bootstrap_t *b, const char **sock_p)
{
    const char *sock = getenv(GSHMEMI_LP_ENV_SOCKET), *pe = getenv(GSHMEMI_LP_ENV_PE);
    const char *n = getenv(GSHMEMI_LP_ENV_N_PES), *dir = getenv(GSHMEMI_LP_ENV_DIR);
    char *e1 = NULL, *e2 = NULL;
    if (!sock || !pe || !n || !dir) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap local: %s is not set (start the program with "
                      "gshmemrun -n N)", !sock ? GSHMEMI_LP_ENV_SOCKET : !pe ? GSHMEMI_LP_ENV_PE
                      : !n ? GSHMEMI_LP_ENV_N_PES : GSHMEMI_LP_ENV_DIR);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    long my = strtol(pe, &e1, 10), np = strtol(n, &e2, 10);
    if (*e1 || *e2 || np < 1 || my < 0 || my >= np || strlen(dir) >= sizeof b->node_dir) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap local: invalid %s=%s / %s=%s / %s=%s",
                      GSHMEMI_LP_ENV_PE, pe, GSHMEMI_LP_ENV_N_PES, n, GSHMEMI_LP_ENV_DIR, dir);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    b->my_pe = (int)my;
    b->n_pes = (int)np;
    strcpy(b->node_dir, dir);
    *sock_p = sock;
    return 0;
}

static int local_connect(const char *sock, int *fd_p)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof addr.sun_path) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap local: %s=%s is too long for a Unix socket path",
                      GSHMEMI_LP_ENV_SOCKET, sock);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    strcpy(addr.sun_path, sock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap local: cannot connect to gshmemrun at %s: %s", sock,
                      strerror(errno));
        if (fd >= 0)
            close(fd);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    /* The PE tells the server its heap, keys and endpoints: only a server
     * of this PE's own user may hear them (a socket planted by another
     * user, e.g. at a guessed torchrun directory, is refused). */
    struct ucred cred = {0};
    socklen_t cred_len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0 ||
        cred.uid != geteuid()) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap local: the rendezvous server at %s (%s) runs as uid "
                      "%d, not as this PE's user %u: refused (another user's socket; start the "
                      "job with your own gshmemrun)", sock, GSHMEMI_LP_ENV_SOCKET,
                      cred_len == sizeof cred ? (int)cred.uid : -1, (unsigned)geteuid());
        close(fd);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    *fd_p = fd;
    return 0;
}

int gshmemi_bootstrap_local_open(const gshmemi_config_t *cfg, gshmemi_bootstrap_t **boot_p)
{
    gshmemi_bootstrap_t *b = calloc(1, sizeof *b);
    local_priv_t *lp = calloc(1, sizeof *lp);
    const char *sock = NULL;
    int rc, fd = -1;
    int32_t n_srv = 0;
    char none;
    if (!b || !lp) {
        rc = GSHMEM_ERR_NOMEM;
        goto free_mem;
    }
    GSHMEMI_CHECK_GOTO(local_env(b, &sock), rc, free_mem);
    GSHMEMI_CHECK_GOTO(local_connect(sock, &fd), rc, free_mem);
    lp->fd = fd;
    lp->timeout_ms = gshmemi_bootstrap_timeout_ms(cfg);
    b->ops = &local_ops;
    b->priv = lp;
    GSHMEMI_CHECK_GOTO(send_msg(b, GSHMEMI_LP_HELLO, b->n_pes, NULL, 0, "hello"), rc, close_fd);
    GSHMEMI_CHECK_GOTO(recv_msg(b, GSHMEMI_LP_WELCOME, &none, 0, &n_srv, "hello"), rc, close_fd);
    if (n_srv != b->n_pes) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap local: gshmemrun runs %d PEs, %s says %d", n_srv,
                      GSHMEMI_LP_ENV_N_PES, b->n_pes);
        rc = GSHMEM_ERR_BOOTSTRAP;
        goto close_fd;
    }
    GSHMEMI_DEBUG(SUBSYS, "bootstrap local: PE %d of %d connected to %s", b->my_pe, b->n_pes,
                  sock);
    *boot_p = b;
    return 0;
close_fd:
    close(fd);
free_mem:
    free(lp);
    free(b);
    return rc;
}
