/* pe_agg: the aggregator from kernels (include/gshmem/impl/gshmem_dev_agg.h), run
 * by tests/multipe/test_agg_gpu.c and scripts/gpu-agg.sh under gshmemrun
 * with GSHMEM_HEAP=cuda; the path (queue over p2p, queue over ofi, or
 * direct P2P stores) comes from the environment.
 *
 *   pe_agg stress BLOCKS THREADS M BYTES BUFS WARP
 *       every thread of a BLOCKS x THREADS kernel stores M records of
 *       4..256 B to random PEs (this one included) at places it owns
 *       (tests/agg/agg_gen.h); WARP 1: the odd blocks' warps store with
 *       gshmemx_agg_store_warp instead (lane 0's records). Block 1 then
 *       calls gshmemx_agg_drain_block and thread 0 of block 2
 *       gshmem_agg_drain; thread 0 of every block flushes. Two rounds over
 *       the same places; after each, every PE compares its memory with the
 *       serial reference (replay of every producer of every PE).
 *   pe_agg timeflush WAIT_US
 *       PE 0 stores one float4 (gshmem_agg_store_float4) to the last PE
 *       from one thread; nothing flushes; it must arrive after WAIT_US and
 *       within WAIT_US + 200 ms.
 *   pe_agg bad_size | bad_pe
 *       PE 0 stores a record as large as a buffer, or to PE n_pes: the
 *       kernel prints the error and traps ("pe_agg: kernel failed as
 *       expected", exit status 3).
 * Prints "pe_agg: OK (PE n)" per PE. */
#include <time.h>
#include <unistd.h>
#include <vector>

#include "pe_dev.h"
#include "agg_gen.h"

#define SEED 0x676167ull

static int me, npes;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Producer id of a thread: its global index; in a warp-mode block only
 * lane 0's id produces (for its warp). */
static __host__ __device__ bool producer_active(uint32_t id, uint32_t threads, int warp)
{
    return !(warp && ((id / threads) & 1) && (id % threads) % 32 != 0);
}

__global__ void k_stress(gshmem_agg_t *agg, uint8_t *region, uint32_t stripe, uint32_t m,
                         int round, int warp_mode)
{
    const uint32_t T = blockDim.x, P = gridDim.x * T, id = blockIdx.x * T + threadIdx.x;
    const uint32_t n = (uint32_t)gshmem_n_pes(), src = (uint32_t)gshmem_my_pe();
    const bool warp = warp_mode && (blockIdx.x & 1);
    uint8_t buf[AGG_GEN_MAX_LEN];
    agg_gen_t g;
    uint32_t pe, off, len;
    uint64_t ps;

    agg_gen_init(&g, SEED, (uint32_t)round, src, warp ? id - id % 32 : id);
    for (uint32_t i = 0; i < m && agg_gen_next(&g, n, stripe, &pe, &off, &len, &ps); i++) {
        agg_gen_fill(buf, ps, len);
        uint32_t owner = warp ? id - id % 32 : id;
        uint8_t *dst = region + ((size_t)src * P + owner) * stripe + off;
        if (warp)
            gshmemx_agg_store_warp(agg, dst, buf, len, (int)pe);
        else
            gshmem_agg_store(agg, dst, buf, len, (int)pe);
    }
    __syncthreads();
    if (blockIdx.x == 1)
        gshmemx_agg_drain_block(agg);
    if (blockIdx.x == 2 && threadIdx.x == 0)
        gshmem_agg_drain(agg);
    __syncthreads();
    if (threadIdx.x == 0)
        gshmem_agg_flush(agg);
}

static std::vector<uint8_t> reference(uint32_t P, uint32_t T, uint32_t stripe, uint32_t m,
                                      int rounds, int warp)
{
    std::vector<uint8_t> ref((size_t)npes * P * stripe, 0);
    for (int r = 0; r < rounds; r++)
        for (uint32_t s = 0; s < (uint32_t)npes; s++)
            for (uint32_t id = 0; id < P; id++) {
                if (!producer_active(id, T, warp))
                    continue;
                agg_gen_t g;
                uint32_t pe, off, len;
                uint64_t ps;
                agg_gen_init(&g, SEED, (uint32_t)r, s, id);
                for (uint32_t i = 0; i < m && agg_gen_next(&g, (uint32_t)npes, stripe, &pe,
                                                            &off, &len, &ps); i++) {
                    if (pe != (uint32_t)me)
                        continue;
                    uint8_t *d = &ref[((size_t)s * P + id) * stripe + off];
                    agg_gen_fill(d, ps, len);
                }
            }
    return ref;
}

static gshmem_agg_t *create(size_t bytes, uint32_t bufs, uint32_t wait_us)
{
    gshmem_agg_attr_t a;
    gshmem_agg_t *agg = NULL;
    gshmem_agg_attr_init(&a);
    a.buf_bytes = bytes;
    a.bufs_per_pe = bufs;
    a.max_wait_us = wait_us;
    int rc = gshmem_agg_create(&a, &agg);
    PE_CHECK(rc == 0, "gshmem_agg_create(%zu bytes, %u buffers): %s", bytes, bufs,
             gshmem_strerror(rc));
    return agg;
}

