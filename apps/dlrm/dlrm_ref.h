/* dlrm_ref.h: the CPU reference (fp64 sums of the stored weights) and the
 * comparisons of --check.
 *
 * Tolerances (documented in the README):
 * - against the reference: |got - ref| <= (L + 2) * 2^-23 * sum|w| + 2^-30
 *   per output element, L the bag length and sum|w| the sum of the
 *   magnitudes of its terms (twice the classic bound of fp32 recursive or
 *   tree summation, (L - 1) * 2^-24 * sum|w|);
 * - fused or compute_only against baseline (large configs, every element):
 *   |a - b| <= Lmax * 2^-22 * max(1, |b|); both pool with the same code in
 *   the same order, so in practice they agree bit for bit.
 * A NaN never passes: outputs are poisoned with NaN before a checked run,
 * so a row nobody wrote is caught. */
#ifndef DLRM_REF_H
#define DLRM_REF_H

#include <stddef.h>
#include <stdint.h>

#include "dlrm_inputs.h"
#include "dlrm_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reference of my local samples rows[0..n) (ascending local indices) over
 * all T tables: ref and mag are [n][T * D], blen [n][T]. 0, or -1 when out
 * of memory. */
int dlrm_ref_rows(const dlrm_inputs_t *in, const dlrm_part_t *p, dlrm_dtype_t dt,
                  const int64_t *rows, int n, double *ref, double *mag, int32_t *blen);

/* got: n rows of T * D floats, row i at got + i * ld. Returns the number
 * of elements out of tolerance (NaN included); the first one is described
 * in first; *max_err_p gets the largest |got - ref|. */
int64_t dlrm_ref_compare(const float *got, size_t ld, const double *ref, const double *mag,
                         const int32_t *blen, const dlrm_part_t *p, const int64_t *rows, int n,
                         char *first, size_t firstlen, double *max_err_p);

/* Host form of the every-element comparison of two outputs (rows x cols,
 * leading dimensions lda, ldb): the count out of tolerance, first described. */
int64_t dlrm_cmp_outputs(const float *a, size_t lda, const float *b, size_t ldb, int64_t rows,
                         int64_t cols, int lmax, const char *what, char *first, size_t firstlen);

/* The local samples a check looks at: every one on small cases, else an
 * evenly spread subset (first and last included) whose reference costs
 * about budget term-elements. Returns n, rows filled (capacity Bp). */
int dlrm_ref_pick_rows(const dlrm_part_t *p, double mean_len, double budget, int64_t *rows);

#ifdef __cplusplus
}
#endif

#endif /* DLRM_REF_H */
