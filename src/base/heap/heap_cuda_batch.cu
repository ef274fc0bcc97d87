/* heap_cuda_batch.cu: the small-op batch (heap_cuda_batch.h): small puts
 * and SET/ADD atomics to CUDA memory without a CUDA call each. A record is
 * appended to a buffer of pinned, mapped host memory (a memcpy under a
 * mutex); one kernel applies a whole buffer, launched in the owner's stream
 * when the buffer fills and at flush (the owner flushes before any other
 * work enters the stream, so stream order stays issue order). CBATCH_BUFS
 * buffers rotate, each reused once its kernel's event is done. A flush of
 * at most CBATCH_COPY_MAX records that are all puts (a quiet after a few
 * puts: the latency case) goes through the copy engine instead, one
 * cudaMemcpyAsync per record from the record's pinned value: on an H100 a
 * copy completes ~10 us sooner than a kernel launched beside a running
 * kernel (docs/DESIGN.md, "The queue path's costs").
 *
 * Order inside a buffer: records apply in parallel, except that a record
 * marked ordered starts a new segment that begins only after every earlier
 * record is applied and made visible (system fence). Ordered are: a record
 * the owner marks (the first after a fence, a signal after its data), and
 * a record that touches a word an earlier record of the same segment
 * touches (two writes to one word land in issue order, as they do through
 * a stream; a small hash of the segment's words finds them). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gshmem_types.h"
#include "heap_cuda_batch.h"
extern "C" {
#include "base/util/log.h"
}

#define CBATCH_RECS 1024u    /* records per buffer */
#define CBATCH_BUFS 4u
#define CBATCH_THREADS 256u
#define CBATCH_SEG_SLOTS 4096u    /* the segment's word hash (> 2 x records) */
#define CBATCH_COPY_MAX 4u   /* a flush of this many puts or fewer: copies */

#define CBATCH_ORDERED (1u << 8)

typedef struct cbatch_rec {
    uint64_t dst;      /* device address (this GPU's or a peer's, mapped) */
    uint64_t value;    /* the bytes of a put (little-endian), an AMO's operand */
    uint32_t kind;     /* GSHMEMI_CBATCH_PUT/_SET/_ADD | CBATCH_ORDERED */
    uint32_t size;     /* 1..8 for puts, 4 or 8 for AMOs */
    uint64_t pad;
} cbatch_rec_t;
static_assert(sizeof(cbatch_rec_t) == 32, "a batch record is 32 bytes");

struct gshmemi_cbatch {
    pthread_mutex_t lock;
    cbatch_rec_t *host;            /* [BUFS][RECS], pinned and mapped */
    cbatch_rec_t *dev;             /* the same for the GPU */
    cudaEvent_t done[CBATCH_BUFS];
    int launched[CBATCH_BUFS];     /* its kernel is in the stream */
    uint32_t cur, n;               /* the filling buffer and its records */
    uint32_t n_amo;                /* of them SET/ADD (these need the kernel) */
    int fence_next;                /* the next record starts a new segment */
    uint32_t gen;                  /* the segment's number: seg_gen == gen is "in it" */
    uint64_t seg_word[CBATCH_SEG_SLOTS];
    uint32_t seg_gen[CBATCH_SEG_SLOTS];
    int device;                    /* the owner's CUDA device */
    cudaStream_t stream;           /* the owner's stream */
    const char *owner;             /* for messages */
    uint64_t records, launches, copies, segments;   /* statistics */
};

/* Looks word up in the current segment's hash and adds it; 1 if it was there. */
static int cbatch_seg_touch(gshmemi_cbatch_t *b, uint64_t word)
{
    uint32_t h = (uint32_t)((word * 0x9e3779b97f4a7c15ull) >> 52) & (CBATCH_SEG_SLOTS - 1);
    for (;; h = (h + 1) & (CBATCH_SEG_SLOTS - 1)) {
        if (b->seg_gen[h] != b->gen) {
            b->seg_gen[h] = b->gen;
            b->seg_word[h] = word;
            return 0;
        }
        if (b->seg_word[h] == word)
            return 1;
    }
}

