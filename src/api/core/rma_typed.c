/* rma_typed.c: the typed (gshmem_<T>_*, every type of the RMA table),
 * sized (gshmem_put8 .. gshmem_iget128) and strided (gshmem_iputmem,
 * gshmem_igetmem) forms of put and get, and the gshmem_ctx_ forms of the
 * typed and sized ones, all over gshmemi_rma_put_on/get_on (rma.c) and,
 * for the typed put-with-signal, gshmemi_signal_put (signal.c).
 *
 * Strided: both strides 1 is one contiguous put/get. A contiguous remote
 * side with a host heap packs the local side into one buffer (one message).
 * Anything else is one nbi put/get per element, then a quiet of the
 * context. */
#include <stdlib.h>
#include <string.h>

#include "core.h"

size_t gshmemi_rma_bytes(const char *call, size_t nelems, size_t size)
{
    if (nelems > SIZE_MAX / size)
        gshmemi_fatal(call, "nelems %zu of %zu-byte elements overflows size_t", nelems, size);
    return nelems * size;
}

/* Element i of an array of esz-byte elements with the given stride. */
static void *gshmemi_rma_elem(const void *base, size_t i, ptrdiff_t stride, size_t esz)
{
    return (char *)base + (ptrdiff_t)i * stride * (ptrdiff_t)esz;
}

/* Copy n elements between a strided array and a packed one (pack: into
 * the packed one). */
static void gshmemi_rma_pack(void *packed, void *strided, ptrdiff_t stride, size_t esz,
                             size_t n, int pack)
{
    for (size_t i = 0; i < n; i++) {
        void *e = gshmemi_rma_elem(strided, i, stride, esz);
        if (pack)
            memcpy((char *)packed + i * esz, e, esz);
        else
            memcpy(e, (char *)packed + i * esz, esz);
    }
}

void gshmemi_rma_strided_on(const char *call, gshmemi_ctx_t *c, int is_put, void *dest,
                            const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t esz, size_t n,
                            int pe)
{
    GSHMEMI_REQUIRE_INIT(call);
    if (n == 0)
        return;
    if (esz == 0)
        gshmemi_fatal(call, "element size 0");
    size_t bytes = gshmemi_rma_bytes(call, n, esz);
    gshmemi_check_local(call, is_put ? "source" : "dest", is_put ? src : dest, bytes, pe);
    ptrdiff_t remote = is_put ? dst : sst, local = is_put ? sst : dst;
    if (remote == 1 && (local == 1 || gshmemi_g.heap.kind == GSHMEMI_HEAP_HOST)) {
        unsigned char *tmp = NULL;
        if (local != 1 && (tmp = malloc(bytes)) == NULL)
            gshmemi_fatal(call, "no memory for a %zu-byte pack buffer", bytes);
        if (is_put) {
            if (tmp)
                gshmemi_rma_pack(tmp, (void *)src, sst, esz, n, 1);
            gshmemi_rma_put_on(call, c, dest, tmp ? tmp : src, bytes, pe, 0);
        } else {
            gshmemi_rma_get_on(call, c, tmp ? (void *)tmp : dest, src, bytes, pe, 0);
            if (tmp)
                gshmemi_rma_pack(tmp, dest, dst, esz, n, 0);
        }
        free(tmp);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        void *d = gshmemi_rma_elem(dest, i, dst, esz), *s = gshmemi_rma_elem(src, i, sst, esz);
        if (is_put)
            gshmemi_rma_put_on(call, c, d, s, esz, pe, 1);
        else
            gshmemi_rma_get_on(call, c, d, s, esz, pe, 1);
    }
    gshmemi_quiet_on(call, c);
}

void gshmem_iputmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                    size_t elem_size, size_t nelems, int pe)
{
    gshmemi_rma_strided("gshmem_iputmem", 1, dest, source, dst, sst, elem_size, nelems, pe);
}

void gshmem_igetmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                    size_t elem_size, size_t nelems, int pe)
{
    gshmemi_rma_strided("gshmem_igetmem", 0, dest, source, dst, sst, elem_size, nelems, pe);
}

/* The contiguous element forms shared by the typed and the sized ones. */
static void gshmemi_rma_xfer_n(const char *call, gshmemi_ctx_t *c, int is_put, void *dest,
                               const void *src, size_t nelems, size_t size, int pe, int nbi)
{
    size_t n = gshmemi_rma_bytes(call, nelems, size);
    if (is_put)
        gshmemi_rma_put_on(call, c, dest, src, n, pe, nbi);
    else
        gshmemi_rma_get_on(call, c, dest, src, n, pe, nbi);
}

/* In the macros below C is empty (the plain call, on the default context)
 * or ctx_ (its gshmem_ctx_ form, on the argument ctx: core.h). */

/* gshmem_<C><PRE><D><SUF>, its _nbi form and gshmem_<C><PRE>i<D><SUF> for D
 * put (IS_PUT 1) or get, on elements of SIZE bytes through pointers PT, CPT. */
