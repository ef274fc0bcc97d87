/* test_engine_validate: the proxy engine's entry validation
 * (src/engine/validate.c): every op and flag, PE range, remote ranges at
 * and across the heap's end (overflow included), AMO/signal alignment,
 * local ranges in the heap, in a registered region and outside both, and
 * the two-slot entries' continuation. */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/proxy.h"

#define HEAP_SIZE 65536ull
static char heap[HEAP_SIZE];
static char reg_region[256];

static int reg_ok(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)reg_region;
    return a >= b && a - b <= sizeof reg_region && n <= sizeof reg_region - (a - b);
}

static const gshmemi_proxy_bounds_t bounds = {
    .n_pes = 4, .heap_base = heap, .heap_size = HEAP_SIZE, .local_ok = reg_ok, .ctx = NULL,
};

static gshmemi_wqe_t wqe(uint32_t op, uint32_t flags, uint32_t aux, uint32_t pe,
                         uint64_t laddr, uint64_t roff, uint64_t value)
{
    gshmemi_wqe_t w = {.laddr = laddr, .roff = roff, .value = value,
                       .ctrl = gshmemi_wqe_ctrl(op, flags, aux, pe)};
    return w;
}

static uint64_t L(size_t off) { return (uint64_t)(uintptr_t)(heap + off); }

/* rc of w (ext may be NULL) and the reason in why. */
static char why[512];
static int check(gshmemi_wqe_t w, const gshmemi_wqe_t *ext)
{
    why[0] = '\0';
    return gshmemi_proxy_validate(&bounds, &w, ext, why, sizeof why);
}

#define OK(w, ext) cr_expect_eq(check((w), (ext)), 0, "line %d: rejected: %s", __LINE__, why)
#define BAD(w, ext, rc, text)                                                           \
    do {                                                                                \
        int r_ = check((w), (ext));                                                     \
        cr_expect_eq(r_, (rc), "line %d: rc %d, want %d (%s)", __LINE__, r_, (rc), why); \
        cr_expect(strstr(why, (text)) != NULL, "line %d: reason '%s' lacks '%s'",        \
                  __LINE__, why, (text));                                               \
    } while (0)

Test(engine_validate, put_get_ranges)
{
    OK(wqe(GSHMEMI_OP_PUT, 0, 0, 1, L(0), 0, HEAP_SIZE), NULL);
    OK(wqe(GSHMEMI_OP_PUT, 0, 0, 3, L(100), HEAP_SIZE - 8, 8), NULL);
    OK(wqe(GSHMEMI_OP_GET, 0, 0, 0, L(HEAP_SIZE - 1), 5, 1), NULL);
    OK(wqe(GSHMEMI_OP_PUT, 0, 0, 1, 0, HEAP_SIZE, 0), NULL);   /* empty, at the end */
    BAD(wqe(GSHMEMI_OP_PUT, 0, 0, 1, L(0), HEAP_SIZE - 8, 16), NULL, GSHMEM_ERR_OUT_OF_HEAP,
        "offset 65528, +16 bytes) is outside the 65536-byte symmetric heap");
    BAD(wqe(GSHMEMI_OP_PUT, 0, 0, 1, L(0), HEAP_SIZE + 4096, 8), NULL, GSHMEM_ERR_OUT_OF_HEAP,
        "offset 69632");
    BAD(wqe(GSHMEMI_OP_GET, 0, 0, 1, L(0), 8, UINT64_MAX - 4), NULL, GSHMEM_ERR_OUT_OF_HEAP,
        "outside");   /* offset + size overflows */
    BAD(wqe(GSHMEMI_OP_PUT, 0, 0, 1, L(0), UINT64_MAX, 2), NULL, GSHMEM_ERR_OUT_OF_HEAP,
        "outside");
}

