/* gshmem_dev_port.h: what the device API needs that differs between CUDA
 * (nvcc) and HIP (hipcc, clang): which pass is the device pass, the
 * qualifiers of the inline bodies, the runtime calls of the per-TU state
 * registration, the warp (wavefront) size and lane masks, warp sync, trap,
 * the read-only load, the atomic exchange and the 16-bit acquire load.
 * Ordered atomics and fences come from include/gshmem/ring/port.h.
 * Included first by gshmem_device.h and by gshmem_dev_queue.h (which plain
 * C includes: outside C++ GPU sources only GSHMEMI_DEV_PASS is decided
 * here, and it is not defined).
 *
 * CUDA: every macro below expands to the code the device API had before
 * this layer existed (same PTX).
 *
 * HIP: COMPILE-CHECKED ONLY. The gshmem-device-api-hip-check target
 * compiles tests/gpu/api_compile.cu (every device call) with hipcc
 * --offload-arch=gfx90a; nothing of it has run on an AMD GPU, and
 * libgshmem itself (heap, p2p transport, proxy engine, device state
 * publication) is CUDA-only. Mapping: system-scope atomics are
 * __hip_atomic_* with __HIP_MEMORY_SCOPE_SYSTEM (include/gshmem/ring/port.h and the
 * exchange below), fences __threadfence_system, back-off
 * __builtin_amdgcn_s_sleep, trap "s_trap 2" (what llvm.trap becomes under
 * ROCm; not __builtin_trap: the misuse reporters, noinline and then
 * inferred noreturn, leave unreachable blocks that make LLVM 15's AMDGPU
 * backend fail with "failed to annotate CFG" once a group barrier follows),
 * warps are wavefronts of warpSize lanes (64 on gfx90a) with 64-bit lane
 * masks, warp sync is a wave barrier between workgroup fences. The device
 * API uses no shuffles, ballots or __activemask (warp groups come from the
 * block shape), so none is mapped. To validate on MI-class hardware:
 *  - memory the GPU and the CPU (or another GPU) both poll or update with
 *    system-scope atomics (queue rings, result slots, the barrier words,
 *    signals) must be fine-grained / coherent: hipHostMalloc with
 *    hipHostMallocCoherent for host memory, fine-grained device memory
 *    (hipExtMallocWithFlags(hipDeviceMallocFinegrained)) for heaps others
 *    poll; on coarse-grained memory neither system-scope atomics nor
 *    __threadfence_system make data visible to other agents;
 *  - peer heaps over XGMI (or PCIe) peer mappings (hipDeviceEnablePeerAccess,
 *    hipIpcOpenMemHandle), including whether system-scope atomics to a
 *    peer's memory and to host memory (PCIe atomics) are supported;
 *  - the order of the static registration object and HIP's module
 *    constructor (hipMemcpyToSymbol needs this TU's module registered);
 *  - the sync function returns a hipError_t where the library expects a
 *    cudaError_t (error names in its log);
 *  - *_warp forms: a wavefront of 64 lanes is the group (blocks whose
 *    size is not a multiple of 64 end with a partial one).
 */
#ifndef GSHMEMI_DEV_PORT_H
#define GSHMEMI_DEV_PORT_H

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define GSHMEMI_DEV_PASS 1
#endif

#if defined(__HIPCC__) && defined(__cplusplus)
/* ---- HIP ---------------------------------------------------------------- */
#include <hip/hip_runtime.h>
typedef hipError_t gshmemi_rt_error_t;
#define GSHMEMI_RT_SUCCESS hipSuccess
#define GSHMEMI_RT_ERR_INVALID_VALUE hipErrorInvalidValue
#define gshmemi_rt_set_device(dev) hipSetDevice(dev)
#define gshmemi_rt_copy_to_symbol(sym, src, n)                                     \
    hipMemcpyToSymbol(HIP_SYMBOL(sym), (src), (n), 0, hipMemcpyHostToDevice)
#define gshmemi_rt_wait_copies() hipStreamSynchronize(0)

#if defined(GSHMEMI_DEV_PASS)
#include <stdint.h>
#define GSHMEMI_DEV __device__ __forceinline__
#define GSHMEMI_DEV_COLD static __device__ __attribute__((noinline))
#define GSHMEMI_DEV_BODY static __device__ __attribute__((noinline))
/* clang rejects a __device__ definition of a function declared __host__
 * __device__ (the GSHMEM_HD names): their bodies are __host__ __device__,
 * present in the device pass only (host calls link to libgshmem). */
#define GSHMEMI_DEV_API __host__ __device__ __forceinline__
#define GSHMEMI_DEV_WARP_SIZE ((unsigned)warpSize)
typedef uint64_t gshmemi_dev_lanemask_t;
#define gshmemi_dev_trap() asm volatile("s_trap 2" ::: "memory")   /* see above */
#define gshmemi_dev_ldg_u64(p) __ldg(p)

/* The lanes of a wavefront execute together: a wave barrier between
 * workgroup-scope fences orders their shared and global accesses. */
