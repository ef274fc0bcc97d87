/* port.h: the portability layer of the device code. Header-only. One
 * source, three compilers: CUDA device pass (inline PTX, .sys scope), HIP
 * device pass (__hip_atomic_* at system scope), every host pass (GCC
 * __atomic builtins). All on naturally aligned uint32_t / uint64_t words,
 * system scope (the other side may be a CPU thread or another GPU):
 *   gshmemi_atomic_{load,store}_{relaxed,acquire|release,seq_cst}_{u32,u64},
 *   gshmemi_atomic_fetch_add_{relaxed,acq_rel}_{u32,u64} and _cas_{u32,u64}
 *   (return the old value; CAS acq_rel, acquire on failure),
 *   gshmemi_fence_system(), gshmemi_backoff(&state) (one round of a spin
 *   wait: device sleeps, host sched_yield). See docs/DESIGN.md#the-queue-protocol. */
#ifndef GSHMEMI_DEVICE_PORT_H
#define GSHMEMI_DEVICE_PORT_H

#include <stdint.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif

/* ---- qualifiers ------------------------------------------------------------ */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define GSHMEMI_HD __host__ __device__ __forceinline__
#else
#define GSHMEMI_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define GSHMEMI_PORT_CUDA_DEVICE 1
#elif defined(__HIP_DEVICE_COMPILE__)
#define GSHMEMI_PORT_HIP_DEVICE 1
#else
#define GSHMEMI_PORT_HOST 1
#include <sched.h>
#endif

#ifdef __cplusplus
#define GSHMEMI_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define GSHMEMI_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* ---- loads and stores -------------------------------------------------------- */
#if defined(GSHMEMI_PORT_CUDA_DEVICE)

#define GSHMEMI_PTX_LD(name, sem, pre, T, ptxt, c)                               \
    GSHMEMI_HD T name(const T *p)                                              \
    {                                                                          \
        T v;                                                                   \
        asm volatile(pre "ld." sem ".sys." ptxt " %0, [%1];"                   \
                     : "=" c(v) : "l"(p) : "memory");                          \
        return v;                                                              \
    }
#define GSHMEMI_PTX_ST(name, pre, sem, T, ptxt, c)                               \
    GSHMEMI_HD void name(T *p, T v)                                            \
    {                                                                          \
        asm volatile(pre "st." sem ".sys." ptxt " [%0], %1;"                   \
                     :: "l"(p), c(v) : "memory");                              \
    }
GSHMEMI_PTX_LD(gshmemi_atomic_load_relaxed_u32, "relaxed", "", uint32_t, "u32", "r")
GSHMEMI_PTX_LD(gshmemi_atomic_load_acquire_u32, "acquire", "", uint32_t, "u32", "r")
GSHMEMI_PTX_LD(gshmemi_atomic_load_seq_cst_u32, "acquire", "fence.sc.sys; ", uint32_t, "u32", "r")
GSHMEMI_PTX_LD(gshmemi_atomic_load_relaxed_u64, "relaxed", "", uint64_t, "u64", "l")
GSHMEMI_PTX_LD(gshmemi_atomic_load_acquire_u64, "acquire", "", uint64_t, "u64", "l")
GSHMEMI_PTX_LD(gshmemi_atomic_load_seq_cst_u64, "acquire", "fence.sc.sys; ", uint64_t, "u64", "l")
GSHMEMI_PTX_ST(gshmemi_atomic_store_relaxed_u32, "", "relaxed", uint32_t, "u32", "r")
GSHMEMI_PTX_ST(gshmemi_atomic_store_release_u32, "", "release", uint32_t, "u32", "r")
GSHMEMI_PTX_ST(gshmemi_atomic_store_seq_cst_u32, "fence.sc.sys; ", "relaxed", uint32_t, "u32", "r")
GSHMEMI_PTX_ST(gshmemi_atomic_store_relaxed_u64, "", "relaxed", uint64_t, "u64", "l")
GSHMEMI_PTX_ST(gshmemi_atomic_store_release_u64, "", "release", uint64_t, "u64", "l")
GSHMEMI_PTX_ST(gshmemi_atomic_store_seq_cst_u64, "fence.sc.sys; ", "relaxed", uint64_t, "u64", "l")
#undef GSHMEMI_PTX_LD
#undef GSHMEMI_PTX_ST

