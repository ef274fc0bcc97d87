/* sar_gen.h: the benchmark's input generator, the same code on the host
 * (check reference, host PEs) and on the GPU (large inputs are generated
 * where they are used). Every value is a pure function of (case, PE, row,
 * column), so any PE can rebuild any other PE's input.
 *
 * Indices: uniform over [0, n_rows); or Zipf(s) ranks drawn by inverting
 * the continuous bounded power law on [1, n_rows + 1) and mapped to indices
 * by a fixed permutation (rank * perm_a mod n_rows), so that hot rows are
 * spread over the index range as hashed feature ids are (ranks taken as
 * indices would put every hot row on owner 0); or a few values only (many
 * duplicates); or the same indices on every PE. Values: uniform in [-1, 1).
 */
#ifndef SAR_GEN_H
#define SAR_GEN_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define SAR_HD __host__ __device__
#else
#define SAR_HD
#endif

enum { SAR_DIST_UNIFORM = 0, SAR_DIST_ZIPF, SAR_DIST_FEW, SAR_DIST_SAME };

typedef struct sar_case {
    char name[24];
    int64_t n_rows;
    int dim;
    int64_t nnz;        /* rows on each PE (but empty_pe) */
    int dist;           /* SAR_DIST_* */
    double zipf_s;
    int64_t perm_a;     /* odd multiplier, coprime to n_rows (sar_case_fix) */
    int empty_pe;       /* this PE has no rows; -1: none */
    int bad_pe;         /* this PE's row bad_pos gets index bad_val; -1: none */
    int64_t bad_pos, bad_val;
    uint64_t seed;
} sar_case_t;

SAR_HD static inline uint64_t sar_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

SAR_HD static inline int64_t sar_case_nnz(const sar_case_t *c, int pe)
{
    return pe == c->empty_pe ? 0 : c->nnz;
}

SAR_HD static inline int64_t sar_gen_index(const sar_case_t *c, int pe, int64_t i)
{
    if (pe == c->bad_pe && i == c->bad_pos)
        return c->bad_val;
    int who = c->dist == SAR_DIST_SAME ? 0 : pe;
    uint64_t h = sar_mix(c->seed ^ sar_mix(((uint64_t)who << 40) ^ (uint64_t)i));
    uint64_t n = (uint64_t)c->n_rows;
    if (c->dist == SAR_DIST_FEW)
        return (int64_t)((h % 7) * (n / 7));
    if (c->dist != SAR_DIST_ZIPF)
        return (int64_t)(h % n);
    double u = ((double)(h >> 11) + 0.5) * (1.0 / 9007199254740992.0);   /* (0, 1) */
    double e = 1.0 - c->zipf_s;
    double x = pow((pow((double)n + 1.0, e) - 1.0) * u + 1.0, 1.0 / e);
    uint64_t rank = (uint64_t)x - 1;
    if (rank >= n)
        rank = n - 1;
    /* rank * perm_a mod n, without overflow for n < 2^31 */
    return (int64_t)((rank * ((uint64_t)c->perm_a % n)) % n);
}

SAR_HD static inline float sar_gen_value(const sar_case_t *c, int pe, int64_t i, int col)
{
    uint64_t h = sar_mix(c->seed * 31u + sar_mix(((uint64_t)pe << 56) ^ ((uint64_t)i << 16) ^
                                                  (uint64_t)col));
    return (float)(h >> 40) * (1.0f / 8388608.0f) - 1.0f;   /* 24 bits: [-1, 1) */
}

#endif
