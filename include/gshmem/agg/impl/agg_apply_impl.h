/* agg_apply_impl.h: bodies of the aggregator's receive side (contracts:
 * ../agg_apply.h; design: docs/DESIGN.md#the-aggregator). Included by
 * agg_apply.h only. */
#ifndef GSHMEMI_AGG_APPLY_IMPL_H
#define GSHMEMI_AGG_APPLY_IMPL_H

#if defined(GSHMEMI_PORT_HOST)
#include <stdio.h>
#include <string.h>
#endif

/* One record's payload, by one thread: 8-, 4- or 1-byte words as the
 * destination allows (the source, a payload, is 8-byte aligned). Device
 * code; the host uses memcpy. */
GSHMEMI_HD void gshmemi_agg_copy_rec(uint8_t *dst, const uint8_t *src, uint32_t len)
{
    uint32_t i = 0;
    if (((uintptr_t)dst & 7u) == 0) {
        for (; i + 8 <= len; i += 8)
            *(uint64_t *)(dst + i) = *(const uint64_t *)(src + i);
    } else if (((uintptr_t)dst & 3u) == 0) {
        for (; i + 4 <= len; i += 4)
            *(uint32_t *)(dst + i) = *(const uint32_t *)(src + i);
    }
    for (; i < len; i++)
        dst[i] = src[i];
}

GSHMEMI_HD int gshmemi_agg_validate(const uint8_t *buf, uint32_t bytes, uint64_t heap_size,
                                    uint32_t *nrec_p, gshmemi_agg_apply_err_t *err_p)
{
    uint32_t nrec = 0;
    int rc = GSHMEM_SUCCESS;
    uint64_t pos = 0, hdr = 0;
    if ((bytes & 7u) != 0) {
        rc = GSHMEM_ERR_INVALID_ARG;       /* reported at pos 0, header 0 */
    } else {
        for (; pos < bytes; nrec++) {
            hdr = *(const uint64_t *)(buf + pos);
            uint64_t off = gshmemi_agg_rec_offset(hdr);
            uint32_t len = gshmemi_agg_rec_len(hdr);
            if (gshmemi_agg_rec_magic(hdr) != GSHMEMI_AGG_REC_MAGIC || len == 0 ||
                gshmemi_agg_rec_size(len) > bytes - pos) {
                rc = GSHMEM_ERR_INVALID_ARG;
                break;
            }
            if (off > heap_size || len > heap_size - off) {
                rc = GSHMEM_ERR_OUT_OF_HEAP;
                break;
            }
            pos += gshmemi_agg_rec_size(len);
        }
    }
    if (rc != GSHMEM_SUCCESS) {
        if (err_p) {
            err_p->at = pos;
            err_p->offset = gshmemi_agg_rec_offset(hdr);
            err_p->len = gshmemi_agg_rec_len(hdr);
            err_p->magic = gshmemi_agg_rec_magic(hdr);
        }
        return rc;
    }
    if (nrec_p)
        *nrec_p = nrec;
    return GSHMEM_SUCCESS;
}

GSHMEMI_HD void gshmemi_agg_apply_part(uint8_t *base, const uint8_t *buf, uint32_t bytes,
                                       uint32_t worker, uint32_t nworkers, uint32_t lane,
                                       uint32_t nlanes)
{
    uint32_t k = 0;
    for (uint64_t pos = 0; pos < bytes; k++) {
        uint64_t hdr = *(const uint64_t *)(buf + pos);
        uint32_t len = gshmemi_agg_rec_len(hdr);
        if (k % nworkers == worker) {
            uint8_t *dst = base + gshmemi_agg_rec_offset(hdr);
            const uint8_t *src = buf + pos + GSHMEMI_AGG_HDR_BYTES;
            if (nlanes == 1) {
#if defined(GSHMEMI_PORT_HOST)
                memcpy(dst, src, len);
#else
                gshmemi_agg_copy_rec(dst, src, len);
#endif
            } else {
                for (uint32_t i = lane; i < len; i += nlanes)
                    dst[i] = src[i];
            }
        }
        pos += gshmemi_agg_rec_size(len);
    }
}

