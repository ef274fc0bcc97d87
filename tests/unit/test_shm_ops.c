/* test_shm_ops.c: the shm transport on one PE (itself): the result of
 * every AMO on every type against a reference, bounds and argument checks,
 * and the transport registry. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "base/util/log.h"
#include "transports/transport.h"

#define OPS_HEAP (256u * 1024)

static int one_allgather(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len)
{
    (void)b;
    memcpy(out, in, len);
    return 0;
}

static int one_barrier(gshmemi_bootstrap_t *b)
{
    (void)b;
    return 0;
}

static void one_abort(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    (void)b, (void)msg;
    _exit(status);
}

static int one_finalize(gshmemi_bootstrap_t *b)
{
    (void)b;
    return 0;
}

static const gshmemi_bootstrap_ops_t one_ops = {
    .size = sizeof(gshmemi_bootstrap_ops_t), .name = "one", .allgather = one_allgather,
    .barrier = one_barrier, .notice = gshmemi_bootstrap_notice_none, .abort = one_abort, .finalize = one_finalize,
};

static gshmemi_bootstrap_t boot = {.ops = &one_ops, .my_pe = 0, .n_pes = 1, .node_dir = ""};
static gshmemi_heap_t heap;
static const int node_of[1] = {0};
static gshmemi_tp_env_t env = {.boot = &boot, .heap = &heap, .node_of = node_of, .n_pes = 1};
static gshmemi_transport_t tp = {.ops = &gshmemi_shm_ops};

static void ops_setup(void)
{
    heap = (gshmemi_heap_t){.kind = GSHMEMI_HEAP_HOST, .size = OPS_HEAP, .cuda_device = -1};
    heap.fd = memfd_create("ops-heap", MFD_CLOEXEC);
    cr_assert_geq(heap.fd, 0);
    cr_assert_eq(ftruncate(heap.fd, OPS_HEAP), 0);
    heap.base = mmap(NULL, OPS_HEAP, PROT_READ | PROT_WRITE, MAP_SHARED, heap.fd, 0);
    cr_assert_neq(heap.base, MAP_FAILED);
    memset(heap.base, 0xab, OPS_HEAP);
    cr_assert_eq(tp.ops->init(&tp, &env), 0);
    cr_assert_eq(tp.reach[0], 1);
}

static void ops_teardown(void)
{
    cr_assert_eq(tp.ops->finalize(&tp), 0);
    munmap(heap.base, OPS_HEAP);
    close(heap.fd);
}

static int64_t amo1(gshmemi_amo_op_t op, gshmemi_dtype_t dt, uint64_t off, int64_t v,
                    int64_t cmp)
{
    union { int32_t i32; int64_t i64; uint64_t u64; } a, c, r = {.u64 = 0};

    if (dt == GSHMEMI_DT_INT32) {
        a.i32 = (int32_t)v;
        c.i32 = (int32_t)cmp;
    } else {
        a.i64 = v;
        c.i64 = cmp;
    }
    cr_assert_eq(tp.ops->amo(&tp, 0, op, dt, off, &a, &c, &r), 0, "op %d dt %d", op, dt);
    return dt == GSHMEMI_DT_INT32 ? r.i32 : r.i64;
}

/* The same sequence on each type; the neighbours of the word stay intact. */
static void amo_sequence(gshmemi_dtype_t dt, uint64_t off, int64_t big)
{
    const unsigned char *h = heap.base;
    size_t sz = gshmemi_dtype_size(dt);

    amo1(GSHMEMI_AMO_SET, dt, off, -5, 0);
    cr_assert_eq(amo1(GSHMEMI_AMO_FETCH, dt, off, 0, 0), -5);
    amo1(GSHMEMI_AMO_ADD, dt, off, 7, 0);
    cr_assert_eq(amo1(GSHMEMI_AMO_FETCH, dt, off, 0, 0), 2);
    cr_assert_eq(amo1(GSHMEMI_AMO_FETCH_ADD, dt, off, -3, 0), 2);
    cr_assert_eq(amo1(GSHMEMI_AMO_FETCH, dt, off, 0, 0), -1);
    cr_assert_eq(amo1(GSHMEMI_AMO_SWAP, dt, off, big, 0), -1);
    cr_assert_eq(amo1(GSHMEMI_AMO_CSWAP, dt, off, 1, big - 1), big, "cswap that fails");
    cr_assert_eq(amo1(GSHMEMI_AMO_FETCH, dt, off, 0, 0), big);
    cr_assert_eq(amo1(GSHMEMI_AMO_CSWAP, dt, off, 1, big), big, "cswap that succeeds");
    cr_assert_eq(amo1(GSHMEMI_AMO_FETCH, dt, off, 0, 0), 1);
    for (size_t i = 1; i <= 8; i++) {
        cr_assert_eq(h[off - i], 0xab, "byte before the word clobbered");
        cr_assert_eq(h[off + sz - 1 + i], 0xab, "byte after the word clobbered");
    }
}

