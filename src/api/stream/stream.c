/* stream.c: the on-stream calls of gshmemx.h. Each checks its arguments
 * with the host API's checks (src/api/core/check.c: they end the job on
 * misuse, naming the value), then enqueues its work on the stream and
 * returns; nothing here synchronizes the host, so every call can be
 * captured into a CUDA graph.
 *
 * The data of a put to a PE whose heap is mapped here (gshmem_ptr not
 * NULL: a P2P peer, or this PE) takes one of two paths (gshmemi_stream_path):
 * from GSHMEM_STREAM_CE_MIN bytes on, one cudaMemcpyAsync to the mapped
 * address (the copy engines: complete when the stream's next operation
 * starts); below it, SM stores: a kernel of stream_kernels.cu, a grid that
 * grows with the size (gshmemi_stream_sm_blocks), which wins where a copy's
 * fixed cost dominates. Data to any other PE is a one-block kernel that
 * calls the device API (its queue path). A signal is always a kernel,
 * enqueued after the data on the same stream; a put-with-signal that fits
 * one block of SM stores is one kernel (data, system fence, signal). An
 * all-to-all copies each mapped PE's block (itself included), then one
 * kernel puts the other PEs' blocks and runs the block barrier. The team
 * calls (collectives on any team; the all-to-all on GSHMEM_TEAM_WORLD
 * comes back here for its copies): stream_team.c. */
#include <cuda_runtime_api.h>
#include <string.h>

#include "api/core/core.h"
#include "gshmem/impl/gshmem_dev_queue.h"
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

/* ---- the path of the data ---------------------------------------------------- */

int gshmemi_stream_ce_size(size_t n)
{
    size_t min = gshmemi_g.cfg.stream_ce_min;
    return min != 0 && n >= min;
}

gshmemi_stream_path_t gshmemi_stream_path(const void *dest, size_t n, int pe)
{
    if (gshmem_ptr(dest, pe) == NULL)
        return GSHMEMI_STREAM_QUEUE;
    return gshmemi_stream_ce_size(n) ? GSHMEMI_STREAM_CE : GSHMEMI_STREAM_SM;
}

size_t gshmemi_stream_ce_min_set(size_t bytes)
{
    size_t old = gshmemi_g.cfg.stream_ce_min;
    gshmemi_g.cfg.stream_ce_min = bytes;
    return old;
}

unsigned gshmemi_stream_sm_blocks(size_t n)
{
    int sms = 0;
    size_t want = n / GSHMEMI_STREAM_BLOCK_BYTES + (n % GSHMEMI_STREAM_BLOCK_BYTES != 0);

    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                               gshmemi_g.heap.cuda_device) != cudaSuccess || sms < 1) {
        (void)cudaGetLastError();
        sms = 1;   /* a small grid still moves every byte */
    }
    size_t max = (size_t)gshmemi_stream_put_per_sm() * (size_t)sms;
    return want < 1 ? 1u : want > max ? (unsigned)max : (unsigned)want;
}

void gshmemi_stream_report(void)
{
    const gshmemi_state_t *g = &gshmemi_g;
    int mapped = 0;
    char from[48];

    if (!g->cfg.info && gshmemi_log_level < GSHMEMI_LOG_INFO)
        return;
    for (int pe = 0; pe < g->n_pes; pe++)
        mapped += gshmem_ptr(g->heap.base, pe) != NULL;
    if (g->cfg.stream_ce_min == 0)
        snprintf(from, sizeof from, "never (GSHMEM_STREAM_CE_MIN=0)");
    else
        snprintf(from, sizeof from, "from %zu bytes", g->cfg.stream_ce_min);
    gshmemi_log_write(GSHMEMI_LOG_INFO, GSHMEMI_SUBSYS_INIT, __FILE__, __LINE__,
                      "on-stream puts and all-to-alls: to the %d of %d PEs mapped here "
                      "(P2P peers, this PE) copy engines (cudaMemcpyAsync) %s, SM stores "
                      "(a kernel of up to %u blocks) below; to the other %d a one-block "
                      "kernel (device queue path)", mapped, g->n_pes, from,
                      gshmemi_stream_sm_blocks((size_t)-1), g->n_pes - mapped);
}

/* A queue-path put larger than an entry's payload hands the engine its
 * source address, and the engine reads only the symmetric heap and
 * registered memory (src/engine/validate.c), as NVSHMEM's remote
 * transports do: another source is refused here, named, instead of being
 * rejected by the engine while the put kernel waits. */