static __device__ void cbatch_rec_apply(const cbatch_rec_t *r)
{
    uint32_t kind = r->kind & 0xffu;
    if (kind == GSHMEMI_CBATCH_SET) {
        if (r->size == 4)
            atomicExch_system((unsigned int *)r->dst, (unsigned int)r->value);
        else
            atomicExch_system((unsigned long long *)r->dst, (unsigned long long)r->value);
    } else if (kind == GSHMEMI_CBATCH_ADD) {
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
static __global__ void cbatch_kernel(const cbatch_rec_t *recs, uint32_t n)
{
    __shared__ cbatch_rec_t s[CBATCH_THREADS];
    __shared__ uint32_t seg_end;
    for (uint32_t base = 0; base < n; base += blockDim.x) {
        uint32_t cn = n - base < blockDim.x ? n - base : blockDim.x;
        if (threadIdx.x < cn)
            s[threadIdx.x] = recs[base + threadIdx.x];
        __syncthreads();
        for (uint32_t start = 0; start < cn;) {
            if (threadIdx.x == 0) {
                uint32_t e = start + 1;
                while (e < cn && !(s[e].kind & CBATCH_ORDERED))
                    e++;
                seg_end = e;
            }
            __syncthreads();
            uint32_t end = seg_end;
            if (start + threadIdx.x < end)
                cbatch_rec_apply(&s[start + threadIdx.x]);
            __threadfence_system();
            __syncthreads();
            start = end;
        }
    }
}

/* Logs e for b's owner; returns GSHMEM_ERR_TRANSPORT. */
static int cbatch_fail(const gshmemi_cbatch_t *b, cudaError_t e, const char *what)
{
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "%s: small-op batch: %s failed: %s", b->owner, what,
                  cudaGetErrorString(e));
    (void)cudaGetLastError();
    return GSHMEM_ERR_TRANSPORT;
}

/* Makes b's device current; returns the one to restore (-1: none). */
static int cbatch_dev_enter(const gshmemi_cbatch_t *b)
{
    int cur = -1;
    if (cudaGetDevice(&cur) == cudaSuccess && cur != b->device &&
        cudaSetDevice(b->device) == cudaSuccess)
        return cur;
    (void)cudaGetLastError();
    return -1;
}

static void cbatch_dev_leave(int prev)
{
    if (prev >= 0)
        (void)cudaSetDevice(prev);
}

extern "C" int gshmemi_cbatch_create(int device, void *stream, const char *owner,
                                     gshmemi_cbatch_t **b_p)
{
    gshmemi_cbatch_t *b = (gshmemi_cbatch_t *)calloc(1, sizeof *b);
    size_t bytes = (size_t)CBATCH_BUFS * CBATCH_RECS * sizeof(cbatch_rec_t);

    if (b == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "%s: out of host memory for the small-op batch",
                      owner);
        return GSHMEM_ERR_NOMEM;
    }
    pthread_mutex_init(&b->lock, NULL);
    b->gen = 1;   /* seg_gen starts at 0: no word in the first segment */
    b->device = device;
    b->stream = (cudaStream_t)stream;
    b->owner = owner;
    int prev = cbatch_dev_enter(b);
    cudaError_t e = cudaHostAlloc((void **)&b->host, bytes,
                                  cudaHostAllocMapped | cudaHostAllocPortable);
    if (e == cudaSuccess)
        e = cudaHostGetDevicePointer((void **)&b->dev, b->host, 0);
    for (unsigned i = 0; e == cudaSuccess && i < CBATCH_BUFS; i++)
        e = cudaEventCreateWithFlags(&b->done[i], cudaEventDisableTiming);
    const char *what = "setting up (cudaHostAlloc, cudaEventCreate)";
    if (e == cudaSuccess) {
        /* Load the kernel now: a first launch while a user kernel waits for
         * the owner (lazy module loading) would wait for that kernel. */
        what = "first launch of the kernel";
        cbatch_kernel<<<1, CBATCH_THREADS, 0, b->stream>>>(b->dev, 0);
        e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(b->stream);
    }
    cbatch_dev_leave(prev);
    if (e != cudaSuccess) {
        int rc = cbatch_fail(b, e, what);
        gshmemi_cbatch_destroy(b);
        return rc;
    }
    *b_p = b;
    return GSHMEM_SUCCESS;
}

