/* peers.c: the node's other PEs as /proc shows them, for the waits of a job
 * whose launcher does not end it, or not soon enough.
 * - Ended: a launcher that keeps the job going after a death (mpirun
 *   --enable-recovery; Open MPI 4.1's mpirun sends its PMIx clients no
 *   event for it) leaves the others waiting forever. A PE whose process is
 *   gone, a zombie, or another process of the same pid (its start time
 *   differs) ends the wait with GSHMEM_ERR_PEER_DEAD, named. A PE whose
 *   /proc entry this PE could not read at init (another pid namespace) is
 *   not judged. The watch ends when finalize's barrier is passed (a PE may
 *   leave after it).
 * - Stopped by a signal (SIGSTOP, SIGTSTP, ...): it never answers, and
 *   mpirun and torchrun do not watch for stopped ranks (gshmemrun does,
 *   WUNTRACED). One in state T for GSHMEM_STOPPED_TIMEOUT seconds ends the
 *   wait the same way. Not state t (stopped by a debugger: a PE under gdb
 *   is only slow). Slow is not dead: a PE continued in time starts over; a
 *   gap of more than 2 s between two looks (this PE was stopped itself, or
 *   the whole job: Ctrl-Z) starts everybody over.
 * A wait that has lasted 0.5 s looks, every 0.5 s. PEs on other nodes are
 * not seen here. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/util/peers.h"
#include "base/util/proc_state.h"
#include "base/util/idle.h"
#include "base/util/log.h"
#include "gshmem_types.h"

#define LOOK_NS 500000000ull   /* between looks */
#define GAP_NS 2000000000ull   /* a longer gap: this PE was not running */

static struct {
    int n, stopped_s;
    int *pe, *pid;                 /* the other PEs of this node */
    unsigned long long *start;     /* each one's start time; 0: not judged */
    uint64_t *since;               /* when each was first seen stopped, 0: running */
    uint64_t last;
} peers;
static pthread_mutex_t peers_lock = PTHREAD_MUTEX_INITIALIZER;

int gshmemi_peers_set(const int *pid_of, const int *node_of, int my_pe, int n_pes,
                      int stopped_s)
{
    gshmemi_peers_clear();
    peers.pe = calloc((size_t)n_pes, sizeof(int));
    peers.pid = calloc((size_t)n_pes, sizeof(int));
    peers.since = calloc((size_t)n_pes, sizeof(uint64_t));
    peers.start = calloc((size_t)n_pes, sizeof(unsigned long long));
    if (!peers.pe || !peers.pid || !peers.since || !peers.start) {
        gshmemi_peers_clear();
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "out of memory for the watch of %d PEs", n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    for (int p = 0; p < n_pes; p++)
        if (p != my_pe && node_of[p] == node_of[my_pe] && pid_of[p] > 0) {
            peers.pe[peers.n] = p;
            (void)gshmemi_proc_stat(pid_of[p], &peers.start[peers.n], NULL);
            peers.pid[peers.n++] = pid_of[p];
        }
    peers.stopped_s = stopped_s;
    return 0;
}

void gshmemi_peers_clear(void)
{
    pthread_mutex_lock(&peers_lock);
    free(peers.pe);
    free(peers.pid);
    free(peers.since);
    free(peers.start);
    memset(&peers, 0, sizeof peers);
    pthread_mutex_unlock(&peers_lock);
}

/* Why PE i has ended, into buf, or NULL while its process runs. */
static const char *peers_ended(int i, char state, int err, unsigned long long start,
                               int exit_code, char *buf, size_t cap)
{
    if (peers.start[i] == 0)
        return NULL;
    if (state == 0)   /* not a failure to read /proc (out of descriptors) */
        return err == ENOENT || err == ESRCH ? "its process is gone" : NULL;
    if (state == 'Z' || state == 'X') {
        if (exit_code >= 0 && WIFSIGNALED(exit_code))
            snprintf(buf, cap, "killed by signal %d", WTERMSIG(exit_code));
        else if (exit_code >= 0)
            snprintf(buf, cap, "exited with status %d", WEXITSTATUS(exit_code));
        else
            snprintf(buf, cap, "its process has exited or was killed");
        return buf;
    }
    if (start != peers.start[i])
        return "its pid now belongs to another process";
    return NULL;
}

int gshmemi_peers_watch(uint64_t began_ns, char *why, size_t cap)
{
    uint64_t now = gshmemi_now_ns();
    int rc = 0;
    if (peers.n == 0 || now - began_ns < LOOK_NS ||
        now - __atomic_load_n(&peers.last, __ATOMIC_RELAXED) < LOOK_NS ||
        pthread_mutex_trylock(&peers_lock) != 0)
        return 0;
    int gap = peers.last != 0 && now - peers.last > GAP_NS;
    peers.last = now;
    int n_ended = 0, len = 0;
    for (int i = 0; i < peers.n; i++) {   /* every ended PE, named: the first to die is one */
        unsigned long long start;
        int exit_code;
        char state = gshmemi_proc_stat(peers.pid[i], &start, &exit_code), how[64];
        const char *ended = peers_ended(i, state, errno, start, exit_code, how, sizeof how);
        if (ended != NULL) {
            if ((size_t)len < cap)
                len += snprintf(why + len, cap - (size_t)len, "%sPE %d (pid %d) on this "
                                "node ended before gshmem_finalize (%s)", n_ended ? "; " : "",
                                peers.pe[i], peers.pid[i], ended);
            n_ended++;
        }
        if (n_ended > 0 || rc != 0)   /* the first stopped one is named only alone */
            continue;
        if (peers.stopped_s <= 0 || gap || state != 'T') {
            peers.since[i] = 0;
            continue;
        }
        if (peers.since[i] == 0)
            peers.since[i] = now;
        if (now - peers.since[i] >= (uint64_t)peers.stopped_s * 1000000000ull) {
            snprintf(why, cap, "PE %d (pid %d) on this node has been stopped by a signal "
                     "for %d s (GSHMEM_STOPPED_TIMEOUT=%d): it will not answer", peers.pe[i],
                     peers.pid[i], peers.stopped_s, peers.stopped_s);
            rc = GSHMEM_ERR_PEER_DEAD;
        }
    }
    if (n_ended > 0) {   /* before a stopped PE: an ended one is why the job fails */
        if ((size_t)len < cap)
            snprintf(why + len, cap - (size_t)len, ": %s will not answer",
                     n_ended > 1 ? "they" : "it");
        rc = GSHMEM_ERR_PEER_DEAD;
    }
    pthread_mutex_unlock(&peers_lock);
    return rc;
}
