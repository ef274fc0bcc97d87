/* p2p_batch.cu: small non-blocking ops of the p2p transport without a CUDA
 * call each. put_value (1..8 bytes) and amo_nbi (SET/ADD on 4 or 8 bytes)
 * append a 32-byte record to a buffer of pinned, mapped host memory (a
 * memcpy under a mutex); one kernel applies a whole buffer, launched in the
 * transport's stream when the buffer fills, before any other work enters
 * the stream (a copy or an AMO kernel: stream order stays issue order), at
 * progress (every wait loop: a signal must reach a waiting peer without a
 * quiet) and at quiet. P2P_BATCH_BUFS buffers rotate, each reused once its kernel's
 * event is done. A flush of at most P2P_BATCH_COPY_MAX records that are all
 * puts (a quiet after a few puts: the latency case) goes through the copy
 * engine instead, one cudaMemcpyAsync per record from the record's pinned
 * value: on an H100 a copy completes ~10 us sooner than a kernel launched
 * beside a running kernel (docs/DESIGN.md, "The queue path's costs").
 *
 * Order inside a buffer: records apply in parallel, except that a record
 * marked ordered starts a new segment that begins only after every earlier
 * record is applied and made visible (system fence). Ordered are: the first
 * record after a fence, every amo_nbi with after_fence (a signal after its
 * data), and a record that touches a word an earlier record of the same
 * segment touches (two writes to one word land in issue order, as they do
 * through a stream; a small hash of the segment's words finds them). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem_types.h"
extern "C" {
#include "base/util/log.h"   /* C linkage (p2p_impl.h includes it too) */
}
#include "p2p_impl.h"

#define P2P_BATCH_RECS 1024u   /* records per buffer */
#define P2P_BATCH_BUFS 4u
#define P2P_BATCH_THREADS 256u
#define P2P_SEG_SLOTS 4096u    /* the segment's word hash (> 2 x records) */
#define P2P_BATCH_COPY_MAX 4u  /* a flush of this many puts or fewer: copies */

#define P2P_REC_ORDERED (1u << 8)

typedef struct p2p_rec {
    uint64_t dst;      /* device address (this GPU's or a peer's, mapped) */
    uint64_t value;    /* the bytes of a put (little-endian), an AMO's operand */
    uint32_t kind;     /* P2P_REC_PUT/_SET/_ADD | P2P_REC_ORDERED */
    uint32_t size;     /* 1..8 for puts, 4 or 8 for AMOs */
    uint64_t pad;
} p2p_rec_t;
static_assert(sizeof(p2p_rec_t) == 32, "a batch record is 32 bytes");

struct p2p_batch {
    pthread_mutex_t lock;
    p2p_rec_t *host;               /* [BUFS][RECS], pinned and mapped */
    p2p_rec_t *dev;                /* the same for the GPU */
    cudaEvent_t done[P2P_BATCH_BUFS];
    int launched[P2P_BATCH_BUFS];  /* its kernel is in the stream */
    uint32_t cur, n;               /* the filling buffer and its records */
    uint32_t n_amo;                /* of them SET/ADD (these need the kernel) */
    int fence_next;                /* the next record starts a new segment */
    uint32_t gen;                  /* the segment's number: seg_gen == gen is "in it" */
    uint64_t seg_word[P2P_SEG_SLOTS];
    uint32_t seg_gen[P2P_SEG_SLOTS];
    uint64_t launches, copies, records, segments;   /* statistics */
};

/* Looks word up in the current segment's hash and adds it; 1 if it was there. */
static int p2p_seg_touch(p2p_batch_t *b, uint64_t word)
{
    uint32_t h = (uint32_t)((word * 0x9e3779b97f4a7c15ull) >> 52) & (P2P_SEG_SLOTS - 1);
    for (;; h = (h + 1) & (P2P_SEG_SLOTS - 1)) {
        if (b->seg_gen[h] != b->gen) {
            b->seg_gen[h] = b->gen;
            b->seg_word[h] = word;
            return 0;
        }
        if (b->seg_word[h] == word)
            return 1;
    }
}

