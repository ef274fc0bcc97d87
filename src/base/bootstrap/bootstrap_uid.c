/* bootstrap_uid.c: the unique-ID bootstrap (NVSHMEM's nvshmemx_get_uniqueid
 * and NVSHMEMX_INIT_WITH_UNIQUEID): a job with no launcher. The process of
 * PE 0 listens on a TCP port; the ID, "gshmem-uid1 ADDR PORT TOKEN", names
 * it and a random 128-bit token. gshmem_get_uniqueid opens the port before
 * it returns the ID; an ID written by hand or by a script (GSHMEM_BOOTSTRAP_UID)
 * makes PE 0 open ADDR:PORT at init.
 *
 * A star around PE 0, two connections from every other PE:
 * - data: the exchanges (allgather; a barrier is one of 0 bytes), in the
 *   callers' threads. Each PE sends its part; PE 0 answers with all.
 * - ctrl: failure notice, watched by a thread on every PE. PE 0's sees a
 *   PE's connection close without BYE (it died; its node or link went
 *   away: TCP keepalive, about 8 s), an ABORT or an EXIT; it tells every
 *   other PE (END) and ends its process. The others end theirs when told,
 *   or when PE 0's connection closes. So a failure ends the job whatever
 *   its PEs are doing, as a launcher would.
 * Joining: PE 0 waits GSHMEM_BOOTSTRAP_UID_TIMEOUT s for every PE (then
 * tells the ones that came which never did); a wrong token, PE number or
 * count is refused at once, naming it, and the job keeps waiting for the
 * right PE. A stale ID (PE 0 is gone) is refused by its host at once.
 * The token travels in clear text, as NCCL's and NVSHMEM's IDs do: use it
 * on networks you trust. PE 0 handles O(PEs) connections and bytes per
 * exchange (docs/DESIGN.md, "Bootstraps"). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap_int.h"
#include "gshmem_types.h"
#include "base/util/log.h"

#define SUBSYS GSHMEMI_SUBSYS_BOOTSTRAP
#define UID_PREFIX "gshmem-uid1"
#define UID_MAGIC 0x67736875u                /* "gshu" */
#define UID_MAX_PAYLOAD ((uint64_t)1 << 30)  /* one message */
#define UID_TOKEN_BYTES 16
#define UID_GRACE_MS 5000.0   /* the others wait this much longer than PE 0 */
#define UID_SHORT_MS 2000.0   /* a HELLO, an END, a BYE */

enum uid_type {
    UID_HELLO = 1,    /* -> 0: uid_hello_t; arg = n_pes */
    UID_WELCOME = 2,  /* 0 ->, data: every PE joined */
    UID_PART = 3,     /* -> 0, data: this PE's part of an exchange */
    UID_ALL = 4,      /* 0 ->, data: n_pes parts, PE order */
    UID_ERROR = 5,    /* 0 ->: text; the connection then closes */
    UID_ABORT = 6,    /* -> 0, ctrl: arg = status, text */
    UID_EXIT = 7,     /* -> 0, ctrl: gshmem_global_exit, arg = status, text */
    UID_END = 8,      /* 0 ->, ctrl: the job ends, arg = status, pe = -1: silently */
    UID_BYE = 9,      /* -> 0, ctrl: finalize */
    UID_BYE_ACK = 10  /* 0 ->, ctrl */
};

typedef struct uid_hdr {
    uint32_t magic, type;
    int32_t pe, arg;
    uint64_t len;
} uid_hdr_t;

typedef struct uid_hello {
    uint8_t token[UID_TOKEN_BYTES];
    uint32_t kind;      /* 0: data, 1: ctrl */
    uint32_t pid;
    char host[64];
} uid_hello_t;

typedef struct uid_id {
    char addr[64];
    int port;
    uint8_t token[UID_TOKEN_BYTES];
    int ready;          /* "ready": made by gshmem_get_uniqueid, PE 0 listened already */
} uid_id_t;

typedef struct uid_peer {
    int data, ctrl;     /* fds, -1: none */
    int done;           /* BYE seen */
    uint32_t pid;
    char host[64];
} uid_peer_t;

typedef struct uid_priv {
    int timeout_ms;     /* exchanges: GSHMEM_TIMEOUT, -1: none */
    int broken;
    char where[96];     /* "ADDR:PORT" of PE 0 */
    uid_peer_t *peers;  /* PE 0: n_pes of them (its own unused) */
    int data, ctrl;     /* other PEs: to PE 0 */
    int dir_owner;
    int wake[2];        /* stops the watcher */
    pthread_t watcher;
    int watching;
} uid_priv_t;

/* gshmem_get_uniqueid's listener, until a PE 0 of this process takes it. */
static pthread_mutex_t uid_made_lock = PTHREAD_MUTEX_INITIALIZER;
static int uid_made_fd = -1;
static char uid_made_id[128];   /* GSHMEM_UNIQUEID_BYTES */

/* ---- the ID ------------------------------------------------------------ */

