/* thread.c: joining a library thread with a time limit, the node's
 * crowding (see thread.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>

#include "thread.h"
#include "idle.h"
#include "log.h"
#include "gshmem_types.h"

#if defined(GSHMEMI_TSAN)
char gshmemi_tsan_peer_order;   /* thread.h: the barrier's and the applies' sync object */
#endif

void gshmemi_deadline_realtime(uint64_t deadline_ns, struct timespec *abs_p)
{
    uint64_t now = gshmemi_now_ns(), left = deadline_ns > now ? deadline_ns - now : 0;
    struct timespec abs;

    clock_gettime(CLOCK_REALTIME, &abs);
    abs.tv_sec += (time_t)(left / 1000000000u);
    abs.tv_nsec += (long)(left % 1000000000u);
    if (abs.tv_nsec >= 1000000000L) {
        abs.tv_sec++;
        abs.tv_nsec -= 1000000000L;
    }
    *abs_p = abs;
}

int gshmemi_thread_join_by(pthread_t thread, uint64_t deadline_ns)
{
    struct timespec abs;

    if (pthread_equal(thread, pthread_self()))
        return GSHMEM_ERR_ALREADY;
    gshmemi_deadline_realtime(deadline_ns, &abs);
    int rc = pthread_timedjoin_np(thread, NULL, &abs);
    return rc == 0 ? GSHMEM_SUCCESS : rc == EDEADLK ? GSHMEM_ERR_ALREADY : GSHMEM_ERR_TIMEOUT;
}

int gshmemi_thread_exit_join(pthread_t thread, uint64_t deadline_ns, unsigned subsys,
                             const char *what)
{
    int rc = gshmemi_thread_join_by(thread, deadline_ns);

    if (rc == GSHMEM_ERR_TIMEOUT)
        GSHMEMI_WARN(subsys, "%s did not stop in time at exit; the process exits with it "
                     "running", what);
    return rc == GSHMEM_ERR_TIMEOUT ? rc : rc == 0;
}

void gshmemi_node_crowding(const int *node_of, int n_pes, int my_pe, int n_machine,
                           int *n_local_p, int *n_cpus_p)
{
    cpu_set_t cpus;
    int n_local = 0;

    for (int pe = 0; pe < n_pes; pe++)
        n_local += node_of[pe] == node_of[my_pe];
    *n_local_p = n_machine > n_local ? n_machine : n_local;
    *n_cpus_p = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 0;
}
