/* pe_uid.c: the unique-ID bootstrap as a program without a launcher uses
 * it (test_uid.c starts one process per PE, by hand). The ID goes from PE
 * 0 to the others through a file, as it could through MPI_Bcast or a
 * store.
 *   pe_uid MODE PE N FILE
 *     api       gshmem_get_uniqueid on PE 0, the ID through FILE, init_attr;
 *               then puts around a ring, a fetch_add on PE 0 and a sum
 *               reduction, checked; "pe_uid: OK (PE p of n)"
 *     kill      api's init, a barrier, then PE N-1 dies (SIGKILL) and the
 *               others wait in a barrier: the job must end them
 *     exit      PE 1 calls gshmem_global_exit(7) while the others wait
 *     badtoken  PEs other than 0 take the ID with its token changed: init
 *               must fail ("pe_uid: refused (...)", status 0)
 *   pe_uid startup     gshmem_init as the program calls it (the bootstrap
 *               from GSHMEM_BOOTSTRAP_UID or a launcher), a barrier,
 *               finalize; PE 0 prints the slowest PE's init time ("pe_uid:
 *               startup N PEs: init max A ms"), every PE its finalize's
 *               ("pe_uid: PE p finalize B ms"; scripts/startup-bench.sh)
 *   pe_uid refusals    one process: a stale ID (a second
 *               gshmem_get_uniqueid closed the first), an ID that is not
 *               one, a host name for its address, PE numbers out of range, the ID with
 *               GSHMEM_INIT_WITH_MPI_COMM: each init must fail at once
 *               ("pe_uid: refused (what)" each, then "pe_uid: OK (refusals)") */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gshmem.h"
#include "pe_check.h"

static int my = -1;
#define CHECK(cond, ...) PE_CHECK_AT(my, cond, __VA_ARGS__)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* PE 0 makes the ID and publishes it in file; the others read it. */
static void get_id(int pe, const char *file, gshmem_uniqueid_t *id)
{
    char tmp[512];
    if (pe == 0) {
        int rc = gshmem_get_uniqueid(id);
        CHECK(rc == 0, "gshmem_get_uniqueid: %s", gshmem_strerror(rc));
        snprintf(tmp, sizeof tmp, "%s.tmp", file);
        FILE *f = fopen(tmp, "w");
        CHECK(f != NULL, "cannot write %s", tmp);
        fwrite(id, sizeof *id, 1, f);
        fclose(f);
        CHECK(rename(tmp, file) == 0, "rename to %s", file);
        return;
    }
    for (double t0 = now_s(); now_s() - t0 < 30; usleep(20000)) {
        FILE *f = fopen(file, "r");
        if (f == NULL)
            continue;
        size_t n = fread(id, sizeof *id, 1, f);
        fclose(f);
        if (n == 1)
            return;
    }
    CHECK(0, "no ID in %s after 30 s", file);
}

static int init_uid(int pe, int n, const gshmem_uniqueid_t *id)
{
    gshmem_init_attr_t attr;
    memset(&attr, 0, sizeof attr);
    int rc = gshmem_set_attr_uniqueid_args(pe, n, id, &attr);
    CHECK(rc == 0, "gshmem_set_attr_uniqueid_args: %s", gshmem_strerror(rc));
    return gshmem_init_attr(GSHMEM_INIT_WITH_UNIQUEID, &attr);
}

static void check_api(int pe, int n)
{
    CHECK(gshmem_my_pe() == pe && gshmem_n_pes() == n, "PE %d of %d, expected %d of %d",
          gshmem_my_pe(), gshmem_n_pes(), pe, n);
    int64_t *ring = gshmem_malloc(8), *cnt = gshmem_malloc(8);
    int64_t *src = gshmem_malloc(8), *sum = gshmem_malloc(8);
    CHECK(ring && cnt && src && sum, "gshmem_malloc");
    *ring = -1;
    *cnt = 0;
    *src = pe + 1;
    gshmem_barrier_all();
    gshmem_int64_p(ring, 1000 + pe, (pe + 1) % n);
    gshmem_int64_atomic_fetch_add(cnt, pe + 1, 0);
    gshmem_barrier_all();
    CHECK(*ring == 1000 + (pe + n - 1) % n, "ring: %ld, expected %d", (long)*ring,
          1000 + (pe + n - 1) % n);
    if (pe == 0)
        CHECK(*cnt == (long)n * (n + 1) / 2, "counter %ld, expected %d", (long)*cnt, n * (n + 1) / 2);
    int rc = gshmem_int64_sum_reduce(GSHMEM_TEAM_WORLD, sum, src, 1);
    CHECK(rc == 0 && *sum == (long)n * (n + 1) / 2, "sum_reduce: rc %d, %ld, expected %d", rc,
          (long)*sum, n * (n + 1) / 2);
    gshmem_free(sum);
    gshmem_free(src);
    gshmem_free(cnt);
    gshmem_free(ring);
}

static void refused(int rc, double t0, const char *what)
{
    CHECK(rc != 0 && !gshmem_initialized(), "%s: init returned %d (want an error)", what, rc);
    CHECK(now_s() - t0 < 3, "%s: refused only after %.1f s (want at once)", what, now_s() - t0);
    printf("pe_uid: refused (%s)\n", what);
    fflush(stdout);
}