/* The address of ADDR, numeric IPv4 or IPv6. */
static int uid_sockaddr(const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV}, *res = NULL;
    char serv[16];
    snprintf(serv, sizeof serv, "%d", port);
    if (getaddrinfo(addr, serv, &hints, &res) != 0 || !res)
        return -1;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static int uid_parse(const char *text, uid_id_t *id)
{
    char tok[2 * UID_TOKEN_BYTES + 2], flag[8] = "", extra[2];
    memset(id, 0, sizeof *id);
    int n = strncmp(text, UID_PREFIX " ", sizeof UID_PREFIX) != 0 ? 0
            : sscanf(text + sizeof UID_PREFIX, "%63s %d %33s %7s %1s", id->addr, &id->port, tok,
                     flag, extra);
    if ((n != 3 && n != 4) || (n == 4 && strcmp(flag, "ready") != 0) ||
        id->port < 1 || id->port > 65535 || strlen(tok) != 2 * UID_TOKEN_BYTES) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid: \"%.*s\" is not a unique ID (expected \"%s ADDR "
                      "PORT TOKEN\" with a port of 1-65535 and a token of %d hex digits, as "
                      "gshmem_get_uniqueid makes it; an ID zero-filled or cut short?)", 100,
                      text, UID_PREFIX, 2 * UID_TOKEN_BYTES);
        return GSHMEM_ERR_INVALID_ARG;
    }
    struct sockaddr_storage ss;
    socklen_t len;
    if (uid_sockaddr(id->addr, id->port, &ss, &len) != 0) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid: the ID's ADDR \"%s\" is not a numeric IP address "
                      "(an ID names PE 0 by address, not by host name: \"%s\")", id->addr,
                      text);
        return GSHMEM_ERR_INVALID_ARG;
    }
    id->ready = n == 4;
    for (int i = 0; i < UID_TOKEN_BYTES; i++) {
        unsigned v;
        if (sscanf(tok + 2 * i, "%2x", &v) != 1) {
            GSHMEMI_ERROR(SUBSYS, "bootstrap uid: the token of ID \"%s\" is not hex", text);
            return GSHMEM_ERR_INVALID_ARG;
        }
        id->token[i] = (uint8_t)v;
    }
    return 0;
}

/* GSHMEM_BOOTSTRAP_UID_IFACE: an address, an interface's first IPv4
 * address, or (empty) the first up interface's that is not loopback, else
 * 127.0.0.1. */
static int uid_pick_addr(const char *want, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t len;
    if (want[0] && uid_sockaddr(want, 1, &ss, &len) == 0) {
        snprintf(out, cap, "%.63s", want);
        return 0;
    }
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid: getifaddrs: %s", strerror(errno));
        return GSHMEM_ERR_SYSTEM;
    }
    char seen[256] = "";
    int found = 0;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
            continue;
        size_t n = strlen(seen);
        snprintf(seen + n, sizeof seen - n, "%s%s", n ? " " : "", i->ifa_name);
        if (want[0] ? strcmp(i->ifa_name, want) == 0 : !(i->ifa_flags & IFF_LOOPBACK)) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out,
                      (socklen_t)cap);
            found = 1;
        }
    }
    freeifaddrs(ifs);
    if (found)
        return 0;
    if (!want[0]) {
        snprintf(out, cap, "127.0.0.1");
        return 0;
    }
    GSHMEMI_ERROR(SUBSYS, "GSHMEM_BOOTSTRAP_UID_IFACE=%s: neither an IP address nor an up "
                  "interface with an IPv4 address (up with one here: %s)", want,
                  seen[0] ? seen : "none");
    return GSHMEM_ERR_CONFIG;
}

static int uid_listen(const char *addr, int port, int *fd_p, int *port_p)
{
    struct sockaddr_storage ss;
    socklen_t len;
    if (uid_sockaddr(addr, port, &ss, &len) != 0) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid: %s is not a numeric IP address", addr);
        return GSHMEM_ERR_INVALID_ARG;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, SOMAXCONN) != 0) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid: PE 0 cannot listen on %s port %d: %s", addr, port,
                      strerror(errno));
        if (fd >= 0)
            close(fd);
        return GSHMEM_ERR_SYSTEM;
    }
    len = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &len);
    *port_p = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                            : ((struct sockaddr_in6 *)&ss)->sin6_port);
    *fd_p = fd;
    return 0;
}

int gshmemi_bootstrap_uid_make(const gshmemi_config_t *cfg, char *id, size_t cap)
{
    char addr[64], tok[2 * UID_TOKEN_BYTES + 1];
    uint8_t raw[UID_TOKEN_BYTES];
    int fd, port;
    GSHMEMI_CHECK(uid_pick_addr(cfg->bootstrap_uid_iface, addr, sizeof addr));
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        GSHMEMI_ERROR(SUBSYS, "gshmem_get_uniqueid: getrandom: %s", strerror(errno));
        return GSHMEM_ERR_SYSTEM;
    }
    for (int i = 0; i < UID_TOKEN_BYTES; i++)
        snprintf(tok + 2 * i, 3, "%02x", raw[i]);
    GSHMEMI_CHECK(uid_listen(addr, 0, &fd, &port));
    pthread_mutex_lock(&uid_made_lock);
    if (uid_made_fd >= 0)
        close(uid_made_fd);
    uid_made_fd = fd;
    snprintf(uid_made_id, sizeof uid_made_id, UID_PREFIX " %s %d %s ready", addr, port, tok);
    snprintf(id, cap, "%s", uid_made_id);
    pthread_mutex_unlock(&uid_made_lock);
    GSHMEMI_DEBUG(SUBSYS, "gshmem_get_uniqueid: listening on %s port %d", addr, port);
    return 0;
}

