/* ring_check.cu: compile check of the SQ/CQ ring for the device (nvcc for
 * sm_90, or hipcc -x hip for gfx90a). Instantiates every producer call and
 * the port layer in kernels; nothing runs. */
#include "gshmem/ring/sq.h"

/* One post per thread, a two-slot post, then quiet; channel per block. */
__global__ void gshmemi_ring_check_kernel(gshmemi_channels_t ch, uint64_t *out)
{
    gshmemi_ring_t *r = gshmemi_channel_ring(&ch, blockIdx.x);
    gshmemi_wqe_t w[2];
    w[0].laddr = (uint64_t)(uintptr_t)out;
    w[0].roff = threadIdx.x;
    w[0].value = 8;
    w[0].ctrl = gshmemi_wqe_ctrl(GSHMEMI_OP_PUT_SIGNAL, GSHMEMI_WQE_F_FENCE, 0, 1);
    w[1] = w[0];
    w[1].ctrl = gshmemi_wqe_ctrl(GSHMEMI_OP_EXT, 0, GSHMEM_SIGNAL_ADD, 1);
    uint32_t waits = 0;
    uint64_t idx = 0;
    int rc = gshmemi_ring_post(r, w, 2, &waits, &idx);
    if (rc == 0) {
        uint64_t one = gshmemi_ring_reserve(r, 1);
        rc = gshmemi_ring_wait_space(r, one, 1, NULL);
        if (rc == 0)
            gshmemi_ring_write(r, one, &w[0]);
        rc = gshmemi_ring_quiet(r, one);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = idx + waits + (uint64_t)rc;
}

/* The rest of the port layer (32-bit forms, seq_cst, CAS, fence). */
__global__ void gshmemi_port_check_kernel(uint32_t *w32, uint64_t *w64)
{
    uint32_t a = gshmemi_atomic_load_relaxed_u32(w32) + gshmemi_atomic_load_acquire_u32(w32) +
                 gshmemi_atomic_load_seq_cst_u32(w32);
    uint64_t b = gshmemi_atomic_load_relaxed_u64(w64) + gshmemi_atomic_load_seq_cst_u64(w64);
    gshmemi_atomic_store_relaxed_u32(w32 + 1, a);
    gshmemi_atomic_store_release_u32(w32 + 2, a);
    gshmemi_atomic_store_seq_cst_u32(w32 + 3, a);
    gshmemi_atomic_store_relaxed_u64(w64 + 1, b);
    gshmemi_atomic_store_seq_cst_u64(w64 + 2, b);
    a += gshmemi_atomic_fetch_add_relaxed_u32(w32 + 4, 1);
    a += gshmemi_atomic_fetch_add_acq_rel_u32(w32 + 5, 1);
    b += gshmemi_atomic_fetch_add_acq_rel_u64(w64 + 3, 1);
    a += gshmemi_atomic_cas_u32(w32 + 6, a, a + 1);
    b += gshmemi_atomic_cas_u64(w64 + 4, b, b + 1);
    gshmemi_fence_system();
    w64[5] = a + b;
}
