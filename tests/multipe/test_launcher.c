/* test_launcher.c: gshmemrun itself: exit status propagation, signals,
 * --timeout, --prefix, the private directory, exec failures, the PEs'
 * CUDA_MODULE_LOADING, PEs that die with a killed launcher, the /dev/shm
 * objects of killed PEs removed, the directory and objects of a killed
 * launcher removed (its watcher). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests_common.h"

int gshmemi_rmtree(const char *path);

#define RUN "%B/tools/gshmemrun/gshmemrun "
#define PROG " %B/tests/pe/pe_launcher "

Test(launcher, all_pes_start_and_exit_zero)
{
    test_run_t r = test_run(NULL, RUN "-n 4" PROG "env", 30);
    cr_assert_eq(r.status, 0, "status %d, output:\n%s", r.status, test_tail(&r));
    for (int p = 0; p < 4; p++) {
        char want[32];
        snprintf(want, sizeof want, "PE %d of 4\n", p);
        cr_assert(strstr(r.output, want), "missing \"%s\" in:\n%s", want, test_tail(&r));
    }
    test_run_free(&r);
}

/* One PE ends early (cmd): gshmemrun returns want_status, reports the PE
 * (who) and how it ended (how), and ends the sleeping PEs within 10 s. */
static void check_early_end(const char *cmd, int want_status, const char *who, const char *how)
{
    test_run_t r = test_run(NULL, cmd, 60);
    cr_assert_eq(r.status, want_status, "status %d, output:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, who) && strstr(r.output, how), "output:\n%s", test_tail(&r));
    cr_assert_lt(r.seconds, 10.0, "the sleeping PEs were not ended (%.1f s)", r.seconds);
    test_run_free(&r);
}

Test(launcher, exit_status_propagates_and_others_are_ended)
{
    check_early_end(RUN "-n 3" PROG "exit 5 1", 5, "gshmemrun: PE 1 (pid ",
                    "exited with status 5");
}

Test(launcher, signal_death_gives_128_plus_signal)
{
    check_early_end(RUN "-n 2" PROG "kill 0", 137, "gshmemrun: PE 0 (pid ",
                    "was killed by signal 9");
}

Test(launcher, timeout_kills_and_returns_124)
{
    test_run_t r = test_run(NULL, RUN "-n 2 --timeout 1" PROG "sleep 30", 60);
    cr_assert_eq(r.status, 124, "status %d, output:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "gshmemrun: timeout after 1 s; PEs still running: 0 1"),
              "output:\n%s", test_tail(&r));
    cr_assert_lt(r.seconds, 6.0, "took %.1f s", r.seconds);
    cr_assert_gt(r.seconds, 0.9, "took only %.1f s", r.seconds);
    test_run_free(&r);
}

/* A host list (mpirun's options) is refused at once, naming the
 * multi-node launchers, and nothing starts. */
Test(launcher, host_list_refused)
{
    static const char *const opts[] = {"-H a,b", "--host=a,b", "--hostfile hosts",
                                       "-machinefile hosts"};
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s-n 2 %s%slines", RUN, opts[k], PROG);
        test_run_t r = test_run(NULL, cmd, 30);
        cr_expect(r.status != 0 && strstr(r.output, "gshmemrun starts PEs on this node only") &&
                      strstr(r.output, "mpirun --hostfile") &&
                      strstr(r.output, "GSHMEM_BOOTSTRAP_UID") && !strstr(r.output, "of PE "),
                  "gshmemrun %s: status %d, want a refusal naming the other launchers:\n%s",
                  opts[k], r.status, test_tail(&r));
        test_run_free(&r);
    }
}

Test(launcher, prefix_labels_every_line)
{
    test_run_t r = test_run(NULL, RUN "-n 2 --prefix --" PROG "lines", 30);
    cr_assert_eq(r.status, 0, "status %d, output:\n%s", r.status, test_tail(&r));
    for (int p = 0; p < 2; p++) {
        char want[4][64];
        snprintf(want[0], 64, "[PE %d] out line 1 of PE %d\n", p, p);
        snprintf(want[1], 64, "[PE %d] out line 2 of PE %d\n", p, p);
        snprintf(want[2], 64, "[PE %d] err line of PE %d\n", p, p);
        snprintf(want[3], 64, "[PE %d] no newline from PE %d\n", p, p);
        for (int k = 0; k < 4; k++)
            cr_assert(strstr(r.output, want[k]), "missing \"%s\" in:\n%s", want[k], test_tail(&r));
    }
    cr_assert_eq(test_count_of(r.output, "\n"), 8, "expected 8 lines:\n%s", test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "[PE "), 8, "expected 8 labels:\n%s", test_tail(&r));
    test_run_free(&r);
}

