/* intruder: a process outside the job that tries to write into a PE's
 * heap over libfabric's tcp;ofi_rxm (the intrusion tests, test_intrude.c).
 * It knows what a local attacker can learn: the endpoint (host, port), the
 * heap's layout and the wire format; it does not know the PE's keys, so it
 * tries the ones a sequential provider key gives (0..4) and random ones.
 *
 *   intruder rma HOST PORT SPAN   fi_write 8 bytes of 0xee at every 64 KiB
 *                                 offset of [0, SPAN) with each key
 *   intruder am HOST PORT SPAN    active-message PUTs (ofi_am.h's format)
 *                                 that say they come from PE 1, each key
 *                                 4 times over, one record of 64 bytes of
 *                                 0xee per 64 KiB offset, numbered 0, 1, ...
 *                                 (a target that took them would apply
 *                                 each in turn)
 *
 * Prints "intruder: <n> sent, <c> completed, <e> failed" and exits 0 when
 * it could connect and send at all (2 when it could not even start). Whether
 * anything landed is for the victim (pe_heap_guard) to say. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "transports/ofi/ofi_am.h"

#define STEP (64u << 10)

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_cq *cq;
static struct fid_av *av;
static struct fid_ep *ep;
static struct fid_mr *mr;
static void *mr_desc;
static fi_addr_t dest;
static long n_sent, n_done, n_failed;
static unsigned char msg[OFI_AM_HDR + OFI_AM_REC + 64];

static int die(const char *what, int rc)
{
    fprintf(stderr, "intruder: %s: %s\n", what, fi_strerror(rc < 0 ? -rc : rc));
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One completion (or error) of the op just sent, 2 s at most; 0 when it
 * completed. */
static int wait_one(void)
{
    struct fi_cq_entry e;
    double end = now_s() + 2.0;
    while (now_s() < end) {
        ssize_t rc = fi_cq_read(cq, &e, 1);
        if (rc == 1) {
            n_done++;
            return 0;
        }
        if (rc == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            if (getenv("INTRUDER_VERBOSE"))
                fprintf(stderr, "intruder: op %ld: %s (prov errno %d)\n", n_sent,
                        fi_strerror(err.err), err.prov_errno);
            n_failed++;
            return 1;
        }
    }
    n_failed++;   /* no answer: counted as failed */
    return 1;
}

static void open_all(const char *host, const char *port)
{
    struct fi_info *h = fi_allocinfo(), *info = NULL;
    h->caps = FI_RMA | FI_MSG;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
    int rc = fi_getinfo(FI_VERSION(1, 9), "127.0.0.1", NULL, 0, h, &info);
    if (rc)
        die("fi_getinfo", rc);
    if ((rc = fi_fabric(info->fabric_attr, &fabric, NULL)))
        die("fi_fabric", rc);
    if ((rc = fi_domain(fabric, info, &domain, NULL)))
        die("fi_domain", rc);
    struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_CONTEXT};
    if ((rc = fi_cq_open(domain, &ca, &cq, NULL)))
        die("fi_cq_open", rc);
    struct fi_av_attr aa = {.type = FI_AV_TABLE};
    if ((rc = fi_av_open(domain, &aa, &av, NULL)))
        die("fi_av_open", rc);
    if ((rc = fi_endpoint(domain, info, &ep, NULL)))
        die("fi_endpoint", rc);
    if ((rc = fi_ep_bind(ep, &av->fid, 0)) || (rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV)))
        die("fi_ep_bind", rc);
    if ((rc = fi_enable(ep)))
        die("fi_enable", rc);
    if (fi_av_insertsvc(av, host, port, &dest, 0, NULL) != 1)
        die("fi_av_insertsvc", FI_EINVAL);
    if ((rc = fi_mr_reg(domain, msg, sizeof msg, FI_SEND | FI_WRITE, 0, 0, 0, &mr, NULL)))
        die("fi_mr_reg", rc);
    mr_desc = fi_mr_desc(mr);
    fi_freeinfo(info);
    fi_freeinfo(h);
}

static void close_all(void)
{
    fi_close(&mr->fid);
    fi_close(&ep->fid);
    fi_close(&av->fid);
    fi_close(&cq->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
}

static void keys(uint64_t *k, int n)
{
    for (int i = 0; i < n; i++)
        k[i] = (uint64_t)i;   /* what a sequential provider key gives */
    for (int i = 5; i < n; i++)
        if (getrandom(&k[i], sizeof k[i], 0) != (ssize_t)sizeof k[i])
            k[i] = (uint64_t)rand() << 32 | (uint64_t)rand();
}

/* Sends one op and waits for it; after a failure (the target closes the
 * connection when it refuses a key) connects again, as an attacker would. */
static void send_retry(ssize_t (*op)(void *), void *arg, const char *host, const char *port)
{
    ssize_t rc;
    double end = now_s() + 2.0;
    while ((rc = op(arg)) == -FI_EAGAIN && now_s() < end) {
        struct fi_cq_entry e;
        (void)fi_cq_read(cq, &e, 0);
    }
    n_sent++;
    if (rc != 0)
        n_failed++;
    if (rc != 0 || wait_one() != 0) {
        close_all();
        open_all(host, port);
    }
}

typedef struct { void *buf; size_t len; void *desc; fi_addr_t dest; uint64_t off, key; } op_t;

static ssize_t do_write(void *a)
{
    op_t *o = a;
    return fi_write(ep, o->buf, o->len, o->desc, o->dest, o->off, o->key, NULL);
}

static ssize_t do_send(void *a)
{
    op_t *o = a;
    return fi_send(ep, o->buf, o->len, o->desc, o->dest, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[1], "rma") && strcmp(argv[1], "am"))) {
        fprintf(stderr, "usage: intruder rma|am HOST PORT SPAN\n");
        return 2;
    }
    uint64_t span = strtoull(argv[4], NULL, 0), k[8], seq = 0;
    memset(msg, 0xee, sizeof msg);
    open_all(argv[2], argv[3]);
    keys(k, 8);
    for (int ki = 0; ki < 8; ki++) {
        if (strcmp(argv[1], "rma") == 0) {
            for (uint64_t off = 0; off < span; off += STEP) {
                op_t o = {msg, 8, mr_desc, dest, off, k[ki]};
                send_retry(do_write, &o, argv[2], argv[3]);
            }
            continue;
        }
        for (int round = 0; round < 4; round++)
            for (uint64_t off = 0; off < span; off += STEP) {
                ofi_am_hdr_t *hd = (ofi_am_hdr_t *)msg;
                memset(hd, 0, sizeof *hd);
                hd->type = OFI_AM_PUT;
                hd->src_pe = 1;
                hd->key = k[ki];
                hd->seq = seq++;   /* in turn, as PE 1's own would be */
                hd->len = OFI_AM_REC + 64;
                hd->operand = 1;
                ofi_am_rec_t *r = (ofi_am_rec_t *)(msg + OFI_AM_HDR);
                r->off = off;
                r->len = 64;
                op_t o = {msg, sizeof msg, mr_desc, dest, 0, 0};
                send_retry(do_send, &o, argv[2], argv[3]);
            }
    }
    printf("intruder: %ld sent, %ld completed, %ld failed\n", n_sent, n_done, n_failed);
    fflush(stdout);
    close_all();
    return 0;
}
