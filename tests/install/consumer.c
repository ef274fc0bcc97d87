/* consumer.c: a program built against an installed gshmem three times:
 * through find_package(gshmem), through pkg-config, and with nothing but
 * cc -I<prefix>/include -L<prefix>/lib -lgshmem. Two PEs swap their numbers
 * with a put and check them. The other host headers are included too: each
 * must find what it includes from <prefix>/include alone. */
#include <stdio.h>
#include <gshmem.h>
#include <gshmem_agg.h>
#include <gshmem_stage.h>
#include <gshmem_types.h>
#include <shmem.h>

int main(void)
{
    if (gshmem_init() != 0)
        return 2;
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int32_t *box = gshmem_malloc(sizeof *box);
    *box = -1;
    gshmem_barrier_all();
    gshmem_int32_p(box, me, (me + 1) % n);
    gshmem_barrier_all();
    int want = (me + n - 1) % n, ok = *box == want;
    if (!ok)
        fprintf(stderr, "PE %d: got %d, expected %d\n", me, *box, want);
    gshmem_free(box);
    gshmem_finalize();
    if (ok)
        printf("consumer PE %d OK\n", me);
    return ok ? 0 : 1;
}
