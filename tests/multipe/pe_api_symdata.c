/* pe_api_symdata: global and static variables are symmetric (OpenSHMEM),
 * written as a ported OpenSHMEM program would be, against shmem.h:
 * - initialized data keeps its values through init (the segment is
 *   remapped there) and fork()ed children get private copies;
 * - atomics (inc, fetch_inc, add, fetch_add, set, fetch, swap,
 *   compare_swap) on a file-scope static at PE 0 from every PE (exact
 *   totals) and on a global at every PE;
 * - put, get, get_nbi and p/g on a global array and a function-scope
 *   static;
 * - wait_until on a static int set by the left neighbour, and on a global
 *   long raised by an atomic;
 * - set_lock/clear_lock on a static and on a global lock protecting a
 *   get-increment-put counter, test_lock;
 * - gshmem_addr_accessible, and gshmem_ptr (load/store peers) of a global;
 * - the heap still works beside them.
 * Prints "pe_api_symdata: OK" on PE 0.
 *
 *   pe_api_symdata lib       globals of libpe_symlib.so (run with
 *                            GSHMEM_SYMMETRIC_LIBS=libpe_symlib.so):
 *                            atomics, put and get on them
 *   pe_api_symdata mismatch  an atomic on a static, where the PEs run
 *                            different executables (pe_api_symdata_pad has
 *                            a larger bss): the job must end with a message
 *                            that says why globals are not symmetric */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pe_check.h"

#define K_AMO 100
#define K_LOCK 20
#define N_ARR 64


static long counter;                 /* bss, file-scope static: the case */
static int flag;                     /* bss static, wait_until */
static long lock_static;             /* bss static lock */
long lock_global;                    /* bss global lock */
long arr[N_ARR];                     /* bss global array */
long slots[8];                       /* bss global, one word per PE */
long raised;                         /* global, wait_until after an atomic */
long shared_count;                   /* protected by the locks */
long init_data[4] = {11, 22, 33, 44};   /* data: initialized before init */
#ifdef PE_SYMDATA_PAD
char pad[1 << 20];                   /* a larger bss: a different executable */
#endif

/* libpe_symlib.so (tests/multipe/symlib.c) */
extern long symlib_counter;
extern long symlib_init[2];
long *symlib_static(void);

static int me, npes;

static long *fn_static(void)
{
    static long in_function[2];
    return in_function;
}

static void test_init_data(void)
{
    for (int i = 0; i < 4; i++)
        PE_CHECK(init_data[i] == 11 * (i + 1), "init_data[%d] = %ld after shmem_init", i,
              init_data[i]);
    init_data[0] = 1000 + me;   /* this PE's own copy */
    shmem_barrier_all();
    long got = shmem_long_g(&init_data[0], (me + 1) % npes);
    PE_CHECK(got == 1000 + (me + 1) % npes, "g of init_data at PE %d: %ld", (me + 1) % npes, got);
    shmem_barrier_all();
}

static void test_atomics(void)
{
    for (int i = 0; i < K_AMO; i++) {
        shmem_long_atomic_inc(&counter, 0);
        (void)shmem_long_atomic_fetch_inc(&counter, 0);
        shmem_long_atomic_add(&counter, 2, 0);
        (void)shmem_long_atomic_fetch_add(&counter, 3, 0);
    }
    shmem_barrier_all();
    long want = (long)npes * K_AMO * 7;
    PE_CHECK(shmem_long_atomic_fetch(&counter, 0) == want, "counter at PE 0: %ld, want %ld",
          shmem_long_atomic_fetch(&counter, 0), want);
    if (me == 0)
        PE_CHECK(counter == want, "counter read locally at PE 0: %ld, want %ld", counter, want);

    int pe = (me + 1) % npes;
    long *x = &slots[me];
    shmem_long_atomic_set(x, 5 + me, pe);
    PE_CHECK(shmem_long_atomic_fetch(x, pe) == 5 + me, "set/fetch at PE %d", pe);
    long old = shmem_long_atomic_swap(x, 100 + me, pe);
    PE_CHECK(old == 5 + me, "swap at PE %d returned %ld", pe, old);
    old = shmem_long_atomic_compare_swap(x, 1, 7, pe);
    PE_CHECK(old == 100 + me, "failing compare_swap at PE %d returned %ld", pe, old);
    old = shmem_long_atomic_compare_swap(x, 100 + me, 200 + me, pe);
    PE_CHECK(old == 100 + me, "compare_swap at PE %d returned %ld", pe, old);
    shmem_barrier_all();
    int from = (me + npes - 1) % npes;
    PE_CHECK(slots[from] == 200 + from, "slot of PE %d here: %ld", from, slots[from]);
    shmem_barrier_all();
}

static void test_rma(void)
{
    long src[N_ARR], back[N_ARR];
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    for (int i = 0; i < N_ARR; i++)
        src[i] = 1000L * me + i;
    shmem_long_put(arr, src, N_ARR, right);
    shmem_long_p(&fn_static()[0], 77 + me, right);
    shmem_barrier_all();
    for (int i = 0; i < N_ARR; i++)
        PE_CHECK(arr[i] == 1000L * left + i, "arr[%d] = %ld after put from PE %d", i, arr[i], left);
    PE_CHECK(fn_static()[0] == 77 + left, "function static = %ld", fn_static()[0]);
    memset(back, 0, sizeof back);
    shmem_long_get(back, arr, N_ARR, right);
    for (int i = 0; i < N_ARR; i++)
        PE_CHECK(back[i] == 1000L * me + i, "get from PE %d: [%d] = %ld", right, i, back[i]);
    memset(back, 0, sizeof back);
    long fs = 0;
    int left2 = (left + npes - 1) % npes;   /* who wrote left's copies */
    shmem_long_get_nbi(back, arr, N_ARR, left);
    shmem_getmem_nbi(&fs, &fn_static()[0], sizeof fs, left);
    shmem_quiet();
    PE_CHECK(fs == 77 + left2, "getmem_nbi of the function static at PE %d: %ld", left, fs);
    for (int i = 0; i < N_ARR; i++)
        PE_CHECK(back[i] == 1000L * left2 + i, "get_nbi from PE %d: [%d] = %ld", left, i,
              back[i]);
    PE_CHECK(shmem_long_g(&fn_static()[0], right) == 77 + me, "g of the function static");
    shmem_barrier_all();
}

