/* pe_agg_host: the aggregator's runtime (src/api/agg + include/gshmem/agg/agg_rt.h)
 * in host mode: host threads play the kernels' part on a host heap over
 * shm, with the proxy engine over host channels (gshmemi_proxy_start_host)
 * and the service thread applying and ageing buffers on the host. Same
 * protocol, rings, engine and transports as the GPU path; runs everywhere.
 *
 *   pe_agg_host stress T M BYTES BUFS   T threads per PE, 2 rounds of M
 *       records each (4..256 B, random PEs including this one, random
 *       gaps; tests/agg/agg_gen.h), then every thread flushes; a barrier;
 *       every PE checks its memory against the serial reference (replay of
 *       every producer); round 2 rewrites round 1's places, so a late or
 *       repeated buffer of round 1 would show.
 *   pe_agg_host timeflush WAIT_US       PE 0 stores one record to the last
 *       PE and idles; it must arrive no earlier than WAIT_US and no later
 *       than WAIT_US + 300 ms.
 *   pe_agg_host bad                     a record larger than a buffer, an
 *       invalid PE, bad and mismatched attributes: clear errors.
 *   pe_agg_host nocuda                  create without a CUDA heap or an
 *       engine: refused, naming the reason.
 * Prints "pe_agg_host: OK (PE n)" per PE. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gshmem.h"
#include "gshmem_agg.h"
#include "pe_check.h"
#include "api/gshmemi.h"
#include "api/core/core.h"   /* gshmemi_engine_start_host, _stop */
#include "engine/proxy.h"
#include "api/agg/agg.h"
#include "agg_gen.h"

#define SEED 0x616767ull
#define ROUNDS 2

static int me, npes;
static gshmem_agg_t *agg;
static uint8_t *region;        /* [npes][T][stripe], symmetric */
static uint32_t T, M, stripe;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *producer(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg;
    int round = (int)(uintptr_t)arg >> 16;
    uint8_t buf[AGG_GEN_MAX_LEN];
    agg_gen_t g;

    t &= 0xffff;
    agg_gen_init(&g, SEED, (uint32_t)round, (uint32_t)me, t);
    for (uint32_t i = 0; i < M; i++) {
        uint32_t pe, off, len;
        uint64_t ps;
        if (!agg_gen_next(&g, (uint32_t)npes, stripe, &pe, &off, &len, &ps))
            break;
        agg_gen_fill(buf, ps, len);
        uint8_t *dst = region + ((size_t)me * T + t) * stripe + off;
        int rc = gshmemi_agg_host_store(agg, dst, buf, len, (int)pe, t);
        PE_CHECK(rc == 0, "thread %u store %u (%u bytes to PE %u): %s", t, i, len, pe,
                 gshmem_strerror(rc));
    }
    int rc = gshmemi_agg_host_flush(agg, -1, t);
    PE_CHECK(rc == 0, "thread %u flush: %s", t, gshmem_strerror(rc));
    return NULL;
}

/* What this PE's region must hold after rounds [0, rounds). */
static uint8_t *reference(int rounds)
{
    size_t size = (size_t)npes * T * stripe;
    uint8_t *ref = calloc(1, size);
    PE_CHECK(ref != NULL, "out of memory");
    for (int r = 0; r < rounds; r++)
        for (uint32_t s = 0; s < (uint32_t)npes; s++)
            for (uint32_t t = 0; t < T; t++) {
                agg_gen_t g;
                uint32_t pe, off, len;
                uint64_t ps;
                agg_gen_init(&g, SEED, (uint32_t)r, s, t);
                for (uint32_t i = 0; i < M && agg_gen_next(&g, (uint32_t)npes, stripe, &pe,
                                                            &off, &len, &ps); i++) {
                    if (pe != (uint32_t)me)
                        continue;
                    uint8_t *d = ref + ((size_t)s * T + t) * stripe + off;
                    agg_gen_fill(d, ps, len);
                }
            }
    return ref;
}

static void check_region(int rounds)
{
    size_t size = (size_t)npes * T * stripe;
    uint8_t *ref = reference(rounds);
    if (memcmp(ref, region, size) != 0) {
        size_t i = 0;
        while (ref[i] == region[i])
            i++;
        size_t per = (size_t)T * stripe;
        PE_CHECK(0, "after round %d: byte %zu (from PE %zu thread %zu, stripe offset %zu) is "
                 "0x%02x, the serial reference has 0x%02x", rounds, i, i / per,
                 (i % per) / stripe, i % stripe, region[i], ref[i]);
    }
    free(ref);
}

static void mode_stress(char **argv)
{
    gshmem_agg_attr_t a;
    T = (uint32_t)atoi(argv[2]);
    M = (uint32_t)atoi(argv[3]);
    gshmem_agg_attr_init(&a);
    a.buf_bytes = (size_t)atoi(argv[4]);
    a.bufs_per_pe = (uint32_t)atoi(argv[5]);
    a.max_wait_us = 200;
    PE_CHECK(T >= 1 && T <= 64 && npes <= AGG_GEN_MAX_PES, "T %u, npes %d", T, npes);
    stripe = (uint32_t)((uint64_t)M * 140 / (uint32_t)npes * 3 / 2 + 2048);
    region = gshmem_calloc((size_t)npes * T, stripe);
    PE_CHECK(region != NULL, "region of %u x %u x %u bytes", npes, T, stripe);
    int rc = gshmem_agg_create(&a, &agg);
    PE_CHECK(rc == 0, "gshmem_agg_create: %s", gshmem_strerror(rc));
    uint64_t t0 = now_ns();
    for (int r = 0; r < ROUNDS; r++) {
        pthread_t th[64];
        for (uint32_t t = 0; t < T; t++)
            pthread_create(&th[t], NULL, producer, (void *)(uintptr_t)(t | (uint32_t)r << 16));
        for (uint32_t t = 0; t < T; t++)
            pthread_join(th[t], NULL);
        gshmem_barrier_all();   /* every PE's flushes returned: all applied */
        check_region(r + 1);
        gshmem_barrier_all();
    }
    if (me == 0)
        printf("pe_agg_host: stress %d PEs x %u threads x %u records x %d rounds in %.2f s\n",
               npes, T, M, ROUNDS, (now_ns() - t0) / 1e9);
    rc = gshmem_agg_destroy(agg);
    PE_CHECK(rc == 0, "gshmem_agg_destroy: %s", gshmem_strerror(rc));
    gshmem_free(region);
}

