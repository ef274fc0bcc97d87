/* dlrm_inputs.h: the sparse inputs of a case (bag offsets and indices per
 * table), from the generator of dlrm_gen.h or from a binary file, and the
 * local CSR a PE pools from.
 *
 * Binary file (--inputs FILE; --dump-inputs FILE writes one), little-endian:
 *   char magic[8] = "GSDLRM01"; uint32 version = 1; uint32 T; uint64 B;
 *   then per table t: uint64 rows_t, uint64 nnz_t;
 *   then per table t: int64 offsets[B+1] (offsets[0] = 0, non-decreasing,
 *   offsets[B] = nnz_t), int64 indices[nnz_t] (each in [0, rows_t)).
 * The file carries no weights: w(t, r, d) of dlrm_gen.h gives them. Opening
 * checks all of it (sizes against the file length, offsets, index ranges)
 * and names the first violation. */
#ifndef DLRM_INPUTS_H
#define DLRM_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "dlrm_gen.h"
#include "dlrm_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DLRM_FILE_MAGIC "GSDLRM01"
#define DLRM_FILE_VERSION 1u

typedef struct dlrm_inputs {
    int64_t T, B;
    int from_file;
    /* generator */
    uint32_t seed;
    dlrm_seeds_t seeds;
    int lmax, fixed;
    int64_t rows;
    /* file: a read-only mapping and pointers into it */
    void *map;
    size_t map_len;
    int64_t *rows_t;          /* [T] */
    int64_t *nnz;             /* [T] */
    const int64_t **off;      /* [T] -> offsets[B + 1] */
    const int64_t **idx;      /* [T] -> indices[nnz_t] */
    int lmax_seen;            /* longest bag in the file */
} dlrm_inputs_t;

/* Generator inputs for case c. */
void dlrm_inputs_gen(dlrm_inputs_t *in, const dlrm_case_t *c, uint32_t seed);
/* Maps and checks a file; 0, or -1 with the reason in why. */
int dlrm_inputs_open(dlrm_inputs_t *in, const char *path, char *why, size_t whylen);
void dlrm_inputs_close(dlrm_inputs_t *in);
/* Writes in (all tables) to path in the file format; 0, or -1 with why. */
int dlrm_inputs_write(const dlrm_inputs_t *in, const char *path, char *why, size_t whylen);

int64_t dlrm_inputs_rows(const dlrm_inputs_t *in, int64_t t);
/* Longest possible bag (generator: lmax; file: the longest seen). */
int dlrm_inputs_lmax(const dlrm_inputs_t *in);

/* The local CSR of tables [t0, t0 + tn):
 *   off[t * (B + 1) + b]: absolute position in idx of bag (t, b)'s first
 *   index, off[t * (B + 1) + B] its table's end; idx: table-local rows;
 *   wrow[t]: the table's first row in the local weight array (wrow[tn] =
 *   total rows). */
typedef struct dlrm_local {
    int64_t tn, B, nnz;
    int64_t *off, *idx, *wrow;
} dlrm_local_t;

/* 0, or -1 when out of memory (why says how much). */
int dlrm_local_build(dlrm_local_t *l, const dlrm_inputs_t *in, int64_t t0, int64_t tn,
                     char *why, size_t whylen);
void dlrm_local_free(dlrm_local_t *l);

/* A weight as stored (fp32, or rounded to fp16/bf16), back in fp32. */
static inline float dlrm_w_stored(dlrm_seeds_t s, int64_t t, int64_t r, int dim, int d,
                                  dlrm_dtype_t dt)
{
    float w = dlrm_gen_w(s, t, r, dim, d);
    if (dt == DLRM_F16)
        return dlrm_f16_to_f32(dlrm_f32_to_f16(w));
    if (dt == DLRM_BF16)
        return dlrm_bf16_to_f32(dlrm_f32_to_bf16(w));
    return w;
}

#ifdef __cplusplus
}
#endif

#endif /* DLRM_INPUTS_H */
