/* api_compile.cu: a user translation unit compiled WITHOUT -rdc that
 * includes gshmem.h and gshmem_device.h, calls every device call from
 * kernels and the host calls of the same names from host code, and links
 * against libgshmem. Built as gshmem-device-api-compile; running it is
 * not a test (it exits 0 at once without arguments).
 *
 * The same file is the HIP compile check (gshmem-device-api-hip-check:
 * hipcc -x hip --offload-arch=gfx90a -c, object only, nothing links or
 * runs; see include/gshmem/impl/gshmem_dev_port.h). */
#include <stdio.h>
#include <string.h>

#if defined(__HIPCC__)
/* HIP: gshmem_device.h must come before gshmem.h (it includes it). */
#include "gshmem_device.h"
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaSuccess hipSuccess
#endif
#include "gshmem.h"
#include "gshmem_device.h"

/* A __host__ __device__ user function may call the same name on both sides. */
__host__ __device__ static int both_sides_my_pe(void)
{
    return gshmem_my_pe();
}

#define TOUCH_RMA(T, N, buf, pe)                                                 \
    do {                                                                         \
        T *b_ = (T *)(buf);                                                      \
        gshmem_##N##_p(b_, (T)1, pe);                                            \
        b_[1] = gshmem_##N##_g(b_, pe);                                          \
        gshmem_##N##_put(b_ + 2, b_, 2, pe);                                     \
        gshmem_##N##_get(b_ + 4, b_, 2, pe);                                     \
        gshmem_##N##_put_nbi(b_ + 6, b_, 2, pe);                                 \
        gshmem_##N##_get_nbi(b_ + 8, b_, 2, pe);                                 \
    } while (0)

#define TOUCH_SYNC(T, N, buf)                                                    \
    do {                                                                         \
        T *v_ = (T *)(buf);                                                      \
        int st_[2] = {0, 1};                                                     \
        gshmem_##N##_wait_until(v_, GSHMEM_CMP_GE, (T)0);                        \
        v_[1] = (T)gshmem_##N##_test(v_, GSHMEM_CMP_EQ, (T)0);                   \
        gshmem_##N##_wait_until_all(v_, 2, st_, GSHMEM_CMP_GE, (T)0);            \
        v_[2] = (T)gshmem_##N##_wait_until_any(v_, 2, NULL, GSHMEM_CMP_GE, (T)0); \
    } while (0)

#define TOUCH_AMO(T, N, buf, pe)                                                 \
    do {                                                                         \
        T *a_ = (T *)(buf);                                                      \
        T r_ = gshmem_##N##_atomic_fetch_add(a_, (T)1, pe);                      \
        gshmem_##N##_atomic_add(a_, r_, pe);                                     \
        r_ += gshmem_##N##_atomic_compare_swap(a_, (T)0, (T)1, pe);              \
        r_ += gshmem_##N##_atomic_swap(a_, (T)2, pe);                            \
        r_ += gshmem_##N##_atomic_fetch(a_, pe);                                 \
        gshmem_##N##_atomic_set(a_, r_, pe);                                     \
        gshmem_##N##_atomic_inc(a_, pe);                                         \
        a_[1] = gshmem_##N##_atomic_fetch_inc(a_, pe);                           \
        gshmem_##N##_atomic_and(a_, (T)3, pe);                                   \
        gshmem_##N##_atomic_or(a_, (T)4, pe);                                    \
        gshmem_##N##_atomic_xor(a_, (T)5, pe);                                   \
        a_[2] = gshmem_##N##_atomic_fetch_and(a_, (T)6, pe) +                    \
                gshmem_##N##_atomic_fetch_or(a_, (T)7, pe) +                     \
                gshmem_##N##_atomic_fetch_xor(a_, (T)8, pe);                     \
    } while (0)

__global__ void every_call(char *sym, uint64_t *sig, int *out)
{
    int pe = (gshmem_my_pe() + 1) % gshmem_n_pes();
    out[0] = both_sides_my_pe();
    out[1] = gshmem_ptr(sym, pe) != NULL;
    gshmem_putmem(sym, sym + 64, 16, pe);
    gshmem_getmem(sym + 128, sym, 16, pe);
    gshmem_putmem_nbi(sym, sym + 64, 16, pe);
    gshmem_getmem_nbi(sym + 128, sym, 16, pe);
    TOUCH_RMA(int32_t, int32, sym + 256, pe);
    TOUCH_RMA(int64_t, int64, sym + 512, pe);
    TOUCH_RMA(uint64_t, uint64, sym + 768, pe);
    TOUCH_RMA(float, float, sym + 1024, pe);
    TOUCH_RMA(double, double, sym + 1280, pe);
    gshmemx_putmem_warp(sym, sym + 64, 64, pe);
    gshmemx_putmem_block(sym, sym + 64, 64, pe);
    gshmemx_putmem_nbi_warp(sym, sym + 64, 64, pe);
    gshmemx_putmem_nbi_block(sym, sym + 64, 64, pe);
    gshmemx_getmem_warp(sym + 128, sym, 64, pe);
    gshmemx_getmem_block(sym + 128, sym, 64, pe);
    gshmem_fence();
    gshmem_quiet();
    gshmem_putmem_signal(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_SET, pe);
    gshmem_putmem_signal_nbi(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    gshmemx_putmem_signal_warp(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    gshmemx_putmem_signal_block(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    gshmemx_putmem_signal_nbi_warp(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    gshmemx_putmem_signal_nbi_block(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    out[2] = (int)gshmem_signal_fetch(sig);
    out[3] = (int)gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, 1);
    TOUCH_SYNC(int32_t, int32, sym + 1536);
    TOUCH_SYNC(int64_t, int64, sym + 1600);
    TOUCH_SYNC(uint64_t, uint64, sym + 1664);
    TOUCH_AMO(int32_t, int32, sym + 1792, pe);
    TOUCH_AMO(int64_t, int64, sym + 1856, pe);
    TOUCH_AMO(uint64_t, uint64, sym + 1920, pe);
    gshmem_barrier_all();
    gshmem_sync_all();
    gshmemx_barrier_all_block();
    out[4] = gshmemx_alltoallmem_block(GSHMEM_TEAM_WORLD, sym + 4096, sym + 8192, 16);
}

/* Host code calling the host functions of the same names. */
static int host_side(void)
{
    if (gshmem_init() != 0)
        return 1;
    char *sym = (char *)gshmem_malloc(16384);
    uint64_t *sig = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t));
    int pe = (gshmem_my_pe() + 1) % gshmem_n_pes();
    int *out = NULL;
    gshmem_putmem(sym, sym + 64, 16, pe);
    gshmem_int32_p((int32_t *)sym, 1, pe);
    (void)gshmem_uint64_atomic_fetch_add((uint64_t *)sym, 1, pe);
    gshmem_putmem_signal(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_SET, pe);
    (void)gshmem_ptr(sym, pe);
    gshmem_barrier_all();
    if (cudaMalloc((void **)&out, 8 * sizeof(int)) == cudaSuccess) {
        every_call<<<1, 32>>>(sym, sig, out);
        cudaDeviceSynchronize();
        cudaFree(out);
    }
    gshmem_sync_all();
    int rc = both_sides_my_pe() == gshmem_my_pe() ? 0 : 1;
    gshmem_free(sig);
    gshmem_free(sym);
    gshmem_finalize();
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "run") == 0)
        return host_side();
    printf("gshmem-device-api-compile: built and linked (pass 'run' to run it)\n");
    return 0;
}
