/* dlrm_gen.h: the deterministic input generator of the DLRM contract
 * (counter-based hashes, identical on every PE, on the host and on the
 * GPU, and in apps/dlrm/torch_baseline.py), plus the fp16/bf16 rounding
 * that weight storage applies. Header-only so that CUDA kernels and C code
 * compute bit-identical values.
 *
 * All arithmetic is on uint32 modulo 2^32:
 *   lowbias32(x) = x ^= x>>16; x *= 0x7feb352d; x ^= x>>15; x *= 0x846ca68b; x ^= x>>16
 *   mix(a, b)    = lowbias32(a ^ lowbias32(b))
 *   s_len = lowbias32(4*seed+1), s_idx = lowbias32(4*seed+2), s_w = lowbias32(4*seed+3)
 *   L(t,b)   = Lmax if fixed, else 1 + (mix(mix(s_len,t),b) * Lmax >> 32)
 *   idx(t,k) = mix(mix(s_idx,t),k) * R_t >> 32          (k: position in table t's list)
 *   w(t,r,d) = (mix(mix(s_w,t), r*D+d) >> 8) * 2^-24 - 0.5
 * t is the global table, b the global sample. */
#ifndef DLRM_GEN_H
#define DLRM_GEN_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define DLRM_HD __host__ __device__ __forceinline__
#else
#define DLRM_HD static inline
#endif

typedef struct dlrm_seeds {
    uint32_t len, idx, w;
} dlrm_seeds_t;

DLRM_HD uint32_t dlrm_lowbias32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

DLRM_HD uint32_t dlrm_mix(uint32_t a, uint32_t b)
{
    return dlrm_lowbias32(a ^ dlrm_lowbias32(b));
}

DLRM_HD dlrm_seeds_t dlrm_seeds(uint32_t seed)
{
    dlrm_seeds_t s;
    s.len = dlrm_lowbias32(4u * seed + 1u);
    s.idx = dlrm_lowbias32(4u * seed + 2u);
    s.w = dlrm_lowbias32(4u * seed + 3u);
    return s;
}

/* Bag length of (table t, sample b). */
DLRM_HD int64_t dlrm_gen_len(dlrm_seeds_t s, int64_t t, int64_t b, int lmax, int fixed)
{
    if (fixed)
        return lmax;
    uint32_t h = dlrm_mix(dlrm_mix(s.len, (uint32_t)t), (uint32_t)b);
    return 1 + (int64_t)(((uint64_t)h * (uint64_t)lmax) >> 32);
}

/* Row of the k-th index of table t (rows: the table's row count). */
DLRM_HD int64_t dlrm_gen_idx(dlrm_seeds_t s, int64_t t, int64_t k, int64_t rows)
{
    uint32_t h = dlrm_mix(dlrm_mix(s.idx, (uint32_t)t), (uint32_t)k);
    return (int64_t)(((uint64_t)h * (uint64_t)rows) >> 32);
}

/* Weight (t, r, d) as fp32 (exact: a 24-bit integer times 2^-24 minus 0.5). */
DLRM_HD float dlrm_gen_w(dlrm_seeds_t s, int64_t t, int64_t r, int dim, int d)
{
    uint32_t h = dlrm_mix(dlrm_mix(s.w, (uint32_t)t), (uint32_t)((uint64_t)r * (uint64_t)dim +
                                                                 (uint64_t)d));
    return (float)(h >> 8) * (1.0f / 16777216.0f) - 0.5f;
}

/* ---- storage rounding (host side; the GPU uses __float2half_rn and
 * __float2bfloat16_rn, which round the same way: to nearest, ties to even) */

/* fp32 -> fp16 bits, round to nearest even, subnormals included (the
 * weights lie in [-0.5, 0.5), so no overflow or NaN handling is needed). */
static inline uint16_t dlrm_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x47800000u)   /* >= 65536: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {  /* below 2^-14: a multiple of 2^-24 */
        float a;
        memcpy(&a, &ax, 4);
        float m = a * 16777216.0f;   /* exact (power-of-two scale), < 1024 */
        uint32_t q = (uint32_t)m;
        float frac = m - (float)q;
        if (frac > 0.5f || (frac == 0.5f && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);  /* q == 1024 is the smallest normal */
    }
    uint32_t h = (ax - 0x38000000u) >> 13, rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

static inline float dlrm_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0) {
        float v = (float)m * (1.0f / 16777216.0f);   /* subnormal: m * 2^-24, exact */
        memcpy(&x, &v, 4);
        x |= sign;
    } else if (e == 31) {
        x = sign | 0x7f800000u | (m << 13);
    } else {
        x = sign | ((e + 112u) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static inline uint16_t dlrm_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u);   /* no NaN among the weights */
    return (uint16_t)(x >> 16);
}

static inline float dlrm_bf16_to_f32(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* ---- the GPU weight generator (nvcc only): one kernel for every CUDA
 * program that makes the weights on the GPU (dlrm_gpu.cu, apps/stage), so
 * they all hold the same bits */
#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* fp32 -> the storage type W (float, __half, __nv_bfloat16), rounded to
 * nearest even as the host functions above do. */
template <typename W> __device__ __forceinline__ W dlrm_cvt(float x);
template <> __device__ __forceinline__ float dlrm_cvt<float>(float x) { return x; }
template <> __device__ __forceinline__ __half dlrm_cvt<__half>(float x)
{
    return __float2half_rn(x);
}
template <> __device__ __forceinline__ __nv_bfloat16 dlrm_cvt<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}

/* The weights of global table t (rows x D) into w, row-major, stored as
 * W; any grid (a grid-stride loop: the values do not depend on it). */
template <typename W>
static __global__ void dlrm_gen_w_kernel(W *w, int64_t t, int64_t rows, int D, dlrm_seeds_t s)
{
    const int64_t n = rows * D;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x)
        w[e] = dlrm_cvt<W>(dlrm_gen_w(s, t, e / D, D, (int)(e % D)));
}
#endif /* __CUDACC__ */

#endif /* DLRM_GEN_H */