#define GSHMEMI_PTX_ADD(name, sem, T, ptxt, c)                                   \
    GSHMEMI_HD T name(T *p, T v)                                               \
    {                                                                          \
        T old;                                                                 \
        asm volatile("atom." sem ".sys.add." ptxt " %0, [%1], %2;"             \
                     : "=" c(old) : "l"(p), c(v) : "memory");                  \
        return old;                                                            \
    }
#define GSHMEMI_PTX_CAS(name, T, ptxt, c)                                        \
    GSHMEMI_HD T name(T *p, T expected, T desired)                             \
    {                                                                          \
        T old;                                                                 \
        asm volatile("atom.acq_rel.sys.cas." ptxt " %0, [%1], %2, %3;"         \
                     : "=" c(old) : "l"(p), c(expected), c(desired) : "memory"); \
        return old;                                                            \
    }
GSHMEMI_PTX_ADD(gshmemi_atomic_fetch_add_relaxed_u32, "relaxed", uint32_t, "u32", "r")
GSHMEMI_PTX_ADD(gshmemi_atomic_fetch_add_acq_rel_u32, "acq_rel", uint32_t, "u32", "r")
GSHMEMI_PTX_ADD(gshmemi_atomic_fetch_add_relaxed_u64, "relaxed", uint64_t, "u64", "l")
GSHMEMI_PTX_ADD(gshmemi_atomic_fetch_add_acq_rel_u64, "acq_rel", uint64_t, "u64", "l")
GSHMEMI_PTX_CAS(gshmemi_atomic_cas_u32, uint32_t, "b32", "r")
GSHMEMI_PTX_CAS(gshmemi_atomic_cas_u64, uint64_t, "b64", "l")
#undef GSHMEMI_PTX_ADD
#undef GSHMEMI_PTX_CAS

GSHMEMI_HD void gshmemi_fence_system(void)
{
    asm volatile("fence.sc.sys;" ::: "memory");
}

GSHMEMI_HD void gshmemi_backoff(uint32_t *state)
{
    uint32_t ns = *state < 64 ? 64 : *state;
    __nanosleep(ns);
    *state = ns < 2048 ? ns * 2 : 2048;
}

#else /* HIP device pass and every host pass: builtins with C11 orders */

#if defined(GSHMEMI_PORT_HIP_DEVICE)
#define GSHMEMI_LD_(p, o) __hip_atomic_load((p), (o), __HIP_MEMORY_SCOPE_SYSTEM)
#define GSHMEMI_ST_(p, v, o) __hip_atomic_store((p), (v), (o), __HIP_MEMORY_SCOPE_SYSTEM)
#define GSHMEMI_ADD_(p, v, o) __hip_atomic_fetch_add((p), (v), (o), __HIP_MEMORY_SCOPE_SYSTEM)
#define GSHMEMI_CAS_(p, e, d)                                                    \
    __hip_atomic_compare_exchange_strong((p), (e), (d), __ATOMIC_ACQ_REL,       \
                                         __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM)
