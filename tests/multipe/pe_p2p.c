/* pe_p2p: drives the p2p transport directly (no gshmem_init), the way the
 * core will: config, bootstrap, node map, gshmemi_p2p_select_device, a
 * CUDA heap, then the transport's init. Needs a GPU. Modes (argv[1]):
 *   probe      no launcher: exit 0 when gshmem has the p2p transport and a
 *              CUDA device is visible, 77 (with the reason) when not
 *   full       (default) every PE reaches every PE; puts to every peer
 *              (blocking from host memory, nbi from its own GPU heap), gets
 *              back (blocking and nbi), AMO contention on PE 0's counters
 *              (exact totals, strictly increasing fetched values), every
 *              AMO op on every type, ptr and the peer tables, bad accesses
 *   disabled   run with GSHMEM_DISABLE_P2P=1: init succeeds, reaches no PE
 * Prints "pe_p2p: OK" once per PE on success. Built in every build: the
 * p2p symbols are weak, absent without CUDA. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bootstrap/bootstrap.h"
#include "gshmem.h"
#include "gshmem_types.h"
#include "base/heap/heap.h"
#include "transports/p2p/p2p.h"
#include "transports/transport.h"
#include "base/util/config.h"
#include "base/util/log.h"
#include "pe_check.h"

#pragma weak gshmemi_p2p_ops
#pragma weak gshmemi_p2p_select_device
#pragma weak gshmemi_p2p_peer_bases
#pragma weak gshmemi_p2p_peer_bases_device

#define HEAP_SIZE (8u << 20)
#define SLOT (64u << 10)          /* bytes per (writer, target) slot */
#define REG_A 0u                  /* blocking puts land here */
#define REG_B (1u << 20)          /* nbi puts land here */
#define REG_C (2u << 20)          /* nbi put sources (own heap) */
#define REG_AMO (4u << 20)        /* PE 0's counters: i32 at +0, i64 +8, u64 +16 */
#define REG_OPS (REG_AMO + 4096u) /* per-writer AMO op words, 64 B each */
#define N_CONTEND 1000
#define MAX_PES 16

static int my_pe = -1;

#define CHECK(cond, ...) PE_CHECK_AT(my_pe, cond, __VA_ARGS__)

typedef struct pe_ctx {
    gshmemi_config_t cfg;
    gshmemi_bootstrap_t *boot;
    gshmemi_heap_t heap;
    gshmemi_transport_t tp;
    const gshmemi_transport_ops_t *ops;
    int *node_of;
    int n;
} pe_ctx_t;

static uint32_t pattern(int writer, int target, size_t j, int round)
{
    return ((uint32_t)writer << 24) ^ ((uint32_t)target << 16) ^ (uint32_t)(j * 2654435761u) ^
           (uint32_t)(round * 77 + 1);
}

static void barrier(pe_ctx_t *c)
{
    int rc = c->boot->ops->barrier(c->boot);
    CHECK(rc == 0, "barrier: %s", gshmem_strerror(rc));
}

static int probe(void)
{
    if (&gshmemi_p2p_ops == NULL || gshmemi_p2p_select_device == NULL) {
        printf("pe_p2p: SKIP: gshmem was built without CUDA (no p2p transport)\n");
        return 77;
    }
    if (!gshmemi_heap_kind_available(GSHMEMI_HEAP_CUDA)) {
        printf("pe_p2p: SKIP: no CUDA device is visible (cudaGetDeviceCount)\n");
        return 77;
    }
    printf("pe_p2p: probe: p2p transport built in, CUDA device present\n");
    return 0;
}