/* PE 0: the listener of gshmem_get_uniqueid for this ID, else (an ID made
 * elsewhere) a new one on its address and port. Other PEs: close ours (an
 * ID this process made and did not use). */
static int uid_take_listener(const char *text, const uid_id_t *id, int pe, int *fd_p)
{
    int fd = -1, same;
    pthread_mutex_lock(&uid_made_lock);
    same = uid_made_fd >= 0 && strcmp(uid_made_id, text) == 0;
    if (uid_made_fd >= 0 && (same || pe != 0)) {
        fd = uid_made_fd;
        uid_made_fd = -1;
    }
    pthread_mutex_unlock(&uid_made_lock);
    if (pe != 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    if (same) {
        *fd_p = fd;
        return 0;
    }
    int port;
    return uid_listen(id->addr, id->port, fd_p, &port);
}

/* ---- messages ------------------------------------------------------------ */

static int uid_send(int fd, uint32_t type, int pe, int arg, const void *p, size_t len,
                    double deadline)
{
    uid_hdr_t h = {.magic = UID_MAGIC, .type = type, .pe = pe, .arg = arg, .len = len};
    int rc = gshmemi_boot_io(fd, &h, sizeof h, 1, deadline);
    if (rc == 0 && len)
        rc = gshmemi_boot_io(fd, (void *)p, len, 1, deadline);
    return rc;
}

static int uid_send_text(int fd, uint32_t type, int pe, int arg, const char *text)
{
    return uid_send(fd, type, pe, arg, text, strlen(text), gshmemi_boot_now_ms() + UID_SHORT_MS);
}

/* A header; a bad magic or a payload over the limit is GSHMEM_ERR_BOOTSTRAP. */
static int uid_recv_hdr(int fd, uid_hdr_t *h, double deadline)
{
    int rc = gshmemi_boot_io(fd, h, sizeof *h, 0, deadline);
    if (rc == 0 && (h->magic != UID_MAGIC || h->len > UID_MAX_PAYLOAD))
        rc = GSHMEM_ERR_BOOTSTRAP;
    return rc;
}

/* A text payload of h into buf[cap] (the rest skipped). */
static int uid_recv_text(int fd, const uid_hdr_t *h, char *buf, size_t cap, double deadline)
{
    return gshmemi_boot_read_text(fd, h->len, buf, cap, deadline);
}

static const char *uid_io_why(int rc)
{
    return rc == GSHMEM_ERR_TIMEOUT ? "timed out" : rc == GSHMEM_ERR_BOOTSTRAP
           ? "a message that is not gshmem's" : "the connection closed";
}

/* Keepalive: a PE whose node or link went away is noticed in about 8 s
 * (4 s idle, then 4 probes 1 s apart) on an idle connection. */
static void uid_keepalive(int fd)
{
    int on = 1, idle = 4, intvl = 1, cnt = 4;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

/* ---- the watcher ----------------------------------------------------------- */

/* PE 0: every other PE's process ends with status (END; pe_tag -1: it
 * says nothing), then this one, after saying why (unless silent). */
static void uid_end_job(gshmemi_bootstrap_t *b, int status, int silent, const char *why)
{
    uid_priv_t *up = b->priv;
    for (int k = 1; k < b->n_pes; k++)
        if (up->peers[k].ctrl >= 0 && !up->peers[k].done)
            uid_send_text(up->peers[k].ctrl, UID_END, silent ? -1 : 0, status, why);
    if (!silent) {
        fprintf(stderr, "gshmem: PE 0: the job is ending: %s\n", why);
        fflush(stderr);
    }
    _exit(status);
}

/* PE 0: a message (or the end) on PE k's ctrl connection. */
static void uid_root_ctrl(gshmemi_bootstrap_t *b, int k)
{
    uid_priv_t *up = b->priv;
    uid_peer_t *p = &up->peers[k];
    char text[1024], why[1400];
    uid_hdr_t h;
    double dl = gshmemi_boot_now_ms() + UID_SHORT_MS;
    int rc = uid_recv_hdr(p->ctrl, &h, dl);
    if (rc == 0 && (h.type == UID_ABORT || h.type == UID_EXIT || h.type == UID_BYE))
        rc = uid_recv_text(p->ctrl, &h, text, sizeof text, dl);
    else if (rc == 0)
        rc = GSHMEM_ERR_BOOTSTRAP;
    if (rc == 0 && h.type == UID_BYE) {
        uid_send(p->ctrl, UID_BYE_ACK, 0, 0, NULL, 0, dl);
        p->done = 1;
        close(p->ctrl);
        p->ctrl = -1;
        return;
    }
    if (rc == 0 && h.type == UID_EXIT) {
        snprintf(why, sizeof why, "PE %d called gshmem_global_exit(%d): %s", k, h.arg, text);
        uid_end_job(b, h.arg, 1, why);
    }
    if (rc == 0) {
        snprintf(why, sizeof why, "PE %d (host %s, pid %u) aborted the job (status %d): %s", k,
                 p->host, p->pid, h.arg, text);
        uid_end_job(b, h.arg ? h.arg : 1, 0, why);
    }
    snprintf(why, sizeof why, "PE %d (host %s, pid %u) lost its connection to PE 0 without "
             "finalizing (%s): it died, or its node or link went down", k, p->host, p->pid,
             uid_io_why(rc));
    uid_end_job(b, 1, 0, why);
}

/* This PE called abort or global_exit: the END that follows is its own. */
static atomic_int uid_self_ending;

/* Other PEs: what PE 0 said on ctrl (END), or that it is gone. */
static void uid_peer_ctrl(gshmemi_bootstrap_t *b)
{
    uid_priv_t *up = b->priv;
    char text[1400];
    uid_hdr_t h;
    double dl = gshmemi_boot_now_ms() + UID_SHORT_MS;
    int rc = uid_recv_hdr(up->ctrl, &h, dl);
    if (rc == 0 && h.type == UID_END && uid_recv_text(up->ctrl, &h, text, sizeof text, dl) == 0) {
        if (h.pe != -1 && !atomic_load(&uid_self_ending)) {
            fprintf(stderr, "gshmem: PE %d: the job is ending: %s\n", b->my_pe, text);
            fflush(stderr);
        }
        _exit(h.arg);
    }
    fprintf(stderr, "gshmem: PE %d: the job is ending: PE 0 (the unique-ID rendezvous at %s) "
            "is gone (%s): it died, or its node or link went down\n", b->my_pe, up->where,
            rc == 0 ? "an unexpected message" : uid_io_why(rc));
    fflush(stderr);
    _exit(1);
}

static void *uid_watch(void *arg)
{
    gshmemi_bootstrap_t *b = arg;
    uid_priv_t *up = b->priv;
    int n = b->my_pe == 0 ? b->n_pes : 2;
    struct pollfd *pfd = calloc((size_t)n, sizeof *pfd);
    if (!pfd)
        return NULL;
    for (;;) {
        pfd[0] = (struct pollfd){.fd = up->wake[0], .events = POLLIN};
        for (int k = 1; k < n; k++)
            pfd[k] = (struct pollfd){.fd = b->my_pe == 0 ? up->peers[k].ctrl : up->ctrl,
                                     .events = POLLIN};
        if (poll(pfd, (nfds_t)n, -1) < 0 && errno != EINTR)
            break;
        if (pfd[0].revents)
            break;
        for (int k = 1; k < n; k++)
            if (pfd[k].fd >= 0 && pfd[k].revents) {
                if (b->my_pe == 0)
                    uid_root_ctrl(b, k);
                else
                    uid_peer_ctrl(b);
            }
    }
    free(pfd);
    return NULL;
}

static void uid_watch_stop(uid_priv_t *up)
{
    if (!up->watching)
        return;
    char c = 1;
    ssize_t w = write(up->wake[1], &c, 1);
    (void)w;
    pthread_join(up->watcher, NULL);
    up->watching = 0;
}

/* ---- the ops ---------------------------------------------------------------- */

/* A connection of an exchange closed: the job is ending, and the watcher
 * is about to say why (END from PE 0, or which PE is gone) and end this
 * process with the job's status. Give it 1 s to, rather than fail the
 * exchange first with a vaguer message and another status. */
static void uid_let_watcher_speak(const uid_priv_t *up)
{
    for (int i = 0; up->watching && i < 100; i++)
        usleep(10000);
}

static double uid_deadline(const uid_priv_t *up)
{
    return up->timeout_ms < 0 ? -1.0 : gshmemi_boot_now_ms() + up->timeout_ms;
}

/* PE 0: PE k's part of an exchange into out. */
static int uid_root_part(gshmemi_bootstrap_t *b, int k, void *out, size_t len, const char *op)
{
    uid_priv_t *up = b->priv;
    uid_hdr_t h;
    int rc = uid_recv_hdr(up->peers[k].data, &h, uid_deadline(up));
    if (rc == 0 && (h.type != UID_PART || h.len != len)) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid %s: PE %d sent message %u of %llu bytes, expected "
                      "its part of %zu bytes (the PEs' calls differ)", op, k, h.type,
                      (unsigned long long)h.len, len);
        return GSHMEM_ERR_MISMATCH;
    }
    if (rc == 0)
        rc = gshmemi_boot_io(up->peers[k].data, out, len, 0, uid_deadline(up));
    if (rc == GSHMEM_ERR_PEER_DEAD)
        uid_let_watcher_speak(up);
    if (rc != 0)
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid %s: PE 0 waiting for PE %d (host %s, pid %u): %s%s",
                      op, k, up->peers[k].host, up->peers[k].pid, uid_io_why(rc),
                      rc == GSHMEM_ERR_TIMEOUT ? " (GSHMEM_TIMEOUT)" : "");
    return rc;
}

