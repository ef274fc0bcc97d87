/* dlrm_ref.c: see dlrm_ref.h. */
#include "dlrm_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int dlrm_ref_rows(const dlrm_inputs_t *in, const dlrm_part_t *p, dlrm_dtype_t dt,
                  const int64_t *rows, int n, double *ref, double *mag, int32_t *blen)
{
    const int64_t TD = p->T * p->D, base = (int64_t)p->me * p->Bp;
    for (size_t i = 0; i < (size_t)n * (size_t)TD; i++)
        ref[i] = mag[i] = 0.0;
    for (int64_t t = 0; t < p->T; t++) {
        int64_t nrows = dlrm_inputs_rows(in, t), k = 0, b = 0;
        for (int i = 0; i < n; i++) {
            int64_t want = base + rows[i], beg, len;
            if (in->from_file) {
                beg = in->off[t][want];
                len = in->off[t][want + 1] - beg;
            } else {
                for (; b < want; b++)   /* prefix sum of the bag lengths */
                    k += dlrm_gen_len(in->seeds, t, b, in->lmax, in->fixed);
                beg = k;
                len = dlrm_gen_len(in->seeds, t, want, in->lmax, in->fixed);
            }
            blen[(size_t)i * p->T + t] = (int32_t)len;
            double *r = ref + (size_t)i * TD + t * p->D, *m = mag + (size_t)i * TD + t * p->D;
            for (int64_t j = 0; j < len; j++) {
                int64_t row = in->from_file ? in->idx[t][beg + j]
                                            : dlrm_gen_idx(in->seeds, t, beg + j, nrows);
                for (int d = 0; d < p->D; d++) {
                    double w = dlrm_w_stored(in->seeds, t, row, p->D, d, dt);
                    r[d] += w;
                    m[d] += fabs(w);
                }
            }
        }
    }
    return 0;
}

int64_t dlrm_ref_compare(const float *got, size_t ld, const double *ref, const double *mag,
                         const int32_t *blen, const dlrm_part_t *p, const int64_t *rows, int n,
                         char *first, size_t firstlen, double *max_err_p)
{
    const int64_t TD = p->T * p->D;
    int64_t bad = 0;
    double max_err = 0;
    for (int i = 0; i < n; i++)
        for (int64_t c = 0; c < TD; c++) {
            double g = got[(size_t)i * ld + c], r = ref[(size_t)i * TD + c];
            double L = blen[(size_t)i * p->T + c / p->D];
            double tol = (L + 2.0) * ldexp(1.0, -23) * mag[(size_t)i * TD + c] + ldexp(1.0, -30);
            double err = fabs(g - r);
            if (!(err <= tol)) {   /* NaN fails */
                if (bad == 0)
                    snprintf(first, firstlen, "PE %d: local sample %lld (global %lld), table %lld, "
                             "element %lld: got %.9g, reference %.9g (tolerance %.3g)%s", p->me,
                             (long long)rows[i], (long long)(p->me * p->Bp + rows[i]),
                             (long long)(c / p->D), (long long)(c % p->D), g, r, tol,
                             isnan(g) ? " -- never written (poison)" : "");
                bad++;
            }
            if (err > max_err)
                max_err = err;
        }
    *max_err_p = max_err;
    return bad;
}

int64_t dlrm_cmp_outputs(const float *a, size_t lda, const float *b, size_t ldb, int64_t rows,
                         int64_t cols, int lmax, const char *what, char *first, size_t firstlen)
{
    int64_t bad = 0;
    double rtol = lmax * ldexp(1.0, -22);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t c = 0; c < cols; c++) {
            double x = a[(size_t)i * lda + c], y = b[(size_t)i * ldb + c];
            double tol = rtol * (fabs(y) > 1.0 ? fabs(y) : 1.0);
            if (!(fabs(x - y) <= tol)) {
                if (bad == 0)
                    snprintf(first, firstlen, "%s: row %lld, column %lld: %.9g vs %.9g", what,
                             (long long)i, (long long)c, x, y);
                bad++;
            }
        }
    return bad;
}

int dlrm_ref_pick_rows(const dlrm_part_t *p, double mean_len, double budget, int64_t *rows)
{
    double per_row = (double)p->T * p->D * (mean_len > 1 ? mean_len : 1);
    int64_t n = (int64_t)(budget / per_row);
    if (n >= p->Bp) {
        for (int64_t i = 0; i < p->Bp; i++)
            rows[i] = i;
        return (int)p->Bp;
    }
    if (n < 2)
        n = p->Bp < 2 ? p->Bp : 2;
    for (int64_t i = 0; i < n; i++)
        rows[i] = n == 1 ? 0 : i * (p->Bp - 1) / (n - 1);
    return (int)n;
}
