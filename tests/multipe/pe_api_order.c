/* pe_api_order: ordering litmus tests, argv[1] iterations (default 500).
 * Every PE sends to the next PE (ring) and receives from the previous one;
 * per iteration the receiver checks the data after seeing the flag, then
 * acknowledges, so no iteration overwrites data still being checked.
 *   fence:       data (nbi or blocking put) + gshmem_fence + flag (p or
 *                atomic set); the receiver waits the flag, then checks.
 *   signal SET:  putmem_signal(_nbi) with SET of the iteration number;
 *                receiver: signal_wait_until(EQ iter), checks the data.
 *   signal ADD:  the same with ADD 1 (the signal counts iterations).
 * Any stale word is a violation: the first one ends the run with the
 * iteration, index and values. Prints "pe_api_order: OK" on PE 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"

#define WORDS 1024   /* 4 KiB of data per message */

static int me, npes, next, prev;

typedef struct channel {
    uint32_t *data;       /* [WORDS] written by prev */
    uint64_t *flag;       /* written by prev */
    uint64_t *ack;        /* written by next */
} channel_t;

static void fill(uint32_t *buf, int from, long iter)
{
    for (int j = 0; j < WORDS; j++)
        buf[j] = (uint32_t)(iter * 7919 + from * 104729 + j);
}

static void check_data(const char *what, const uint32_t *data, long iter)
{
    for (int j = 0; j < WORDS; j++) {
        uint32_t want = (uint32_t)(iter * 7919 + prev * 104729 + j);
        PE_CHECK(data[j] == want, "%s: iteration %ld: word %d from PE %d is %u, expected %u "
                 "(the flag/signal overtook the data)", what, iter, j, prev, data[j], want);
    }
}

static void ack(const channel_t *c, long iter)
{
    gshmem_uint64_p(c->ack, (uint64_t)iter, prev);
    gshmem_uint64_wait_until(c->ack, GSHMEM_CMP_GE, (uint64_t)iter);
}

static void test_fence(const channel_t *c, long iters)
{
    uint32_t *src = malloc(WORDS * sizeof(uint32_t));
    for (long it = 1; it <= iters; it++) {
        fill(src, me, it);
        if (it % 2)
            gshmem_putmem_nbi(c->data, src, WORDS * sizeof(uint32_t), next);
        else
            gshmem_putmem(c->data, src, WORDS * sizeof(uint32_t), next);
        gshmem_fence();
        if (it % 3)
            gshmem_uint64_p(c->flag, (uint64_t)it, next);
        else
            gshmem_uint64_atomic_set(c->flag, (uint64_t)it, next);
        gshmem_uint64_wait_until(c->flag, GSHMEM_CMP_EQ, (uint64_t)it);
        check_data("put + fence + flag", c->data, it);
        gshmem_quiet();   /* src is refilled next iteration (nbi) */
        ack(c, it);
    }
    free(src);
}

static void test_signal(const channel_t *c, long iters, int sig_op)
{
    const char *what = sig_op == GSHMEM_SIGNAL_SET ? "put_signal SET" : "put_signal ADD";
    uint32_t *src = malloc(WORDS * sizeof(uint32_t));
    for (long it = 1; it <= iters; it++) {
        uint64_t sig = sig_op == GSHMEM_SIGNAL_SET ? (uint64_t)it + 1000000 : 1;
        uint64_t want = sig_op == GSHMEM_SIGNAL_SET ? (uint64_t)it + 1000000 : (uint64_t)it;
        fill(src, me, it);
        if (it % 2)
            gshmem_putmem_signal_nbi(c->data, src, WORDS * sizeof(uint32_t), c->flag, sig,
                                     sig_op, next);
        else
            gshmem_putmem_signal(c->data, src, WORDS * sizeof(uint32_t), c->flag, sig, sig_op,
                                 next);
        uint64_t got = gshmem_signal_wait_until(c->flag, GSHMEM_CMP_EQ, want);
        PE_CHECK(got == want, "%s: iteration %ld: signal_wait_until returned %llu, expected "
                 "%llu", what, it, (unsigned long long)got, (unsigned long long)want);
        check_data(what, c->data, it);
        uint64_t f = gshmem_signal_fetch(c->flag);
        PE_CHECK(f == want, "%s: iteration %ld: signal_fetch %llu, expected %llu", what, it,
                 (unsigned long long)f, (unsigned long long)want);
        gshmem_quiet();
        ack(c, it);
    }
    free(src);
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 500;
    channel_t c;

    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;
    c.data = gshmem_calloc(WORDS, sizeof(uint32_t));
    c.flag = gshmem_calloc(1, sizeof(uint64_t));
    c.ack = gshmem_calloc(1, sizeof(uint64_t));
    PE_CHECK(c.data && c.flag && c.ack, "allocation");

    test_fence(&c, iters);
    gshmem_barrier_all();
    *c.ack = 0;   /* restart the counts: nobody writes them now */
    *c.flag = 0;
    gshmem_barrier_all();
    test_signal(&c, iters, GSHMEM_SIGNAL_SET);
    gshmem_barrier_all();
    *c.ack = 0;
    *c.flag = 0;
    gshmem_barrier_all();
    test_signal(&c, iters, GSHMEM_SIGNAL_ADD);
    gshmem_barrier_all();
    if (me == 0)
        printf("pe_api_order: OK (%d PEs, %ld iterations each)\n", npes, iters);
    gshmem_free(c.ack);
    gshmem_free(c.flag);
    gshmem_free(c.data);
    gshmem_finalize();
    return 0;
}