static __device__ void p2p_rec_apply(const p2p_rec_t *r)
{
    uint32_t kind = r->kind & 0xffu;
    if (kind == P2P_REC_SET) {
        if (r->size == 4)
            atomicExch_system((unsigned int *)r->dst, (unsigned int)r->value);
        else
            atomicExch_system((unsigned long long *)r->dst, (unsigned long long)r->value);
    } else if (kind == P2P_REC_ADD) {
        if (r->size == 4)
            atomicAdd_system((unsigned int *)r->dst, (unsigned int)r->value);
        else
            atomicAdd_system((unsigned long long *)r->dst, (unsigned long long)r->value);
    } else if (r->size == 8 && (r->dst & 7) == 0) {
        *(volatile uint64_t *)r->dst = r->value;
    } else if (r->size == 4 && (r->dst & 3) == 0) {
        *(volatile uint32_t *)r->dst = (uint32_t)r->value;
    } else {
        for (uint32_t i = 0; i < r->size; i++)
            ((volatile unsigned char *)r->dst)[i] = (unsigned char)(r->value >> (8 * i));
    }
}

/* One block: chunks of blockDim.x records through shared memory (one
 * coalesced read of host memory per chunk), segments in order. */
static __global__ void p2p_batch_kernel(const p2p_rec_t *recs, uint32_t n)
{
    __shared__ p2p_rec_t s[P2P_BATCH_THREADS];
    __shared__ uint32_t seg_end;
    for (uint32_t base = 0; base < n; base += blockDim.x) {
        uint32_t cn = n - base < blockDim.x ? n - base : blockDim.x;
        if (threadIdx.x < cn)
            s[threadIdx.x] = recs[base + threadIdx.x];
        __syncthreads();
        for (uint32_t start = 0; start < cn;) {
            if (threadIdx.x == 0) {
                uint32_t e = start + 1;
                while (e < cn && !(s[e].kind & P2P_REC_ORDERED))
                    e++;
                seg_end = e;
            }
            __syncthreads();
            uint32_t end = seg_end;
            if (start + threadIdx.x < end)
                p2p_rec_apply(&s[start + threadIdx.x]);
            __threadfence_system();
            __syncthreads();
            start = end;
        }
    }
}

extern "C" int p2p_batch_init(p2p_priv_t *priv)
{
    p2p_batch_t *b = (p2p_batch_t *)calloc(1, sizeof *b);
    size_t bytes = (size_t)P2P_BATCH_BUFS * P2P_BATCH_RECS * sizeof(p2p_rec_t);
    cudaError_t e;

    if (b == NULL) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: out of host memory for the small-op batch");
        return GSHMEM_ERR_NOMEM;
    }
    pthread_mutex_init(&b->lock, NULL);
    b->gen = 1;   /* seg_gen starts at 0: no word in the first segment */
    e = cudaHostAlloc((void **)&b->host, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
    if (e == cudaSuccess)
        e = cudaHostGetDevicePointer((void **)&b->dev, b->host, 0);
    for (unsigned i = 0; e == cudaSuccess && i < P2P_BATCH_BUFS; i++)
        e = cudaEventCreateWithFlags(&b->done[i], cudaEventDisableTiming);
    if (e != cudaSuccess) {
        priv->batch = b;
        p2p_batch_fini(priv);
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "setting up the small-op batch "
                                      "(cudaHostAlloc, cudaEventCreate)", priv->my_pe);
    }
    /* Load the kernel now: a first launch while a user kernel waits for
     * the engine (lazy module loading) would wait for that kernel. */
    p2p_batch_kernel<<<1, P2P_BATCH_THREADS, 0, priv->stream>>>(b->dev, 0);
    e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(priv->stream);
    priv->batch = b;
    if (e != cudaSuccess) {
        p2p_batch_fini(priv);
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "first launch of the small-op "
                                      "batch kernel", priv->my_pe);
    }
    return GSHMEM_SUCCESS;
}

extern "C" void p2p_batch_fini(p2p_priv_t *priv)
{
    p2p_batch_t *b = priv->batch;
    if (b == NULL)
        return;
    for (unsigned i = 0; i < P2P_BATCH_BUFS; i++)
        if (b->done[i] != NULL)
            (void)cudaEventDestroy(b->done[i]);
    if (b->host != NULL)
        (void)cudaFreeHost(b->host);
    GSHMEMI_DEBUG(P2P_SUBSYS, "p2p: small-op batch: %llu records in %llu kernels and %llu "
                  "copies, %llu ordered segments", (unsigned long long)b->records,
                  (unsigned long long)b->launches, (unsigned long long)b->copies,
                  (unsigned long long)b->segments);
    pthread_mutex_destroy(&b->lock);
    free(b);
    priv->batch = NULL;
}