static void mode_stress(char **argv)
{
    uint32_t B = (uint32_t)atoi(argv[2]), T = (uint32_t)atoi(argv[3]);
    uint32_t m = (uint32_t)atoi(argv[4]), P = B * T;
    int warp = atoi(argv[7]);
    PE_CHECK(B >= 3 && T % 32 == 0 && T <= 1024 && npes <= AGG_GEN_MAX_PES, "bad arguments");
    uint32_t stripe = (uint32_t)((uint64_t)m * 140 / (uint32_t)npes * 3 / 2 + 1024);
    size_t size = (size_t)npes * P * stripe;
    uint8_t *region = (uint8_t *)pe_dev_sym(size);
    gshmem_agg_t *agg = create((size_t)atoi(argv[5]), (uint32_t)atoi(argv[6]), 200);
    std::vector<uint8_t> got(size);
    for (int r = 0; r < 2; r++) {
        gshmem_barrier_all();
        uint64_t t0 = now_ns();
        k_stress<<<B, T>>>(agg, region, stripe, m, r, warp);
        CU_SYNC();
        double s = (now_ns() - t0) / 1e9;
        gshmem_barrier_all();   /* every PE's flushes returned: applied everywhere */
        CU(cudaMemcpy(got.data(), region, size, cudaMemcpyDeviceToHost));
        std::vector<uint8_t> ref = reference(P, T, stripe, m, r + 1, warp);
        size_t i = 0;
        while (i < size && got[i] == ref[i])
            i++;
        PE_CHECK(i == size, "round %d: byte %zu (from PE %zu producer %zu, stripe offset %zu) "
                 "is 0x%02x, the serial reference has 0x%02x", r, i, i / ((size_t)P * stripe),
                 (i / stripe) % P, i % stripe, got[i], ref[i]);
        printf("pe_agg: PE %d round %d: %u producers x %u records checked (kernel %.3f s)\n",
               me, r, P, m, s);
    }
    gshmem_barrier_all();
    int rc = gshmem_agg_destroy(agg);
    PE_CHECK(rc == 0, "gshmem_agg_destroy: %s", gshmem_strerror(rc));
    gshmem_free(region);
}

__global__ void k_one(gshmem_agg_t *agg, float4 *dst, int pe)
{
    gshmem_agg_store_float4(agg, dst, make_float4(1.5f, 2.5f, 3.5f, 4.5f), pe);
}

static void mode_timeflush(char **argv)
{
    uint32_t wait = (uint32_t)atoi(argv[2]);
    uint8_t *region = (uint8_t *)pe_dev_sym(4096);
    gshmem_agg_t *agg = create(16384, 4, wait);
    int last = npes - 1;
    const float want[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    gshmem_barrier_all();
    uint64_t t0 = now_ns();
    if (me == 0) {
        k_one<<<1, 1>>>(agg, (float4 *)(region + 64), last);
        CU_SYNC();
    }
    if (me == last) {
        float got[4] = {0, 0, 0, 0};
        while (memcmp(got, want, sizeof got) != 0 && now_ns() - t0 < 10000000000ull) {
            usleep(20);
            CU(cudaMemcpy(got, region + 64, sizeof got, cudaMemcpyDeviceToHost));
        }
        double us = (now_ns() - t0) / 1e3;
        printf("pe_agg: time-flush: one record applied after %.0f us (max_wait %u us)\n", us,
               wait);
        PE_CHECK(memcmp(got, want, sizeof got) == 0, "the record never arrived");
        PE_CHECK(us >= wait - 2000.0 && us <= wait + 200000.0,
                 "applied after %.0f us, want [%u - 2000, %u + 200000] us", us, wait, wait);
    }
    gshmem_barrier_all();
    int rc = gshmem_agg_destroy(agg);
    PE_CHECK(rc == 0, "gshmem_agg_destroy: %s", gshmem_strerror(rc));
    gshmem_free(region);
}

__global__ void k_bad(gshmem_agg_t *agg, uint8_t *dst, size_t bytes, int pe)
{
    gshmem_agg_store(agg, dst, dst + 8192, bytes, pe);
}

static void mode_bad(int size_case)
{
    uint8_t *region = (uint8_t *)pe_dev_sym(65536);
    gshmem_agg_t *agg = create(1024, 2, 100);
    gshmem_barrier_all();
    if (me == 0) {
        k_bad<<<1, 1>>>(agg, region, size_case ? 1024 : 16, size_case ? 1 % npes : npes);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("pe_agg: kernel failed as expected: %s\n", cudaGetErrorString(e));
            fflush(stdout);
            _exit(3);   /* no finalize: the context is gone */
        }
        printf("pe_agg: the bad store went unnoticed\n");
    }
    gshmem_barrier_all();   /* the others wait here until the launcher ends them */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IOLBF, 0);
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    if (strcmp(mode, "stress") == 0 && argc == 8)
        mode_stress(argv);
    else if (strcmp(mode, "timeflush") == 0 && argc == 3)
        mode_timeflush(argv);
    else if (strcmp(mode, "bad_size") == 0 || strcmp(mode, "bad_pe") == 0)
        mode_bad(strcmp(mode, "bad_size") == 0);
    else
        PE_CHECK(0, "usage: pe_agg stress B T M BYTES BUFS WARP | timeflush WAIT_US | "
                 "bad_size | bad_pe (got \"%s\")", mode);
    printf("pe_agg: OK (PE %d)\n", me);
    gshmem_finalize();
    return 0;
}