Test(launcher, no_prefix_passes_output_through)
{
    test_run_t r = test_run(NULL, RUN "-n 1" PROG "lines", 30);
    cr_assert_eq(r.status, 0, "status %d, output:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "out line 1 of PE 0\n") && !strstr(r.output, "[PE"),
              "output:\n%s", test_tail(&r));
    test_run_free(&r);
}

Test(launcher, private_dir_is_0700_and_removed)
{
    test_run_t r = test_run("TMPDIR=/tmp", RUN "-n 2" PROG "dirinfo", 30);
    cr_assert_eq(r.status, 0, "status %d, output:\n%s", r.status, test_tail(&r));
    char dir[256] = "", dir2[256] = "";
    unsigned mode = 0, mode2 = 0;
    int sock = 0, sock2 = 0;
    const char *l = strstr(r.output, "dir=");
    cr_assert(l && sscanf(l, "dir=%255s mode=%o sock=%d", dir, &mode, &sock) == 3,
              "output:\n%s", test_tail(&r));
    l = strstr(l + 4, "dir=");
    cr_assert(l && sscanf(l, "dir=%255s mode=%o sock=%d", dir2, &mode2, &sock2) == 3,
              "output:\n%s", test_tail(&r));
    cr_assert_str_eq(dir, dir2, "the PEs got different directories");
    cr_assert_eq(mode, 0700, "mode %o", mode);
    cr_assert_eq(sock, 1, "the rendezvous socket is not inside %s", dir);
    cr_assert(strncmp(dir, "/tmp/gshmemrun-", 15) == 0, "dir %s", dir);
    struct stat st;
    cr_assert(stat(dir, &st) != 0 && errno == ENOENT, "%s is still there", dir);
    test_run_free(&r);
}

/* A program that cannot run is said once, before any PE starts (it was
 * once per PE), with the shell's status: 127 not found (a path, or a name
 * searched in PATH as execvp does), 126 not executable. */
static void expect_not_run(const char *cmd, int status, const char *want)
{
    test_run_t r = test_run(NULL, cmd, 30);
    cr_assert_eq(r.status, status, "%s: status %d, output:\n%s", cmd, r.status, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, want), 1, "%s: want '%s' once in:\n%s", cmd, want,
                 test_tail(&r));
    cr_assert(strstr(r.output, "no PE was started"), "output:\n%s", test_tail(&r));
    test_run_free(&r);
}

Test(launcher, exec_failure_is_127)
{
    expect_not_run(RUN "-n 4 /nonexistent/prog", 127, "cannot run /nonexistent/prog");
    expect_not_run("/usr/bin/env PATH=/nonexistent:/usr/bin " RUN "-n 3 gshmem-no-such-prog",
                   127, "cannot run gshmem-no-such-prog: not found in PATH (/nonexistent:");
    expect_not_run(RUN "-n 3 " GSHMEM_SOURCE_DIR "/README.md", 126, "/README.md: Permission");
    /* a name in PATH is found as execvp finds it */
    test_run_t r = test_run(NULL, RUN "-n 2 true", 30);
    cr_assert_eq(r.status, 0, "gshmemrun true: status %d:\n%s", r.status, test_tail(&r));
    test_run_free(&r);
}

Test(launcher, bad_usage_is_2)
{
    test_run_t r = test_run(NULL, RUN "-n 0 true", 30);
    cr_assert_eq(r.status, 2, "status %d, output:\n%s", r.status, test_tail(&r));
    test_run_free(&r);
    r = test_run(NULL, RUN "--bogus true", 30);
    cr_assert_eq(r.status, 2, "status %d, output:\n%s", r.status, test_tail(&r));
    test_run_free(&r);
    static const char *const timeouts[] = {"nan", "inf", "-1", "0", "x", ""};
    for (size_t i = 0; i < sizeof timeouts / sizeof timeouts[0]; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "%s-n 1 --timeout '%s' true", RUN, timeouts[i]);
        r = test_run(NULL, cmd, 30);
        cr_assert(r.status == 2 && strstr(r.output, "--timeout"), "--timeout '%s' (nan was no "
                  "timeout at all): status %d, output:\n%s", timeouts[i], r.status,
                  test_tail(&r));
        test_run_free(&r);
    }
    static const char *const stopped[] = {"x", "-1", "1.5", "1s"};
    for (size_t i = 0; i < sizeof stopped / sizeof stopped[0]; i++) {
        char env[64];
        snprintf(env, sizeof env, "GSHMEM_STOPPED_TIMEOUT=%s", stopped[i]);
        r = test_run(env, RUN "-n 1 true", 30);
        cr_assert(r.status == 2 && strstr(r.output, env), "%s: status %d, output:\n%s", env,
                  r.status, test_tail(&r));
        test_run_free(&r);
    }
}

