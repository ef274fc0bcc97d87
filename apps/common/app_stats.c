/* app_stats.c: see app_stats.h. */
#include "app_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"

int app_allgather_host(void *all, const void *mine, size_t bytes)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    /* Collective allocation: NULL on every PE or on none. Host put/get work
     * on every heap kind (GPU heaps included) with private host buffers. */
    char *sym = gshmem_malloc(bytes * (size_t)n);
    if (sym == NULL)
        return -1;
    gshmem_putmem(sym + (size_t)me * bytes, mine, bytes, 0);
    gshmem_barrier_all();
    gshmem_getmem(all, sym, bytes * (size_t)n, 0);
    gshmem_free(sym);   /* collective: no PE frees before all have read */
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double app_median(const double *v, int n)
{
    double *s = malloc(sizeof *s * (size_t)n);
    if (s == NULL) {
        fprintf(stderr, "gshmem apps: out of memory for %d timings\n", n);
        abort();
    }
    memcpy(s, v, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

double app_median_of_max(const double *v, int n)
{
    int np = gshmem_n_pes();
    size_t bytes = sizeof(double) * (size_t)n;
    double *all = malloc(bytes * (size_t)np), *mx = malloc(bytes);
    if (all == NULL || mx == NULL || app_allgather_host(all, v, bytes) != 0) {
        fprintf(stderr, "gshmem apps: PE %d: out of memory gathering %d timings\n",
                gshmem_my_pe(), n);
        abort();
    }
    for (int i = 0; i < n; i++) {
        mx[i] = all[i];
        for (int p = 1; p < np; p++)
            if (all[(size_t)p * n + i] > mx[i])
                mx[i] = all[(size_t)p * n + i];
    }
    double m = app_median(mx, n);
    free(all);
    free(mx);
    return m;
}
