/* pe_boot: drives the bootstrap directly (no gshmem_init): allgathers of
 * several sizes with checked values, barriers, the node map and the node
 * directory. Modes (argv[1]):
 *   normal          everything above, then finalize (also the default)
 *   reinit          normal, three open/finalize cycles in one run
 *   cycles N        N open/finalize cycles with one allgather each: a
 *                   re-open racing a peer's finalize
 *   die | kill      PE 1 _exit(3)s / raises SIGKILL while the others wait
 *                   in a barrier
 *   abort           PE 2 (or the last PE) calls abort(7, text)
 *   nofinalize      PE 1 returns from main without finalize
 *   timeout         PE 1 sleeps instead of joining a barrier; the others
 *                   must fail with GSHMEM_ERR_TIMEOUT (they exit 42)
 *   mismatch        PE 1 gives 16 bytes to an allgather of 8 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bootstrap/bootstrap.h"
#include "gshmem_types.h"
#include "base/util/config.h"
#include "base/util/log.h"
#include "pe_check.h"

static int my_pe = -1;

#define CHECK(cond, ...) PE_CHECK_AT(my_pe, cond, __VA_ARGS__)

static unsigned char pattern(int pe, size_t j, int round)
{
    return (unsigned char)(pe * 131 + (int)(j * 7) + round * 29 + 1);
}

static void check_allgather(gshmemi_bootstrap_t *b, size_t len, int round)
{
    int n = b->n_pes;
    unsigned char *in = malloc(len + 1), *out = malloc(len * (size_t)n + 1);
    for (size_t j = 0; j < len; j++)
        in[j] = pattern(b->my_pe, j, round);
    memset(out, 0xee, len * (size_t)n + 1);
    int rc = b->ops->allgather(b, in, out, len);
    CHECK(rc == 0, "allgather of %zu bytes: status %d", len, rc);
    for (int p = 0; p < n; p++)
        for (size_t j = 0; j < len; j++)
            CHECK(out[(size_t)p * len + j] == pattern(p, j, round),
                  "allgather %zu bytes: byte %zu of PE %d is %u, expected %u", len, j, p,
                  out[(size_t)p * len + j], pattern(p, j, round));
    CHECK(out[len * (size_t)n] == 0xee, "allgather of %zu bytes wrote past the end", len);
    free(in);
    free(out);
}

static void check_node(gshmemi_bootstrap_t *b)
{
    int n = b->n_pes, n_nodes = -1;
    int *node_of = malloc(sizeof(int) * (size_t)n);
    int rc = gshmemi_bootstrap_node_map(b, node_of, &n_nodes);
    /* PE_BOOT_NODES: the job's nodes (default 1), its PEs in blocks of
     * n / nodes, as scripts/startup-bench.sh lays them out */
    const char *nodes_env = getenv("PE_BOOT_NODES");
    int want = nodes_env ? atoi(nodes_env) : 1;
    CHECK(rc == 0, "node_map: status %d", rc);
    CHECK(want >= 1 && n % want == 0, "PE_BOOT_NODES=%s for %d PEs", nodes_env, n);
    CHECK(n_nodes == want, "node_map: %d nodes, expected %d", n_nodes, want);
    for (int p = 0; p < n; p++)
        CHECK(node_of[p] == p / (n / want), "node_map: PE %d on node %d, expected %d", p,
              node_of[p], p / (n / want));

    struct stat st;
    CHECK(b->node_dir[0] != '\0', "node_dir is empty");
    CHECK(stat(b->node_dir, &st) == 0, "stat(%s): %s", b->node_dir, strerror(errno));
    CHECK(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
          "node_dir %s: mode %o, expected a directory of mode 0700", b->node_dir,
          (unsigned)(st.st_mode & 0777));
    char *all = malloc(sizeof b->node_dir * (size_t)n);
    rc = b->ops->allgather(b, b->node_dir, all, sizeof b->node_dir);
    CHECK(rc == 0, "allgather of node_dir: status %d", rc);
    for (int p = 0; p < n; p++)   /* the same for the PEs of this node */
        CHECK(node_of[p] != node_of[b->my_pe] ||
                  strcmp(all + (size_t)p * sizeof b->node_dir, b->node_dir) == 0,
              "node_dir of PE %d is %s, mine is %s", p, all + (size_t)p * sizeof b->node_dir,
              b->node_dir);
    free(all);
    free(node_of);
}

