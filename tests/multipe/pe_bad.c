/* pe_bad: misuse of the host API, one case per mode (argv[1]). Each must
 * end the job with a message that names the offending value, except
 * "exhaustion" (NULL everywhere, the job goes on and exits 0) and
 * "bad_env" (gshmem_init returns GSHMEM_ERR_CONFIG: this program then
 * exits 3). test_bad.c checks the exit status and the messages.
 *   before_init   gshmem_putmem before gshmem_init
 *   pe_high       gshmem_putmem to PE n_pes
 *   pe_neg        gshmem_getmem from PE -1
 *   stack_dest    gshmem_putmem to a stack address (printed first)
 *   free_stack    gshmem_free of a stack address (printed first)
 *   mismatch      PE 0 mallocs 4096 bytes, the others 8192
 *   bad_env       run with GSHMEM_SYMMETRIC_SIZE=12Q
 *   exhaustion    run with GSHMEM_SYMMETRIC_SIZE=1M: malloc of 2 MiB
 *   bad_cmp       gshmem_int32_wait_until with cmp 42
 *   bad_sig_op    gshmem_putmem_signal with sig_op 9
 *   global_exit [S]  the last PE calls gshmem_global_exit(S) (default 7)
 *                 while the others wait in a barrier: the job ends with
 *                 status S, 0 included
 *   align_npot    gshmem_align(24, 64): 24 is not a power of two
 *   tls_dest      gshmem_putmem to a thread-local (printed first)
 *   malloc_dest   gshmem_int64_atomic_add on malloc'd memory (printed first)
 *   init_retry    the first gshmem_init fails under the driver's settings
 *                 (status printed); then, with GSHMEM_TRANSPORTS=shm and
 *                 GSHMEM_HEAP=host, init must work (nothing was left
 *                 half-initialized): a ring of puts is checked; exits 0
 *   finalize_twice  gshmem_finalize twice: the second does nothing; exits 0
 *   after_finalize  gshmem_putmem after gshmem_finalize
 *   null_put      PE 0: gshmem_putmem with source NULL (8 bytes to PE 1)
 *   null_get      PE 0: gshmem_getmem with dest NULL (from PE 1)
 *   null_put_nbi  PE 0: gshmem_int64_put_nbi with source NULL
 *   null_iget     PE 0: gshmem_int64_iget with dest NULL (strided) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"

static int init_retry(void)
{
    int rc = gshmem_init();
    printf("pe_bad: first init returned %d (%s)\n", rc, gshmem_strerror(rc));
    fflush(stdout);
    PE_CHECK(rc != 0 && !gshmem_initialized(), "the first init should fail (rc %d)", rc);
    setenv("GSHMEM_TRANSPORTS", "shm", 1);
    setenv("GSHMEM_HEAP", "host", 1);
    unsetenv("GSHMEM_OFI_PROVIDER");
    PE_CHECK_INIT();
    int me = gshmem_my_pe(), npes = gshmem_n_pes();
    int *x = gshmem_calloc(1, sizeof(int));
    PE_CHECK(x != NULL, "allocation after the retry");
    gshmem_int32_p(x, me + 1000, (me + 1) % npes);
    gshmem_barrier_all();
    PE_CHECK(*x == (me + npes - 1) % npes + 1000, "put after the retry gave %d", *x);
    printf("pe_bad: PE %d: retry OK\n", me);
    gshmem_free(x);
    gshmem_finalize();
    return 0;
}

static __thread int64_t tls_var;

/* PE 0 calls with a NULL local buffer to PE 1 (the others wait). */
static void null_local(const char *form, int64_t *x, int me)
{
    int64_t v = 1;
    if (me != 0) {
        gshmem_barrier_all();
    } else if (strcmp(form, "put") == 0) {
        gshmem_putmem(x, NULL, sizeof v, 1);
    } else if (strcmp(form, "get") == 0) {
        gshmem_getmem(NULL, x, sizeof v, 1);
    } else if (strcmp(form, "put_nbi") == 0) {
        gshmem_int64_put_nbi(x, NULL, 1, 1);
    } else if (strcmp(form, "iget") == 0) {
        gshmem_int64_iget(NULL, x, 2, 1, 4, 1);
    }
}