/* CUDA_MODULE_LOADING=EAGER for the PEs unless the user chose (a lazily
 * loaded kernel can deadlock a kernel that waits for the queue path:
 * src/base/heap/heap.h); seen as gpu_device/team_coll_queue_* hanging. */
Test(launcher, pes_get_eager_cuda_loading_unless_set)
{
    test_run_t r = test_run(NULL, "/usr/bin/env -u CUDA_MODULE_LOADING " RUN "-n 2 /usr/bin/env",
                            30);
    cr_assert_eq(r.status, 0, "status %d, output:\n%s", r.status, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "CUDA_MODULE_LOADING=EAGER\n"), 2, "output:\n%s",
                 test_tail(&r));
    test_run_free(&r);
    r = test_run("CUDA_MODULE_LOADING=LAZY", RUN "-n 2 /usr/bin/env", 30);
    cr_assert_eq(r.status, 0, "status %d, output:\n%s", r.status, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "CUDA_MODULE_LOADING=LAZY\n"), 2, "the user's "
                 "setting was not kept; output:\n%s", test_tail(&r));
    test_run_free(&r);
}

/* A SIGKILLed gshmemrun takes its PEs with it (PR_SET_PDEATHSIG): 1 s after
 * the kill none of them runs. Before, they slept on (here 20 s; a real PE
 * computed at full CPU until its next barrier). Leftovers are killed. */
Test(launcher, pes_die_with_a_killed_launcher, .timeout = 60)
{
    /* a dead PE may stay a zombie (its new parent reaps it late): alive is
     * a process in any state but Z */
    test_run_t r = test_run(NULL, "sh -c '" RUN "-n 3" PROG "sleep 20 & L=$!; sleep 1; "
                            "P=$(pgrep -P $L); kill -9 $L; sleep 1; for p in $P; do "
                            "s=$(ps -o stat= -p $p); case \"$s\" in \"\"|Z*) ;; *) "
                            "echo \"ALIVE $p ($s)\"; kill -9 $p;; esac; done; "
                            "echo \"PES: $P\"'", 40);
    cr_expect(strstr(r.output, "PES: ") && strspn(strstr(r.output, "PES: ") + 5, "0123456789"),
              "no PE was found running:\n%s", test_tail(&r));
    cr_expect(!strstr(r.output, "ALIVE"), "PEs outlived their killed launcher:\n%s",
              test_tail(&r));
    test_run_free(&r);
}

/* The PEs' /dev/shm objects of libfabric's shm provider (gshmem-<pid>-...,
 * 16 MiB each) are gone after a job whose PE 1 was killed over ofi/shm,
 * the others ended by gshmemrun: it removes each reaped PE's. The PEs'
 * pids come from their log lines ("<host>:<pid>:PE<n>"). */
Test(launcher, killed_pes_leave_no_shm_objects, .timeout = 60)
{
    char env[512];
    snprintf(env, sizeof env, "%s GSHMEM_DEBUG=INFO", test_tp_env("ofi-shm"));
    test_run_t r = test_run_env_pes(env, 3, "pe_wait", "die barrier", 40);
    cr_expect_neq(r.status, 0, "%s", test_tail(&r));
    int pids = 0, left = 0, seen[16];
    for (const char *at = strstr(r.output, ":PE"); at != NULL; at = strstr(at + 3, ":PE")) {
        const char *b = at;
        while (b > r.output && b[-1] >= '0' && b[-1] <= '9')
            b--;
        if (b == at || b == r.output || b[-1] != ':')
            continue;
        int pid = atoi(b), known = 0;
        for (int i = 0; i < pids; i++)
            known |= seen[i] == pid;
        if (known || pids == 16)   /* each PE's objects are looked for once */
            continue;
        seen[pids] = pid;
        char path[64];
        snprintf(path, sizeof path, "gshmem-%d-", pid);
        DIR *d = opendir("/dev/shm");
        cr_assert_not_null(d);
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            if (strncmp(e->d_name, path, strlen(path)) == 0) {
                cr_expect(0, "/dev/shm/%s is left", e->d_name);
                left++;
            }
        closedir(d);
        pids++;
    }
    cr_expect_gt(pids, 0, "no PE log line with a pid:\n%s", test_tail(&r));
    cr_expect_eq(left, 0, "%d objects left:\n%s", left, test_tail(&r));
    test_run_free(&r);
}

