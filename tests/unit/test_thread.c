/* test_thread.c: the exit path's timed join (src/base/util/thread.h): a
 * thread that does not stop is given up on at the deadline, not waited
 * for; one that stops is joined; a thread never joins itself. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <pthread.h>

#include "gshmem_types.h"
#include "base/util/idle.h"
#include "base/util/thread.h"

static int t_stop;   /* atomic */

static void *t_spin(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&t_stop, __ATOMIC_ACQUIRE))
        sched_yield();
    return NULL;
}

static void *t_self(void *arg)
{
    (void)arg;
    uint64_t deadline = gshmemi_now_ns() + 1000000000ull;
    return (void *)(intptr_t)gshmemi_thread_join_by(pthread_self(), deadline);
}

Test(thread, join_by_deadline)
{
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, t_spin, NULL), 0);
    uint64_t t0 = gshmemi_now_ns();
    int rc = gshmemi_thread_join_by(th, t0 + 100000000ull);   /* 100 ms */
    double waited = (double)(gshmemi_now_ns() - t0) / 1e9;
    cr_expect_eq(rc, GSHMEM_ERR_TIMEOUT, "a running thread: %d, want GSHMEM_ERR_TIMEOUT", rc);
    cr_expect(waited > 0.05 && waited < 5.0, "gave up after %.3f s, want about 0.1", waited);
    __atomic_store_n(&t_stop, 1, __ATOMIC_RELEASE);
    rc = gshmemi_thread_join_by(th, gshmemi_now_ns() + 10000000000ull);   /* still joinable */
    cr_expect_eq(rc, 0, "a stopping thread: %d, want 0", rc);
}

Test(thread, join_by_self)
{
    pthread_t th;
    void *ret = NULL;
    cr_assert_eq(pthread_create(&th, NULL, t_self, NULL), 0);
    cr_assert_eq(pthread_join(th, &ret), 0);
    cr_expect_eq((int)(intptr_t)ret, GSHMEM_ERR_ALREADY, "a thread joining itself: %d",
                 (int)(intptr_t)ret);
}
