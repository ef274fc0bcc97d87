/* dlrm_pool.cuh: the pooling code both GPU modes share (the baseline's
 * embedding-bag kernel and the fused kernel), so they compute every
 * pooled row with the same loads in the same order.
 *
 * One warp pools one bag. A row of D weights is D/4 "quads" (16-byte
 * loads for fp32, 8-byte for fp16/bf16, converted to a float4); LPR lanes
 * cover a row, VPL quads each, so 32/LPR rows are loaded at once; U such
 * steps are issued before they are added, to keep several rows in flight
 * per lane. The 32 indices of a chunk are read with one coalesced load and
 * handed out with shuffles. At the end, the row groups are summed with a
 * butterfly; lanes 0..LPR-1 store the row (16-byte stores). A shape of
 * its own has D = 4 * LPR * VPL built in; dimensions without one run the
 * generic shape (LPR 32, VPL 1, GEN: D at run time) over column blocks of
 * 128. gshmem-dlrm-pool-probe (pool_probe.cu) times this pooling alone. */
#ifndef DLRM_POOL_CUH
#define DLRM_POOL_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define DLRM_BLOCK 256
/* Blocks per SM both kernels are compiled for (__launch_bounds__), so
 * that the baseline's and the fused kernel's pooling run at the same
 * occupancy: 64 registers a thread for rows of up to 64 quads per lane
 * group (D <= 128 fp32), fewer blocks for the wider shapes. */
#define DLRM_MIN_BLOCKS(VPL) ((VPL) >= 4 ? 2 : (VPL) == 2 ? 3 : 4)
#define DLRM_FULL 0xffffffffu

template <typename W> struct dlrm_ld;

template <> struct dlrm_ld<float> {
    static __device__ __forceinline__ float4 quad(const float *p)
    {
        return __ldg(reinterpret_cast<const float4 *>(p));
    }
};

template <> struct dlrm_ld<__half> {
    static __device__ __forceinline__ float4 quad(const __half *p)
    {
        uint2 u = __ldg(reinterpret_cast<const uint2 *>(p));
        __half2 a, b;
        memcpy(&a, &u.x, 4);
        memcpy(&b, &u.y, 4);
        float2 fa = __half22float2(a), fb = __half22float2(b);
        return make_float4(fa.x, fa.y, fb.x, fb.y);
    }
};

template <> struct dlrm_ld<__nv_bfloat16> {
    static __device__ __forceinline__ float4 quad(const __nv_bfloat16 *p)
    {
        uint2 u = __ldg(reinterpret_cast<const uint2 *>(p));
        __nv_bfloat162 a, b;
        memcpy(&a, &u.x, 4);
        memcpy(&b, &u.y, 4);
        float2 fa = __bfloat1622float2(a), fb = __bfloat1622float2(b);
        return make_float4(fa.x, fa.y, fb.x, fb.y);
    }
};

__device__ __forceinline__ void dlrm_add4(float4 &a, const float4 &b)
{
    a.x += b.x;
    a.y += b.y;
    a.z += b.z;
    a.w += b.w;
}

/* Pools bag [beg, end) of idx over table tab (row stride D weights),
 * quads [0, lim) of each row (lim <= LPR * VPL). Result in every lane. */
template <typename W, int LPR, int VPL, int U>
__device__ __forceinline__ void dlrm_pool_bag(const W *__restrict__ tab, int D, int lim,
                                              const int64_t *__restrict__ idx, int64_t beg,
                                              int64_t end, int lane, float4 (&acc)[VPL])
{
    constexpr int RPS = 32 / LPR;
    const int sub = lane / LPR, c = lane % LPR;
#pragma unroll
    for (int v = 0; v < VPL; v++)
        acc[v] = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int64_t base = beg; base < end; base += 32) {
        const int n = end - base < 32 ? (int)(end - base) : 32;
        const int64_t mine = lane < n ? __ldg(idx + base + lane) : 0;
        for (int j = 0; j < n; j += RPS * U) {
            float4 x[U][VPL];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int jj = j + u * RPS + sub;
                const int64_t r = __shfl_sync(DLRM_FULL, mine, jj & 31);
                const W *row = tab + r * D;
#pragma unroll
                for (int v = 0; v < VPL; v++) {
                    const int q = c + v * LPR;
                    x[u][v] = jj < n && q < lim ? dlrm_ld<W>::quad(row + 4 * q)
                                                : make_float4(0.f, 0.f, 0.f, 0.f);
                }
            }
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int v = 0; v < VPL; v++)
                    dlrm_add4(acc[v], x[u][v]);
        }
    }
