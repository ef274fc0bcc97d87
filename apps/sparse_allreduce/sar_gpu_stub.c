/* sar_gpu_stub.c: GPU PEs in builds without CUDA: every entry point says so. */
#include "sar_internal.h"

static int no_cuda(sar_t *s)
{
    return sar_fail(s, SAR_ERR_DEVICE, "PE %d: GPU PEs need a CUDA build of gshmem "
                    "(configure with -DGSHMEM_ENABLE_CUDA=ON)", s->me);
}

int sar_gpu_create(sar_t *s) { return no_cuda(s); }
void sar_gpu_destroy(sar_t *s) { (void)s; }
int sar_gpu_enqueue(sar_t *s, const int64_t *idx, const float *val, int64_t nnz,
                    const int64_t *nnz_dev, void *stream)
{
    (void)idx, (void)val, (void)nnz, (void)nnz_dev, (void)stream;
    return no_cuda(s);
}
int sar_gpu_finish(sar_t *s, sar_result_t *res) { (void)res; return no_cuda(s); }
int sar_gpu_phase_timing(sar_t *s, int on) { (void)on; return no_cuda(s); }
int sar_gpu_phase_ms(const sar_t *s, double *ms) { (void)s, (void)ms; return SAR_ERR_DEVICE; }