static int run(const char *mode, int status)
{
    char stack_buf[64] = {0};
    int64_t v = 1;

    if (strcmp(mode, "before_init") == 0) {
        gshmem_putmem(stack_buf, &v, sizeof v, 0);
        return 0;   /* not reached */
    }
    if (strcmp(mode, "bad_env") == 0) {
        int rc = gshmem_init();
        printf("pe_bad: gshmem_init returned %d (%s)\n", rc, gshmem_strerror(rc));
        fflush(stdout);
        if (rc == 0)
            gshmem_finalize();
        return rc == GSHMEM_ERR_CONFIG ? 3 : 0;
    }
    if (strcmp(mode, "init_retry") == 0)
        return init_retry();
    PE_CHECK_INIT();
    int me = gshmem_my_pe(), npes = gshmem_n_pes();
    int64_t *x = gshmem_calloc(8, sizeof(int64_t));
    PE_CHECK(x != NULL, "allocation");
    if (strcmp(mode, "finalize_twice") == 0 || strcmp(mode, "after_finalize") == 0) {
        gshmem_finalize();
        if (mode[0] == 'f') {
            gshmem_finalize();
            printf("pe_bad: PE %d: second finalize returned\n", me);
            return 0;
        }
        gshmem_putmem(x, &v, sizeof v, (me + 1) % npes);
        printf("pe_bad: PE %d: mode %s was not stopped\n", me, mode);
        return 0;
    }

    if (strcmp(mode, "pe_high") == 0) {
        gshmem_putmem(x, &v, sizeof v, npes);
    } else if (strcmp(mode, "pe_neg") == 0) {
        gshmem_getmem(&v, x, sizeof v, -1);
    } else if (strcmp(mode, "stack_dest") == 0) {
        printf("pe_bad: PE %d: dest=%p\n", me, (void *)stack_buf);
        fflush(stdout);
        gshmem_putmem(stack_buf, &v, sizeof v, (me + 1) % npes);
    } else if (strcmp(mode, "free_stack") == 0) {
        printf("pe_bad: PE %d: ptr=%p\n", me, (void *)stack_buf);
        fflush(stdout);
        gshmem_free(stack_buf);
    } else if (strcmp(mode, "mismatch") == 0) {
        void *p = gshmem_malloc(me == 0 ? 4096 : 8192);
        printf("pe_bad: PE %d: mismatched malloc returned %p\n", me, p);
    } else if (strcmp(mode, "exhaustion") == 0) {
        void *p = gshmem_malloc((size_t)2 << 20);
        PE_CHECK(p == NULL, "malloc of 2 MiB in a 1 MiB heap is %p", p);
        printf("pe_bad: PE %d: exhaustion: NULL\n", me);
        void *q = gshmem_malloc(1024);
        PE_CHECK(q != NULL, "malloc(1024) after the failed one is NULL");
        gshmem_free(q);
        gshmem_finalize();
        return 0;
    } else if (strcmp(mode, "global_exit") == 0) {
        if (me == npes - 1)
            gshmem_global_exit(status);
        gshmem_barrier_all();
    } else if (strcmp(mode, "align_npot") == 0) {
        void *p = gshmem_align(24, 64);
        printf("pe_bad: PE %d: gshmem_align(24) returned %p\n", me, p);
    } else if (strcmp(mode, "tls_dest") == 0) {
        printf("pe_bad: PE %d: dest=%p\n", me, (void *)&tls_var);
        fflush(stdout);
        gshmem_putmem(&tls_var, &v, sizeof v, (me + 1) % npes);
    } else if (strcmp(mode, "malloc_dest") == 0) {
        int64_t *m = malloc(sizeof *m);
        printf("pe_bad: PE %d: dest=%p\n", me, (void *)m);
        fflush(stdout);
        gshmem_int64_atomic_add(m, 1, (me + 1) % npes);
    } else if (strcmp(mode, "bad_cmp") == 0) {
        gshmem_int32_wait_until((int32_t *)x, 42, 0);
    } else if (strncmp(mode, "null_", 5) == 0) {
        null_local(mode + 5, x, me);
    } else if (strcmp(mode, "bad_sig_op") == 0) {
        gshmem_putmem_signal(x + 1, &v, sizeof v, (uint64_t *)x, 1, 9, (me + 1) % npes);
    } else {
        fprintf(stderr, "pe_bad: unknown mode '%s'\n", mode);
        return 2;
    }
    printf("pe_bad: PE %d: mode %s was not stopped\n", me, mode);
    gshmem_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pe_bad MODE [STATUS]\n");
        return 2;
    }
    return run(argv[1], argc > 2 ? atoi(argv[2]) : 7);
}