static int uid_exchange(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len,
                        const char *op)
{
    uid_priv_t *up = b->priv;
    int rc = 0;
    if (up->broken) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid %s: PE %d: the bootstrap already failed", op,
                      b->my_pe);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    if ((uint64_t)len * (uint64_t)b->n_pes > UID_MAX_PAYLOAD) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid %s: %zu bytes x %d PEs is over the limit", op, len,
                      b->n_pes);
        return GSHMEM_ERR_INVALID_ARG;
    }
    size_t all = len * (size_t)b->n_pes;
    if (b->my_pe == 0) {
        if (len)
            memmove(out, in, len);
        for (int k = 1; k < b->n_pes && rc == 0; k++)
            rc = uid_root_part(b, k, (char *)out + (size_t)k * len, len, op);
        for (int k = 1; k < b->n_pes && rc == 0; k++) {
            rc = uid_send(up->peers[k].data, UID_ALL, 0, 0, out, all, uid_deadline(up));
            if (rc == GSHMEM_ERR_PEER_DEAD)
                uid_let_watcher_speak(up);
            if (rc != 0)
                GSHMEMI_ERROR(SUBSYS, "bootstrap uid %s: PE 0 cannot send to PE %d: %s", op, k,
                              uid_io_why(rc));
        }
    } else {
        uid_hdr_t h;
        rc = uid_send(up->data, UID_PART, b->my_pe, 0, in, len, uid_deadline(up));
        if (rc == 0)
            rc = uid_recv_hdr(up->data, &h, uid_deadline(up));
        if (rc == 0 && (h.type != UID_ALL || h.len != all)) {
            GSHMEMI_ERROR(SUBSYS, "bootstrap uid %s: PE %d got message %u of %llu bytes from PE "
                          "0, expected %zu bytes", op, b->my_pe, h.type,
                          (unsigned long long)h.len, all);
            rc = GSHMEM_ERR_MISMATCH;
        } else if (rc == 0) {
            rc = gshmemi_boot_io(up->data, out, all, 0, uid_deadline(up));
        }
        if (rc == GSHMEM_ERR_PEER_DEAD)
            uid_let_watcher_speak(up);
        if (rc != 0 && rc != GSHMEM_ERR_MISMATCH)
            GSHMEMI_ERROR(SUBSYS, "bootstrap uid %s: PE %d with PE 0 at %s: %s%s", op, b->my_pe,
                          up->where, uid_io_why(rc),
                          rc == GSHMEM_ERR_TIMEOUT ? " (GSHMEM_TIMEOUT)" : "");
    }
    if (rc != 0)
        up->broken = 1;
    return rc;
}

