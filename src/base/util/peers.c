/* peers.c: a PE stopped by a signal (SIGSTOP, SIGTSTP, ...) never answers,
 * and nothing else tells its peers: mpirun and torchrun do not watch for
 * stopped ranks (gshmemrun does, WUNTRACED). A wait that lasts looks at the
 * node's PEs in /proc/<pid>/stat; one in state T for GSHMEM_STOPPED_TIMEOUT
 * seconds ends the wait with GSHMEM_ERR_PEER_DEAD, named. Not state t
 * (stopped by a debugger: a PE under gdb is only slow). Slow is not dead:
 * a PE continued in time starts over; a gap of more than 2 s between two
 * looks (this PE was stopped itself, or the whole job: Ctrl-Z) starts
 * everybody over. PEs on other nodes are not seen here. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (!peers.pe || !peers.pid || !peers.since) {
        gshmemi_peers_clear();
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "out of memory for the watch of %d PEs", n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    for (int p = 0; p < n_pes; p++)
        if (p != my_pe && node_of[p] == node_of[my_pe] && pid_of[p] > 0) {
            peers.pe[peers.n] = p;
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
    memset(&peers, 0, sizeof peers);
    pthread_mutex_unlock(&peers_lock);
}

int gshmemi_peers_watch(uint64_t began_ns, char *why, size_t cap)
{
    uint64_t now = gshmemi_now_ns();
    int rc = 0;
    if (peers.stopped_s <= 0 || now - began_ns < LOOK_NS ||
        now - __atomic_load_n(&peers.last, __ATOMIC_RELAXED) < LOOK_NS ||
        pthread_mutex_trylock(&peers_lock) != 0)
        return 0;
    int gap = peers.last != 0 && now - peers.last > GAP_NS;
    peers.last = now;
    for (int i = 0; i < peers.n && rc == 0; i++) {
        if (gap || gshmemi_proc_state(peers.pid[i]) != 'T') {
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
    pthread_mutex_unlock(&peers_lock);
    return rc;
}
