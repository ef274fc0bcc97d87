/* stage_gemm.cuh: gshmem's own tiled GEMM for the stage demonstrations:
 * C[M,N] = act(A[M,K] B[K,N]), fp16 row-major inputs, fp32 accumulation on
 * the tensor cores (WMMA 16x16x16), fp16 output, optional GELU (tanh form).
 *
 * Tile BM x BN x BK, 256 threads (8 warps, 2 along M x 4 along N), a
 * STAGES-deep cp.async pipeline in shared memory (rows padded by 16 bytes
 * so that the fragment loads hit distinct banks), an epilogue through
 * shared memory with 16-byte stores. M is any size (rows past M load as
 * zeros and are not stored); N must be a multiple of BN and K of BK.
 *
 * How a block gets its tile and what it synchronizes (template SYNC):
 *   SYNC_NONE      tile = blockIdx.x (row-major), no synchronization;
 *   SYNC_PRIMARY   as NONE, and releases a dependent grid launched with
 *                  programmatic dependent launch once the block started;
 *   SYNC_SECONDARY as NONE, but first waits for the preceding grid to
 *                  complete (griddepcontrol.wait): the kernel boundary of a
 *                  PDL launch, the stronger stream-ordered baseline;
 *   SYNC_PRODUCER  tile from the stage `self` (counter order), posts it when
 *                  its output is stored;
 *   SYNC_COUNTER   diagnostic: tile from `self` only, no post, no wait;
 *   SYNC_CONSUMER  tile from `self`; before loading the k-tiles of A that
 *                  producer tile (k / prod_bn, row) wrote, waits for it
 *                  through the producer stage `prod` (its policy decides
 *                  which semaphore and how many posts), with
 *                  gshmem_stage_wait_ahead: one poll covers every complete
 *                  tile ahead, and the k-loop then runs over that span of
 *                  k-tiles without checks. The consumer's BM must equal the
 *                  producer's (same rows of tiles) and prod_bn be a
 *                  multiple of BK.
 */
#ifndef GSHMEM_APPS_STAGE_GEMM_CUH
#define GSHMEM_APPS_STAGE_GEMM_CUH

#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>

#include "gshmem_stage.h"

enum { SYNC_NONE = 0, SYNC_PRIMARY = 1, SYNC_SECONDARY = 2, SYNC_PRODUCER = 3,
       SYNC_CONSUMER = 4, SYNC_COUNTER = 5 };

typedef struct stage_gemm_args {
    const __half *A, *B;
    __half *C;
    int M, N, K;
    int prod_bn;   /* SYNC_CONSUMER: columns per producer tile (A's k per wait) */
} stage_gemm_args_t;

template <int BM_, int BN_, int BK_, int STAGES_>
struct stage_gemm_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_, THREADS = 256;
    static constexpr int WARPS_M = 2, WARPS_N = 4;
    static constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N;
    static constexpr int FM = WTM / 16, FN = WTN / 16;
    static constexpr int LDA = BK + 8, LDB = BN + 8, LDC = BN + 4;   /* padded rows */
    static constexpr int A_STAGE = BM * LDA, B_STAGE = BK * LDB;    /* halves */
    static constexpr size_t SMEM_PIPE = (size_t)STAGES * (A_STAGE + B_STAGE) * sizeof(__half);
    static constexpr size_t SMEM_C = (size_t)BM * LDC * sizeof(float);
    static constexpr size_t SMEM = SMEM_PIPE > SMEM_C ? SMEM_PIPE : SMEM_C;
    static_assert(FM >= 1 && FN >= 1 && WTM % 16 == 0 && WTN % 16 == 0, "tile shape");
};

__device__ __forceinline__ void stage_cp_async16(void *smem, const void *gmem, int src_bytes)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    /* .cg: through L2 only, so data another SM just posted is never served
     * from a stale L1 line */
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(src_bytes)
                 : "memory");
}