static int uid_allgather(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len)
{
    return uid_exchange(b, in, out, len, "allgather");
}

static int uid_barrier(gshmemi_bootstrap_t *b)
{
    char none = 0;
    return uid_exchange(b, &none, &none, 0, "barrier");
}

/* ABORT or EXIT: PE 0 ends the job itself; the others tell it (it ends
 * the rest), then end. */
static void uid_end(gshmemi_bootstrap_t *b, uint32_t type, int status, const char *msg)
{
    uid_priv_t *up = b->priv;
    const char *m = msg ? msg : "";
    char why[1400];
    if (b->my_pe == 0) {
        if (type == UID_EXIT)
            snprintf(why, sizeof why, "PE 0 called gshmem_global_exit(%d): %s", status, m);
        else
            snprintf(why, sizeof why, "PE 0 aborted the job (status %d): %s", status, m);
        uid_end_job(b, status, type == UID_EXIT, why);
    }
    /* said before PE 0 hears of it: PE 0's END comes back to this PE too,
     * and its watcher then ends the process without saying it again */
    if (type == UID_ABORT) {
        fprintf(stderr, "gshmem: PE %d aborted the job (status %d): %s\n", b->my_pe, status, m);
        fflush(stderr);
    }
    atomic_store(&uid_self_ending, 1);
    if (uid_send_text(up->ctrl, type, b->my_pe, status, m) != 0 && type != UID_ABORT) {
        fprintf(stderr, "gshmem: PE %d ended the job (status %d): %s\n", b->my_pe, status, m);
        fflush(stderr);
    }
    _exit(status);
}

static void uid_abort(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    uid_end(b, UID_ABORT, status, msg);
}

static void uid_global_exit(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    uid_end(b, UID_EXIT, status, msg);
}

static void uid_free(gshmemi_bootstrap_t *b)
{
    uid_priv_t *up = b->priv;
    if (up->peers)
        for (int k = 0; k < b->n_pes; k++) {
            if (up->peers[k].data >= 0)
                close(up->peers[k].data);
            if (up->peers[k].ctrl >= 0)
                close(up->peers[k].ctrl);
        }
    if (up->data >= 0)
        close(up->data);
    if (up->ctrl >= 0)
        close(up->ctrl);
    if (up->wake[0] >= 0) {
        close(up->wake[0]);
        close(up->wake[1]);
    }
    free(up->peers);
    free(up);
    free(b);
}

/* After the node directory's barrier: every PE says BYE on ctrl (PE 0's
 * watcher answers; what it has not seen, finalize reads here). */