#pragma unroll
    for (int off = LPR; off < 32; off <<= 1)
#pragma unroll
        for (int v = 0; v < VPL; v++) {
            acc[v].x += __shfl_xor_sync(DLRM_FULL, acc[v].x, off);
            acc[v].y += __shfl_xor_sync(DLRM_FULL, acc[v].y, off);
            acc[v].z += __shfl_xor_sync(DLRM_FULL, acc[v].z, off);
            acc[v].w += __shfl_xor_sync(DLRM_FULL, acc[v].w, off);
        }
}

/* Pools bag [beg, end) into dst[0..D) (16-byte aligned), all quads. GEN:
 * the generic shape (D given at run time, column blocks of LPR * VPL
 * quads); otherwise D is the shape's own, 4 * LPR * VPL, a constant (the
 * row stride and the single column block cost no registers: with D at run
 * time the fused kernel spilled inside its bag loop). */
template <typename W, int LPR, int VPL, int U, bool GEN>
__device__ __forceinline__ void dlrm_pool_row(const W *__restrict__ tab, int D_run,
                                              const int64_t *__restrict__ idx, int64_t beg,
                                              int64_t end, int lane, float *dst)
{
    const int D = GEN ? D_run : 4 * LPR * VPL, quads = D / 4;
    for (int q0 = 0; q0 < quads; q0 += LPR * VPL) {
        float4 acc[VPL];
        const int lim = quads - q0 < LPR * VPL ? quads - q0 : LPR * VPL;
        dlrm_pool_bag<W, LPR, VPL, U>(tab + 4 * q0, D, lim, idx, beg, end, lane, acc);
        if (lane < LPR)
#pragma unroll
            for (int v = 0; v < VPL; v++) {
                const int q = lane + v * LPR;
                if (q < lim)
                    reinterpret_cast<float4 *>(dst)[q0 + q] = acc[v];
            }
    }
}

/* The instance of a kernel template for the row shape of D and the weight
 * type: K<W, LPR, VPL, U, GEN>::fn() is the kernel, launched with
 * cudaLaunchKernel. */
template <template <typename, int, int, int, bool> class K, typename W>
static const void *dlrm_pick_shape(int D)
{
    switch (D / 4) {
    case 1: return K<W, 1, 1, 4, false>::fn();
    case 2: return K<W, 2, 1, 4, false>::fn();
    case 4: return K<W, 4, 1, 4, false>::fn();
    case 8: return K<W, 8, 1, 4, false>::fn();
    case 16: return K<W, 16, 1, 4, false>::fn();
    case 32: return K<W, 32, 1, 4, false>::fn();
    case 64: return K<W, 32, 2, 4, false>::fn();
    case 128: return K<W, 32, 4, 2, false>::fn();
    case 256: return K<W, 32, 8, 1, false>::fn();
    default: return K<W, 32, 1, 4, true>::fn();   /* generic: blocks of 32 quads */
    }
}

template <template <typename, int, int, int, bool> class K>
static const void *dlrm_pick(int dtype, int D)
{
    if (dtype == 1)
        return dlrm_pick_shape<K, __half>(D);
    if (dtype == 2)
        return dlrm_pick_shape<K, __nv_bfloat16>(D);
    return dlrm_pick_shape<K, float>(D);
}

/* Persistent grid: resident blocks of kernel k (DLRM_BLOCK threads) on the
 * current device, minus `spare`. */
static inline int dlrm_resident_grid(const void *k, int spare)
{
    int dev = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, DLRM_BLOCK, 0);
    int g = per_sm * sms - spare;
    return g > 0 ? g : 1;
}

#endif /* DLRM_POOL_CUH */
