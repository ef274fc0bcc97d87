/* ofi_rate.c: gshmem-perf-ofi-rate. The provider's own message rate, the
 * anchor of the queue path's rate over ofi: raw libfabric, no gshmem.
 *
 * The program forks a sender and a receiver (RDM endpoints, FI_MSG, the
 * provider named by -p, e.g. shm or "tcp;ofi_rxm" with FI_TCP_IFACE=lo);
 * they swap endpoint names over a socketpair. The sender fi_injects SIZE-byte
 * messages, each carrying its sequence number, with at most 2 x WINDOW not
 * yet acknowledged; the receiver keeps 4 x WINDOW receives posted (at most
 * the provider's receive queue size; the provider buffers the rest), reposts
 * each one as it completes, and acknowledges every WINDOW messages with one
 * 8 B inject (the count so far). What fabtests' bandwidth tests do, with
 * credits instead of a barrier per window.
 *
 * Checked before it is timed: every received message's length and bytes
 * (its sequence number, then a pattern of it), the count, and the sum of
 * sequence numbers. A sample is N messages over the sender's clock, from
 * the first inject to the last acknowledgement; the median of -r samples
 * is printed as a CSV row (provider,size,msgs,window,mmsg_per_s,
 * min,max). Exit status 0 when every message checked.
 *
 *   gshmem-perf-ofi-rate -p shm [-s 8] [-n 1000000] [-W 256] [-r 5]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NAME "gshmem-perf-ofi-rate"
#define RATE_ACK_BYTES sizeof(uint64_t)

typedef struct rate_opts {
    const char *prov;
    size_t size;            /* message bytes, >= 8 (the sequence number) */
    uint64_t msgs;          /* per sample */
    int window, repeats;
} rate_opts_t;

typedef struct rate_ep {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    void *desc;
    char *bufs;             /* nbufs receive buffers of buf_len bytes */
    struct fi_context *ctx; /* one per receive buffer (FI_CONTEXT mode) */
    size_t buf_len;
    int nbufs;
    fi_addr_t peer;
} rate_ep_t;

#define RATE_CHECK(call, what)                                                      \
    do {                                                                            \
        int rc_ = (int)(call);                                                      \
        if (rc_ != 0) {                                                             \
            fprintf(stderr, "%s: %s failed: %s (%d)\n", NAME, what, fi_strerror(-rc_), \
                    rc_);                                                           \
            exit(2);                                                                \
        }                                                                           \
    } while (0)

static double rate_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void rate_fill(char *m, size_t len, uint64_t seq)
{
    memcpy(m, &seq, sizeof seq);
    for (size_t i = sizeof seq; i < len; i++)
        m[i] = (char)(seq * 131 + i);
}

/* 1 when m is message seq of len bytes. */
static int rate_valid(const char *m, size_t len, uint64_t *seq_p)
{
    uint64_t seq;
    memcpy(&seq, m, sizeof seq);
    for (size_t i = sizeof seq; i < len; i++)
        if (m[i] != (char)(seq * 131 + i))
            return 0;
    *seq_p = seq;
    return 1;
}

static void rate_ep_open(rate_ep_t *e, const rate_opts_t *o, int nbufs, size_t buf_len)
{
    struct fi_info *hints = fi_allocinfo();
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG;
    hints->mode = FI_CONTEXT;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_VIRT_ADDR |
                                  FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->fabric_attr->prov_name = strdup(o->prov);
    RATE_CHECK(fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &e->info), "fi_getinfo");
    fi_freeinfo(hints);
    if (e->info->tx_attr->inject_size < o->size) {
        fprintf(stderr, "%s: -s %zu is above %s's inject size %zu\n", NAME, o->size, o->prov,
                e->info->tx_attr->inject_size);
        exit(2);
    }
    RATE_CHECK(fi_fabric(e->info->fabric_attr, &e->fabric, NULL), "fi_fabric");
    RATE_CHECK(fi_domain(e->fabric, e->info, &e->domain, NULL), "fi_domain");
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 4096};
    RATE_CHECK(fi_cq_open(e->domain, &cq_attr, &e->cq, NULL), "fi_cq_open");
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    RATE_CHECK(fi_av_open(e->domain, &av_attr, &e->av, NULL), "fi_av_open");
    RATE_CHECK(fi_endpoint(e->domain, e->info, &e->ep, NULL), "fi_endpoint");
    RATE_CHECK(fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind(cq)");
    RATE_CHECK(fi_ep_bind(e->ep, &e->av->fid, 0), "fi_ep_bind(av)");
    RATE_CHECK(fi_enable(e->ep), "fi_enable");
    if ((size_t)nbufs > e->info->rx_attr->size)   /* more would never be accepted */
        nbufs = (int)e->info->rx_attr->size;
    e->nbufs = nbufs;
    e->buf_len = buf_len;
    e->bufs = aligned_alloc(64, (size_t)nbufs * buf_len);
    e->ctx = calloc((size_t)nbufs, sizeof *e->ctx);
    RATE_CHECK(fi_mr_reg(e->domain, e->bufs, (size_t)nbufs * buf_len, FI_RECV, 0, 0, 0,
                         &e->mr, NULL),
               "fi_mr_reg");
    e->desc = fi_mr_desc(e->mr);
}

