/* pe_litmus: the message-passing litmus test at scale, from all blocks at
 * once.
 *
 *   gshmemrun -n P pe_litmus VARIANT [ROUNDS]      (GSHMEM_HEAP=cuda)
 *
 * Every block b of every PE runs ROUNDS rounds (default 8192; with 128
 * blocks that is 2^20 block-rounds per PE). In round r it writes a fresh
 * slice, sends it to block b's slot on the right-hand PE and raises that
 * slot's flag to r:
 *   fence   gshmemx_putmem_block, gshmem_fence, gshmem_uint64_atomic_set
 *   signal  gshmemx_putmem_signal_block with GSHMEM_SIGNAL_SET
 * then waits for its own flag (from the left-hand PE) to reach r, checks
 * every element of its slot (a flag seen before its data is a violation),
 * acknowledges to the left-hand PE, and waits for the right-hand PE's
 * acknowledgement before it overwrites that slot again. Prints the rounds
 * and violations; exits 1 on any violation. With GSHMEM_DEVICE_QUEUE_ONLY=1
 * the same runs over the queue path. */
#include "pe_dev.h"

#define NB 128         /* blocks */
#define NT 128         /* threads per block */
#define SLICE 32       /* int32 per block and round (128 bytes) */

__host__ __device__ static inline int32_t lit_val(int pe, int r, int b, int i)
{
    return (int32_t)((uint32_t)pe * 2654435761u ^ ((uint32_t)r * 40503u + (uint32_t)b * 977u +
                                                   (uint32_t)i));
}

__global__ void k_litmus(int variant, int rounds, int32_t *slots, int32_t *src, uint64_t *flag,
                         uint64_t *ack, unsigned long long *violations)
{
    int b = blockIdx.x, t = threadIdx.x;
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int32_t *mine = slots + (size_t)b * SLICE, *s = src + (size_t)b * SLICE;
    __shared__ unsigned long long bad;
    if (t == 0)
        bad = 0;
    for (int r = 1; r <= rounds; r++) {
        for (int i = t; i < SLICE; i += NT)
            s[i] = lit_val(me, r, b, i);
        __syncthreads();
        if (variant == 0) {
            gshmemx_putmem_block(mine, s, SLICE * sizeof(int32_t), right);
            if (t == 0) {
                gshmem_fence();
                gshmem_uint64_atomic_set(&flag[b], (uint64_t)r, right);
            }
        } else {
            gshmemx_putmem_signal_block(mine, s, SLICE * sizeof(int32_t), &flag[b],
                                        (uint64_t)r, GSHMEM_SIGNAL_SET, right);
        }
        if (t == 0)
            gshmem_signal_wait_until(&flag[b], GSHMEM_CMP_GE, (uint64_t)r);
        __syncthreads();
        for (int i = t; i < SLICE; i += NT)
            if (mine[i] != lit_val(left, r, b, i)) {
                unsigned long long k = atomicAdd(&bad, 1ull);
                if (k == 0 && atomicAdd(violations + 1, 1ull) < 4)
                    printf("PE %d: block %d round %d element %d: flag seen, data %d, want %d "
                           "(from PE %d)\n", me, b, r, i, mine[i], lit_val(left, r, b, i),
                           left);
            }
        __syncthreads();
        if (t == 0) {
            gshmem_uint64_atomic_set(&ack[b], (uint64_t)r, left);
            gshmem_uint64_wait_until(&ack[b], GSHMEM_CMP_GE, (uint64_t)r);
        }
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(violations, bad);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK(argc >= 2, "usage: pe_litmus fence|signal [rounds]");
    int variant = strcmp(argv[1], "fence") == 0 ? 0 : strcmp(argv[1], "signal") == 0 ? 1 : -1;
    PE_CHECK(variant >= 0, "unknown variant '%s' (fence or signal)", argv[1]);
    int rounds = argc >= 3 ? atoi(argv[2]) : 8192;
    PE_CHECK(rounds > 0, "rounds must be positive, got '%s'", argv[2]);
    PE_CHECK_INIT();
    int me = gshmem_my_pe();

    size_t slice_bytes = (size_t)NB * SLICE * sizeof(int32_t);
    int32_t *slots = (int32_t *)gshmem_calloc(1, slice_bytes);
    int32_t *src = (int32_t *)gshmem_calloc(1, slice_bytes);
    uint64_t *flag = (uint64_t *)gshmem_calloc(NB, sizeof(uint64_t));
    uint64_t *ack = (uint64_t *)gshmem_calloc(NB, sizeof(uint64_t));
    PE_CHECK(slots && src && flag && ack, "allocation");
    unsigned long long *viol = NULL, host_viol[2] = {0, 0};
    CU(cudaMalloc((void **)&viol, sizeof host_viol));
    CU(cudaMemset(viol, 0, sizeof host_viol));
    gshmem_barrier_all();

    cudaEvent_t e0, e1;
    CU(cudaEventCreate(&e0));
    CU(cudaEventCreate(&e1));
    CU(cudaEventRecord(e0));
    k_litmus<<<NB, NT>>>(variant, rounds, slots, src, flag, ack, viol);
    CU(cudaEventRecord(e1));
    CU_SYNC();
    float ms = 0;
    CU(cudaEventElapsedTime(&ms, e0, e1));
    CU(cudaMemcpy(host_viol, viol, sizeof host_viol, cudaMemcpyDeviceToHost));
    gshmem_barrier_all();

    unsigned long long total = (unsigned long long)NB * (unsigned long long)rounds;
    printf("pe_litmus: PE %d: variant %s: %llu block-rounds (%d blocks x %d rounds) in %.1f ms, "
           "violations %llu\n", me, argv[1], total, NB, rounds, ms, host_viol[0]);
    PE_CHECK(host_viol[0] == 0, "%llu rounds saw the flag before the data", host_viol[0]);
    gshmem_free(ack);
    gshmem_free(flag);
    gshmem_free(src);
    gshmem_free(slots);
    CU(cudaFree(viol));
    gshmem_finalize();
    printf("pe_litmus: OK (PE %d)\n", me);
    return 0;
}