static void setup(pe_ctx_t *c)
{
    int rc, n_nodes = 0, dev = -1;

    memset(c, 0, sizeof(*c));
    CHECK(&gshmemi_p2p_ops != NULL, "gshmem was built without the p2p transport");
    rc = gshmemi_config_load(&c->cfg);
    CHECK(rc == 0, "config_load: %s", gshmem_strerror(rc));
    int level;
    unsigned mask;
    if (gshmemi_log_parse_level(c->cfg.debug, &level) == 0 &&
        gshmemi_log_parse_subsys(c->cfg.debug_subsys, &mask) == 0)
        gshmemi_log_level = level, gshmemi_log_mask = mask;   /* GSHMEM_DEBUG(_SUBSYS) */
    rc = gshmemi_bootstrap_open(&c->cfg, NULL, &c->boot);
    CHECK(rc == 0, "bootstrap_open: %s", gshmem_strerror(rc));
    my_pe = c->boot->my_pe;
    c->n = c->boot->n_pes;
    gshmemi_log_set_pe(my_pe);
    CHECK(c->n <= MAX_PES, "at most %d PEs, got %d", MAX_PES, c->n);
    c->node_of = calloc((size_t)c->n, sizeof(int));
    rc = gshmemi_bootstrap_node_map(c->boot, c->node_of, &n_nodes);
    CHECK(rc == 0, "node_map: %s", gshmem_strerror(rc));
    rc = gshmemi_p2p_select_device(c->node_of, my_pe, c->n, &dev);
    CHECK(rc == 0 && dev >= 0, "select_device: %s (device %d)", gshmem_strerror(rc), dev);
    rc = gshmemi_heap_create(&c->heap, GSHMEMI_HEAP_CUDA, HEAP_SIZE);
    CHECK(rc == 0, "heap_create(CUDA, %u): %s", HEAP_SIZE, gshmem_strerror(rc));
    CHECK(c->heap.cuda_device == dev, "heap on device %d, selected %d", c->heap.cuda_device,
          dev);
    c->ops = &gshmemi_p2p_ops;
    CHECK(strcmp(c->ops->name, "p2p") == 0 && c->ops->size == sizeof(*c->ops),
          "ops table name '%s' size %zu", c->ops->name, c->ops->size);
    c->tp.ops = c->ops;
    c->tp.reach = calloc((size_t)c->n, 1);
    gshmemi_tp_env_t env = {.cfg = &c->cfg, .boot = c->boot, .heap = &c->heap,
                            .node_of = c->node_of, .my_pe = my_pe, .n_pes = c->n};
    rc = c->ops->init(&c->tp, &env);
    CHECK(rc == 0, "p2p init: %s", gshmem_strerror(rc));
}

static void teardown(pe_ctx_t *c)
{
    int rc = c->ops->finalize(&c->tp);
    CHECK(rc == 0, "p2p finalize: %s", gshmem_strerror(rc));
    gshmemi_heap_destroy(&c->heap);
    free(c->tp.reach);
    free(c->node_of);
    rc = c->boot->ops->finalize(c->boot);
    CHECK(rc == 0, "bootstrap finalize: %s", gshmem_strerror(rc));
}

/* ptr, the host and device tables of bases, and bad accesses. */
static void check_ptr(pe_ctx_t *c)
{
    void *const *bases = gshmemi_p2p_peer_bases(&c->tp);
    void *const *dev_bases = gshmemi_p2p_peer_bases_device(&c->tp);
    void *copy[MAX_PES];
    uint32_t v = 1;
    int rc;

    CHECK(bases != NULL && dev_bases != NULL, "peer tables %p %p", (void *)bases,
          (void *)dev_bases);
    CHECK(bases[my_pe] == c->heap.base, "own base %p, heap at %p", bases[my_pe], c->heap.base);
    rc = gshmemi_heap_copy_nb(&c->heap, copy, dev_bases, sizeof(void *) * (size_t)c->n);
    CHECK(rc == 0, "copy of the device table: %s", gshmem_strerror(rc));
    for (int t = 0; t < c->n; t++) {
        unsigned char *p = c->ops->ptr(&c->tp, t, 0);
        CHECK(c->tp.reach[t] == 1, "PE %d not reached (one node, peer GPUs)", t);
        CHECK(p != NULL && p == bases[t], "ptr(PE %d, 0) = %p, table %p", t, (void *)p,
              bases[t]);
        CHECK(c->ops->ptr(&c->tp, t, 100) == p + 100, "ptr(PE %d, 100) is not base + 100", t);
        CHECK(copy[t] == bases[t], "device table[%d] = %p, host table %p", t, copy[t],
              bases[t]);
    }
    CHECK(c->ops->ptr(&c->tp, c->n, 0) == NULL, "ptr of PE %d (out of range) not NULL", c->n);
    fprintf(stderr, "pe_p2p: PE %d: two errors expected next (bad PE, past the heap end)\n",
            my_pe);
    rc = c->ops->put(&c->tp, c->n, 0, &v, sizeof(v), 0);
    CHECK(rc == GSHMEM_ERR_INVALID_PE, "put to PE %d: %d, expected INVALID_PE", c->n, rc);
    rc = c->ops->put(&c->tp, 0, HEAP_SIZE - 2, &v, sizeof(v), 0);
    CHECK(rc == GSHMEM_ERR_OUT_OF_HEAP, "put past the heap end: %d, expected OUT_OF_HEAP", rc);
}