GSHMEMI_HD int gshmemi_agg_apply(uint8_t *base, uint64_t heap_size, const uint8_t *buf,
                                 uint32_t bytes, uint32_t *nrec_p,
                                 gshmemi_agg_apply_err_t *err_p)
{
    uint32_t nrec = 0;
    int rc = gshmemi_agg_validate(buf, bytes, heap_size, &nrec, err_p);
    if (rc != GSHMEM_SUCCESS)
        return rc;
    gshmemi_agg_apply_part(base, buf, bytes, 0, 1, 0, 1);
    if (nrec_p)
        *nrec_p = nrec;
    return GSHMEM_SUCCESS;
}

#if defined(__CUDACC__) || defined(__HIPCC__)
__device__ inline int gshmemi_agg_apply_block(uint8_t *base, uint64_t heap_size,
                                              const uint8_t *buf, uint32_t bytes,
                                              gshmemi_agg_apply_err_t *err_p)
{
    uint32_t ws = (uint32_t)warpSize;
    uint32_t warp = threadIdx.x / ws, nwarps = (blockDim.x + ws - 1) / ws;
    gshmemi_agg_apply_err_t err;
    /* every thread validates (same verdict everywhere, no barrier needed) */
    int rc = gshmemi_agg_validate(buf, bytes, heap_size, NULL, &err);
    if (rc != GSHMEM_SUCCESS) {
        if (threadIdx.x == 0 && err_p)
            *err_p = err;
        return rc;
    }
    gshmemi_agg_apply_part(base, buf, bytes, warp, nwarps, threadIdx.x % ws, ws);
    return GSHMEM_SUCCESS;
}

__device__ inline int gshmemi_agg_apply_block_idx(uint8_t *base, uint64_t heap_size,
                                                  const uint8_t *buf, uint32_t bytes,
                                                  uint32_t *idx, uint32_t cap, int *sh,
                                                  gshmemi_agg_apply_err_t *err_p)
{
    const uint32_t t = threadIdx.x, nt = blockDim.x;
    if (t == 0)
        *sh = gshmemi_agg_validate(buf, bytes, heap_size, NULL, err_p);
    __syncthreads();
    int rc = *sh;
    __syncthreads();   /* everyone read the verdict before *sh is reused */
    if (rc != GSHMEM_SUCCESS)
        return rc;
    uint32_t pos = 0;   /* thread 0's walk position */
    for (;;) {
        if (t == 0) {
            uint32_t n = 0;
            while (pos < bytes && n < cap) {
                idx[n++] = pos;
                pos += gshmemi_agg_rec_size(gshmemi_agg_rec_len(*(const uint64_t *)(buf + pos)));
            }
            *sh = pos < bytes ? -(int)n : (int)n;   /* negative: more to come */
        }
        __syncthreads();
        int v = *sh;
        uint32_t n = (uint32_t)(v < 0 ? -v : v);
        for (uint32_t i = t; i < n; i += nt) {
            uint64_t hdr = *(const uint64_t *)(buf + idx[i]);
            gshmemi_agg_copy_rec(base + gshmemi_agg_rec_offset(hdr),
                                 buf + idx[i] + GSHMEMI_AGG_HDR_BYTES, gshmemi_agg_rec_len(hdr));
        }
        __syncthreads();   /* idx and *sh are reused */
        if (v >= 0)
            return GSHMEM_SUCCESS;
    }
}
#endif

#if defined(GSHMEMI_PORT_HOST)
static inline void gshmemi_agg_apply_describe(int rc, const gshmemi_agg_apply_err_t *e,
                                              uint64_t heap_size, char *msg, uint32_t n)
{
    unsigned long long at = e->at, off = e->offset, heap = heap_size;
    if (rc == GSHMEM_ERR_OUT_OF_HEAP)
        snprintf(msg, n, "aggregated record at byte %llu: offset %llu length %u is "
                 "outside the heap of %llu bytes", at, off, e->len, heap);
    else if (e->magic != GSHMEMI_AGG_REC_MAGIC)
        snprintf(msg, n, "aggregated record at byte %llu: bad magic 0x%02x (offset %llu "
                 "length %u)", at, e->magic, off, e->len);
    else
        snprintf(msg, n, "aggregated record at byte %llu: bad length %u (offset %llu; "
                 "zero, or past the end of the buffer, or a buffer not a multiple of 8)",
                 at, e->len, off);
}
#endif

#endif /* GSHMEMI_AGG_APPLY_IMPL_H */
