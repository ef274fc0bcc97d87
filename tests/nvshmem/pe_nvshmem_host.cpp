/* pe_nvshmem_host: a host program written against NVSHMEM's names only
 * (nvshmem.h, C++ as NVSHMEM programs are), run on CPU PEs (a host heap):
 *   api    init, queries, teams, typed RMA of C types, AMOs, signals,
 *          waits, a team reduction, fcollect, nvshmem_ptr, nvshmemx_mc_ptr
 *          (NULL), the vendor version; every result checked
 *   env    NVSHMEM_SYMMETRIC_SIZE read as what may be allocated (run with
 *          3M: 3 MiB fits, 64 MiB does not), NVSHMEM_* library
 *          settings without an equivalent named in a warning (the driver
 *          reads it)
 *   shmem  shmem_init (gshmem's shmem.h), then nvshmemx_init_attr(
 *          NVSHMEMX_INIT_WITH_SHMEM): joins; nvshmem_finalize leaves the
 *          runtime to shmem_finalize (a barrier after it still works)
 * Prints "pe_nvshmem_host: OK (PE <me>)" on every PE. */
#include <shmem.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <stdint.h>
#include <string.h>

#include "pe_check.h"

static int me, npes;

static void check_api(void)
{
    int major, minor, patch;
    nvshmemx_vendor_get_version_info(&major, &minor, &patch);
    PE_CHECK(major == NVSHMEM_VENDOR_MAJOR_VERSION && minor == NVSHMEM_VENDOR_MINOR_VERSION,
             "vendor version %d.%d.%d", major, minor, patch);
    PE_CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_IS_INITIALIZED, "init status %d",
             nvshmemx_init_status());
    PE_CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD) == me, "world team PE %d",
             nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD));
    PE_CHECK(nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE) == npes, "node team %d PEs of %d",
             nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE), npes);

    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int *iv = (int *)nvshmem_calloc(4, sizeof(int));
    long *lv = (long *)nvshmem_calloc(8, sizeof(long));
    short *sv = (short *)nvshmem_calloc(8, sizeof(short));
    uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    PE_CHECK(iv && lv && sv && sig, "allocations");
    PE_CHECK(nvshmem_ptr(iv, me) == iv, "nvshmem_ptr(self) %p != %p", nvshmem_ptr(iv, me),
             (void *)iv);
    PE_CHECK(nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, iv) == NULL, "mc_ptr not NULL");

    /* typed RMA of C types */
    nvshmem_int_p(&iv[0], 100 + me, right);
    long src[8];
    for (int i = 0; i < 8; i++)
        src[i] = 1000L * me + i;
    nvshmem_long_put(lv, src, 8, right);
    short ss[4] = {(short)me, (short)(me + 1), (short)(me + 2), (short)(me + 3)};
    nvshmem_short_iput(sv, ss, 2, 1, 4, right);   /* every other element */
    nvshmem_barrier_all();
    PE_CHECK(iv[0] == 100 + left, "int_p: %d, expected %d", iv[0], 100 + left);
    PE_CHECK(nvshmem_int_g(&iv[0], right) == 100 + me, "int_g");
    for (int i = 0; i < 8; i++)
        PE_CHECK(lv[i] == 1000L * left + i, "long_put [%d]: %ld", i, lv[i]);
    for (int i = 0; i < 4; i++)
        PE_CHECK(sv[2 * i] == left + i && sv[2 * i + 1] == 0, "short_iput [%d]: %d %d", i,
                 sv[2 * i], sv[2 * i + 1]);
    nvshmem_barrier_all();

    /* AMOs of C types at PE 0 */
    if (me == 0)
        iv[1] = 0;
    nvshmem_barrier_all();
    int before = nvshmem_int_atomic_fetch_add(&iv[1], 1 + me, 0);
    PE_CHECK(before >= 0, "int fetch_add returned %d", before);
    nvshmem_barrier_all();
    if (me == 0)
        PE_CHECK(iv[1] == npes * (npes + 1) / 2, "int fetch_add total %d", iv[1]);
    size_t *zv = (size_t *)nvshmem_calloc(1, sizeof(size_t));
    size_t old = nvshmem_size_atomic_compare_swap(zv, 0, (size_t)me + 7, right);
    nvshmem_barrier_all();
    PE_CHECK(old == 0 && *zv == (size_t)left + 7, "size compare_swap: old %zu, now %zu", old,
             *zv);

    /* signals and waits */
    nvshmem_putmem_signal(&lv[0], &src[0], sizeof(long), sig, 1 + me, NVSHMEM_SIGNAL_SET,
                          right);
    uint64_t got = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, (uint64_t)(1 + left));
    PE_CHECK(got == (uint64_t)(1 + left) && lv[0] == 1000L * left, "signal %llu, data %ld",
             (unsigned long long)got, lv[0]);
    nvshmem_barrier_all();
    nvshmem_int_p(&iv[2], 5, right);
    nvshmem_int_wait_until(&iv[2], NVSHMEM_CMP_GE, 5);
    PE_CHECK(nvshmem_int_test(&iv[2], NVSHMEM_CMP_EQ, 5), "int_test");

    /* a reduction and an fcollect on the world team */
    int *red = (int *)nvshmem_malloc(2 * sizeof(int));
    int *all = (int *)nvshmem_malloc((size_t)npes * sizeof(int));
    int *mine = (int *)nvshmem_malloc(2 * sizeof(int));   /* sources are symmetric */
    mine[0] = me;
    mine[1] = 1;
    nvshmem_barrier_all();
    PE_CHECK(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, red, mine, 2) == 0, "sum_reduce");
    PE_CHECK(red[0] == npes * (npes - 1) / 2 && red[1] == npes, "sum_reduce: %d %d", red[0],
             red[1]);
    PE_CHECK(nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, all, &mine[0], 1) == 0, "fcollect");
    for (int i = 0; i < npes; i++)
        PE_CHECK(all[i] == i, "fcollect [%d]: %d", i, all[i]);
    nvshmem_barrier_all();
    nvshmem_free(mine);
    nvshmem_free(all);
    nvshmem_free(red);
    nvshmem_free(zv);
    nvshmem_free(sig);
    nvshmem_free(sv);
    nvshmem_free(lv);
    nvshmem_free(iv);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "api";

    if (strcmp(mode, "shmem") == 0) {
        shmem_init();
        nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
        int rc = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_SHMEM, &attr);
        PE_CHECK(rc == NVSHMEMX_SUCCESS, "init_attr(WITH_SHMEM): %d", rc);
        me = nvshmem_my_pe();
        npes = nvshmem_n_pes();
        PE_CHECK(me == shmem_my_pe() && npes == shmem_n_pes(), "the same runtime");
        nvshmem_barrier_all();
        nvshmem_finalize();
        PE_CHECK(gshmem_initialized(), "nvshmem_finalize ended a runtime shmem_init started");
        shmem_barrier_all();
        shmem_finalize();
        printf("pe_nvshmem_host: OK (PE %d)\n", me);
        return 0;
    }
    nvshmem_init();
    me = nvshmem_my_pe();
    npes = nvshmem_n_pes();
    if (strcmp(mode, "env") == 0) {
        /* NVSHMEM's meaning: the program may allocate all of it (gshmem's
         * own areas come on top), and the heap is not the default 256 MiB */
        void *fits = nvshmem_malloc(3u << 20);
        PE_CHECK(fits != NULL, "3 MiB of NVSHMEM_SYMMETRIC_SIZE=3M did not fit");
        void *big = nvshmem_malloc(64u << 20);
        PE_CHECK(big == NULL, "64 MiB fit in a heap of NVSHMEM_SYMMETRIC_SIZE=3M: not read");
        nvshmem_free(fits);
    } else if (strcmp(mode, "api") == 0) {
        check_api();
    } else {
        PE_CHECK(0, "unknown mode %s", mode);
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    printf("pe_nvshmem_host: OK (PE %d)\n", me);
    return 0;
}