/* Blocking puts from host memory, nbi puts from this GPU's heap. */
static void do_puts(pe_ctx_t *c, uint32_t *buf)
{
    size_t m = SLOT / sizeof(uint32_t);
    int rc;

    for (int t = 0; t < c->n; t++) {
        for (size_t j = 0; j < m; j++)
            buf[j] = pattern(my_pe, t, j, 0);
        rc = c->ops->put(&c->tp, t, REG_A + (uint64_t)my_pe * SLOT, buf, SLOT, 0);
        CHECK(rc == 0, "put to PE %d: %s", t, gshmem_strerror(rc));
        for (size_t j = 0; j < m; j++)
            buf[j] = pattern(my_pe, t, j, 1);
        rc = c->ops->put(&c->tp, my_pe, REG_C + (uint64_t)t * SLOT, buf, SLOT, 0);
        CHECK(rc == 0, "put to self: %s", gshmem_strerror(rc));
    }
    for (int t = 0; t < c->n; t++) {
        const unsigned char *src = (const unsigned char *)c->heap.base + REG_C + t * SLOT;
        rc = c->ops->put(&c->tp, t, REG_B + (uint64_t)my_pe * SLOT, src, SLOT, 1);
        CHECK(rc == 0, "put_nbi to PE %d: %s", t, gshmem_strerror(rc));
    }
    rc = c->ops->fence(&c->tp);
    CHECK(rc == 0, "fence: %s", gshmem_strerror(rc));
    rc = c->ops->quiet(&c->tp);
    CHECK(rc == 0, "quiet: %s", gshmem_strerror(rc));
}

static void check_slot(const uint32_t *buf, int t, int round, const char *how)
{
    for (size_t j = 0; j < SLOT / sizeof(uint32_t); j++)
        CHECK(buf[j] == pattern(my_pe, t, j, round), "%s from PE %d: word %zu is 0x%08x, "
              "expected 0x%08x", how, t, j, buf[j], pattern(my_pe, t, j, round));
}

/* Read back what this PE put everywhere: blocking and nbi gets. */
static void do_gets(pe_ctx_t *c, uint32_t *bufs)
{
    size_t m = SLOT / sizeof(uint32_t);
    int rc;

    for (int t = 0; t < c->n; t++) {
        memset(bufs, 0, SLOT);
        rc = c->ops->get(&c->tp, t, bufs, REG_A + (uint64_t)my_pe * SLOT, SLOT, 0);
        CHECK(rc == 0, "get from PE %d: %s", t, gshmem_strerror(rc));
        check_slot(bufs, t, 0, "blocking get");
    }
    memset(bufs, 0, SLOT * (size_t)c->n);
    for (int t = 0; t < c->n; t++) {
        rc = c->ops->get(&c->tp, t, bufs + (size_t)t * m, REG_B + (uint64_t)my_pe * SLOT,
                         SLOT, 1);
        CHECK(rc == 0, "get_nbi from PE %d: %s", t, gshmem_strerror(rc));
    }
    rc = c->ops->quiet(&c->tp);
    CHECK(rc == 0, "quiet: %s", gshmem_strerror(rc));
    for (int t = 0; t < c->n; t++)
        check_slot(bufs + (size_t)t * m, t, 1, "nbi get");
}

