/* pe_dev_errors: device misuse is reported with the call, the PE and the
 * values, then the kernel traps. Modes (argv[1]):
 *   no_init    no gshmem_init (run without the launcher): a put reports
 *              "device state not published"
 *   bad_pe     gshmem_putmem to PE n_pes: "invalid PE <n> (n_pes <n>)"
 *   bad_addr   gshmem_int32_p to cudaMalloc memory: "not inside the
 *              symmetric heap"
 *   bad_cmp    gshmem_int32_wait_until with cmp 99: "invalid cmp 99"
 *   host_dev_global  a HOST gshmem_int32_p to a __device__ global (not
 *              symmetric, issue 19): the host API names the address and
 *              points to gshmem_malloc, the job fails
 *   bad_team   gshmem_int_sum_reduce on team GSHMEM_TEAM_MAX - 1 (never
 *              created): "invalid team 63 (not a live team on this PE)"
 *   invalid_team  gshmemx_barrier_warp(GSHMEM_TEAM_INVALID): "invalid team
 *              -1 (GSHMEM_TEAM_INVALID: ..."
 *   bad_root   gshmemx_int_broadcast_block on WORLD with PE_root n_pes:
 *              "invalid PE_root <n> (team 0 has <n> PEs)"
 * Each kernel mode ends with "pe_dev_errors: kernel failed as expected: ..."
 * and exit status 3; status 0 means the misuse went unnoticed. */
#include <unistd.h>

#include "pe_dev.h"

__device__ int32_t pe_dev_global;   /* a __device__ global: not symmetric */

__global__ void k_misuse(int mode, char *sym, char *plain)
{
    int n = gshmem_n_pes();
    switch (mode) {
    case 0: gshmem_putmem(sym, sym, 8, 0); break;
    case 1: gshmem_putmem(sym, sym + 64, 8, n); break;
    case 2: gshmem_int32_p((int32_t *)plain, 1, (gshmem_my_pe() + 1) % n); break;
    case 3: gshmem_int32_wait_until((int32_t *)sym, 99, 0); break;
    case 5: (void)gshmem_int_sum_reduce(GSHMEM_TEAM_MAX - 1, (int *)sym, (int *)sym, 1); break;
    case 6: (void)gshmemx_barrier_warp(GSHMEM_TEAM_INVALID); break;
    default:
        (void)gshmemx_int_broadcast_block(GSHMEM_TEAM_WORLD, (int *)sym, (int *)sym, 1, n);
        break;
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"no_init", "bad_pe", "bad_addr", "bad_cmp",
                                        "host_dev_global", "bad_team", "invalid_team",
                                        "bad_root"};
    const int n_modes = (int)(sizeof modes / sizeof modes[0]);
    int mode = -1;
    char *sym = NULL, *plain = NULL;

    pe_dev_probe(argc, argv);
    for (int i = 0; argc > 1 && i < n_modes; i++)
        if (strcmp(argv[1], modes[i]) == 0)
            mode = i;
    PE_CHECK(mode >= 0, "usage: pe_dev_errors no_init|bad_pe|bad_addr|bad_cmp|host_dev_global|"
             "bad_team|invalid_team|bad_root");
    if (mode == 4) {
        PE_CHECK_INIT();
        int32_t *g = NULL;
        CU(cudaGetSymbolAddress((void **)&g, pe_dev_global));
        gshmem_int32_p(g, 1, (gshmem_my_pe() + 1) % gshmem_n_pes());   /* ends the job */
        printf("pe_dev_errors: %s went unnoticed\n", modes[mode]);
        return 0;
    }
    CU(cudaMalloc((void **)&plain, 64));
    if (mode == 0) {
        sym = plain;
    } else {
        PE_CHECK_INIT();
        sym = (char *)pe_dev_sym(4096);
        gshmem_barrier_all();
    }
    k_misuse<<<1, 1>>>(mode, sym, plain);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("pe_dev_errors: kernel failed as expected: %s\n", cudaGetErrorString(e));
        fflush(stdout);
        _exit(3);   /* no finalize: the context is gone */
    }
    printf("pe_dev_errors: %s went unnoticed\n", modes[mode]);
    return 0;
}
