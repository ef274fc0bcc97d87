/* sync.c: point synchronization, <T>_wait_until and <T>_test for int16,
 * int32, int64, uint16, uint32 and uint64, generated from one definition (the set forms,
 * _all/_any/_some and _vector: sync_set.c). The ivar is local
 * symmetric memory, read with acquire loads on a host heap and by copies on
 * a CUDA heap (gshmemi_sym_load); wait loops drive the transports' progress
 * and yield the core or pause (gshmemi_sym_wait_step), and never return
 * before the condition holds. */
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

/* WT: the 64-bit type that compares T with T's signedness. */
#define GSHMEMI_DEF_SYNC(T, N, CMPF, WT)                                              \
    void gshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                       \
    {                                                                                 \
        const char *call = "gshmem_" #N "_wait_until";                                \
        GSHMEMI_REQUIRE_INIT(call);                                                   \
        (void)CMPF(call, cmp, 0, 0);                                                  \
        gshmemi_check_sym(call, "ivar", ivar, sizeof(T));                             \
        for (unsigned long spins = 0;; spins++) {                                     \
            T v;                                                                      \
            gshmemi_sym_load(call, &v, ivar, sizeof v);                               \
            if (CMPF(call, cmp, (WT)v, (WT)cmp_value))                                \
                return;                                                               \
            gshmemi_sym_wait_step(spins);                                             \
        }                                                                             \
    }                                                                                 \
    int gshmem_##N##_test(T *ivar, int cmp, T cmp_value)                              \
    {                                                                                 \
        const char *call = "gshmem_" #N "_test";                                      \
        GSHMEMI_REQUIRE_INIT(call);                                                   \
        (void)CMPF(call, cmp, 0, 0);                                                  \
        gshmemi_check_sym(call, "ivar", ivar, sizeof(T));                             \
        gshmemi_progress_all();                                                       \
        T v;                                                                          \
        gshmemi_sym_load(call, &v, ivar, sizeof v);                                   \
        return CMPF(call, cmp, (WT)v, (WT)cmp_value);                                 \
    }

GSHMEMI_DEF_SYNC(int32_t, int32, gshmemi_cmp_i64, int64_t)
GSHMEMI_DEF_SYNC(int64_t, int64, gshmemi_cmp_i64, int64_t)
GSHMEMI_DEF_SYNC(uint32_t, uint32, gshmemi_cmp_u64, uint64_t)
GSHMEMI_DEF_SYNC(uint64_t, uint64, gshmemi_cmp_u64, uint64_t)
GSHMEMI_DEF_SYNC(int16_t, int16, gshmemi_cmp_i64, int64_t)
GSHMEMI_DEF_SYNC(uint16_t, uint16, gshmemi_cmp_u64, uint64_t)