static uint64_t amo(pe_ctx_t *c, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                    uint64_t off, uint64_t v, uint64_t cmp)
{
    uint64_t res = 0xdeadbeefdeadbeefull;
    int32_t v32 = (int32_t)v, c32 = (int32_t)cmp, r32 = 0x5a5a5a5a;
    int fetch = op != GSHMEMI_AMO_SET && op != GSHMEMI_AMO_ADD, rc;

    if (dt == GSHMEMI_DT_INT32) {
        rc = c->ops->amo(&c->tp, pe, op, dt, off, &v32, &c32, fetch ? &r32 : NULL);
        res = (uint64_t)(int64_t)r32;
    } else {
        rc = c->ops->amo(&c->tp, pe, op, dt, off, &v, &cmp, fetch ? &res : NULL);
    }
    CHECK(rc == 0, "AMO op %d dtype %d on PE %d offset %llu: %s", (int)op, (int)dt, pe,
          (unsigned long long)off, gshmem_strerror(rc));
    return res;
}

#define AMO_EQ(got, want, what)                                                       \
    CHECK((got) == (want), "%s (dtype %d, PE %d): 0x%llx, expected 0x%llx", what, (int)dt, \
          t, (unsigned long long)(got), (unsigned long long)(want))

/* Every op on one type, on a word of the right neighbour only this PE uses. */
static void check_ops(pe_ctx_t *c, gshmemi_dtype_t dt)
{
    int t = (my_pe + 1) % c->n;
    uint64_t off = REG_OPS + (uint64_t)my_pe * 64 + (dt == GSHMEMI_DT_INT32 ? 0 : 8 * dt);
    int wide = dt != GSHMEMI_DT_INT32;
    uint64_t x = wide ? 0x8123456789abcdefull : (uint64_t)(int64_t)-5;
    uint64_t y = wide ? 0x00000001ffffffffull : (uint64_t)(int64_t)-2000000000;
    uint64_t z = wide ? 42 : (uint64_t)(int64_t)-7, got;

    amo(c, t, GSHMEMI_AMO_SET, dt, off, x, 0);
    AMO_EQ(amo(c, t, GSHMEMI_AMO_FETCH, dt, off, 0, 0), x, "fetch after set");
    AMO_EQ(amo(c, t, GSHMEMI_AMO_SWAP, dt, off, y, 0), x, "swap's old value");
    AMO_EQ(amo(c, t, GSHMEMI_AMO_CSWAP, dt, off, z, x), y, "failing cswap's old value");
    AMO_EQ(amo(c, t, GSHMEMI_AMO_FETCH, dt, off, 0, 0), y, "value after a failing cswap");
    AMO_EQ(amo(c, t, GSHMEMI_AMO_CSWAP, dt, off, z, y), y, "cswap's old value");
    AMO_EQ(amo(c, t, GSHMEMI_AMO_FETCH_ADD, dt, off, 5, 0), z, "fetch_add's old value");
    amo(c, t, GSHMEMI_AMO_ADD, dt, off, (uint64_t)(int64_t)-12, 0);
    got = 0;
    int rc = c->ops->get(&c->tp, t, &got, off, gshmemi_dtype_size(dt), 0);
    CHECK(rc == 0, "get of the AMO word: %s", gshmem_strerror(rc));
    if (!wide)
        got = (uint64_t)(int64_t)(int32_t)got;
    AMO_EQ(got, z + 5 - 12, "value (by get) after fetch_add 5, add -12");
}

