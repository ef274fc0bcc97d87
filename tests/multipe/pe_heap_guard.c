/* pe_heap_guard: the victim of the intrusion tests (tests/multipe/
 * test_intrude.c). Two or more PEs; PE 0 allocates argv[2] bytes, its
 * first allocation (where an intruder aims), fills them with 0x5a, says
 * "pe_heap_guard: ready", then waits until the file argv[1]
 * exists (60 s at most) while the intruder works, and checks every byte:
 * "pe_heap_guard: heap intact (N bytes)", or the first changed byte and
 * status 1. The other PEs wait in the final barrier. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gshmem.h"
#include "pe_check.h"

int main(int argc, char **argv)
{
    PE_CHECK(argc == 3, "usage: pe_heap_guard GO_FILE BYTES");
    PE_CHECK_INIT();
    size_t n = strtoull(argv[2], NULL, 0);
    unsigned char *buf = gshmem_malloc(n);
    PE_CHECK(buf != NULL, "no heap block of %zu bytes", n);
    memset(buf, 0x5a, n);
    gshmem_barrier_all();
    if (gshmem_my_pe() == 0) {
        printf("pe_heap_guard: ready\n");
        fflush(stdout);
        for (int i = 0; i < 6000 && access(argv[1], F_OK) != 0; i++)
            usleep(10000);
        for (size_t i = 0; i < n; i++)
            PE_CHECK(buf[i] == 0x5a, "heap changed from outside the job: byte %zu of the "
                     "%zu-byte block is 0x%02x", i, n, buf[i]);
        printf("pe_heap_guard: heap intact (%zu bytes)\n", n);
        fflush(stdout);
    }
    gshmem_barrier_all();
    gshmem_free(buf);
    gshmem_finalize();
    return 0;
}