Test(shm_ops, amo_every_type, .init = ops_setup, .fini = ops_teardown)
{
    uint64_t max = UINT64_MAX, two = 2, r;

    amo_sequence(GSHMEMI_DT_INT32, 1024, 0x7ffffff0);
    amo_sequence(GSHMEMI_DT_INT64, 2048, INT64_C(1) << 40);
    amo_sequence(GSHMEMI_DT_UINT64, 4096, INT64_C(1) << 62);
    /* unsigned wrap-around; result of a fetch-less op stays untouched */
    r = 77;
    cr_assert_eq(tp.ops->amo(&tp, 0, GSHMEMI_AMO_SET, GSHMEMI_DT_UINT64, 8192, &max, NULL, &r), 0);
    cr_assert_eq(r, 77);
    cr_assert_eq(tp.ops->amo_nbi(&tp, 0, GSHMEMI_AMO_ADD, GSHMEMI_DT_UINT64, 8192, &two, 0), 0);
    cr_assert_eq(tp.ops->quiet(&tp), 0);
    cr_assert_eq(*(uint64_t *)(void *)((char *)heap.base + 8192), 1);
}

Test(shm_ops, put_get_ptr_self, .init = ops_setup, .fini = ops_teardown)
{
    char out[32] = "";

    cr_assert_eq(tp.ops->put(&tp, 0, 100, "hello, shm", 11, 0), 0);
    cr_assert_str_eq((char *)heap.base + 100, "hello, shm");
    cr_assert_eq(tp.ops->get(&tp, 0, out, 100, 11, 1), 0);
    cr_assert_str_eq(out, "hello, shm");
    cr_assert_eq(tp.ops->ptr(&tp, 0, 100), (char *)heap.base + 100);
    cr_assert_eq(tp.ops->fence(&tp), 0);
    cr_assert_eq(tp.ops->progress(&tp), 0);
    cr_assert_eq(tp.ops->mem_register(&tp, out, sizeof(out)), 0);
    cr_assert_eq(tp.ops->mem_unregister(&tp, out), 0);
}

Test(shm_ops, bounds_and_arguments, .init = ops_setup, .fini = ops_teardown)
{
    char buf[16] = "0123456789abcde";
    int64_t v = 1, r;
    int saved = gshmemi_log_level;

    gshmemi_log_level = GSHMEMI_LOG_NONE;   /* the errors below are expected */
    cr_expect_eq(tp.ops->put(&tp, 0, OPS_HEAP - 4, buf, 8, 0), GSHMEM_ERR_OUT_OF_HEAP);
    cr_expect_eq(tp.ops->put(&tp, 0, UINT64_MAX - 2, buf, 8, 0), GSHMEM_ERR_OUT_OF_HEAP);
    cr_expect_eq(tp.ops->get(&tp, 0, buf, OPS_HEAP + 1, 0, 0), GSHMEM_ERR_OUT_OF_HEAP);
    cr_expect_eq(tp.ops->put(&tp, 0, OPS_HEAP, buf, 0, 0), 0, "empty put at the end");
    cr_expect_eq(tp.ops->put(&tp, 1, 0, buf, 1, 0), GSHMEM_ERR_INVALID_PE);
    cr_expect_eq(tp.ops->put(&tp, -1, 0, buf, 1, 0), GSHMEM_ERR_INVALID_PE);
    cr_expect_eq(tp.ops->amo(&tp, 0, GSHMEMI_AMO_FETCH_ADD, GSHMEMI_DT_INT64, 4, &v, NULL, &r),
                 GSHMEM_ERR_INVALID_ARG, "misaligned");
    cr_expect_eq(tp.ops->amo(&tp, 0, GSHMEMI_AMO_ADD, GSHMEMI_DT_INT64, OPS_HEAP - 4, &v, NULL,
                             NULL), GSHMEM_ERR_OUT_OF_HEAP);
    cr_expect_eq(tp.ops->amo(&tp, 0, GSHMEMI_AMO_CSWAP, GSHMEMI_DT_INT64, 0, &v, NULL, &r),
                 GSHMEM_ERR_INVALID_ARG, "cswap without compare");
    cr_expect_eq(tp.ops->amo(&tp, 0, (gshmemi_amo_op_t)42, GSHMEMI_DT_INT64, 0, &v, NULL, &r),
                 GSHMEM_ERR_INVALID_ARG);
    cr_expect_eq(tp.ops->amo_nbi(&tp, 0, GSHMEMI_AMO_FETCH_ADD, GSHMEMI_DT_INT64, 0, &v, 0),
                 GSHMEM_ERR_INVALID_ARG);
    gshmemi_log_level = saved;
    cr_expect_null(tp.ops->ptr(&tp, 0, OPS_HEAP + 1));
    cr_expect_null(tp.ops->ptr(&tp, 1, 0));
    cr_expect_eq(((unsigned char *)heap.base)[OPS_HEAP - 1], 0xab, "last byte untouched");
}

Test(shm_ops, registry)
{
    cr_assert_eq(gshmemi_transport_lookup("shm"), &gshmemi_shm_ops);
    cr_assert_eq(gshmemi_transport_lookup("ofi"), &gshmemi_ofi_ops);
    cr_assert_null(gshmemi_transport_lookup("nope"));
    cr_assert_null(gshmemi_transport_lookup(NULL));
    cr_assert_eq(gshmemi_shm_ops.size, sizeof(gshmemi_transport_ops_t));
    cr_assert_str_eq(gshmemi_shm_ops.name, "shm");
}
