/* pe_api_shmem: an OpenSHMEM-style program built against shmem.h (the
 * compatibility header): init, long/int/double RMA, int atomics, put with
 * signal, wait_until, a reduction and a broadcast, barrier, finalize.
 * Prints "pe_api_shmem: OK" on PE 0. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s: ", shmem_my_pe(),        \
                    __FILE__, __LINE__, #cond);                                       \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    int initialized = 0;
    shmem_query_initialized(&initialized);
    CHECK(initialized == 1, "shmem_query_initialized gave %d", initialized);

    long *lv = shmem_calloc(4, sizeof(long));
    int *ctr = shmem_calloc(1, sizeof(int));
    double *dv = shmem_calloc(2, sizeof(double));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long *red = shmem_malloc(2 * sizeof(long));
    CHECK(lv && ctr && dv && sig && red, "allocation");

    long src[2] = {1000L * me + 1, -(1L << 40) - me};
    shmem_long_put(lv, src, 2, next);
    shmem_long_p(lv + 2, 5000000000L + me, next);
    shmem_double_p(dv, 0.5 * me, next);
    shmem_int_atomic_add(ctr, me + 1, 0);
    shmem_barrier_all();
    CHECK(lv[0] == 1000L * prev + 1 && lv[1] == -(1L << 40) - prev, "long_put: %ld %ld",
          lv[0], lv[1]);
    CHECK(lv[2] == 5000000000L + prev, "long_p: %ld", lv[2]);
    CHECK(shmem_long_g(lv + 2, next) == 5000000000L + me, "long_g");
    CHECK(dv[0] == 0.5 * prev, "double_p: %g", dv[0]);
    if (me == 0)
        CHECK(*ctr == npes * (npes + 1) / 2, "int_atomic_add sum: %d", *ctr);
    CHECK(shmem_int_atomic_fetch(ctr, 0) == npes * (npes + 1) / 2, "int_atomic_fetch");
    /* Everybody has read the sum before anybody increments ctr again below. */
    shmem_barrier_all();

    long v = 77 + me;
    shmem_putmem_signal(lv + 3, &v, sizeof v, sig, 1, SHMEM_SIGNAL_ADD, next);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
    CHECK(lv[3] == 77 + prev, "putmem_signal data: %ld", lv[3]);
    shmem_int_atomic_inc(ctr, next);
    shmem_barrier_all();

    red[0] = me;
    red[1] = -me;
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, red, red, 2) == 0, "long_sum_reduce");
    CHECK(red[0] == (long)npes * (npes - 1) / 2 && red[1] == -red[0], "sum: %ld %ld", red[0],
          red[1]);
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, dv + 1, dv, sizeof(double), npes - 1) == 0,
          "broadcastmem");
    CHECK(dv[1] == 0.5 * ((npes - 2 + npes) % npes), "broadcast gave %g", dv[1]);
    shmem_int_wait_until(ctr, SHMEM_CMP_GE, 1);
    shmem_barrier_all();
    if (me == 0)
        printf("pe_api_shmem: OK (%d PEs)\n", npes);
    shmem_free(red);
    shmem_free(sig);
    shmem_free(dv);
    shmem_free(ctr);
    shmem_free(lv);
    shmem_finalize();
    return 0;
}