static int refusals(void)
{
    gshmem_uniqueid_t stale, id, bad;
    gshmem_init_attr_t attr;
    CHECK(gshmem_get_uniqueid(&stale) == 0, "gshmem_get_uniqueid");
    CHECK(gshmem_get_uniqueid(&id) == 0, "gshmem_get_uniqueid (second)");
    double t0 = now_s();
    refused(init_uid(1, 2, &stale), t0, "stale ID");
    memset(&bad, 0, sizeof bad);
    snprintf(bad.internal, sizeof bad.internal, "not-an-id 1.2.3.4 5 x");
    t0 = now_s();
    refused(init_uid(1, 2, &bad), t0, "not an ID");
    /* a host name where the ID takes an address: connect had nothing to go on */
    snprintf(bad.internal, sizeof bad.internal, "gshmem-uid1 node-a 5000 "
             "00112233445566778899aabbccddeeff");
    t0 = now_s();
    refused(init_uid(1, 2, &bad), t0, "a host name, not an address");
    memset(&attr, 0, sizeof attr);
    CHECK(gshmem_set_attr_uniqueid_args(2, 2, &id, &attr) != 0, "set_attr: PE 2 of 2 accepted");
    attr.size = sizeof attr;
    attr.uid = id;
    attr.uid_pe = 3;
    attr.uid_n_pes = 2;
    t0 = now_s();
    refused(gshmem_init_attr(GSHMEM_INIT_WITH_UNIQUEID, &attr), t0, "PE 3 of 2");
    attr.uid_pe = 0;
    t0 = now_s();
    refused(gshmem_init_attr(GSHMEM_INIT_WITH_UNIQUEID | GSHMEM_INIT_WITH_MPI_COMM, &attr), t0,
            "with an MPI communicator too");
    printf("pe_uid: OK (refusals)\n");
    return 0;
}

static int startup(void)
{
    double t0 = now_s();
    int rc = gshmem_init();
    CHECK(rc == 0, "gshmem_init: %s", gshmem_strerror(rc));
    my = gshmem_my_pe();
    int64_t *t = gshmem_malloc(4 * sizeof(int64_t));
    CHECK(t != NULL, "gshmem_malloc");
    t[0] = (int64_t)((now_s() - t0) * 1e6);
    gshmem_barrier_all();
    double t1 = now_s();
    gshmem_int64_max_reduce(GSHMEM_TEAM_WORLD, t + 1, t, 1);
    int n = gshmem_n_pes(), me = my;
    int64_t init_us = t[1];
    gshmem_free(t);
    gshmem_finalize();
    /* finalize's time: each PE's, printed by all, the driver takes the max */
    printf("pe_uid: PE %d finalize %.1f ms\n", me, (now_s() - t1) * 1e3);
    if (me == 0)
        printf("pe_uid: startup %d PEs: init max %.1f ms\n", n, init_us / 1e3);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "refusals") == 0)
        return refusals();
    if (argc == 2 && strcmp(argv[1], "startup") == 0)
        return startup();
    if (argc != 5) {
        fprintf(stderr, "usage: pe_uid api|kill|exit|badtoken PE N FILE | pe_uid refusals\n");
        return 2;
    }
    const char *mode = argv[1], *file = argv[4];
    int pe = atoi(argv[2]), n = atoi(argv[3]);
    gshmem_uniqueid_t id;
    my = pe;
    get_id(pe, file, &id);
    if (strcmp(mode, "badtoken") == 0 && pe != 0) {
        char *tok = strrchr(id.internal, ' ');   /* "... TOKEN ready": the token's end */
        CHECK(tok && tok - id.internal > 2, "ID '%s'", id.internal);
        tok[-1] = tok[-1] == '0' ? '1' : '0';
        double t0 = now_s();
        refused(init_uid(pe, n, &id), t0, "wrong token");
        return 0;
    }
    int rc = init_uid(pe, n, &id);
    if (strcmp(mode, "badtoken") == 0) {   /* PE 0: the others never join */
        CHECK(rc != 0, "PE 0's init succeeded without the other PEs");
        printf("pe_uid: refused (PE 0 alone)\n");
        return 0;
    }
    CHECK(rc == 0, "gshmem_init_attr(GSHMEM_INIT_WITH_UNIQUEID): %s", gshmem_strerror(rc));
    if (strcmp(mode, "api") == 0) {
        check_api(pe, n);
    } else if (strcmp(mode, "kill") == 0) {
        gshmem_barrier_all();
        if (pe == n - 1)
            raise(SIGKILL);
        gshmem_barrier_all();
        CHECK(0, "the barrier passed without PE %d", n - 1);
    } else if (strcmp(mode, "exit") == 0) {
        gshmem_barrier_all();
        if (pe == 1)
            gshmem_global_exit(7);
        gshmem_barrier_all();
        CHECK(0, "the barrier passed without PE 1");
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    gshmem_finalize();
    printf("pe_uid: OK (PE %d of %d)\n", pe, n);
    return 0;
}
