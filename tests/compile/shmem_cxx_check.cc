// shmem_cxx_check.cc: shmem.h as C++ (no generic names there): the names
// that C++ gets instead of them or beside them, compiled by test_shmem15.c
// (never run): the deprecated long shmem_wait_until and shmem_wait, the
// active-set shmem_sync (four arguments) and collectives, the _to_all
// reductions and the constants' underscore names.
#include <shmem.h>

static long psync[_SHMEM_BARRIER_SYNC_SIZE];
static long pwrk[_SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int shmem_cxx_check(long *ivar, long *buf, short *sbuf, short *swrk)
{
    shmem_wait_until(ivar, _SHMEM_CMP_EQ, 1L);
    shmem_wait(ivar, 0L);
    shmem_sync(0, 0, 1, psync);
    shmem_barrier(0, 0, 1, psync);
    shmem_broadcast64(buf, buf, 1, 0, 0, 0, 1, psync);
    shmem_collect32(buf, buf, 1, 0, 0, 1, psync);
    shmem_alltoalls64(buf, buf, 1, 1, 1, 0, 0, 1, psync);
    shmem_long_xor_to_all(buf, buf, 1, 0, 0, 1, pwrk, psync);
    shmem_short_prod_to_all(sbuf, sbuf, 1, 0, 0, 1, swrk, psync);
    shmem_short_wait_until_all(sbuf, 1, NULL, _SHMEM_CMP_NE, (short)0);
    return shmem_team_sync(SHMEM_TEAM_WORLD) + (int)(_SHMEM_SYNC_VALUE) + _SHMEM_MAJOR_VERSION;
}