extern "C" void gshmemi_cbatch_destroy(gshmemi_cbatch_t *b)
{
    if (b == NULL)
        return;
    GSHMEMI_DEBUG(GSHMEMI_SUBSYS_HEAP, "%s: small-op batch: %llu records in %llu kernels and "
                  "%llu copies, %llu ordered segments", b->owner,
                  (unsigned long long)b->records, (unsigned long long)b->launches,
                  (unsigned long long)b->copies, (unsigned long long)b->segments);
    for (unsigned i = 0; i < CBATCH_BUFS; i++)
        if (b->done[i] != NULL)
            (void)cudaEventDestroy(b->done[i]);
    if (b->host != NULL)
        (void)cudaFreeHost(b->host);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

/* Applies the filling buffer (lock held): its kernel, or copies (a few
 * puts); then moves to the next buffer, waiting for its previous use. The
 * copies run in stream order, which is issue order: every segment holds. */
static int cbatch_launch(gshmemi_cbatch_t *b)
{
    cbatch_rec_t *recs = b->host + (size_t)b->cur * CBATCH_RECS;
    cudaError_t e = cudaSuccess;
    if (b->n == 0)
        return GSHMEM_SUCCESS;
    int prev = cbatch_dev_enter(b);
    if (b->n <= CBATCH_COPY_MAX && b->n_amo == 0) {
        for (uint32_t i = 0; e == cudaSuccess && i < b->n; i++)
            e = cudaMemcpyAsync((void *)(uintptr_t)recs[i].dst, &recs[i].value, recs[i].size,
                                cudaMemcpyDefault, b->stream);
        b->copies += b->n;
    } else {
        cbatch_kernel<<<1, CBATCH_THREADS, 0, b->stream>>>(b->dev + (size_t)b->cur * CBATCH_RECS,
                                                           b->n);
        e = cudaGetLastError();
        b->launches++;
    }
    if (e == cudaSuccess)
        e = cudaEventRecord(b->done[b->cur], b->stream);
    cbatch_dev_leave(prev);
    if (e != cudaSuccess)
        return cbatch_fail(b, e, "launch");
    b->launched[b->cur] = 1;
    b->records += b->n;
    b->cur = (b->cur + 1) % CBATCH_BUFS;
    b->n = 0;
    b->n_amo = 0;
    b->fence_next = 0;   /* kernel boundaries order everything */
    b->gen++;
    if (b->launched[b->cur]) {   /* all buffers in flight: the oldest must finish */
        e = cudaEventSynchronize(b->done[b->cur]);
        if (e != cudaSuccess)
            return cbatch_fail(b, e, "kernel");
        b->launched[b->cur] = 0;
    }
    return GSHMEM_SUCCESS;
}

extern "C" int gshmemi_cbatch_flush(gshmemi_cbatch_t *b)
{
    pthread_mutex_lock(&b->lock);   /* b->n is read under it too (launch returns at 0) */
    int rc = cbatch_launch(b);
    pthread_mutex_unlock(&b->lock);
    return rc;
}

extern "C" int gshmemi_cbatch_add(gshmemi_cbatch_t *b, void *dst, gshmemi_cbatch_kind_t kind,
                                  uint64_t value, uint32_t size, int ordered)
{
    int rc = GSHMEM_SUCCESS;
    uint64_t first = (uint64_t)(uintptr_t)dst >> 3;
    uint64_t last = ((uint64_t)(uintptr_t)dst + size - 1) >> 3;

    pthread_mutex_lock(&b->lock);
    if (ordered || b->fence_next) {
        b->gen++;   /* a new segment: no word in it yet */
        ordered = 1;
    }
    for (uint64_t w = first; w <= last; w++)
        if (cbatch_seg_touch(b, w) && !ordered) {
            b->gen++;   /* this word again: a new segment, starting with it */
            ordered = 1;
            w = first - 1;
        }
    b->segments += ordered != 0;
    cbatch_rec_t *r = b->host + (size_t)b->cur * CBATCH_RECS + b->n;
    r->dst = (uint64_t)(uintptr_t)dst;
    r->value = value;
    r->kind = (uint32_t)kind | (ordered ? CBATCH_ORDERED : 0u);
    r->size = size;
    b->n_amo += kind != GSHMEMI_CBATCH_PUT;
    b->fence_next = 0;
    if (++b->n == CBATCH_RECS)
        rc = cbatch_launch(b);
    pthread_mutex_unlock(&b->lock);
    return rc;
}

extern "C" void gshmemi_cbatch_fence(gshmemi_cbatch_t *b)
{
    pthread_mutex_lock(&b->lock);
    b->fence_next = b->n > 0;
    pthread_mutex_unlock(&b->lock);
}