/* Every PE adds N_CONTEND times to each of PE 0's counters. */
static void check_contention(pe_ctx_t *c)
{
    uint64_t one = 1, prev32 = 0, prev64 = 0, total = (uint64_t)c->n * N_CONTEND;
    int t = 0, first = 1, rc;

    for (int i = 0; i < N_CONTEND; i++) {
        uint64_t a = amo(c, 0, GSHMEMI_AMO_FETCH_ADD, GSHMEMI_DT_INT32, REG_AMO, 1, 0);
        uint64_t b = amo(c, 0, GSHMEMI_AMO_FETCH_ADD, GSHMEMI_DT_INT64, REG_AMO + 8, 1, 0);
        CHECK(a < total && b < total && (first || (a > prev32 && b > prev64)),
              "fetch_add %d: got %llu / %llu after %llu / %llu (total %llu)", i,
              (unsigned long long)a, (unsigned long long)b, (unsigned long long)prev32,
              (unsigned long long)prev64, (unsigned long long)total);
        prev32 = a, prev64 = b, first = 0;
        rc = c->ops->amo_nbi(&c->tp, 0, GSHMEMI_AMO_ADD, GSHMEMI_DT_UINT64, REG_AMO + 16, &one,
                             1);
        CHECK(rc == 0, "amo_nbi add: %s", gshmem_strerror(rc));
    }
    rc = c->ops->quiet(&c->tp);
    CHECK(rc == 0, "quiet: %s", gshmem_strerror(rc));
    barrier(c);
    gshmemi_dtype_t dt = GSHMEMI_DT_INT32;
    AMO_EQ(amo(c, 0, GSHMEMI_AMO_FETCH, dt, REG_AMO, 0, 0), total, "int32 counter");
    dt = GSHMEMI_DT_INT64;
    AMO_EQ(amo(c, 0, GSHMEMI_AMO_FETCH, dt, REG_AMO + 8, 0, 0), total, "int64 counter");
    dt = GSHMEMI_DT_UINT64;
    AMO_EQ(amo(c, 0, GSHMEMI_AMO_FETCH, dt, REG_AMO + 16, 0, 0), total, "uint64 nbi counter");
}

static void run_full(pe_ctx_t *c)
{
    uint32_t *buf = malloc(SLOT * (size_t)c->n);

    CHECK(buf != NULL, "out of memory");
    check_ptr(c);
    barrier(c);
    do_puts(c, buf);
    barrier(c);
    do_gets(c, buf);
    barrier(c);
    for (int dt = GSHMEMI_DT_INT32; dt <= GSHMEMI_DT_UINT64; dt++)
        check_ops(c, (gshmemi_dtype_t)dt);
    check_contention(c);
    barrier(c);
    free(buf);
}

static void run_disabled(pe_ctx_t *c)
{
    uint32_t v = 1;
    int rc;

    CHECK(c->cfg.disable_p2p, "run with GSHMEM_DISABLE_P2P=1");
    for (int t = 0; t < c->n; t++) {
        CHECK(c->tp.reach[t] == 0, "PE %d reached with P2P disabled", t);
        CHECK(c->ops->ptr(&c->tp, t, 0) == NULL, "ptr(PE %d) not NULL with P2P disabled", t);
    }
    CHECK(gshmemi_p2p_peer_bases_device(&c->tp) == NULL, "a device table with P2P disabled");
    rc = c->ops->put(&c->tp, my_pe, 0, &v, sizeof(v), 0);
    CHECK(rc == GSHMEM_ERR_INVALID_PE, "put with P2P disabled: %d", rc);
    rc = c->ops->quiet(&c->tp);
    CHECK(rc == 0, "quiet with P2P disabled: %s", gshmem_strerror(rc));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "full";
    pe_ctx_t c;

    if (strcmp(mode, "probe") == 0)
        return probe();
    setup(&c);
    if (strcmp(mode, "disabled") == 0)
        run_disabled(&c);
    else
        run_full(&c);
    teardown(&c);
    printf("pe_p2p: OK (PE %d of %d, %s)\n", my_pe, c.n, mode);
    return 0;
}