#define GSHMEMI_DEF_RMA_DIR(C, PT, CPT, PRE, D, SUF, SIZE, IS_PUT)                        \
    void gshmem_##C##PRE##D##SUF(GSHMEMI_CTXA_##C PT dest, CPT source, size_t nelems,     \
                                 int pe)                                                  \
    {                                                                                     \
        const char *call = "gshmem_" #C #PRE #D #SUF;                                     \
        gshmemi_rma_xfer_n(call, GSHMEMI_CTX_OF_##C(call), IS_PUT, dest, source, nelems,  \
                           SIZE, pe, 0);                                                  \
    }                                                                                     \
    void gshmem_##C##PRE##D##SUF##_nbi(GSHMEMI_CTXA_##C PT dest, CPT source,              \
                                       size_t nelems, int pe)                             \
    {                                                                                     \
        const char *call = "gshmem_" #C #PRE #D #SUF "_nbi";                              \
        gshmemi_rma_xfer_n(call, GSHMEMI_CTX_OF_##C(call), IS_PUT, dest, source, nelems,  \
                           SIZE, pe, 1);                                                  \
    }                                                                                     \
    void gshmem_##C##PRE##i##D##SUF(GSHMEMI_CTXA_##C PT dest, CPT source,                 \
                                    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)  \
    {                                                                                     \
        const char *call = "gshmem_" #C #PRE "i" #D #SUF;                                 \
        gshmemi_rma_strided_on(call, GSHMEMI_CTX_OF_##C(call), IS_PUT, dest, source, dst, \
                               sst, SIZE, nelems, pe);                                    \
    }
#define GSHMEMI_DEF_RMA_N(C, PT, CPT, PRE, SUF, SIZE)                                 \
    GSHMEMI_DEF_RMA_DIR(C, PT, CPT, PRE, put, SUF, SIZE, 1)                           \
    GSHMEMI_DEF_RMA_DIR(C, PT, CPT, PRE, get, SUF, SIZE, 0)

/* put-with-signal of nelems T (NBI: empty or _nbi, nbi 0 or 1). */
#define GSHMEMI_DEF_RMA_SIG(C, T, N, NBI, nbi)                                           \
    void gshmem_##C##N##_put_signal##NBI(GSHMEMI_CTXA_##C T *dest, const T *source,      \
                                         size_t nelems, uint64_t *sig_addr,              \
                                         uint64_t signal, int sig_op, int pe)            \
    {                                                                                    \
        const char *call = "gshmem_" #C #N "_put_signal" #NBI;                           \
        gshmemi_signal_put(call, GSHMEMI_CTX_OF_##C(call), dest, source,                 \
                           gshmemi_rma_bytes(call, nelems, sizeof(T)), sig_addr, signal, \
                           sig_op, pe, nbi);                                             \
    }

/* The typed forms of one element type: the above, p, g, put_signal. */
#define GSHMEMI_DEF_RMA_C(C, T, N)                                                            \
    GSHMEMI_DEF_RMA_N(C, T *, const T *, N##_, , sizeof(T))                                   \
    void gshmem_##C##N##_p(GSHMEMI_CTXA_##C T *dest, T value, int pe)                         \
    {                                                                                         \
        const char *call = "gshmem_" #C #N "_p";                                              \
        gshmemi_rma_put_on(call, GSHMEMI_CTX_OF_##C(call), dest, &value, sizeof(T), pe, 0);   \
    }                                                                                         \
    T gshmem_##C##N##_g(GSHMEMI_CTXA_##C const T *source, int pe)                             \
    {                                                                                         \
        const char *call = "gshmem_" #C #N "_g";                                              \
        T value;                                                                              \
        gshmemi_rma_get_on(call, GSHMEMI_CTX_OF_##C(call), &value, source, sizeof(T), pe, 0); \
        return value;                                                                         \
    }                                                                                         \
    GSHMEMI_DEF_RMA_SIG(C, T, N, , 0)                                                         \
    GSHMEMI_DEF_RMA_SIG(C, T, N, _nbi, 1)
#define GSHMEMI_DEF_RMA(T, N) GSHMEMI_DEF_RMA_C(, T, N) GSHMEMI_DEF_RMA_C(ctx_, T, N)

/* Every type of gshmem.h's RMA list (impl/gshmem_coll_types.h). */
GSHMEMI_RMA_EACH_TYPE(GSHMEMI_DEF_RMA)
GSHMEMI_HOST_RMA_EXTRA(GSHMEMI_DEF_RMA)

#define GSHMEMI_DEF_SIZED(SUF, SIZE)                                                  \
    GSHMEMI_DEF_RMA_N(, void *, const void *, , SUF, SIZE)                            \
    GSHMEMI_DEF_RMA_N(ctx_, void *, const void *, , SUF, SIZE)
GSHMEMI_DEF_SIZED(8, 1)
GSHMEMI_DEF_SIZED(16, 2)
GSHMEMI_DEF_SIZED(32, 4)
GSHMEMI_DEF_SIZED(64, 8)
GSHMEMI_DEF_SIZED(128, 16)