static int uid_finalize(gshmemi_bootstrap_t *b)
{
    uid_priv_t *up = b->priv;
    int rc = gshmemi_bootstrap_node_dir_remove(b, up->dir_owner);
    double dl = gshmemi_boot_now_ms() + 1000.0 * gshmemi_config_bounded_wait_s(NULL);
    uid_watch_stop(up);
    if (b->my_pe != 0) {
        uid_hdr_t h;
        int r = uid_send(up->ctrl, UID_BYE, b->my_pe, 0, NULL, 0, dl);
        if (r == 0)
            r = uid_recv_hdr(up->ctrl, &h, dl);
        if (r == 0 && h.type != UID_BYE_ACK)
            r = GSHMEM_ERR_BOOTSTRAP;
        if (r != 0 && rc == 0) {
            GSHMEMI_ERROR(SUBSYS, "bootstrap uid finalize: PE %d with PE 0 at %s: %s", b->my_pe,
                          up->where, uid_io_why(r));
            rc = r;
        }
    }
    for (int k = 1; b->my_pe == 0 && k < b->n_pes; k++) {
        uid_peer_t *p = &up->peers[k];
        uid_hdr_t h;
        int r = p->done ? 0 : uid_recv_hdr(p->ctrl, &h, dl);
        if (!p->done && r == 0 && h.type == UID_BYE)
            r = uid_send(p->ctrl, UID_BYE_ACK, 0, 0, NULL, 0, dl);
        else if (!p->done && r == 0)
            r = GSHMEM_ERR_BOOTSTRAP;
        if (r != 0)
            GSHMEMI_WARN(SUBSYS, "bootstrap uid finalize: PE %d (host %s) did not say goodbye "
                         "after the last barrier: %s", k, p->host, uid_io_why(r));
    }
    uid_free(b);
    return rc;
}

static const gshmemi_bootstrap_ops_t uid_ops = {
    .size = sizeof(gshmemi_bootstrap_ops_t),
    .name = "uid",
    .allgather = uid_allgather,
    .barrier = uid_barrier,
    .notice = gshmemi_bootstrap_notice_none,   /* the watcher ends the process itself */
    .abort = uid_abort,
    .global_exit = uid_global_exit,
    .finalize = uid_finalize,
};

/* ---- joining ------------------------------------------------------------------ */

