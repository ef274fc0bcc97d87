/* exit.c: the library's threads when the process exits without
 * gshmem_finalize (exit(), a return from main, gshmemi_fatal's exit).
 *
 * WHY: the runtime's threads (the aggregator's service, the proxy engine,
 * the ofi transport's progress and rail threads) call into libfabric and,
 * with a CUDA heap, into the CUDA runtime all the time. exit() runs the
 * CUDA runtime's own teardown (an atexit handler), then the libraries'
 * destructors, while those threads still run: an ofi rail thread got
 * "driver shutting down" from cudaGetDevice and the process crashed after
 * the program's own exit(0). An atexit handler of ours stops them first,
 * as NCCL's and NVSHMEM's proxy threads are stopped before the runtime
 * goes.
 *
 * ORDER (why ours runs before CUDA's): atexit handlers run in the reverse
 * order of their registration, and the CUDA runtime registers its teardown
 * when it is first initialised. Init registers ours right after the heap
 * (gshmemi_exit_register): a CUDA heap is allocated on the PE's GPU there,
 * so the runtime is initialised by then and ours, registered later, runs
 * earlier. The bootstraps' own handlers (bootstrap_mpi.c's MPI_Finalize,
 * bootstrap_pmix.c's PMIx release) were registered at bootstrap open,
 * before the heap: they run after ours, with no thread of ours left.
 * Destructors of shared objects (libfabric's, libcudart's) run after every
 * atexit handler. One registration per process, and one more
 * the first time a CUDA heap is made after a host-heap init registered
 * (CUDA may have been initialised after that one); the handler acts once.
 * Not order-free: a handler the program registered BEFORE gshmem_init runs
 * after ours (and after CUDA's, if CUDA started later); a gshmem_finalize
 * from there is skipped with a warning (gshmemi_exit_began), as its
 * threads are gone.
 *
 * WHAT: in the order they feed each other: the aggregator's service (it
 * posts into the engine's rings) stopped; the engine told to leave without
 * draining; each transport's exit_threads (transport.h: its waits fail from
 * then on, so an engine blocked in one, waiting for a peer that exits too,
 * leaves); the engine joined. Every join ends by one deadline,
 * GSHMEMI_EXIT_WAIT_NS after the start: a thread still running then is
 * named at WARN and the exit goes on. Nothing is freed and no peer is told
 * (the process is ending; the launcher reports a PE that left without
 * finalize). One DEBUG line (INIT) says what was stopped.
 *
 * SAFE: after finalize or a failed init (gshmemi_g is cleared: nothing to
 * do); during init (what was started so far is stopped); from any thread
 * (a library thread that calls exit itself is not joined); in a child
 * forked after init (not its threads: nothing is done); twice. A PE killed
 * by a signal (gshmemrun's SIGTERM when another PE failed, default action)
 * runs no exit handler: its threads end with it, and nothing is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core.h"
#include "api/agg/agg.h"       /* gshmemi_agg_service_exit */
#include "base/util/idle.h"    /* gshmemi_now_ns */

#define GSHMEMI_EXIT_WAIT_NS 2000000000ull   /* every thread joined by then */

static int exit_registered, exit_registered_cuda;
static pid_t exit_pid;   /* the process that initialised (a fork's child is not it) */
static int exit_began;   /* atomic: the handler ran */

/* Appends "what n" (threads joined) or "what (still running)" to list. */
static void exit_note(char *list, size_t cap, size_t *len, const char *what, int rc, int *late)
{
    int n = 0;

    if (rc == GSHMEM_ERR_TIMEOUT)
        n = snprintf(list + *len, cap - *len, "%s%s (still running)", *len ? ", " : "", what);
    else if (rc > 0)
        n = snprintf(list + *len, cap - *len, "%s%s %d", *len ? ", " : "", what, rc);
    *late += rc == GSHMEM_ERR_TIMEOUT;
    if (n > 0)
        *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

static void gshmemi_exit_handler(void)
{
    gshmemi_state_t *g = &gshmemi_g;
    char list[256] = "";
    size_t len = 0;
    int late = 0;

    if (g->boot == NULL || getpid() != exit_pid ||
        __atomic_exchange_n(&exit_began, 1, __ATOMIC_ACQ_REL))
        return;
    uint64_t t0 = gshmemi_now_ns(), deadline = t0 + GSHMEMI_EXIT_WAIT_NS;
    exit_note(list, sizeof list, &len, "aggregator service", gshmemi_agg_service_exit(deadline),
              &late);
    gshmemi_proxy_exit_begin();
    for (int i = 0; i < g->n_tps; i++) {
        gshmemi_transport_t *tp = &g->tps[i];
        exit_note(list, sizeof list, &len, tp->ops->name, tp->ops->exit_threads(tp, deadline),
                  &late);
    }
    exit_note(list, sizeof list, &len, "engine", gshmemi_proxy_exit_wait(deadline), &late);
    GSHMEMI_DEBUG(GSHMEMI_SUBSYS_INIT, "exit without gshmem_finalize: threads stopped at exit: "
                  "%s, in %.2f ms (before the exit handlers of CUDA and the libraries)%s",
                  len ? list : "none was running", (double)(gshmemi_now_ns() - t0) / 1e6,
                  late ? "; some did not stop in time (see the warnings)" : "");
}

void gshmemi_exit_register(int cuda_heap)
{
    exit_pid = getpid();
    if (exit_registered && (exit_registered_cuda || !cuda_heap))
        return;
    if (atexit(gshmemi_exit_handler) != 0) {
        GSHMEMI_WARN(GSHMEMI_SUBSYS_INIT, "gshmem_init: atexit failed: an exit without "
                     "gshmem_finalize will not stop the library's threads first");
        return;
    }
    exit_registered = 1;
    exit_registered_cuda |= cuda_heap;
}

int gshmemi_exit_began(void)
{
    return __atomic_load_n(&exit_began, __ATOMIC_ACQUIRE);
}
