/* test_coll_ref: pe_api_coll_ref (every collective and reduction against
 * serial references, across the thresholds of the collectives' table) at
 * 2, 3 and 4 PEs over shm and ofi over tcp;ofi_rxm (its signals in the
 * data's writes, and, at 3 PEs, as atomics after them), at 5 and 8 PEs over
 * shm, and at 4 PEs over shm with small heaps: one that leaves the
 * collectives less push room (other thresholds), one that leaves none
 * (the algorithms that need none). Odd PE counts matter: blocks and trees
 * do not divide evenly. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "tests_common.h"

#define COLL_REF_TIMEOUT_S 300

static void run_ref(const char *tp, int n, const char *env_extra, const char *args,
                    const char *must_have)
{
    char env[512];
    snprintf(env, sizeof env, "%s %s", test_tp_env(tp), env_extra);
    test_run_t r = test_run_env_pes(env, n, "pe_api_coll_ref", args, COLL_REF_TIMEOUT_S);
    test_expect_ok(&r, "pe_api_coll_ref", tp, n, must_have);
}

Test(coll_ref, shm_2_3_4, .timeout = 900)
{
    for (int n = 2; n <= 4; n++)
        run_ref("shm", n, "", NULL, NULL);
}

/* tcp;ofi_rxm places no two writes in order: a collective's signal rides
 * in its data's write as remote CQ data (the log says so), or, with
 * GSHMEM_OFI_CQ_DATA=0, follows as an atomic once the data is acknowledged */
Test(coll_ref, ofi_tcp_2_3_4, .timeout = 900)
{
    for (int n = 2; n <= 4; n++)
        run_ref("ofi-tcp", n, n == 3 ? "GSHMEM_DEBUG=INFO GSHMEM_DEBUG_SUBSYS=TRANSPORT" : "",
                NULL, n == 3 ? "counts in the write (remote CQ data)" : NULL);
    run_ref("ofi-tcp", 3, "GSHMEM_OFI_CQ_DATA=0", NULL, NULL);
}

/* The sockets provider advertises 8-byte CQ data too, but collectives
 * whose signals rode in writes over it never ended: only the tcp provider
 * carries them, sockets takes the atomic (each op checked, then timed: a
 * few milliseconds each at 2 PEs there, tens at 3). */
Test(coll_ref, ofi_sockets_signals_by_atomics, .timeout = 120)
{
    test_run_t r = test_run("GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=sockets "
                            "FI_SOCKETS_IFACE=lo GSHMEM_DEBUG=INFO GSHMEM_DEBUG_SUBSYS=TRANSPORT",
                            "%B/tools/gshmemrun/gshmemrun -n 2 %B/apps/perf/host/gshmem-perf-coll "
                            "-O broadcast,fcollect,sum_reduce -b 8 -e 64 -f 8 -n 5 -w 1 --quiet",
                            90);
    cr_expect(r.status == 0 && test_count_of(r.output, "counts by atomics") == 2,
              "collectives over sockets: status %d, want 0 and 2 'counts by atomics' lines:\n%s",
              r.status, test_tail(&r));
    test_run_free(&r);
}

Test(coll_ref, shm_5_8, .timeout = 900)
{
    run_ref("shm", 5, "", NULL, NULL);
    run_ref("shm", 8, "", NULL, NULL);
}

Test(coll_ref, shm_small_heaps, .timeout = 600)
{
    run_ref("shm", 4, "GSHMEM_SYMMETRIC_SIZE=2M", "small", NULL);
    run_ref("shm", 4, "GSHMEM_SYMMETRIC_SIZE=512K", "tiny", "push room 0)");
}
