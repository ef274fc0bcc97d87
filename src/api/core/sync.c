/* sync.c: point synchronization, <T>_wait_until and <T>_test for every
 * wait type (impl/gshmem_coll_types.h, and int16, uint16), generated from
 * one definition (the set forms, _all/_any/_some and _vector:
 * sync_set.c); each compares in 64 bits with its type's signedness
 * (GSHMEMI_CMP_T). The ivar is local symmetric memory, read with acquire
 * loads on a host heap and by copies on a CUDA heap (gshmemi_sym_load);
 * wait loops drive the transports' progress and yield the core or pause
 * (gshmemi_sym_wait_step), and never return before the condition holds. */
#include "core.h"

static void gshmemi_cmp_invalid(const char *call, int cmp) __attribute__((noreturn));
static void gshmemi_cmp_invalid(const char *call, int cmp)
{
    gshmemi_fatal(call, "invalid cmp %d (expected GSHMEM_CMP_EQ, _NE, _GT, _GE, _LT or _LE: "
                  "0..5)", cmp);
}

#define GSHMEMI_DEF_CMP(NAME, T)                                                      \
    int NAME(const char *call, int cmp, T a, T b)                                     \
    {                                                                                 \
        switch (cmp) {                                                                \
        case GSHMEM_CMP_EQ: return a == b;                                            \
        case GSHMEM_CMP_NE: return a != b;                                            \
        case GSHMEM_CMP_GT: return a > b;                                             \
        case GSHMEM_CMP_GE: return a >= b;                                            \
        case GSHMEM_CMP_LT: return a < b;                                             \
        case GSHMEM_CMP_LE: return a <= b;                                            \
        }                                                                             \
        gshmemi_cmp_invalid(call, cmp);                                               \
    }

GSHMEMI_DEF_CMP(gshmemi_cmp_u64, uint64_t)
GSHMEMI_DEF_CMP(gshmemi_cmp_i64, int64_t)

#define GSHMEMI_DEF_SYNC(T, N)                                                        \
    void gshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                       \
    {                                                                                 \
        const char *call = "gshmem_" #N "_wait_until";                                \
        GSHMEMI_REQUIRE_INIT(call);                                                   \
        (void)gshmemi_cmp_i64(call, cmp, 0, 0);                                       \
        gshmemi_check_sym(call, "ivar", ivar, sizeof(T));                             \
        for (unsigned long spins = 0;; spins++) {                                     \
            T v;                                                                      \
            gshmemi_sym_load(call, &v, ivar, sizeof v);                               \
            if (GSHMEMI_CMP_T(T, call, cmp, v, cmp_value))                            \
                return;                                                               \
            gshmemi_sym_wait_step(spins);                                             \
        }                                                                             \
    }                                                                                 \
    int gshmem_##N##_test(T *ivar, int cmp, T cmp_value)                              \
    {                                                                                 \
        const char *call = "gshmem_" #N "_test";                                      \
        GSHMEMI_REQUIRE_INIT(call);                                                   \
        (void)gshmemi_cmp_i64(call, cmp, 0, 0);                                       \
        gshmemi_check_sym(call, "ivar", ivar, sizeof(T));                             \
        gshmemi_progress_all();                                                       \
        T v;                                                                          \
        gshmemi_sym_load(call, &v, ivar, sizeof v);                                   \
        return GSHMEMI_CMP_T(T, call, cmp, v, cmp_value);                             \
    }

GSHMEMI_WAIT_EACH_TYPE(GSHMEMI_DEF_SYNC)
GSHMEMI_HOST_WAIT_EXTRA(GSHMEMI_DEF_SYNC)