static int uid_tokens_equal(const uint8_t *a, const uint8_t *b)
{
    uint8_t d = 0;
    for (int i = 0; i < UID_TOKEN_BYTES; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

/* PE 0: one accepted connection's HELLO; 1 when it took its slot, 0 when
 * refused (told why). */
static int uid_root_hello(gshmemi_bootstrap_t *b, const uid_id_t *id, int fd)
{
    uid_priv_t *up = b->priv;
    uid_hdr_t h;
    uid_hello_t hi;
    char why[256] = "";
    int rc = uid_recv_hdr(fd, &h, gshmemi_boot_now_ms() + UID_SHORT_MS);
    if (rc == 0 && (h.type != UID_HELLO || h.len != sizeof hi))
        rc = GSHMEM_ERR_BOOTSTRAP;
    if (rc == 0)
        rc = gshmemi_boot_io(fd, &hi, sizeof hi, 0, gshmemi_boot_now_ms() + UID_SHORT_MS);
    if (rc != 0) {
        GSHMEMI_WARN(SUBSYS, "bootstrap uid: PE 0 dropped a connection that did not greet it "
                     "as a gshmem PE (%s)", uid_io_why(rc));
        close(fd);
        return 0;
    }
    hi.host[sizeof hi.host - 1] = '\0';
    if (!uid_tokens_equal(hi.token, id->token))
        snprintf(why, sizeof why, "wrong token: the ID this PE was given is not this job's "
                 "(another job's, or a stale one)");
    else if (h.arg != b->n_pes)
        snprintf(why, sizeof why, "PE %d says the job has %d PEs, PE 0 says %d", h.pe, h.arg,
                 b->n_pes);
    else if (h.pe < 1 || h.pe >= b->n_pes || hi.kind > 1)
        snprintf(why, sizeof why, "PE %d is not a PE number of 1 .. %d", h.pe, b->n_pes - 1);
    else if ((hi.kind ? up->peers[h.pe].ctrl : up->peers[h.pe].data) >= 0)
        snprintf(why, sizeof why, "PE %d joined already (host %s, pid %u): two processes were "
                 "given one PE number", h.pe, up->peers[h.pe].host, up->peers[h.pe].pid);
    if (why[0]) {
        GSHMEMI_WARN(SUBSYS, "bootstrap uid: PE 0 refused PE %d (host %s, pid %u): %s", h.pe,
                     hi.host, hi.pid, why);
        uid_send_text(fd, UID_ERROR, 0, 0, why);
        close(fd);
        return 0;
    }
    uid_peer_t *p = &up->peers[h.pe];
    *(hi.kind ? &p->ctrl : &p->data) = fd;
    p->pid = hi.pid;
    memcpy(p->host, hi.host, sizeof p->host);
    uid_keepalive(fd);
    return 1;
}

static int uid_root_join(gshmemi_bootstrap_t *b, const uid_id_t *id, int lfd, long timeout_s)
{
    uid_priv_t *up = b->priv;
    int need = 2 * (b->n_pes - 1);
    double dl = timeout_s > 0 ? gshmemi_boot_now_ms() + 1000.0 * timeout_s : -1.0;
    while (need > 0) {
        struct pollfd pfd = {.fd = lfd, .events = POLLIN};
        int ms = dl < 0 ? -1 : (int)(dl - gshmemi_boot_now_ms()) + 1;
        if (dl >= 0 && ms <= 0)
            break;
        if (poll(&pfd, 1, ms) <= 0)
            continue;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0)
            need -= uid_root_hello(b, id, fd);
    }
    if (need == 0) {
        for (int k = 1; k < b->n_pes; k++)
            if (uid_send(up->peers[k].data, UID_WELCOME, 0, 0, NULL, 0,
                         gshmemi_boot_now_ms() + UID_SHORT_MS) != 0) {
                GSHMEMI_ERROR(SUBSYS, "bootstrap uid: PE %d (host %s) left while the others "
                              "joined", k, up->peers[k].host);
                return GSHMEM_ERR_PEER_DEAD;
            }
        return 0;
    }
    char missing[512] = "", why[768];
    int n_missing = 0;
    for (int k = 1; k < b->n_pes; k++)
        if (up->peers[k].data < 0 || up->peers[k].ctrl < 0) {
            size_t n = strlen(missing);
            if (n_missing++ < 32)
                snprintf(missing + n, sizeof missing - n, " %d", k);
        }
    snprintf(why, sizeof why, "PE 0 waited %ld s (GSHMEM_BOOTSTRAP_UID_TIMEOUT) for %d of the %d "
             "PEs, which never joined:%s%s", timeout_s, n_missing, b->n_pes, missing,
             n_missing > 32 ? " ..." : "");
    GSHMEMI_ERROR(SUBSYS, "bootstrap uid: %s", why);
    for (int k = 1; k < b->n_pes; k++)
        if (up->peers[k].data >= 0)
            uid_send_text(up->peers[k].data, UID_ERROR, 0, 0, why);
    return GSHMEM_ERR_TIMEOUT;
}

/* A refused connection: at once for an ID of gshmem_get_uniqueid (PE 0
 * listened before anyone had the ID: nobody listens, so it is stale or
 * wrong); else (a hand-made ID: PE 0 listens at its init, maybe later than
 * this PE's) again every 50 ms until deadline. */
static int uid_connect(gshmemi_bootstrap_t *b, const uid_id_t *id, uint32_t kind, double deadline,
                       int *fd_p)
{
    uid_priv_t *up = b->priv;
    struct sockaddr_storage ss;
    socklen_t len;
    uid_sockaddr(id->addr, id->port, &ss, &len);
    int fd, e;
    for (;;) {
        fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&ss, len) == 0)
            break;
        e = errno;
        if (fd >= 0)
            close(fd);
        if (e != ECONNREFUSED || id->ready ||
            (deadline >= 0 && gshmemi_boot_now_ms() >= deadline)) {
            GSHMEMI_ERROR(SUBSYS, "bootstrap uid: PE %d cannot reach PE 0 at %s: %s%s", b->my_pe,
                          up->where, strerror(e), e != ECONNREFUSED ? ""
                          : id->ready ? " (nothing listens there: a stale ID, whose PE 0 has "
                                        "ended, or a wrong one)"
                                      : " until GSHMEM_BOOTSTRAP_UID_TIMEOUT (+ 5 s): PE 0 "
                                        "never listened there (not started, or a wrong ID)");
            return GSHMEM_ERR_BOOTSTRAP;
        }
        usleep(50000);
    }
    uid_hello_t hi = {.kind = kind, .pid = (uint32_t)getpid()};
    memcpy(hi.token, id->token, sizeof hi.token);
    gethostname(hi.host, sizeof hi.host - 1);
    uid_keepalive(fd);
    *fd_p = fd;
    int rc = uid_send(fd, UID_HELLO, b->my_pe, b->n_pes, &hi, sizeof hi,
                      gshmemi_boot_now_ms() + UID_SHORT_MS);
    if (rc != 0)
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid: PE %d cannot greet PE 0 at %s: %s", b->my_pe,
                      up->where, uid_io_why(rc));
    return rc;
}

