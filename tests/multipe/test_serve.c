/* test_serve.c: gshmemrun --serve (tools/gshmemrun/serve.c), the
 * rendezvous without the launcher, with PEs started by a shell
 * (serve_pes.sh) as torchrun would: a clean run and its exit, a failing or
 * aborting PE named and the others told, init cycles with --keep until the
 * parent goes, the parent going while a PE waits, the directory rules (a
 * stale one replaced; another user's, a link, a wrong mode or a live
 * server's refused) and the usage errors. torchrun itself: test_torchrun.c. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests_common.h"

/* As formats (test_run expands %B after snprintf). */
#define RUN "%%B/tools/gshmemrun/gshmemrun"
#define DRIVER "sh " GSHMEM_SOURCE_DIR "/tests/multipe/serve_pes.sh " RUN " "

int gshmemi_rmtree(const char *path);

/* A fresh base folder (removed by the caller); dir gets "<base>/d", not created. */
static char *new_base(char *dir, size_t cap)
{
    static char base[64];
    snprintf(base, sizeof base, "/tmp/gshmem-serve-test-XXXXXX");
    cr_assert_not_null(mkdtemp(base), "mkdtemp: %s", strerror(errno));
    snprintf(dir, cap, "%s/d", base);
    return base;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* serve_pes.sh with n PEs of pe_boot mode under env: its run. */
static test_run_t serve_boot(const char *env, int n, const char *dir, const char *mode,
                             const char *boot_mode)
{
    char cmd[512], e[256];
    snprintf(cmd, sizeof cmd, DRIVER "%d %s %s %%B/tests/pe/pe_boot %s", n, dir, mode,
             boot_mode);
    snprintf(e, sizeof e, "PE_BOOT_N=%d PE_BOOT_EXPECT=local %s", n, env ? env : "");
    return test_run(e, cmd, 60);
}

/* The end of a run: it took under 10 s, the server removed dir (gone_dir),
 * the run and the base folder go. */
static void serve_done(test_run_t *r, const char *dir, char *base, int gone_dir)
{
    cr_assert_lt(r->seconds, 10.0, "took %.1f s:\n%s", r->seconds, test_tail(r));
    if (gone_dir)
        cr_assert(!exists(dir), "%s is still there", dir);
    test_run_free(r);
    gshmemi_rmtree(base);
}

Test(serve, pes_finish_then_server_exits_zero_and_removes_dir)
{
    char dir[128];
    char *base = new_base(dir, sizeof dir);
    test_run_t r = serve_boot(NULL, 4, dir, "wait", "normal");
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "OK (bootstrap local, 1 cycle(s))"), 4, "%s",
                 test_tail(&r));
    cr_assert_eq(test_count_of(r.output, " status 0\n"), 5, "4 PEs and the server:\n%s",
                 test_tail(&r));
    cr_assert(strstr(r.output, "server status 0\n"), "%s", test_tail(&r));
    serve_done(&r, dir, base, 1);
}

/* PE 1 exits (status 3) while the others wait in a barrier: the server
 * names it, tells the others (they fail instead of waiting), exits 1. */
Test(serve, lost_pe_is_named_and_the_others_are_told)
{
    char dir[128];
    char *base = new_base(dir, sizeof dir);
    test_run_t r = serve_boot("GSHMEM_TIMEOUT=30", 3, dir, "wait", "die");
    cr_assert(strstr(r.output, "gshmemrun: PE 1 (pid ") &&
                  strstr(r.output, "closed its bootstrap connection without gshmem_finalize"),
              "%s", test_tail(&r));
    cr_assert(strstr(r.output, "PE 1 status 3\n") && strstr(r.output, "server status 1\n"),
              "%s", test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "gshmemrun ended the exchange: PE 1 (pid "), 2, "%s",
                 test_tail(&r));
    serve_done(&r, dir, base, 1);
}

Test(serve, abort_gives_its_status)
{
    char dir[128];
    char *base = new_base(dir, sizeof dir);
    test_run_t r = serve_boot(NULL, 4, dir, "wait", "abort");
    cr_assert(strstr(r.output, "gshmemrun: PE 2 aborted the job (status 7): pe_boot test abort"),
              "%s", test_tail(&r));
    cr_assert(strstr(r.output, "server status 7\n"), "%s", test_tail(&r));
    serve_done(&r, dir, base, 0);
}

/* --keep: three init/finalize cycles (a PE may come back after its BYE);
 * the server ends once the shell that started it has exited. test_run
 * returns when the server closed the output it inherited. */
