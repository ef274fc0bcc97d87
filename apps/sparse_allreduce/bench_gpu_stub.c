/* bench_gpu_stub.c: the GPU backend in builds without CUDA: absent. */
#include <stdio.h>

#include "bench.h"

int bench_gpu_present(void) { return -1; }

bench_be_t *bench_gpu_new(int need_nccl, char *why, size_t whylen)
{
    (void)need_nccl;
    snprintf(why, whylen, "built without CUDA");
    return NULL;
}

void bench_gpu_free(bench_be_t *b) { (void)b; }
int bench_gpu_has_nccl(bench_be_t *b) { (void)b; return 0; }

int bench_gpu_link_bw(bench_be_t *b, size_t bytes_per_peer, int iters, double *sm,
                      double *ce, char *why, size_t whylen)
{
    (void)b, (void)bytes_per_peer, (void)iters;
    *sm = *ce = 0;
    snprintf(why, whylen, "built without CUDA");
    return -1;
}

const bench_ops_t bench_gpu_ops = {.name = "none"};
