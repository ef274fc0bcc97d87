/* thread.h: joining a library thread with a time limit, for the exit path
 * (src/api/core/exit.c), where a thread that does not stop must not hang
 * the process's exit; how many PEs share the cores; ThreadSanitizer
 * annotations of cross-process order. */
#ifndef GSHMEMI_THREAD_H
#define GSHMEMI_THREAD_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* deadline_ns (gshmemi_now_ns's clock, CLOCK_MONOTONIC) as the
 * CLOCK_REALTIME time that the timed pthread calls take. */
void gshmemi_deadline_realtime(uint64_t deadline_ns, struct timespec *abs_p);

/* Joins thread by deadline_ns (gshmemi_now_ns's clock, base/util/idle.h).
 * Returns 0 when joined, GSHMEM_ERR_TIMEOUT when it still runs at the
 * deadline (not joined: it may be joined later), GSHMEM_ERR_ALREADY when
 * the caller is that thread (not joined). Logs nothing: the caller names
 * the thread. */
int gshmemi_thread_join_by(pthread_t thread, uint64_t deadline_ns);

/* The exit path's join: gshmemi_thread_join_by, a thread still running at
 * the deadline named at WARN in subsys (what: "the engine thread"). Returns
 * 1 when joined, 0 when the caller is that thread, GSHMEM_ERR_TIMEOUT. */
int gshmemi_thread_exit_join(pthread_t thread, uint64_t deadline_ns, unsigned subsys,
                             const char *what);

/* How crowded this PE's cores are: *n_local_p = the PEs on its node
 * (node_of[n_pes]: node index of each PE) or, when more, n_machine (the
 * PEs on this machine: simulated nodes share its cores; 0: unknown),
 * *n_cpus_p = the cores the calling thread may run on (0: unknown). Waits
 * yield, and ofi's progress thread steps aside longer, when the PEs'
 * threads outnumber the cores. */
void gshmemi_node_crowding(const int *node_of, int n_pes, int my_pe, int n_machine,
                           int *n_local_p, int *n_cpus_p);

/* ThreadSanitizer and the order that runs through other processes. A
 * transport thread that applies a peer's request to this PE's heap (ofi's
 * active-message target) is ordered after the program's accesses before
 * a barrier_all, and before its accesses after one, by the peers: the
 * peer sent the request after the barrier, or its quiet waited for the
 * request's ACK before it entered the barrier. TSan sees neither, so the
 * barrier releases and acquires one sync object (GSHMEMI_TSAN_BARRIER_*)
 * and the applying thread acquires it before an apply and releases it
 * after (GSHMEMI_TSAN_APPLY_*). A program race still shows: an access
 * after a barrier and an apply of a request sent after that barrier have
 * no order between them here. No code outside TSan builds. */
#if defined(__SANITIZE_THREAD__)
#define GSHMEMI_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GSHMEMI_TSAN 1
#endif
#endif
#if defined(GSHMEMI_TSAN)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char gshmemi_tsan_peer_order;
#define GSHMEMI_TSAN_ACQUIRE() __tsan_acquire(&gshmemi_tsan_peer_order)
#define GSHMEMI_TSAN_RELEASE() __tsan_release(&gshmemi_tsan_peer_order)
#else
#define GSHMEMI_TSAN_ACQUIRE() ((void)0)
#define GSHMEMI_TSAN_RELEASE() ((void)0)
#endif
#define GSHMEMI_TSAN_BARRIER_ENTER() GSHMEMI_TSAN_RELEASE()
#define GSHMEMI_TSAN_BARRIER_EXIT() GSHMEMI_TSAN_ACQUIRE()
#define GSHMEMI_TSAN_APPLY_BEGIN() GSHMEMI_TSAN_ACQUIRE()
#define GSHMEMI_TSAN_APPLY_END() GSHMEMI_TSAN_RELEASE()

#endif /* GSHMEMI_THREAD_H */