Test(engine_validate, local_buffers)
{
    OK(wqe(GSHMEMI_OP_PUT, 0, 0, 1, (uint64_t)(uintptr_t)reg_region, 0, 256), NULL);
    OK(wqe(GSHMEMI_OP_GET, 0, 0, 1, (uint64_t)(uintptr_t)reg_region + 200, 0, 56), NULL);
    BAD(wqe(GSHMEMI_OP_GET, 0, 0, 1, (uint64_t)(uintptr_t)reg_region + 200, 0, 57), NULL,
        GSHMEM_ERR_OUT_OF_HEAP, "local destination");
    BAD(wqe(GSHMEMI_OP_PUT, 0, 0, 1, L(HEAP_SIZE - 4), 0, 8), NULL, GSHMEM_ERR_OUT_OF_HEAP,
        "neither in the symmetric heap");
    BAD(wqe(GSHMEMI_OP_PUT, 0, 0, 1, 0x10, 0, 8), NULL, GSHMEM_ERR_OUT_OF_HEAP,
        "local source 0x10 (8 bytes)");
    BAD(wqe(GSHMEMI_OP_PUT, 0, 0, 1, UINT64_MAX - 3, 0, 8), NULL, GSHMEM_ERR_OUT_OF_HEAP,
        "local source");
    /* without a registration callback only the heap counts */
    gshmemi_proxy_bounds_t nb = bounds;
    nb.local_ok = NULL;
    gshmemi_wqe_t w = wqe(GSHMEMI_OP_PUT, 0, 0, 1, (uint64_t)(uintptr_t)reg_region, 0, 8);
    cr_expect_eq(gshmemi_proxy_validate(&nb, &w, NULL, NULL, 0), GSHMEM_ERR_OUT_OF_HEAP);
}

Test(engine_validate, inline_and_result)
{
    /* p / g: laddr unused, 4 or 8 bytes at the remote end */
    OK(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE, 0, 2, 0, HEAP_SIZE - 8, 12345), NULL);
    OK(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE | GSHMEMI_WQE_F_AMO32, 0, 2, 0,
           HEAP_SIZE - 4, 7), NULL);
    BAD(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE, 0, 2, 0, HEAP_SIZE - 4, 7), NULL,
        GSHMEM_ERR_OUT_OF_HEAP, "outside");
    OK(wqe(GSHMEMI_OP_GET, GSHMEMI_WQE_F_RESULT, 0, 2, 0, 16, 8), NULL);
    BAD(wqe(GSHMEMI_OP_GET, GSHMEMI_WQE_F_RESULT, 0, 2, 0, HEAP_SIZE, 8), NULL,
        GSHMEM_ERR_OUT_OF_HEAP, "outside");
    BAD(wqe(GSHMEMI_OP_GET, GSHMEMI_WQE_F_INLINE, 0, 2, 0, 16, 8), NULL,
        GSHMEM_ERR_INVALID_ARG, "INLINE");
    BAD(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_RESULT, 0, 2, 0, 16, 8), NULL,
        GSHMEM_ERR_INVALID_ARG, "RESULT");
    BAD(wqe(GSHMEMI_OP_AMO, GSHMEMI_WQE_F_RESULT, GSHMEMI_AMO_ADD, 2, 0, 16, 8), NULL,
        GSHMEM_ERR_INVALID_ARG, "INLINE/RESULT");
}

Test(engine_validate, payload)
{
    /* a small put's bytes in its slot's payload: laddr unused, 1..64 bytes */
    OK(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_PAYLOAD, 0, 1, 0, HEAP_SIZE - 64, 64), NULL);
    OK(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_PAYLOAD | GSHMEMI_WQE_F_FENCE, 0, 1, 0x10, 3, 13),
       NULL);
    BAD(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_PAYLOAD, 0, 1, 0, 0, 65), NULL,
        GSHMEM_ERR_INVALID_ARG, "PAYLOAD put of 65 bytes (1 to 64)");
    BAD(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_PAYLOAD, 0, 1, 0, 0, 0), NULL,
        GSHMEM_ERR_INVALID_ARG, "PAYLOAD put of 0 bytes");
    BAD(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_PAYLOAD, 0, 1, 0, HEAP_SIZE - 16, 24), NULL,
        GSHMEM_ERR_OUT_OF_HEAP, "outside");
    BAD(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_PAYLOAD | GSHMEMI_WQE_F_INLINE, 0, 1, 0, 0, 8), NULL,
        GSHMEM_ERR_INVALID_ARG, "PAYLOAD on a PUT with INLINE");
    BAD(wqe(GSHMEMI_OP_GET, GSHMEMI_WQE_F_PAYLOAD, 0, 1, L(0), 0, 8), NULL,
        GSHMEM_ERR_INVALID_ARG, "PAYLOAD on a non-PUT");
    BAD(wqe(GSHMEMI_OP_AMO, GSHMEMI_WQE_F_PAYLOAD, GSHMEMI_AMO_ADD, 1, 0, 16, 8), NULL,
        GSHMEM_ERR_INVALID_ARG, "INLINE/RESULT/PAYLOAD on a AMO");
}