static gshmemi_bootstrap_t *boot_open(void)
{
    gshmemi_config_t cfg;
    int rc = gshmemi_config_load(&cfg);
    CHECK(rc == 0, "gshmemi_config_load: status %d", rc);
    gshmemi_bootstrap_t *b = NULL;
    rc = gshmemi_bootstrap_open(&cfg, NULL, &b);
    CHECK(rc == 0 && b, "gshmemi_bootstrap_open(GSHMEM_BOOTSTRAP=%s): status %d", cfg.bootstrap,
          rc);
    CHECK(b->ops->size == sizeof(gshmemi_bootstrap_ops_t), "ops size %zu", b->ops->size);
    my_pe = b->my_pe;
    gshmemi_log_set_pe(my_pe);
    CHECK(b->n_pes >= 1 && b->my_pe >= 0 && b->my_pe < b->n_pes, "PE %d of %d", b->my_pe,
          b->n_pes);
    const char *env_pe = getenv("GSHMEMRUN_PE");
    if (strcmp(b->ops->name, "local") == 0 && env_pe)
        CHECK(atoi(env_pe) == b->my_pe, "GSHMEMRUN_PE=%s but PE %d", env_pe, b->my_pe);
    const char *want_n = getenv("PE_BOOT_N");   /* set by the drivers */
    if (want_n)
        CHECK(atoi(want_n) == b->n_pes, "n_pes %d, expected %s", b->n_pes, want_n);
    const char *want_b = getenv("PE_BOOT_EXPECT");
    if (want_b)
        CHECK(strcmp(want_b, b->ops->name) == 0, "bootstrap %s, expected %s", b->ops->name,
              want_b);
    return b;
}

static void normal_cycle(gshmemi_bootstrap_t *b, int cycle)
{
    static const size_t sizes[] = {1, 8, 3, 256, 4096, 100000, 17};
    for (int r = 0; r < (int)(sizeof sizes / sizeof sizes[0]); r++) {
        check_allgather(b, sizes[r], r + cycle * 16);
        CHECK(b->ops->barrier(b) == 0, "barrier after round %d", r);
    }
    check_node(b);
    CHECK(b->ops->barrier(b) == 0, "final barrier");
}

static void finalize_checked(gshmemi_bootstrap_t *b)
{
    char dir[sizeof b->node_dir];
    int local = strcmp(b->ops->name, "local") == 0, pe = b->my_pe;
    snprintf(dir, sizeof dir, "%s", b->node_dir);
    int rc = b->ops->finalize(b);
    CHECK(rc == 0, "finalize: status %d", rc);
    struct stat st;
    if (!local && pe == 0)   /* PE 0 created it, and removed it after a barrier */
        CHECK(stat(dir, &st) != 0 && errno == ENOENT, "node_dir %s still there after finalize",
              dir);
}

static int failure_mode(gshmemi_bootstrap_t *b, const char *mode)
{
    int victim = strcmp(mode, "abort") == 0 ? (b->n_pes > 2 ? 2 : b->n_pes - 1) : 1;
    check_allgather(b, 64, 0);
    if (strcmp(mode, "mismatch") == 0) {
        char in[16] = {0}, out[16 * 64];
        int rc = b->ops->allgather(b, in, out, b->my_pe == 1 ? 16 : 8);
        CHECK(rc != 0 && b->n_pes <= 64, "an allgather of mismatched sizes succeeded");
        return 43;
    }
    if (b->my_pe == victim) {
        usleep(300 * 1000);   /* let the others enter the barrier */
        if (strcmp(mode, "die") == 0)
            _exit(3);
        if (strcmp(mode, "kill") == 0)
            raise(SIGKILL);
        if (strcmp(mode, "abort") == 0)
            b->ops->abort(b, 7, "pe_boot test abort");
        if (strcmp(mode, "nofinalize") == 0)
            return 0;
        if (strcmp(mode, "timeout") == 0) {
            sleep(60);
            return 0;
        }
    }
    int rc = b->ops->barrier(b);
    fprintf(stderr, "pe_boot: PE %d: barrier returned %d (%s)\n", b->my_pe, rc,
            rc == GSHMEM_ERR_TIMEOUT ? "GSHMEM_ERR_TIMEOUT"
            : rc == GSHMEM_ERR_PEER_DEAD ? "GSHMEM_ERR_PEER_DEAD" : "other");
    if (rc == GSHMEM_ERR_TIMEOUT || rc == GSHMEM_ERR_PEER_DEAD) {
        /* the failed exchange marked the connection broken: finalize closes
         * and frees only (no leak for LeakSanitizer at exit: under
         * gshmemrun --serve nobody kills this PE first) */
        (void)b->ops->finalize(b);
        return rc == GSHMEM_ERR_TIMEOUT ? 42 : 43;
    }
    CHECK(0, "the barrier of mode %s returned %d", mode, rc);
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    setvbuf(stdout, NULL, _IOLBF, 0);
    gshmemi_bootstrap_t *b = boot_open();
    int short_cycles = strcmp(mode, "cycles") == 0;
    if (strcmp(mode, "normal") != 0 && strcmp(mode, "reinit") != 0 && !short_cycles)
        return failure_mode(b, mode);
    int cycles = strcmp(mode, "reinit") == 0 ? 3 : 1;
    if (short_cycles)
        cycles = argc > 2 ? atoi(argv[2]) : 0;
    CHECK(cycles >= 1, "mode %s: want a number of cycles >= 1", mode);
    const char *name = b->ops->name;
    int n = b->n_pes;
    for (int c = 0; c < cycles; c++) {
        if (c > 0)
            b = boot_open();
        if (short_cycles)
            check_allgather(b, 8, c);
        else
            normal_cycle(b, c);
        finalize_checked(b);
    }
    printf("pe_boot: PE %d of %d OK (bootstrap %s, %d cycle(s))\n", my_pe, n, name, cycles);
    return 0;
}
