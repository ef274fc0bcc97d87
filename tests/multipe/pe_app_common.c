/* pe_app_common: the apps' shared pieces (apps/common) on host PEs:
 * app_allgather_host delivers every PE's block in PE order; app_median and
 * app_median_of_max against references computed here; app_nccl_init with a
 * library that does not exist fails on every PE, names the file, and leaves
 * the job usable. Prints "pe_app_common: OK" on PE 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_nccl.h"
#include "app_stats.h"
#include "gshmem.h"
#include "pe_check.h"

#define ITERS 25

static double timing(int pe, int i)
{
    return (double)((i * 7 + pe * 3) % ITERS) + 0.25 * pe;
}

int main(void)
{
    PE_CHECK_INIT();
    int me = gshmem_my_pe(), n = gshmem_n_pes();

    /* All-gather of a 24-byte block, twice (the symmetric scratch is freed
     * and allocated again in between). */
    for (int round = 0; round < 2; round++) {
        struct { int pe, round; double x[2]; } mine = {me, round, {me * 1.5, -me}}, all[n];
        PE_CHECK(app_allgather_host(all, &mine, sizeof mine) == 0, "app_allgather_host");
        for (int p = 0; p < n; p++)
            PE_CHECK(all[p].pe == p && all[p].round == round && all[p].x[0] == p * 1.5 &&
                     all[p].x[1] == -p, "round %d: block %d holds pe %d round %d", round, p,
                     all[p].pe, all[p].round);
    }

    const double odd[] = {5, 1, 4, 2, 3}, even[] = {8, 2, 6, 4};
    PE_CHECK(app_median(odd, 5) == 3, "median of 5 values: %g", app_median(odd, 5));
    PE_CHECK(app_median(even, 4) == 5, "median of 4 values: %g", app_median(even, 4));
    PE_CHECK(odd[0] == 5 && even[0] == 8, "app_median modified its input");

    double v[ITERS], mx[ITERS];
    for (int i = 0; i < ITERS; i++) {
        v[i] = timing(me, i);
        mx[i] = timing(0, i);
        for (int p = 1; p < n; p++)
            mx[i] = timing(p, i) > mx[i] ? timing(p, i) : mx[i];
    }
    double got = app_median_of_max(v, ITERS), want = app_median(mx, ITERS);
    PE_CHECK(got == want, "median of per-iteration maxima: %g, expected %g", got, want);

    /* NCCL that cannot be loaded: every PE gets -1 and the reason. */
    const char *bad = "/nonexistent/gshmem-test/libnccl.so.2";
    setenv("GSHMEM_NCCL_LIB", bad, 1);
    app_nccl_t *nc = (app_nccl_t *)&me;
    char why[512] = "";
    PE_CHECK(app_nccl_init(&nc, why, sizeof why) == -1, "app_nccl_init with %s succeeded", bad);
    PE_CHECK(nc == NULL, "app_nccl_init left *out set after failing");
    PE_CHECK(strstr(why, bad) != NULL, "reason does not name the library: %s", why);
    gshmem_barrier_all();   /* the job is still usable */

    if (me == 0)
        printf("pe_app_common: OK (%d PEs; NCCL refused with: %s)\n", n, why);
    gshmem_finalize();
    return 0;
}