static void mode_timeflush(char **argv)
{
    gshmem_agg_attr_t a;
    gshmem_agg_attr_init(&a);
    a.max_wait_us = (uint32_t)atoi(argv[2]);
    region = gshmem_calloc(1, 4096);
    int rc = gshmem_agg_create(&a, &agg);
    PE_CHECK(rc == 0, "gshmem_agg_create: %s", gshmem_strerror(rc));
    const uint8_t rec[16] = "time-flush-rec!";
    int last = npes - 1;
    gshmem_barrier_all();
    uint64_t t0 = now_ns();
    if (me == 0) {
        rc = gshmemi_agg_host_store(agg, region + 64, rec, sizeof rec, last, 0);
        PE_CHECK(rc == 0, "store: %s", gshmem_strerror(rc));
    }
    if (me == last) {
        volatile uint8_t *p = region + 64;
        while (p[0] == 0 && now_ns() - t0 < 5000000000ull)
            usleep(50);
        double us = (now_ns() - t0) / 1e3;
        printf("pe_agg_host: time-flush: one record applied after %.0f us (max_wait %u us)\n",
               us, a.max_wait_us);
        PE_CHECK(memcmp(region + 64, rec, sizeof rec) == 0, "the record never arrived");
        PE_CHECK(us >= a.max_wait_us - 2000.0 && us <= a.max_wait_us + 300000.0,
                 "applied after %.0f us, want [%u - 2000, %u + 300000] us", us,
                 a.max_wait_us, a.max_wait_us);
    }
    gshmem_barrier_all();
    rc = gshmem_agg_destroy(agg);
    PE_CHECK(rc == 0, "gshmem_agg_destroy: %s", gshmem_strerror(rc));
}

static void mode_bad(void)
{
    gshmem_agg_attr_t a;
    uint8_t big[4096] = {1};
    gshmem_agg_attr_init(&a);
    a.buf_bytes = 1024;
    region = gshmem_calloc(1, 8192);
    int rc = gshmem_agg_create(&a, &agg);
    PE_CHECK(rc == 0, "gshmem_agg_create: %s", gshmem_strerror(rc));
    rc = gshmemi_agg_host_store(agg, region, big, 1024, (me + 1) % npes, 0);
    PE_CHECK(rc == GSHMEM_ERR_INVALID_ARG, "record of 1024 bytes: %d", rc);
    rc = gshmemi_agg_host_store(agg, region, big, 16, npes, 0);
    PE_CHECK(rc == GSHMEM_ERR_INVALID_PE, "PE %d: %d", npes, rc);
    rc = gshmemi_agg_host_store(agg, big, big, 16, (me + 1) % npes, 0);
    PE_CHECK(rc == GSHMEM_ERR_OUT_OF_HEAP, "dst outside the heap: %d", rc);
    rc = gshmem_agg_destroy(agg);
    PE_CHECK(rc == 0, "gshmem_agg_destroy: %s", gshmem_strerror(rc));

    gshmem_agg_t *x = NULL;
    a.buf_bytes = 12;
    rc = gshmem_agg_create(&a, &x);
    PE_CHECK(rc == GSHMEM_ERR_INVALID_ARG && x == NULL, "buf_bytes 12: %d", rc);
    a.buf_bytes = 1024 + 64 * (size_t)me;
    rc = gshmem_agg_create(&a, &x);
    PE_CHECK(rc == (npes > 1 ? GSHMEM_ERR_MISMATCH : 0), "buf_bytes per PE: %d", rc);
    if (rc == 0)
        gshmem_agg_destroy(x);
    gshmem_free(region);
    printf("pe_agg_host: bad input refused (PE %d)\n", me);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    if (strcmp(mode, "nocuda") == 0) {
        gshmem_agg_t *x = NULL;
        int rc = gshmem_agg_create(NULL, &x);
        PE_CHECK(rc == GSHMEM_ERR_INVALID_ARG && x == NULL, "create on a host heap: %d", rc);
    } else {
        int rc = gshmemi_engine_start_host();
        PE_CHECK(rc == 0, "host engine: %s", gshmem_strerror(rc));
        if (strcmp(mode, "stress") == 0 && argc == 6)
            mode_stress(argv);
        else if (strcmp(mode, "timeflush") == 0 && argc == 3)
            mode_timeflush(argv);
        else if (strcmp(mode, "bad") == 0)
            mode_bad();
        else
            PE_CHECK(0, "usage: pe_agg_host stress T M BYTES BUFS | timeflush WAIT_US | bad | "
                     "nocuda (got %s)", mode);
    }
    printf("pe_agg_host: OK (PE %d)\n", me);
    gshmem_finalize();
    return 0;
}