/* Applies the filling buffer (lock held): its kernel, or copies (a few
 * puts); then moves to the next buffer, waiting for its previous use. The
 * copies run in stream order, which is issue order: every segment holds. */
static int p2p_batch_launch(p2p_priv_t *priv, p2p_batch_t *b)
{
    p2p_rec_t *recs = b->host + (size_t)b->cur * P2P_BATCH_RECS;
    cudaError_t e = cudaSuccess;
    int prev;
    if (b->n == 0)
        return GSHMEM_SUCCESS;
    p2p_dev_enter(priv, &prev);
    if (b->n <= P2P_BATCH_COPY_MAX && b->n_amo == 0) {
        for (uint32_t i = 0; e == cudaSuccess && i < b->n; i++)
            e = cudaMemcpyAsync((void *)(uintptr_t)recs[i].dst, &recs[i].value, recs[i].size,
                                cudaMemcpyDefault, priv->stream);
        b->copies += b->n;
    } else {
        p2p_batch_kernel<<<1, P2P_BATCH_THREADS, 0, priv->stream>>>(
            b->dev + (size_t)b->cur * P2P_BATCH_RECS, b->n);
        e = cudaGetLastError();
        b->launches++;
    }
    if (e == cudaSuccess)
        e = cudaEventRecord(b->done[b->cur], priv->stream);
    p2p_dev_leave(prev);
    if (e != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "launching the small-op batch",
                                      priv->my_pe);
    b->launched[b->cur] = 1;
    b->records += b->n;
    b->cur = (b->cur + 1) % P2P_BATCH_BUFS;
    b->n = 0;
    b->n_amo = 0;
    b->fence_next = 0;   /* kernel boundaries order everything */
    b->gen++;
    if (b->launched[b->cur]) {   /* all buffers in flight: the oldest must finish */
        e = cudaEventSynchronize(b->done[b->cur]);
        if (e != cudaSuccess)
            return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "small-op batch kernel",
                                          priv->my_pe);
        b->launched[b->cur] = 0;
    }
    return GSHMEM_SUCCESS;
}

extern "C" int p2p_batch_flush(p2p_priv_t *priv)
{
    p2p_batch_t *b = priv->batch;
    if (b == NULL)
        return GSHMEM_SUCCESS;
    pthread_mutex_lock(&b->lock);   /* b->n is read under it too (launch returns at 0) */
    int rc = p2p_batch_launch(priv, b);
    pthread_mutex_unlock(&b->lock);
    return rc;
}

extern "C" int p2p_batch_add(p2p_priv_t *priv, void *dst, p2p_rec_kind_t kind, uint64_t value,
                             uint32_t size, int ordered)
{
    p2p_batch_t *b = priv->batch;
    int rc = GSHMEM_SUCCESS;

    uint64_t first = (uint64_t)(uintptr_t)dst >> 3, last = ((uint64_t)(uintptr_t)dst + size - 1) >> 3;

    pthread_mutex_lock(&b->lock);
    if (ordered || b->fence_next) {
        b->gen++;   /* a new segment: no word in it yet */
        ordered = 1;
    }
    for (uint64_t w = first; w <= last; w++)
        if (p2p_seg_touch(b, w) && !ordered) {
            b->gen++;   /* this word again: a new segment, starting with it */
            ordered = 1;
            w = first - 1;
        }
    b->segments += ordered != 0;
    p2p_rec_t *r = b->host + (size_t)b->cur * P2P_BATCH_RECS + b->n;
    r->dst = (uint64_t)(uintptr_t)dst;
    r->value = value;
    r->kind = (uint32_t)kind | (ordered ? P2P_REC_ORDERED : 0u);
    r->size = size;
    b->n_amo += kind != P2P_REC_PUT;
    b->fence_next = 0;
    if (++b->n == P2P_BATCH_RECS)
        rc = p2p_batch_launch(priv, b);
    pthread_mutex_unlock(&b->lock);
    return rc;
}

extern "C" void p2p_batch_fence(p2p_priv_t *priv)
{
    p2p_batch_t *b = priv->batch;
    if (b == NULL)
        return;
    pthread_mutex_lock(&b->lock);
    b->fence_next = b->n > 0;
    pthread_mutex_unlock(&b->lock);
}