/* Other PEs: both connections, then PE 0's WELCOME (or why not). */
static int uid_peer_join(gshmemi_bootstrap_t *b, const uid_id_t *id, long timeout_s)
{
    uid_priv_t *up = b->priv;
    double dl = timeout_s > 0 ? gshmemi_boot_now_ms() + 1000.0 * timeout_s + UID_GRACE_MS : -1;
    GSHMEMI_CHECK(uid_connect(b, id, 0, dl, &up->data));
    GSHMEMI_CHECK(uid_connect(b, id, 1, dl, &up->ctrl));
    uid_hdr_t h;
    char text[1024];
    int rc = uid_recv_hdr(up->data, &h, dl);
    if (rc == 0 && h.type == UID_WELCOME && h.len == 0)
        return 0;
    if (rc == 0 && h.type == UID_ERROR && uid_recv_text(up->data, &h, text, sizeof text,
                                                         gshmemi_boot_now_ms() + UID_SHORT_MS) == 0) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid: PE %d was not let in by PE 0 at %s: %s", b->my_pe,
                      up->where, text);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    GSHMEMI_ERROR(SUBSYS, "bootstrap uid: PE %d joining PE 0 at %s: %s%s", b->my_pe, up->where,
                  rc == 0 ? "an unexpected message" : uid_io_why(rc),
                  rc == GSHMEM_ERR_TIMEOUT ? " (GSHMEM_BOOTSTRAP_UID_TIMEOUT, + 5 s)"
                  : rc == GSHMEM_ERR_PEER_DEAD ? " (PE 0 ended, or the port is not a gshmem PE 0's)"
                  : "");
    return rc == 0 ? GSHMEM_ERR_BOOTSTRAP : rc;
}

/* The ID, PE and count from args or GSHMEM_BOOTSTRAP_UID*. */
static int uid_args(const gshmemi_config_t *cfg, const gshmemi_boot_args_t *args,
                    const char **text_p, int *pe_p, int *n_p)
{
    if (args && args->uid) {
        *text_p = args->uid;
        *pe_p = args->uid_pe;
        *n_p = args->uid_n_pes;
    } else {
        *text_p = cfg->bootstrap_uid;
        *pe_p = (int)cfg->bootstrap_uid_pe;
        *n_p = (int)cfg->bootstrap_uid_n_pes;
        if (!cfg->bootstrap_uid[0] || *pe_p < 0 || *n_p < 1) {
            GSHMEMI_ERROR(SUBSYS, "bootstrap uid: no ID given: call gshmem_init_attr with "
                          "GSHMEM_INIT_WITH_UNIQUEID, or set GSHMEM_BOOTSTRAP_UID%s",
                          !cfg->bootstrap_uid[0] ? ", GSHMEM_BOOTSTRAP_UID_PE and _N_PES"
                          : *pe_p < 0 ? "_PE" : "_N_PES");
            return GSHMEM_ERR_CONFIG;
        }
    }
    if (*n_p < 1 || *pe_p < 0 || *pe_p >= *n_p) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid: PE %d of %d PEs: expected a PE count >= 1 and a PE "
                      "of 0 .. count-1", *pe_p, *n_p);
        return GSHMEM_ERR_INVALID_ARG;
    }
    return 0;
}

int gshmemi_bootstrap_uid_open(const gshmemi_config_t *cfg, const gshmemi_boot_args_t *args,
                               gshmemi_bootstrap_t **boot_p)
{
    const char *text;
    uid_id_t id;
    int pe, n, lfd = -1, rc;
    GSHMEMI_CHECK(uid_args(cfg, args, &text, &pe, &n));
    GSHMEMI_CHECK(uid_parse(text, &id));
    gshmemi_bootstrap_t *b = calloc(1, sizeof *b);
    uid_priv_t *up = calloc(1, sizeof *up);
    if (!b || !up) {
        free(b);
        free(up);
        return GSHMEM_ERR_NOMEM;
    }
    b->ops = &uid_ops;
    b->my_pe = pe;
    b->n_pes = n;
    b->priv = up;
    up->data = up->ctrl = up->wake[0] = up->wake[1] = -1;
    up->timeout_ms = gshmemi_bootstrap_timeout_ms(cfg);
    snprintf(up->where, sizeof up->where, strchr(id.addr, ':') ? "[%s]:%d" : "%s:%d", id.addr,
             id.port);
    if (pipe2(up->wake, O_CLOEXEC) != 0) {
        up->wake[0] = up->wake[1] = -1;
        rc = GSHMEM_ERR_SYSTEM;
        goto fail;
    }
    GSHMEMI_CHECK_GOTO(uid_take_listener(text, &id, pe, &lfd), rc, fail);
    if (pe == 0) {
        up->peers = calloc((size_t)n, sizeof *up->peers);
        rc = up->peers ? 0 : GSHMEM_ERR_NOMEM;
        for (int k = 0; up->peers && k < n; k++)
            up->peers[k].data = up->peers[k].ctrl = -1;
        if (rc == 0)
            rc = uid_root_join(b, &id, lfd, cfg->bootstrap_uid_timeout);
        close(lfd);
    } else {
        rc = uid_peer_join(b, &id, cfg->bootstrap_uid_timeout);
    }
    if (rc != 0)
        goto fail;
    if (pthread_create(&up->watcher, NULL, uid_watch, b) != 0) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap uid: cannot start the watcher thread");
        rc = GSHMEM_ERR_SYSTEM;
        goto fail;
    }
    up->watching = 1;
    GSHMEMI_CHECK_GOTO(gshmemi_bootstrap_node_dir_create(b, &up->dir_owner), rc, fail);
    GSHMEMI_DEBUG(SUBSYS, "bootstrap uid: PE %d of %d joined at %s", pe, n, up->where);
    *boot_p = b;
    return 0;
fail:
    uid_watch_stop(up);
    uid_free(b);
    return rc;
}