Test(engine_validate, ops_flags_pes)
{
    OK(wqe(GSHMEMI_OP_FENCE, 0, 0, 999, 0, 0, 0), NULL);   /* pe unused */
    OK(wqe(GSHMEMI_OP_QUIET, 0, 0, 0, 0, 0, 0), NULL);
    OK(wqe(GSHMEMI_OP_NOP, 0, 0, 0, 0, 0, 0), NULL);
    BAD(wqe(77, 0, 0, 0, 0, 0, 0), NULL, GSHMEM_ERR_INVALID_ARG, "unknown op 77");
    BAD(wqe(GSHMEMI_OP_EXT, 0, 0, 0, 0, 0, 0), NULL, GSHMEM_ERR_INVALID_ARG, "EXT slot without");
    BAD(wqe(GSHMEMI_OP_AGG_FLUSH, 0, 0, 0, 0, 0, 0), NULL, GSHMEM_ERR_INVALID_ARG, "AGG_FLUSH");
    BAD(wqe(GSHMEMI_OP_PUT, 0x80, 0, 1, L(0), 0, 8), NULL, GSHMEM_ERR_INVALID_ARG,
        "unknown flags 0x80");
    BAD(wqe(GSHMEMI_OP_PUT, 0, 0, 4, L(0), 0, 8), NULL, GSHMEM_ERR_INVALID_PE,
        "PE 4 out of range (n_pes 4)");
    BAD(wqe(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_ADD, 0xffffffffu, 0, 0, 1), NULL,
        GSHMEM_ERR_INVALID_PE, "PE 4294967295");
    OK(wqe(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_FENCE, 0, 3, L(0), 0, 8), NULL);
}

Test(engine_validate, amo_and_signal)
{
    OK(wqe(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_FETCH_ADD, 1, 0, 64, 1), NULL);
    OK(wqe(GSHMEMI_OP_AMO, GSHMEMI_WQE_F_AMO32, GSHMEMI_AMO_SWAP, 1, 0, 68, 1), NULL);
    BAD(wqe(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_ADD, 1, 0, 68, 1), NULL, GSHMEM_ERR_INVALID_ARG,
        "not aligned to 8 bytes");
    BAD(wqe(GSHMEMI_OP_AMO, GSHMEMI_WQE_F_AMO32, GSHMEMI_AMO_ADD, 1, 0, 66, 1), NULL,
        GSHMEM_ERR_INVALID_ARG, "aligned to 4");
    OK(wqe(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_AND, 1, 0, 64, 1), NULL);
    OK(wqe(GSHMEMI_OP_AMO, GSHMEMI_WQE_F_AMO32, GSHMEMI_AMO_FETCH_XOR, 1, 0, 68, 1), NULL);
    BAD(wqe(GSHMEMI_OP_AMO, 0, 12, 1, 0, 64, 1), NULL, GSHMEM_ERR_INVALID_ARG,
        "AMO kind 12 (expected 0..11)");
    BAD(wqe(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_SET, 1, 0, HEAP_SIZE, 1), NULL,
        GSHMEM_ERR_OUT_OF_HEAP, "AMO target");
    OK(wqe(GSHMEMI_OP_SIGNAL, 0, GSHMEM_SIGNAL_ADD, 1, 0, 64, 1), NULL);
    BAD(wqe(GSHMEMI_OP_SIGNAL, 0, 2, 1, 0, 64, 1), NULL, GSHMEM_ERR_INVALID_ARG, "signal op 2");
    BAD(wqe(GSHMEMI_OP_SIGNAL, 0, 0, 1, 0, 60, 1), NULL, GSHMEM_ERR_INVALID_ARG, "aligned");
}