static void test_wait(void)
{
    int right = (me + 1) % npes;

    shmem_int_p(&flag, me + 1, right);
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, (me + npes - 1) % npes + 1);
    shmem_long_atomic_add(&raised, 1, 0);
    if (me == 0)
        shmem_long_wait_until(&raised, SHMEM_CMP_GE, npes);
    shmem_barrier_all();
}

static void locked_increments(long *lock)
{
    for (int i = 0; i < K_LOCK; i++) {
        shmem_set_lock(lock);
        long v = shmem_long_g(&shared_count, 0);
        shmem_long_p(&shared_count, v + 1, 0);
        shmem_clear_lock(lock);
    }
}

static void test_locks(void)
{
    locked_increments(&lock_static);
    shmem_barrier_all();
    PE_CHECK(shmem_long_g(&shared_count, 0) == (long)npes * K_LOCK, "static lock: count %ld, "
          "want %ld", shmem_long_g(&shared_count, 0), (long)npes * K_LOCK);
    shmem_barrier_all();
    locked_increments(&lock_global);
    shmem_barrier_all();
    PE_CHECK(shmem_long_g(&shared_count, 0) == 2L * npes * K_LOCK, "global lock: count %ld, "
          "want %ld", shmem_long_g(&shared_count, 0), 2L * npes * K_LOCK);
    if (me == 0) {
        PE_CHECK(shmem_test_lock(&lock_global) == 0, "test_lock of a free lock");
        PE_CHECK(shmem_test_lock(&lock_global) == 1, "test_lock of a held lock");
        shmem_clear_lock(&lock_global);
    }
    shmem_barrier_all();
}

static void test_queries(void)
{
    int right = (me + 1) % npes;
    PE_CHECK(shmem_addr_accessible(&counter, right) == 1, "addr_accessible of a static");
    long *p = shmem_ptr(&arr[3], right);
    if (p != NULL)   /* load/store peers (shm): the peer's twin */
        PE_CHECK(*p == 1000L * me + 3, "through shmem_ptr: %ld", *p);
    PE_CHECK(shmem_ptr(&arr[3], me) == &arr[3], "shmem_ptr to self");
    int local = 0;
    PE_CHECK(shmem_addr_accessible(&local, right) == 0, "a stack address is accessible");
}

/* A fork()ed child writes a global: the parent must not see it. */
static void test_fork(void)
{
    long before = arr[0];
    pid_t pid = fork();
    PE_CHECK(pid >= 0, "fork");
    if (pid == 0) {
        arr[0] = -12345;
        _exit(arr[0] == -12345 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    PE_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
    PE_CHECK(arr[0] == before, "the child's write reached the parent: %ld", arr[0]);
}

/* Globals of a library named in GSHMEM_SYMMETRIC_LIBS. */
static void test_lib(void)
{
    int right = (me + 1) % npes;

    PE_CHECK(symlib_init[0] == 5 && symlib_init[1] == 6, "the library's data: %ld %ld",
          symlib_init[0], symlib_init[1]);
    for (int i = 0; i < K_AMO; i++)
        shmem_long_atomic_inc(&symlib_counter, 0);
    shmem_long_p(&symlib_static()[1], 300 + me, right);
    shmem_barrier_all();
    PE_CHECK(shmem_long_atomic_fetch(&symlib_counter, 0) == (long)npes * K_AMO,
          "the library's counter at PE 0: %ld", shmem_long_atomic_fetch(&symlib_counter, 0));
    PE_CHECK(symlib_static()[1] == 300 + (me + npes - 1) % npes, "the library's static: %ld",
          symlib_static()[1]);
    PE_CHECK(shmem_long_g(&symlib_init[1], right) == 6, "g of the library's data");
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (strcmp(mode, "mismatch") == 0) {
        shmem_long_atomic_inc(&counter, 0);   /* must end the job */
        fprintf(stderr, "PE %d: the atomic on a static was not stopped\n", me);
        return 1;
    }
    if (strcmp(mode, "lib") == 0) {
        test_lib();
        if (me == 0)
            printf("pe_api_symdata: OK (%d PEs, library)\n", npes);
        shmem_finalize();
        return 0;
    }
    PE_CHECK(npes <= 8, "at most 8 PEs (slots)");
    long *heap = shmem_calloc(4, sizeof(long));
    PE_CHECK(heap != NULL, "allocation");

    test_init_data();
    test_atomics();
    test_rma();
    test_wait();
    test_locks();
    test_queries();
    test_fork();
    shmem_long_atomic_add(heap, 1, 0);
    shmem_barrier_all();
    if (me == 0)
        PE_CHECK(*heap == npes, "heap counter %ld", *heap);
    shmem_barrier_all();
    if (me == 0)
        printf("pe_api_symdata: OK (%d PEs)\n", npes);
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