Test(serve, keep_serves_init_cycles_until_the_parent_exits)
{
    char dir[128];
    char *base = new_base(dir, sizeof dir);
    test_run_t r = serve_boot(NULL, 3, dir, "keep", "reinit");
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "OK (bootstrap local, 3 cycle(s))"), 3, "%s",
                 test_tail(&r));
    cr_assert_null(strstr(r.output, "gshmemrun:"), "the server complained:\n%s", test_tail(&r));
    serve_done(&r, dir, base, 1);   /* under 10 s: the server did not outlive its parent */
}

/* The parent goes while PE 0 waits for PE 1 in a bootstrap exchange: after
 * a 2 s grace PE 0 is told why, and the server removes its directory. */
Test(serve, parent_exit_ends_the_job)
{
    char dir[128];
    char *base = new_base(dir, sizeof dir);
    test_run_t r = serve_boot("GSHMEM_TIMEOUT=30", 2, dir, "leave", "normal");
    cr_assert(strstr(r.output, "gshmemrun ended the exchange: the process that started "
                               "gshmemrun --serve (pid ") &&
                  strstr(r.output, "(PEs still connected 2 s later: 0)"),
              "%s", test_tail(&r));
    serve_done(&r, dir, base, 1);
}

/* A Unix socket at path that nothing listens on (a killed server's). */
static void dead_socket(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    cr_assert_lt(strlen(path), sizeof addr.sun_path, "%s: too long for a socket", path);
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0, "bind %s: %s",
              path, strerror(errno));
    close(fd);
}

static test_run_t serve_only(const char *dir, const char *more)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, RUN " --serve -n 1 --dir %s %s", dir, more);
    return test_run(NULL, cmd, 30);
}

/* A stale directory of ours (a dead socket, a file) is taken over: the
 * server listens (and times out: nobody comes) and removes it. */
Test(serve, stale_dir_of_ours_is_replaced)
{
    char dir[128], sock[160], junk[160];
    char *base = new_base(dir, sizeof dir);
    cr_assert_eq(mkdir(dir, 0700), 0);
    snprintf(sock, sizeof sock, "%s/rdv.sock", dir);
    snprintf(junk, sizeof junk, "%s/shm.0", dir);
    dead_socket(sock);
    FILE *f = fopen(junk, "w");
    fclose(f);
    test_run_t r = serve_only(dir, "--timeout 1");
    cr_assert_eq(r.status, 124, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "gshmemrun: timeout after 1 s; PEs not finished: 0"), "%s",
              test_tail(&r));
    serve_done(&r, dir, base, 1);
}

/* What is not a private directory of ours, or is a live server's, is
 * refused with the reason, and left alone. */
Test(serve, foreign_or_live_dir_is_refused)
{
    char dir[128], link[160];
    char *base = new_base(dir, sizeof dir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    chmod(dir, 0755);
    test_run_t r = serve_only(dir, "");
    cr_assert_eq(r.status, 1, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "is not a private directory") && strstr(r.output, "mode 0755"),
              "%s", test_tail(&r));
    cr_assert(exists(dir), "a refused directory was removed");
    test_run_free(&r);

    snprintf(link, sizeof link, "%s/link", base);
    cr_assert_eq(symlink(dir, link), 0);
    r = serve_only(link, "");
    cr_assert(r.status == 1 && strstr(r.output, "a symbolic link"), "status %d:\n%s", r.status,
              test_tail(&r));
    test_run_free(&r);

    /* a live server's: the second one is refused, the first still serves */
    rmdir(dir);
    char cmd[512];
    snprintf(cmd, sizeof cmd, RUN " --serve -n 1 --dir %s --timeout 3 & sleep 0.5; " RUN
             " --serve -n 1 --dir %s; echo second status $?; wait $!; echo first status $?",
             dir, dir);
    r = test_run(NULL, cmd, 30);
    cr_assert(strstr(r.output, "another gshmemrun serves") &&
                  strstr(r.output, "second status 1\n") && strstr(r.output, "first status 124\n"),
              "%s", test_tail(&r));
    test_run_free(&r);
    gshmemi_rmtree(base);
}

Test(serve, usage_errors_are_2)
{
    static const char *const bad[][2] = {
        {"--serve -n 2", "--dir D is required"},
        {"--serve --dir /tmp/x", "-n N is required"},
        {"--serve -n 2 --dir /tmp/x true", "starts no program"},
        {"--serve -n 2 --dir /tmp/x --prefix", "--prefix has no output"},
        {"-n 2 --dir /tmp/x true", "--dir and --keep go with --serve only"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, RUN " %s", bad[i][0]);
        test_run_t r = test_run(NULL, cmd, 30);
        cr_assert_eq(r.status, 2, "%s: status %d:\n%s", bad[i][0], r.status, test_tail(&r));
        cr_assert(strstr(r.output, bad[i][1]), "%s:\n%s", bad[i][0], test_tail(&r));
        test_run_free(&r);
    }
}