/* Swap endpoint names with the other process over fd; insert the peer. */
static void rate_ep_connect(rate_ep_t *e, int fd)
{
    char name[256], peer[256];
    size_t len = sizeof name;
    RATE_CHECK(fi_getname(&e->ep->fid, name, &len), "fi_getname");
    if (write(fd, &len, sizeof len) != sizeof len || write(fd, name, len) != (ssize_t)len)
        exit(2);
    size_t plen;
    if (read(fd, &plen, sizeof plen) != sizeof plen || plen > sizeof peer ||
        read(fd, peer, plen) != (ssize_t)plen)
        exit(2);
    if (fi_av_insert(e->av, peer, 1, &e->peer, 0, NULL) != 1) {
        fprintf(stderr, "%s: fi_av_insert of the peer failed\n", NAME);
        exit(2);
    }
}

static void rate_post_recv(rate_ep_t *e, int i)
{
    ssize_t rc;
    while ((rc = fi_recv(e->ep, e->bufs + (size_t)i * e->buf_len, e->buf_len, e->desc,
                         FI_ADDR_UNSPEC, &e->ctx[i])) == -FI_EAGAIN)
        (void)fi_cq_read(e->cq, NULL, 0);
    RATE_CHECK(rc, "fi_recv");
}

static void rate_inject(rate_ep_t *e, const void *m, size_t len)
{
    ssize_t rc;
    while ((rc = fi_inject(e->ep, m, len, e->peer)) == -FI_EAGAIN)
        (void)fi_cq_read(e->cq, NULL, 0);
    RATE_CHECK(rc, "fi_inject");
}

/* One completion's receive buffer index (>= 0), or -1 when none. */
static int rate_poll(rate_ep_t *e, const char *who)
{
    struct fi_cq_entry c;
    ssize_t n = fi_cq_read(e->cq, &c, 1);
    if (n == -FI_EAGAIN)
        return -1;
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        (void)fi_cq_readerr(e->cq, &err, 0);
        fprintf(stderr, "%s: %s: completion error %s\n", NAME, who, fi_strerror(err.err));
        exit(2);
    }
    RATE_CHECK(n < 0 ? n : 0, "fi_cq_read");
    return c.op_context != NULL ? (int)((struct fi_context *)c.op_context - e->ctx) : -1;
}

/* The receiver: checks and acknowledges repeats x msgs messages (one more
 * sample for warm-up). Returns the number of bad messages. */
static uint64_t rate_receive(rate_ep_t *e, const rate_opts_t *o)
{
    uint64_t bad = 0;
    for (int i = 0; i < e->nbufs; i++)
        rate_post_recv(e, i);
    for (int s = 0; s <= o->repeats; s++) {
        uint64_t got = 0, sum = 0;
        while (got < o->msgs) {
            int i = rate_poll(e, "receiver");
            if (i < 0)
                continue;
            uint64_t seq;
            if (!rate_valid(e->bufs + (size_t)i * e->buf_len, o->size, &seq) || seq >= o->msgs)
                bad++;
            else
                sum += seq;
            rate_post_recv(e, i);
            if (++got % (uint64_t)o->window == 0 || got == o->msgs)
                rate_inject(e, &got, RATE_ACK_BYTES);
        }
        if (sum != o->msgs * (o->msgs - 1) / 2)
            bad++;
    }
    return bad;
}

/* The sender: one sample; returns its messages per second. */
static double rate_send_sample(rate_ep_t *e, const rate_opts_t *o, char *m)
{
    uint64_t sent = 0, acked = 0, credit = 2 * (uint64_t)o->window;
    double t0 = rate_now_s();
    while (acked < o->msgs) {
        if (sent < o->msgs && sent - acked < credit) {
            rate_fill(m, o->size, sent);
            rate_inject(e, m, o->size);
            sent++;
            continue;
        }
        int i = rate_poll(e, "sender");
        if (i < 0)
            continue;
        uint64_t a;
        memcpy(&a, e->bufs + (size_t)i * e->buf_len, sizeof a);
        if (a > acked)
            acked = a;
        rate_post_recv(e, i);
    }
    return (double)o->msgs / (rate_now_s() - t0);
}