GSHMEMI_DEV void gshmemi_dev_syncwarp(gshmemi_dev_lanemask_t mask)
{
    (void)mask;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

GSHMEMI_DEV uint32_t gshmemi_dev_exch_u32(uint32_t *p, uint32_t v)
{
    return __hip_atomic_exchange(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}

GSHMEMI_DEV uint64_t gshmemi_dev_exch_u64(uint64_t *p, uint64_t v)
{
    return __hip_atomic_exchange(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}

/* An acquire load of 2 bytes (the 16-bit ivars), system scope. */
GSHMEMI_DEV uint16_t gshmemi_dev_ld_acquire_u16(const uint16_t *p)
{
    return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
}

/* Loads of data another GPU (or an earlier kernel) wrote, never from a
 * stale L1 line: system-scope relaxed loads here; 16 bytes as two words. */
#define GSHMEMI_DEV_LD_L2_(T)                                                     \
    GSHMEMI_DEV T gshmemi_dev_ld_l2_##T(const T *p)                              \
    {                                                                             \
        return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM); \
    }
GSHMEMI_DEV_LD_L2_(uint8_t)
GSHMEMI_DEV_LD_L2_(uint16_t)
GSHMEMI_DEV_LD_L2_(uint32_t)
GSHMEMI_DEV_LD_L2_(uint64_t)
#undef GSHMEMI_DEV_LD_L2_
GSHMEMI_DEV void gshmemi_dev_ld_l2_16(const void *p, uint64_t w[2])
{
    w[0] = gshmemi_dev_ld_l2_uint64_t((const uint64_t *)p);
    w[1] = gshmemi_dev_ld_l2_uint64_t((const uint64_t *)p + 1);
}
GSHMEMI_DEV void gshmemi_dev_st_16(void *p, const uint64_t w[2])
{
    ((uint64_t *)p)[0] = w[0];
    ((uint64_t *)p)[1] = w[1];
}
#endif /* HIP device pass */

#elif defined(__CUDACC__)
/* ---- CUDA --------------------------------------------------------------- */
#include <cuda_runtime.h>
typedef cudaError_t gshmemi_rt_error_t;
#define GSHMEMI_RT_SUCCESS cudaSuccess
#define GSHMEMI_RT_ERR_INVALID_VALUE cudaErrorInvalidValue
#define gshmemi_rt_set_device(dev) cudaSetDevice(dev)
#define gshmemi_rt_copy_to_symbol(sym, src, n)                                     \
    cudaMemcpyToSymbol(sym, (src), (n), 0, cudaMemcpyHostToDevice)
/* waits for copies on the default stream: one from pageable memory may
 * return before its DMA lands, and that stream does not order the user's
 * non-blocking streams */
#define gshmemi_rt_wait_copies() cudaStreamSynchronize(0)

#if defined(GSHMEMI_DEV_PASS)
#include <stdint.h>
#define GSHMEMI_DEV __device__ __forceinline__
#define GSHMEMI_DEV_COLD static __device__ __noinline__
/* The body of a team collective: compiled once per translation unit (and
 * template arguments), called by its thread, warp and block forms, not
 * inlined into each call site: a kernel that makes many team calls would
 * otherwise hold as many copies (minutes of ptxas per test program); a
 * call costs nothing next to the team sync each body makes. */
#define GSHMEMI_DEV_BODY static __device__ __noinline__
#define GSHMEMI_DEV_API __device__ __forceinline__
#define GSHMEMI_DEV_WARP_SIZE 32u
typedef unsigned gshmemi_dev_lanemask_t;
#define gshmemi_dev_trap() __trap()
#define gshmemi_dev_ldg_u64(p) __ldg(p)
#define gshmemi_dev_syncwarp(mask) __syncwarp(mask)

GSHMEMI_DEV uint32_t gshmemi_dev_exch_u32(uint32_t *p, uint32_t v)
{
    uint32_t old;
    asm volatile("atom.relaxed.sys.exch.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

GSHMEMI_DEV uint64_t gshmemi_dev_exch_u64(uint64_t *p, uint64_t v)
{
    uint64_t old;
    asm volatile("atom.relaxed.sys.exch.b64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
}

/* An acquire load of 2 bytes (the 16-bit ivars), system scope. */
GSHMEMI_DEV uint16_t gshmemi_dev_ld_acquire_u16(const uint16_t *p)
{
    uint16_t v;
    asm volatile("ld.acquire.sys.u16 %0, [%1];" : "=h"(v) : "l"(p) : "memory");
    return v;
}

/* Loads of data another GPU (or an earlier kernel) wrote, never from a
 * stale L1 line: cached in L2 only (ld.global.cg); 16 bytes as one word. */
#define gshmemi_dev_ld_l2_uint8_t(p) ((uint8_t)__ldcg((const unsigned char *)(p)))
#define gshmemi_dev_ld_l2_uint16_t(p) ((uint16_t)__ldcg((const unsigned short *)(p)))
#define gshmemi_dev_ld_l2_uint32_t(p) ((uint32_t)__ldcg((const unsigned int *)(p)))
#define gshmemi_dev_ld_l2_uint64_t(p) ((uint64_t)__ldcg((const unsigned long long *)(p)))
GSHMEMI_DEV void gshmemi_dev_ld_l2_16(const void *p, uint64_t w[2])
{
    uint4 v = __ldcg((const uint4 *)p);
    w[0] = (uint64_t)v.x | (uint64_t)v.y << 32;
    w[1] = (uint64_t)v.z | (uint64_t)v.w << 32;
}
GSHMEMI_DEV void gshmemi_dev_st_16(void *p, const uint64_t w[2])
{
    *(uint4 *)p = make_uint4((unsigned)w[0], (unsigned)(w[0] >> 32), (unsigned)w[1],
                             (unsigned)(w[1] >> 32));
}
#endif /* CUDA device pass */
#endif /* HIP / CUDA */

#if defined(GSHMEMI_DEV_PASS) && defined(__cplusplus)
/* The lanes [0, size) of a warp as a mask (size 1..GSHMEMI_DEV_WARP_SIZE). */
GSHMEMI_DEV gshmemi_dev_lanemask_t gshmemi_dev_lanes(unsigned size)
{
    return size == GSHMEMI_DEV_WARP_SIZE ? ~(gshmemi_dev_lanemask_t)0
                                         : ((gshmemi_dev_lanemask_t)1 << size) - 1u;
}
#endif

#endif /* GSHMEMI_DEV_PORT_H */