#else
#define GSHMEMI_LD_(p, o) __atomic_load_n((p), (o))
#define GSHMEMI_ST_(p, v, o) __atomic_store_n((p), (v), (o))
#define GSHMEMI_ADD_(p, v, o) __atomic_fetch_add((p), (v), (o))
#define GSHMEMI_CAS_(p, e, d)                                                    \
    __atomic_compare_exchange_n((p), (e), (d), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#endif

#define GSHMEMI_BI_LD(name, o, T) \
    GSHMEMI_HD T name(const T *p) { return GSHMEMI_LD_(p, o); }
#define GSHMEMI_BI_ST(name, o, T) \
    GSHMEMI_HD void name(T *p, T v) { GSHMEMI_ST_(p, v, o); }
#define GSHMEMI_BI_ADD(name, o, T) \
    GSHMEMI_HD T name(T *p, T v) { return GSHMEMI_ADD_(p, v, o); }
#define GSHMEMI_BI_CAS(name, T)                                                  \
    GSHMEMI_HD T name(T *p, T expected, T desired)                             \
    {                                                                          \
        GSHMEMI_CAS_(p, &expected, desired);                                   \
        return expected; /* the old value, on success and on failure */        \
    }
GSHMEMI_BI_LD(gshmemi_atomic_load_relaxed_u32, __ATOMIC_RELAXED, uint32_t)
GSHMEMI_BI_LD(gshmemi_atomic_load_acquire_u32, __ATOMIC_ACQUIRE, uint32_t)
GSHMEMI_BI_LD(gshmemi_atomic_load_seq_cst_u32, __ATOMIC_SEQ_CST, uint32_t)
GSHMEMI_BI_LD(gshmemi_atomic_load_relaxed_u64, __ATOMIC_RELAXED, uint64_t)
GSHMEMI_BI_LD(gshmemi_atomic_load_acquire_u64, __ATOMIC_ACQUIRE, uint64_t)
GSHMEMI_BI_LD(gshmemi_atomic_load_seq_cst_u64, __ATOMIC_SEQ_CST, uint64_t)
GSHMEMI_BI_ST(gshmemi_atomic_store_relaxed_u32, __ATOMIC_RELAXED, uint32_t)
GSHMEMI_BI_ST(gshmemi_atomic_store_release_u32, __ATOMIC_RELEASE, uint32_t)
GSHMEMI_BI_ST(gshmemi_atomic_store_seq_cst_u32, __ATOMIC_SEQ_CST, uint32_t)
GSHMEMI_BI_ST(gshmemi_atomic_store_relaxed_u64, __ATOMIC_RELAXED, uint64_t)
GSHMEMI_BI_ST(gshmemi_atomic_store_release_u64, __ATOMIC_RELEASE, uint64_t)
GSHMEMI_BI_ST(gshmemi_atomic_store_seq_cst_u64, __ATOMIC_SEQ_CST, uint64_t)
GSHMEMI_BI_ADD(gshmemi_atomic_fetch_add_relaxed_u32, __ATOMIC_RELAXED, uint32_t)
GSHMEMI_BI_ADD(gshmemi_atomic_fetch_add_acq_rel_u32, __ATOMIC_ACQ_REL, uint32_t)
GSHMEMI_BI_ADD(gshmemi_atomic_fetch_add_relaxed_u64, __ATOMIC_RELAXED, uint64_t)
GSHMEMI_BI_ADD(gshmemi_atomic_fetch_add_acq_rel_u64, __ATOMIC_ACQ_REL, uint64_t)
GSHMEMI_BI_CAS(gshmemi_atomic_cas_u32, uint32_t)
GSHMEMI_BI_CAS(gshmemi_atomic_cas_u64, uint64_t)
#undef GSHMEMI_BI_LD
#undef GSHMEMI_BI_ST
#undef GSHMEMI_BI_ADD
#undef GSHMEMI_BI_CAS
#undef GSHMEMI_LD_
#undef GSHMEMI_ST_
#undef GSHMEMI_ADD_
#undef GSHMEMI_CAS_

GSHMEMI_HD void gshmemi_fence_system(void)
{
#if defined(GSHMEMI_PORT_HIP_DEVICE)
    __threadfence_system();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

GSHMEMI_HD void gshmemi_backoff(uint32_t *state)
{
#if defined(GSHMEMI_PORT_HIP_DEVICE)
    /* s_sleep takes a constant: 64 cycles per unit; repeat for growth */
    uint32_t n = *state < 1 ? 1 : *state;
    for (uint32_t i = 0; i < n; i++)
        __builtin_amdgcn_s_sleep(2);
    *state = n < 32 ? n * 2 : 32;
#else
    (void)state;
    sched_yield();
#endif
}

#endif /* device pass or host */

#endif /* GSHMEMI_DEVICE_PORT_H */