Test(engine_validate, two_slot_entries)
{
    gshmemi_wqe_t ext = wqe(GSHMEMI_OP_EXT, 0, GSHMEM_SIGNAL_SET, 1, 0, 128, 5);
    gshmemi_wqe_t w = wqe(GSHMEMI_OP_PUT_SIGNAL, 0, 0, 1, L(0), 0, 64);
    cr_expect_eq(gshmemi_qwqe_slots(&w), 2);
    OK(w, &ext);
    BAD(w, NULL, GSHMEM_ERR_INVALID_ARG, "not followed by its EXT slot");
    gshmemi_wqe_t notext = wqe(GSHMEMI_OP_PUT, 0, 0, 1, 0, 128, 5);
    BAD(w, &notext, GSHMEM_ERR_INVALID_ARG, "not followed by its EXT slot");
    gshmemi_wqe_t otherpe = wqe(GSHMEMI_OP_EXT, 0, GSHMEM_SIGNAL_SET, 2, 0, 128, 5);
    BAD(w, &otherpe, GSHMEM_ERR_INVALID_ARG, "EXT slot names PE 2");
    gshmemi_wqe_t badsig = wqe(GSHMEMI_OP_EXT, 0, GSHMEM_SIGNAL_SET, 1, 0, HEAP_SIZE - 4, 5);
    BAD(w, &badsig, GSHMEM_ERR_OUT_OF_HEAP, "signal [offset 65532");
    gshmemi_wqe_t badop = wqe(GSHMEMI_OP_EXT, 0, 9, 1, 0, 128, 5);
    BAD(w, &badop, GSHMEM_ERR_INVALID_ARG, "signal op 9");
    /* data out of the heap, signal fine */
    gshmemi_wqe_t wbad = wqe(GSHMEMI_OP_PUT_SIGNAL, 0, 0, 1, L(0), HEAP_SIZE - 8, 64);
    BAD(wbad, &ext, GSHMEM_ERR_OUT_OF_HEAP, "remote range");
    /* a small put-with-signal's data in its payload (any source: laddr
     * unused), as a put's; INLINE and RESULT stay refused */
    OK(wqe(GSHMEMI_OP_PUT_SIGNAL, GSHMEMI_WQE_F_PAYLOAD, 0, 1, 0, 0, 8), &ext);
    OK(wqe(GSHMEMI_OP_PUT_SIGNAL, GSHMEMI_WQE_F_PAYLOAD | GSHMEMI_WQE_F_FENCE, 0, 1, 0,
           HEAP_SIZE - 64, 64), &ext);
    BAD(wqe(GSHMEMI_OP_PUT_SIGNAL, GSHMEMI_WQE_F_PAYLOAD, 0, 1, 0, 0, 65), &ext,
        GSHMEM_ERR_INVALID_ARG, "PAYLOAD put of 65 bytes");
    BAD(wqe(GSHMEMI_OP_PUT_SIGNAL, GSHMEMI_WQE_F_PAYLOAD, 0, 1, 0, HEAP_SIZE - 8, 16), &ext,
        GSHMEM_ERR_OUT_OF_HEAP, "remote range");
    BAD(wqe(GSHMEMI_OP_PUT_SIGNAL, GSHMEMI_WQE_F_INLINE, 0, 1, 0, 0, 8), &ext,
        GSHMEM_ERR_INVALID_ARG, "INLINE");
    BAD(wqe(GSHMEMI_OP_PUT_SIGNAL, GSHMEMI_WQE_F_PAYLOAD | GSHMEMI_WQE_F_RESULT, 0, 1, 0, 0, 8),
        &ext, GSHMEM_ERR_INVALID_ARG, "INLINE/RESULT/PAYLOAD on a PUT_SIGNAL");
    /* CSWAP takes an EXT slot, the other AMOs do not */
    gshmemi_wqe_t cas = wqe(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_CSWAP, 1, 0, 64, 3);
    gshmemi_wqe_t add = wqe(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_ADD, 1, 0, 64, 3);
    cr_expect_eq(gshmemi_qwqe_slots(&cas), 2);
    cr_expect_eq(gshmemi_qwqe_slots(&add), 1);
    gshmemi_wqe_t cext = wqe(GSHMEMI_OP_EXT, 0, 0, 1, 0, 0, 4);
    OK(cas, &cext);
    BAD(cas, NULL, GSHMEM_ERR_INVALID_ARG, "EXT");
}

Test(engine_validate, op_names)
{
    char buf[16];
    cr_expect_str_eq(gshmemi_proxy_op_name(GSHMEMI_OP_PUT_SIGNAL, buf, sizeof buf),
                     "PUT_SIGNAL");
    cr_expect_str_eq(gshmemi_proxy_op_name(200, buf, sizeof buf), "op 200");
}