static void gshmemi_stream_queue_source(const char *call, gshmemi_stream_path_t path,
                                        const void *source, size_t n, int pe)
{
    uint64_t off;

    if (n <= GSHMEMI_QPAYLOAD || path != GSHMEMI_STREAM_QUEUE ||
        gshmemi_heap_offset(&gshmemi_g.heap, source, n, &off) ||
        gshmemi_reg_find(gshmemi_g.regs, source, n) != NULL)
        return;
    gshmemi_fatal(call, "source %p (%zu bytes) is neither symmetric nor registered "
                  "(gshmem_register), and PE %d is reached through the queue path, whose "
                  "engine reads only those (a put of up to %u bytes travels in its entry and "
                  "may come from anywhere)", source, n, pe, GSHMEMI_QPAYLOAD);
}

/* The data of a put, dest already checked, by its path (gshmemi_stream_path):
 * a copy to the mapped address (CE), a grid of SM stores, or the one-block
 * queue-path kernel. */
static void gshmemi_stream_data(const char *call, gshmemi_stream_path_t path, void *dest,
                                const void *source, size_t n, int pe, cudaStream_t stream)
{
    if (path == GSHMEMI_STREAM_CE) {
        int e = (int)cudaMemcpyAsync(gshmem_ptr(dest, pe), source, n, cudaMemcpyDefault, stream);
        gshmemi_stream_enqueued(call, e, "the copy to the mapped heap", pe, stream);
        return;
    }
    unsigned blocks = path == GSHMEMI_STREAM_SM ? gshmemi_stream_sm_blocks(n) : 1u;
    gshmemi_stream_enqueued(call, gshmemi_stream_put_launch(dest, source, n, pe, blocks, stream),
                            "the put kernel", pe, stream);
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
    gshmemi_stream_path_t path = gshmemi_stream_path(dest, nelems, pe);
    gshmemi_stream_queue_source(call, path, source, nelems, pe);
    gshmemi_stream_data(call, path, dest, source, nelems, pe, stream);
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
        gshmemi_stream_path_t path = gshmemi_stream_path(dest, nelems, pe);
        gshmemi_stream_queue_source(call, path, source, nelems, pe);
        /* one block of SM stores or the queue path: the put-with-signal kernel
         * below carries the data; otherwise the data goes first and the
         * kernel sends the signal only */
        if (path == GSHMEMI_STREAM_CE ||
            (path == GSHMEMI_STREAM_SM && gshmemi_stream_sm_blocks(nelems) > 1)) {
            gshmemi_stream_data(call, path, dest, source, nelems, pe, stream);
            nelems = 0;
        }
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

/* The all-to-all's copies: the block of each mapped PE (this one included)
 * below GSHMEMI_STREAM_MASK_PES, in the device form's order (from the next
 * PE on). Returns 1 and the PEs in *copied when it enqueued any. */
static int gshmemi_stream_a2a_copies(const char *call, char *dest, const char *source,
                                     size_t n, gshmemi_stream_pe_mask_t *copied,
                                     cudaStream_t stream)
{
    int me = gshmemi_g.my_pe, np = gshmemi_g.n_pes, any = 0;
    char *d = dest + (size_t)me * n;

    memset(copied, 0, sizeof *copied);
    if (!gshmemi_stream_ce_size(n))
        return 0;
    for (int i = 1; i <= np; i++) {
        int pe = me + i < np ? me + i : me + i - np;
        void *peer = pe < GSHMEMI_STREAM_MASK_PES ? gshmem_ptr(d, pe) : NULL;
        if (peer == NULL)
            continue;
        int e = (int)cudaMemcpyAsync(peer, source + (size_t)pe * n, n, cudaMemcpyDefault,
                                     stream);
        gshmemi_stream_enqueued(call, e, "the all-to-all copy to the mapped heap", pe, stream);
        copied->w[pe / 64] |= (uint64_t)1 << (pe % 64);
        any = 1;
    }
    return any;
}

int gshmemi_stream_alltoall_world(const char *call, void *dest, const void *source,
                                   size_t nelems, cudaStream_t stream)
{
    gshmemi_stream_pe_mask_t copied;
    int any = nelems > 0 && gshmemi_stream_a2a_copies(call, dest, source, nelems, &copied,
                                                      stream);
    return gshmemi_stream_alltoall_launch(GSHMEM_TEAM_WORLD, dest, source, nelems,
                                          any ? &copied : NULL, stream);
}
