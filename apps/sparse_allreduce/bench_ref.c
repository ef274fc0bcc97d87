/* bench_ref.c: the CPU fp64 reference of the checks: every PE's input is
 * regenerated here (sar_gen.h), summed in double per index, and a result
 * is compared row by row with a bound on fp32 summation error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct { int64_t key; int pe; int64_t i; } ref_row_t;

static int row_cmp(const void *a, const void *b)
{
    const ref_row_t *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

int bench_ref_build(bench_ref_t *r, const sar_case_t *c, int np, int64_t nnz_limit)
{
    memset(r, 0, sizeof *r);
    int64_t total = 0;
    for (int p = 0; p < np; p++) {
        int64_t n = sar_case_nnz(c, p);
        total += nnz_limit >= 0 && nnz_limit < n ? nnz_limit : n;
    }
    ref_row_t *rows = malloc((size_t)(total > 0 ? total : 1) * sizeof *rows);
    if (rows == NULL)
        return -1;
    int64_t t = 0;
    for (int p = 0; p < np; p++) {
        int64_t n = sar_case_nnz(c, p);
        if (nnz_limit >= 0 && nnz_limit < n)
            n = nnz_limit;
        for (int64_t i = 0; i < n; i++)
            rows[t++] = (ref_row_t){sar_gen_index(c, p, i), p, i};
    }
    qsort(rows, (size_t)total, sizeof *rows, row_cmp);
    int64_t u = 0;
    for (int64_t i = 0; i < total; i++)
        u += i == 0 || rows[i].key != rows[i - 1].key;
    size_t d = (size_t)c->dim;
    r->idx = malloc((size_t)(u > 0 ? u : 1) * sizeof *r->idx);
    r->val = calloc((size_t)(u > 0 ? u : 1) * d, sizeof *r->val);
    r->mag = calloc((size_t)(u > 0 ? u : 1) * d, sizeof *r->mag);
    r->terms = calloc((size_t)(u > 0 ? u : 1), sizeof *r->terms);
    if (r->idx == NULL || r->val == NULL || r->mag == NULL || r->terms == NULL) {
        free(rows);
        bench_ref_free(r);
        return -1;
    }
    int64_t j = -1;
    for (int64_t i = 0; i < total; i++) {
        if (i == 0 || rows[i].key != rows[i - 1].key)
            r->idx[++j] = rows[i].key;
        r->terms[j]++;
        for (size_t k = 0; k < d; k++) {
            double v = sar_gen_value(c, rows[i].pe, rows[i].i, (int)k);
            r->val[(size_t)j * d + k] += v;
            r->mag[(size_t)j * d + k] += fabs(v);
        }
    }
    r->count = u;
    free(rows);
    return 0;
}

void bench_ref_free(bench_ref_t *r)
{
    free(r->idx);
    free(r->val);
    free(r->mag);
    free(r->terms);
    memset(r, 0, sizeof *r);
}

int64_t bench_ref_compare(const bench_ref_t *r, int dim, int64_t count, const int64_t *idx,
                          const float *val, char *what, size_t whatlen)
{
    if (count != r->count) {
        snprintf(what, whatlen, "%lld output rows, the reference has %lld", (long long)count,
                 (long long)r->count);
        return count > r->count ? count - r->count : r->count - count;
    }
    int64_t bad = 0;
    for (int64_t j = 0; j < count; j++) {
        int row_bad = idx[j] != r->idx[j];
        if (row_bad && bad == 0)
            snprintf(what, whatlen, "row %lld: index %lld, the reference has %lld",
                     (long long)j, (long long)idx[j], (long long)r->idx[j]);
        for (int k = 0; k < dim && !row_bad; k++) {
            size_t o = (size_t)j * dim + k;
            /* fp32 summation of `terms` values: error below terms * eps * sum|v| */
            double tol = (r->terms[j] + 1) * 1.2e-7 * r->mag[o] + 1e-6;
            if (!(fabs((double)val[o] - r->val[o]) <= tol)) {
                row_bad = 1;
                if (bad == 0)
                    snprintf(what, whatlen, "row %lld (index %lld) column %d: %.9g, the "
                             "reference has %.9g (tolerance %.3g)", (long long)j,
                             (long long)idx[j], k, (double)val[o], r->val[o], tol);
            }
        }
        bad += row_bad;
    }
    return bad;
}
