/* pe_api_shmem15_start: initialization by the deprecated start_pes (npes
 * ignored; a second call does nothing) and the queries _my_pe and
 * _num_pes; a put around the ring checked; no shmem_finalize: start_pes
 * finalizes at exit. Prints "pe_api_shmem15_start: OK" on PE 0. */
#include <shmem.h>
#include <stdio.h>

#include "pe_check.h"

#define CHECK PE_CHECK

int main(void)
{
    int init = -1;
    shmem_query_initialized(&init);
    CHECK(init == 0, "initialized before start_pes");
    start_pes(0);
    shmem_query_initialized(&init);
    CHECK(init == 1, "not initialized after start_pes");
    start_pes(17);   /* no effect */
    int me = _my_pe(), npes = _num_pes();
    CHECK(me == shmem_my_pe() && npes == shmem_n_pes() && npes >= 1 && me < npes,
          "_my_pe %d, _num_pes %d", me, npes);
    long *x = shmem_calloc(1, sizeof(long));
    CHECK(x != NULL, "allocation");
    shmem_long_p(x, 1000 + me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(*x == 1000 + (me + npes - 1) % npes, "ring put: %ld", *x);
    shmem_barrier_all();
    if (me == 0)
        printf("pe_api_shmem15_start: OK (%d PEs)\n", npes);
    return 0;   /* start_pes's exit handler finalizes */
}
