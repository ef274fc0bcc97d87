/* stream.c: the on-stream calls of gshmemx.h. Each checks its arguments
 * with the host API's checks (src/api/core/check.c: they end the job on
 * misuse, naming the value), then enqueues its work on the stream and
 * returns; nothing here synchronizes the host, so every call can be
 * captured into a CUDA graph.
 *
 * Data to a PE whose heap is mapped here (gshmem_ptr not NULL: the p2p
 * transport, or this PE) is one cudaMemcpyAsync to the mapped address: the
 * copy engines move it and it is complete when the stream's next operation
 * starts. Everything else is a kernel of stream_kernels.cu that calls the
 * device API (and so takes its queue path for other PEs). A signal is
 * always a kernel, enqueued after the copy of the data. The team calls
 * (collectives on any team): stream_team.c. */
#include <cuda_runtime_api.h>

#include "api/core/core.h"
#include "gshmemx.h"
#include "stream_impl.h"

void gshmemi_stream_require(const char *call)
{
    GSHMEMI_REQUIRE_INIT(call);
    if (gshmemi_g.heap.kind != GSHMEMI_HEAP_CUDA)
        gshmemi_fatal(call, "needs a CUDA heap (set GSHMEM_HEAP=cuda); the symmetric heap "
                      "of this run is in host memory");
}

void gshmemi_stream_enqueued(const char *call, int e, const char *what, int pe,
                             cudaStream_t stream)
{
    if (e == 0)
        return;
    gshmemi_fatal(call, "enqueuing %s (PE %d) on stream %p failed: %s (%s)", what, pe,
                  (void *)stream, cudaGetErrorName((cudaError_t)e),
                  cudaGetErrorString((cudaError_t)e));
}

/* The data of a put, dest already checked: a copy to the mapped address, or
 * (sig_addr NULL) the put kernel. Returns 1 when the data went by copy. */
static int gshmemi_stream_copy(const char *call, void *dest, const void *source, size_t n,
                               int pe, cudaStream_t stream)
{
    void *peer = gshmem_ptr(dest, pe);

    if (peer == NULL)
        return 0;
    int e = (int)cudaMemcpyAsync(peer, source, n, cudaMemcpyDefault, stream);
    gshmemi_stream_enqueued(call, e, "the copy to the mapped heap", pe, stream);
    return 1;
}

void gshmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                              cudaStream_t stream)
{
    const char *call = "gshmemx_putmem_on_stream";

    gshmemi_stream_require(call);
    if (nelems == 0)
        return;
    gshmemi_check_pe(call, pe);
    (void)gshmemi_check_sym(call, "dest", dest, nelems);
    if (gshmemi_stream_copy(call, dest, source, nelems, pe, stream))
        return;
    gshmemi_stream_enqueued(call, gshmemi_stream_put_launch(dest, source, nelems, pe, stream),
                            "the put kernel", pe, stream);
}

void gshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                     cudaStream_t stream)
{
    const char *call = "gshmemx_putmem_signal_on_stream";

    gshmemi_stream_require(call);
    gshmemi_check_pe(call, pe);
    if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD)
        gshmemi_fatal(call, "invalid sig_op %d (expected GSHMEM_SIGNAL_SET = 0 or "
                      "GSHMEM_SIGNAL_ADD = 1)", sig_op);
    (void)gshmemi_check_sym_aligned(call, "sig_addr", sig_addr, sizeof(uint64_t));
    if (nelems > 0) {
        (void)gshmemi_check_sym(call, "dest", dest, nelems);
        if (gshmemi_stream_copy(call, dest, source, nelems, pe, stream))
            nelems = 0;   /* the kernel below sends the signal only */
    }
    int e = gshmemi_stream_put_signal_launch(dest, source, nelems, sig_addr, signal, sig_op,
                                             pe, stream);
    gshmemi_stream_enqueued(call, e, nelems ? "the put-with-signal kernel" : "the signal kernel",
                            pe, stream);
}

void gshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                         cudaStream_t stream)
{
    const char *call = "gshmemx_signal_wait_until_on_stream";

    gshmemi_stream_require(call);
    (void)gshmemi_cmp_u64(call, cmp, 0, 0);   /* fatal on an unknown cmp */
    (void)gshmemi_check_sym_aligned(call, "sig_addr", sig_addr, sizeof(uint64_t));
    gshmemi_stream_enqueued(call, gshmemi_stream_wait_launch(sig_addr, cmp, cmp_value, stream),
                            "the wait kernel", gshmemi_g.my_pe, stream);
}

void gshmemx_quiet_on_stream(cudaStream_t stream)
{
    const char *call = "gshmemx_quiet_on_stream";

    gshmemi_stream_require(call);
    gshmemi_stream_enqueued(call, gshmemi_stream_quiet_launch(stream), "the quiet kernel",
                            gshmemi_g.my_pe, stream);
}

void gshmemx_barrier_all_on_stream(cudaStream_t stream)
{
    const char *call = "gshmemx_barrier_all_on_stream";

    gshmemi_stream_require(call);
    gshmemi_stream_enqueued(call, gshmemi_stream_barrier_launch(stream), "the barrier kernel",
                            gshmemi_g.my_pe, stream);
}