__device__ __forceinline__ void stage_cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N>
__device__ __forceinline__ void stage_cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ float stage_gelu(float x)
{
    return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

template <class C, bool GELU, int SYNC>
__global__ void __launch_bounds__(256, 2)
stage_gemm_kernel(stage_gemm_args_t g, gshmem_stage_t self, gshmem_stage_t prod)
{
    using namespace nvcuda;
    constexpr int BM = C::BM, BN = C::BN;
    extern __shared__ __align__(128) unsigned char stage_smem[];
    __half *As = (__half *)stage_smem;
    __half *Bs = As + C::STAGES * C::A_STAGE;
    const int tid = threadIdx.x, warp = tid / 32;
    const int wm = warp / C::WARPS_N, wn = warp % C::WARPS_N;
    const int tiles_n = g.N / BN;

    gshmem_stage_tile_t tile;
    if (SYNC == SYNC_PRODUCER || SYNC == SYNC_CONSUMER || SYNC == SYNC_COUNTER) {
        tile = gshmem_stage_tile(self);
    } else {
        tile.x = blockIdx.x % tiles_n;
        tile.y = blockIdx.x / tiles_n;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (SYNC == SYNC_PRIMARY)
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    if (SYNC == SYNC_SECONDARY)
        asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    /* SYNC_PRODUCER: the tile to post, kept in shared memory rather than
     * live in registers through the k-loop (live, it changed the compiler's
     * schedule of the whole kernel: 94 registers instead of 112 with 64-row
     * tiles, and 5% slower, Nsight Compute at M 1024) */
    __shared__ gshmem_stage_tile_t post_tile;
    if (SYNC == SYNC_PRODUCER && tid == 0)
        post_tile = tile;
    const int m0 = tile.y * BM, n0 = tile.x * BN;
    const int KT = g.K / C::BK;
    /* k-tile kt into pipeline slot: A rows m0.., B columns n0.. */
    auto load = [&](int slot, int kt) {
        const int k0 = kt * C::BK;
        __half *a = As + slot * C::A_STAGE, *b = Bs + slot * C::B_STAGE;
        for (int c = tid; c < BM * C::BK / 8; c += C::THREADS) {
            int r = c / (C::BK / 8), cc = (c % (C::BK / 8)) * 8, gr = m0 + r;
            const __half *src = g.A + (size_t)(gr < g.M ? gr : 0) * g.K + k0 + cc;
            stage_cp_async16(a + r * C::LDA + cc, src, gr < g.M ? 16 : 0);
        }
        for (int c = tid; c < C::BK * BN / 8; c += C::THREADS) {
            int r = c / (BN / 8), cc = (c % (BN / 8)) * 8;
            stage_cp_async16(b + r * C::LDB + cc, g.B + (size_t)(k0 + r) * g.N + n0 + cc, 16);
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[C::FM][C::FN];
#pragma unroll
    for (int i = 0; i < C::FM; i++)
#pragma unroll
        for (int j = 0; j < C::FN; j++)
            wmma::fill_fragment(acc[i][j], 0.f);

    /* the pipelined k-loop over k-tiles [kt0, kt1) */
    auto span = [&](int kt0, int kt1) {
#pragma unroll
        for (int s = 0; s < C::STAGES - 1; s++) {
            if (kt0 + s < kt1)
                load(s, kt0 + s);
            stage_cp_async_commit();
        }
        for (int kt = kt0; kt < kt1; kt++) {
            const int i = kt - kt0;
            stage_cp_async_wait<C::STAGES - 2>();
            __syncthreads();   /* slot i ready; slot i-1 free for the next load */
            int nk = kt + C::STAGES - 1;
            if (nk < kt1)
                load((i + C::STAGES - 1) % C::STAGES, nk);
            stage_cp_async_commit();
            const __half *a = As + (i % C::STAGES) * C::A_STAGE;
            const __half *b = Bs + (i % C::STAGES) * C::B_STAGE;
#pragma unroll
            for (int kk = 0; kk < C::BK; kk += 16) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> bf[C::FN];
#pragma unroll
                for (int j = 0; j < C::FN; j++)
                    wmma::load_matrix_sync(bf[j], b + kk * C::LDB + wn * C::WTN + j * 16, C::LDB);
#pragma unroll
                for (int i = 0; i < C::FM; i++) {
                    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> af;
                    wmma::load_matrix_sync(af, a + (wm * C::WTM + i * 16) * C::LDA + kk, C::LDA);
#pragma unroll
                    for (int j = 0; j < C::FN; j++)
                        wmma::mma_sync(acc[i][j], af, bf[j], acc[i][j]);
                }
            }
        }
    };

    if (SYNC == SYNC_CONSUMER) {
        /* Spans of k-tiles whose producer tiles are posted: one block-wide
         * poll (gshmem_stage_wait_ahead) before each span learns how many
         * producer tiles from there on are complete, and the span runs the
         * plain pipelined loop, drained at its end. Waits stay out of the
         * loop: checked inside it (a compare per k-tile, the poll inlined
         * into the cp.async issue) they changed the compiler's schedule of
         * the loop, and the consumer was 5% slower than the same kernel
         * without waits (Nsight Compute, 64x128 tiles) even when every
         * producer tile was complete. */
        for (int kt0 = 0; kt0 < KT;) {
            uint32_t kx = (uint32_t)(kt0 * C::BK / g.prod_bn);
            gshmem_stage_tile_t pt = {kx, tile.y};
            uint32_t n = gshmem_stage_wait_ahead(prod, pt, prod.grid.x - kx);
            int kt1 = (int)(((kx + n) * (uint32_t)g.prod_bn) / C::BK);
            span(kt0, kt1 < KT ? kt1 : KT);
            stage_cp_async_wait<0>();
            __syncthreads();   /* every slot consumed before the next span loads */
            kt0 = kt1;
        }
    } else {
        span(0, KT);
    }
    stage_cp_async_wait<0>();
    __syncthreads();   /* pipeline buffers become the output staging area */

    float *Cs = (float *)stage_smem;
#pragma unroll
    for (int i = 0; i < C::FM; i++)
#pragma unroll
        for (int j = 0; j < C::FN; j++)
            wmma::store_matrix_sync(Cs + (wm * C::WTM + i * 16) * C::LDC + wn * C::WTN + j * 16,
                                    acc[i][j], C::LDC, wmma::mem_row_major);
    __syncthreads();
    for (int c = tid; c < BM * BN / 8; c += C::THREADS) {
        int r = c / (BN / 8), cc = (c % (BN / 8)) * 8, gr = m0 + r;
        if (gr >= g.M)
            continue;
        float4 v0 = *(const float4 *)(Cs + r * C::LDC + cc);
        float4 v1 = *(const float4 *)(Cs + r * C::LDC + cc + 4);
        float f[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
        __align__(16) __half h[8];
#pragma unroll
        for (int e = 0; e < 8; e++)
            h[e] = __float2half_rn(GELU ? stage_gelu(f[e]) : f[e]);
        *(int4 *)(g.C + (size_t)gr * g.N + n0 + cc) = *(const int4 *)h;
    }
    if (SYNC == SYNC_PRODUCER)
        gshmem_stage_post(self, post_tile);   /* its barrier orders the read */
}

/* Raises the kernel's dynamic shared memory limit (once per instantiation). */
template <class C, bool GELU, int SYNC>
static inline cudaError_t stage_gemm_prepare(void)
{
    return cudaFuncSetAttribute(stage_gemm_kernel<C, GELU, SYNC>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM);
}

#endif /* GSHMEM_APPS_STAGE_GEMM_CUH */
