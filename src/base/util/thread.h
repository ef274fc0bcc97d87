/* thread.h: joining a library thread with a time limit, for the exit path
 * (src/api/core/exit.c), where a thread that does not stop must not hang
 * the process's exit. */
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

#endif /* GSHMEMI_THREAD_H */