/* The names in dir, space-separated, into buf ("" when empty). */
static const char *dir_names(const char *dir, char *buf, size_t cap)
{
    size_t used = 0;
    DIR *d = opendir(dir);
    buf[0] = '\0';
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && used < cap)
            used += (size_t)snprintf(buf + used, cap - used, " %s", e->d_name);
    if (d != NULL)
        closedir(d);
    return buf;
}

/* The /dev/shm objects of the pids in list ("12 34 56"), space-separated
 * into buf ("" when none). */
static const char *shm_objects_of(const char *list, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const char *p = list; *p;) {
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        p = end;
        char prefix[32], names[1024];
        snprintf(prefix, sizeof prefix, "gshmem-%ld-", pid);
        dir_names("/dev/shm", names, sizeof names);
        for (const char *at = strstr(names, prefix); at && used < cap; at = strstr(at + 1, prefix))
            if (at[-1] == ' ')
                used += (size_t)snprintf(buf + used, cap - used, " %.*s", (int)strcspn(at, " "),
                                         at);
    }
    return buf;
}

/* Polls up to limit_s for dir to be empty and the pids' objects gone. */
static int gone_within(const char *dir, const char *pids, double limit_s)
{
    char a[1024], b[1024];
    for (int i = 0; i < (int)(limit_s * 20); i++) {
        if (!dir_names(dir, a, sizeof a)[0] && !shm_objects_of(pids, b, sizeof b)[0])
            return 1;
        usleep(50 * 1000);
    }
    return 0;
}

/* A SIGKILLed gshmemrun leaves no private directory: its watcher removes
 * it (gshmemrun cannot, and its PEs die with it). Before, gshmemrun-XXXXXX
 * and its rdv.sock stayed in $TMPDIR. */
Test(launcher, killed_launcher_leaves_no_directory, .timeout = 60)
{
    char base[64] = "/tmp/gshmem-killed-launcher-XXXXXX", env[128], cmd[512], left[1024];
    cr_assert_not_null(mkdtemp(base));
    snprintf(env, sizeof env, "TMPDIR=%s", base);
    snprintf(cmd, sizeof cmd, "sh -c '%%B/tools/gshmemrun/gshmemrun -n 3 "
             "%%B/tests/pe/pe_launcher sleep 20 & L=$!; sleep 1; echo \"BEFORE:\" $(ls %s); "
             "kill -9 $L'", base);
    test_run_t r = test_run(env, cmd, 40);
    cr_expect(strstr(r.output, "BEFORE: gshmemrun-"), "no private directory in %s before the "
              "kill:\n%s", base, test_tail(&r));
    cr_expect(gone_within(base, "", 2.0), "%s still holds%s 2 s after gshmemrun was "
              "SIGKILLed", base, dir_names(base, left, sizeof left));
    test_run_free(&r);
    gshmemi_rmtree(base);
}

/* The same over ofi/shm: the PEs, killed with their launcher, leave no
 * /dev/shm/gshmem-<pid>-* (the watcher removes a PE's once it is gone).
 * The script waits for each PE's object before the kill. */
Test(launcher, killed_launcher_leaves_no_shm_objects, .timeout = 60)
{
    char base[64] = "/tmp/gshmem-killed-launcher-XXXXXX", env[512], cmd[1024], left[1024],
         objs[1024];
    cr_assert_not_null(mkdtemp(base));
    snprintf(env, sizeof env, "TMPDIR=%s %s", base, test_tp_env("ofi-shm"));
    snprintf(cmd, sizeof cmd, "sh -c '%%B/tools/gshmemrun/gshmemrun -n 3 --timeout 30 "
             "%%B/tests/pe/pe_wait stuck - & L=$!; for i in $(seq 200); do c=0; "
             "P=$(pgrep -P $L); for p in $P; do ls /dev/shm/gshmem-$p-* >/dev/null 2>&1 && "
             "c=$((c+1)); done; [ $c -ge 3 ] && break; sleep 0.1; done; "
             "echo \"OBJECTS: $c\"; echo \"PES: \"$P; kill -9 $L'");
    test_run_t r = test_run(env, cmd, 40);
    const char *pes = strstr(r.output, "PES: ");
    cr_assert(strstr(r.output, "OBJECTS: 3") && pes, "the 3 PEs' objects were not seen:\n%s",
              test_tail(&r));
    char list[256];
    snprintf(list, sizeof list, "%.*s", (int)strcspn(pes + 5, "\n"), pes + 5);
    cr_expect(gone_within(base, list, 3.0), "3 s after gshmemrun was SIGKILLed: left in %s:%s;"
              " in /dev/shm:%s", base, dir_names(base, left, sizeof left),
              shm_objects_of(list, objs, sizeof objs));
    test_run_free(&r);
    gshmemi_rmtree(base);
}