static int rate_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void rate_usage_to(FILE *f, int status)
{
    fprintf(f, "usage: %s -p PROVIDER [-s SIZE>=8] [-n MSGS] [-W WINDOW] [-r REPEATS]\n",
            NAME);
    exit(status);
}

static void rate_usage(void)
{
    rate_usage_to(stderr, 2);
}

/* The value v of flag -c: decimal digits only, in [lo, hi]; else said,
 * naming the flag, and exit 2. (-n at most 1e9: the receiver's sum of
 * sequence numbers stays within 64 bits.) */
static uint64_t rate_number(int c, const char *v, uint64_t lo, uint64_t hi)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (*v < '0' || *v > '9' || *end != '\0' || errno != 0 || x < lo || x > hi) {
        fprintf(stderr, "%s: -%c '%s': expected a whole number from %" PRIu64 " to %" PRIu64
                "\n", NAME, c, v, lo, hi);
        rate_usage();
    }
    return x;
}

static void rate_parse(int argc, char **argv, rate_opts_t *o)
{
    *o = (rate_opts_t){.prov = NULL, .size = 8, .msgs = 1000000, .window = 256, .repeats = 5};
    int c;
    opterr = 0;   /* said here, naming the flag */
    /* at: optind before the call; getopt moves past a word only once its
     * last flag is read, so the word of a bad flag is argv[optind - 1]
     * when optind moved, else argv[optind] ("--x", "-Zs") */
    for (int at = optind; (c = getopt(argc, argv, "+:p:s:n:W:r:h")) != -1; at = optind) {
        switch (c) {
        case 'p': o->prov = optarg; break;
        case 's': o->size = rate_number(c, optarg, sizeof(uint64_t), 1u << 20); break;
        case 'n': o->msgs = rate_number(c, optarg, 1, 1000000000); break;
        case 'W': o->window = (int)rate_number(c, optarg, 1, 1u << 16); break;
        case 'r': o->repeats = (int)rate_number(c, optarg, 1, 1000); break;
        case 'h': rate_usage_to(stdout, 0); break;
        case ':':
            fprintf(stderr, "%s: -%c needs a value\n", NAME, optopt);
            rate_usage();
            break;
        default:
            fprintf(stderr, "%s: unknown flag -%c (in '%s')\n", NAME, optopt,
                    argv[optind > at ? optind - 1 : optind]);
            rate_usage();
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", NAME, argv[optind]);
        rate_usage();
    }
    if (o->prov == NULL || o->prov[0] == '\0') {
        fprintf(stderr, "%s: -p PROVIDER is required\n", NAME);
        rate_usage();
    }
}

int main(int argc, char **argv)
{
    rate_opts_t o;
    int sv[2];

    rate_parse(argc, argv, &o);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 2;
    pid_t child = fork();
    if (child < 0)
        return 2;
    rate_ep_t e = {0};
    if (child == 0) {   /* the receiver: 4 windows of receives */
        rate_ep_open(&e, &o, 4 * o.window, o.size);
        rate_ep_connect(&e, sv[1]);
        uint64_t bad = rate_receive(&e, &o);
        if (bad != 0)
            fprintf(stderr, "%s: receiver: %" PRIu64 " bad messages or sums\n", NAME, bad);
        _exit(bad != 0);
    }
    /* the sender: receives for the acknowledgements */
    rate_ep_open(&e, &o, 64, RATE_ACK_BYTES);
    rate_ep_connect(&e, sv[0]);
    char *m = malloc(o.size);
    double *r = calloc((size_t)o.repeats, sizeof *r);
    for (int i = 0; i < e.nbufs; i++)
        rate_post_recv(&e, i);
    (void)rate_send_sample(&e, &o, m);   /* warm-up */
    for (int s = 0; s < o.repeats; s++)
        r[s] = rate_send_sample(&e, &o, m);
    int st;
    if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "%s: the receiver failed its check: no rate\n", NAME);
        return 1;
    }
    qsort(r, (size_t)o.repeats, sizeof *r, rate_cmp);
    printf("provider,size,msgs,window,mmsg_per_s,min,max\n");
    printf("%s,%zu,%" PRIu64 ",%d,%.3f,%.3f,%.3f\n", o.prov, o.size, o.msgs, o.window,
           1e-6 * r[o.repeats / 2], 1e-6 * r[0], 1e-6 * r[o.repeats - 1]);
    return 0;
}
