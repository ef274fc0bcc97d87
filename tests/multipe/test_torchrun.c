/* test_torchrun.c: the Python package under torchrun on one node
 * (python/gshmem/_torchrun.py: LOCAL_RANK 0 starts gshmemrun --serve, the
 * PEs are torchrun's ranks), CPU PEs on host heaps: pe_py_basic and
 * pe_py_torchrun (RANK = PE, the private directory, init cycles) at 2 and
 * 4 ranks; a failing rank ends the job with a nonzero status and a message
 * whether the others wait in a bootstrap exchange (gshmemrun --serve tells
 * them) or elsewhere (torchrun ends them), and the directory is gone after;
 * two agents (--nnodes 2 on this machine: the unique-ID bootstrap, its ID
 * through the agents' store): pe_py_basic, two init cycles, a failing rank;
 * and with torchrun's variables set by hand (no torchrun needed): one rank,
 * the refusals (several nodes without the agents' store or with the local
 * bootstrap, no gshmemrun, LOCAL_RANK 0 never came), and
 * gshmemrun's variables winning over torchrun's; another user's directory or
 * rendezvous server at the guessable place is refused (run as root, which
 * can act as another user). gshmemrun --serve alone:
 * test_serve.c. Skips, saying why, without torchrun on PATH.
 *
 * Runs use loopback only: --standalone (c10d on localhost:29400) for one
 * test, a static or c10d rendezvous on 127.0.0.1 at a free port for the
 * others (tests run side by side: two --standalone jobs would share
 * 29400). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests_common.h"

#define PY_DIR GSHMEM_SOURCE_DIR "/tests/python"
/* As a format: the package from the build, the PE programs' helpers. */
#define PY_ENV "env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=%%B/python:" PY_DIR " "
#define TR_TIMEOUT 120
/* Debian 12's torchrun (torch 1.13 on Python 3.11) fails at start with
 * "'NoneType' object has no attribute 'get'" for the default --redirects 0
 * and --tee 0 (Std.from_str finds no zero flag on 3.11; fixed in torch 2).
 * A mapping for local rank 9, which these runs do not have, is the same
 * default and parses. --monitor_interval 1: a failed worker is seen within
 * 1 s, not 5. torch 1.13 spells the options with underscores (2.x takes
 * both). */
#define TORCHRUN "torchrun --redirects 9:0 --tee 9:0 --monitor_interval 1 "

int gshmemi_rmtree(const char *path);

/* Skips without torchrun, or when its interpreter (the one that runs the
 * workers) lacks NumPy. */
static void require_torchrun(void)
{
    test_skip_if_sanitized();
    test_require_cmd("sh -c 't=$(command -v torchrun) || { echo \"SKIP: no "
                            "torchrun on PATH (Debian: python3-torch)\"; exit 77; }; py=$(sed "
                            "-n \"1s/^#!//p\" \"$t\"); ${py:-python3} -c \"import numpy\" || "
                            "{ echo \"SKIP: the python of torchrun ($py) lacks NumPy\"; "
                            "exit 77; }'", 60, "");
}

/* A TCP port on 127.0.0.1 that was free a moment ago. */
static int free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                  getsockname(fd, (struct sockaddr *)&a, &len) == 0,
              "no free port on 127.0.0.1");
    close(fd);
    return ntohs(a.sin_port);
}

/* A fresh folder for XDG_RUNTIME_DIR (where the job's directory goes). */
static char *new_runtime_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/gshmem-torchrun-test-XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
    return dir;
}

/* The job's directory is gone: dir is empty again. */
static void expect_empty(const char *dir, const test_run_t *r)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "ls -A %s", dir);
    test_run_t ls = test_run(NULL, cmd, 30);
    cr_assert(ls.status == 0 && ls.output[0] == '\0', "left in %s: %s\nrun:\n%s", dir,
              ls.output, test_tail(r));
    test_run_free(&ls);
}

/* torchrun (rdzv: its rendezvous options) with n ranks of
 * tests/python/<prog>.py args on host heaps, XDG_RUNTIME_DIR=xdg. */
static test_run_t torchrun(const char *rdzv, int n, const char *xdg, const char *prog,
                           const char *args)
{
    char cmd[1024], env[192];
    snprintf(cmd, sizeof cmd, PY_ENV TORCHRUN "%s --nproc_per_node %d %s/%s.py %s", rdzv, n,
             PY_DIR, prog, args);
    snprintf(env, sizeof env, "GSHMEM_HEAP=host XDG_RUNTIME_DIR=%s", xdg);
    return test_run(env, cmd, TR_TIMEOUT);
}

/* Status 0, "<prog>: OK", the job's directory gone. */
static void expect_ok(test_run_t *r, const char *prog, int n, const char *xdg)
{
    char want[64];
    snprintf(want, sizeof want, "%s: OK", prog);
    cr_assert_eq(r->status, 0, "%s at %d ranks: status %d:\n%s", prog, n, r->status,
                 test_tail(r));
    cr_assert(strstr(r->output, want), "%s at %d ranks: no '%s':\n%s", prog, n, want,
              test_tail(r));
    cr_assert_null(strstr(r->output, "gshmemrun:"), "the server complained:\n%s", test_tail(r));
    expect_empty(xdg, r);
    test_run_free(r);
    gshmemi_rmtree(xdg);
}

/* The command line of the issue: --standalone, 2 ranks. */
Test(torchrun, standalone_basic_n2, .timeout = TR_TIMEOUT + 30)
{
    require_torchrun();
    char *xdg = new_runtime_dir();
    test_run_t r = torchrun("--standalone", 2, xdg, "pe_py_basic", "");
    expect_ok(&r, "pe_py_basic", 2, xdg);
}

/* Parameters hold no pointers: Criterion runs each in a fresh process. */
typedef struct tr_case {
    int n;
    int prog;   /* index in tr_progs */
    int c10d;   /* 1: c10d rendezvous, 0: static (TORCHELASTIC_RUN_ID=none) */
} tr_case_t;

static const char *const tr_progs[] = {"pe_py_basic", "pe_py_torchrun"};

ParameterizedTestParameters(torchrun, ok)
{
    static tr_case_t cases[] = {{4, 0, 0}, {2, 1, 1}, {4, 1, 0}};
    return cr_make_param_array(tr_case_t, cases, sizeof cases / sizeof cases[0]);
}

/* The static rendezvous (the default without --standalone) gives every job
 * TORCHELASTIC_RUN_ID=none: the job's directory differs by MASTER_PORT. */
ParameterizedTest(tr_case_t *c, torchrun, ok, .timeout = TR_TIMEOUT + 30)
{
    require_torchrun();
    char *xdg = new_runtime_dir(), rdzv[192];
    int port = free_port();
    if (c->c10d)
        snprintf(rdzv, sizeof rdzv, "--nnodes 1 --rdzv_backend c10d --rdzv_endpoint "
                 "127.0.0.1:%d --rdzv_id gshmem-test-%d", port, (int)getpid());
    else
        snprintf(rdzv, sizeof rdzv, "--nnodes 1 --master_addr 127.0.0.1 --master_port %d",
                 port);
    test_run_t r = torchrun(rdzv, c->n, xdg, tr_progs[c->prog], "");
    expect_ok(&r, tr_progs[c->prog], c->n, xdg);
}

/* RANK 1 exits 3: a nonzero status, RANK 1 and the cause named, in well
 * under the limit, the job's directory removed. die: the others wait in a
 * bootstrap barrier, which gshmemrun --serve fails; hang: they wait for a
 * signal of their own, and torchrun ends them. */
static void check_failing_rank(const char *mode, const char *also)
{
    require_torchrun();
    char *xdg = new_runtime_dir(), rdzv[192];
    snprintf(rdzv, sizeof rdzv, "--nnodes 1 --master_addr 127.0.0.1 --master_port %d",
             free_port());
    test_run_t r = torchrun(rdzv, 3, xdg, "pe_py_torchrun", mode);
    cr_assert_neq(r.status, 0, "%s: status 0:\n%s", mode, test_tail(&r));
    cr_assert(strstr(r.output, "pe_py_torchrun: RANK 1 exits with status 3") &&
                  strstr(r.output, "gshmemrun: PE 1 (pid ") &&
                  strstr(r.output, "closed its bootstrap connection without gshmem_finalize"),
              "%s:\n%s", mode, test_tail(&r));
    cr_assert(strstr(r.output, "ChildFailedError") && strstr(r.output, also), "%s: no '%s':\n%s",
              mode, also, test_tail(&r));
    cr_assert_lt(r.seconds, 40.0, "%s: took %.1f s", mode, r.seconds);
    expect_empty(xdg, &r);
    test_run_free(&r);
    gshmemi_rmtree(xdg);
}

/* The others wait in a barrier (over the transports): the server's
 * notice ends them, each naming PE 1. */
Test(torchrun, failing_rank_others_in_barrier, .timeout = TR_TIMEOUT + 30)
{
    check_failing_rank("die", "this PE stops waiting: gshmemrun: PE 1 (pid ");
}

Test(torchrun, failing_rank_others_waiting_elsewhere, .timeout = TR_TIMEOUT + 30)
{
    check_failing_rank("hang", "exitcode  : 3");
}

/* ---- two agents: several nodes --------------------------------------------- */

/* Two torchrun agents on this machine (--nnodes 2, node ranks 0 and 1,
 * static rendezvous on 127.0.0.1), 2 ranks each: WORLD_SIZE 4 over
 * LOCAL_WORLD_SIZE 2, so gshmem takes the unique-ID bootstrap, its ID
 * through the agents' store. The status is the first agent's non-zero
 * one. (Across simulated nodes: test_cluster.c.) */
static test_run_t two_agents_rdzv(const char *xdg, int c10d, const char *prog,
                                  const char *args)
{
    char cmd[2048], env[192], one[640], rdzv[160];
    int port = free_port(), used = 0;
    used += snprintf(cmd + used, sizeof cmd - used, "bash -c 's=0; ");
    for (int node = 0; node < 2; node++) {
        if (c10d)
            snprintf(rdzv, sizeof rdzv, "--rdzv_backend c10d --rdzv_endpoint 127.0.0.1:%d "
                     "--rdzv_id gshmem-test-%d", port, (int)getpid());
        else
            snprintf(rdzv, sizeof rdzv, "--node_rank %d --master_addr 127.0.0.1 --master_port "
                     "%d", node, port);
        snprintf(one, sizeof one, PY_ENV TORCHRUN "--nnodes 2 %s --nproc_per_node 2 "
                 "%s/%s.py %s & p%d=$!; ", rdzv, PY_DIR, prog, args, node);
        /* the format's %% became %: the PY_ENV's %B stays for test_run */
        used += snprintf(cmd + used, sizeof cmd - used, "%s", one);
    }
    snprintf(cmd + used, sizeof cmd - used, "wait $p0 || s=$?; wait $p1 || "
             "{ r=$?; [ $s -ne 0 ] || s=$r; }; exit $s'");
    snprintf(env, sizeof env, "GSHMEM_HEAP=host XDG_RUNTIME_DIR=%s", xdg);
    return test_run(env, cmd, TR_TIMEOUT);
}

static test_run_t two_agents(const char *xdg, const char *prog, const char *args)
{
    return two_agents_rdzv(xdg, 0, prog, args);
}

/* c10d rendezvous: torch 2.x shares the agents' store with the workers
 * (the job runs); torch 1.x does not, and gshmem says so, naming static
 * rendezvous. Which one applies is torchrun's torch's version. */
Test(torchrun, two_agents_c10d, .timeout = TR_TIMEOUT + 30)
{
    require_torchrun();
    test_run_t v = test_run(NULL, "sh -c '$(sed -n \"1s/^#!//p\" $(command -v torchrun)) -c "
                            "\"import torch; print(torch.__version__)\"'", 60);
    int old_torch = strncmp(v.output, "1.", 2) == 0;
    char *xdg = new_runtime_dir();
    test_run_t r = two_agents_rdzv(xdg, 1, "pe_py_basic", "");
    if (old_torch)
        cr_expect(r.status != 0 && strstr(r.output, "TORCHELASTIC_USE_AGENT_STORE='False'") &&
                      strstr(r.output, "--rdzv_backend static"),
                  "torch %.20s, c10d: want gshmem's refusal (no shared store):\n%s", v.output,
                  test_tail(&r));
    else
        cr_expect(r.status == 0 && test_count_of(r.output, "pe_py_basic: OK") == 1,
                  "torch %.20s, c10d, 2 agents x 2 ranks: status %d:\n%s", v.output, r.status,
                  test_tail(&r));
    test_run_free(&v);
    test_run_free(&r);
    gshmemi_rmtree(xdg);
}

Test(torchrun, two_agents_basic, .timeout = TR_TIMEOUT + 30)
{
    require_torchrun();
    char *xdg = new_runtime_dir();
    test_run_t r = two_agents(xdg, "pe_py_basic", "");
    cr_expect(r.status == 0 && test_count_of(r.output, "pe_py_basic: OK") == 1,
              "pe_py_basic, 2 agents x 2 ranks: status %d:\n%s", r.status, test_tail(&r));
    expect_empty(xdg, &r);
    test_run_free(&r);
    gshmemi_rmtree(xdg);
}

/* Two init cycles: a new ID each (a new key in the store). */
Test(torchrun, two_agents_init_twice, .timeout = TR_TIMEOUT + 30)
{
    require_torchrun();
    char *xdg = new_runtime_dir();
    test_run_t r = two_agents(xdg, "pe_py_torchrun", "init");
    cr_expect(r.status == 0, "2 agents x 2 ranks, init twice: status %d:\n%s", r.status,
              test_tail(&r));
    for (int pe = 0; pe < 4; pe++) {
        char want[64];
        snprintf(want, sizeof want, "pe_py_torchrun: PE %d of 4", pe);
        cr_expect(test_count_of(r.output, want) == 2, "'%s' not twice:\n%s", want,
                  test_tail(&r));
    }
    test_run_free(&r);
    gshmemi_rmtree(xdg);
}

/* RANK 1 exits 3 while the others wait in a barrier: PE 0 of the uid
 * bootstrap ends every rank of both agents, naming PE 1. */
Test(torchrun, two_agents_failing_rank, .timeout = TR_TIMEOUT + 30)
{
    require_torchrun();
    char *xdg = new_runtime_dir();
    test_run_t r = two_agents(xdg, "pe_py_torchrun", "die");
    cr_expect(r.status != 0 && r.seconds < 40 &&
                  test_count_of(r.output, "the job is ending: PE 1 (host ") == 3,
              "2 agents x 2 ranks, RANK 1 dies: status %d after %.1f s, want non-zero and "
              "PEs 0, 2 and 3 naming PE 1:\n%s", r.status, r.seconds, test_tail(&r));
    test_run_free(&r);
    gshmemi_rmtree(xdg);
}

/* ---- torchrun's variables set by hand (no torchrun needed) -------------- */

/* pe_py_torchrun init under vars (torchrun's), with XDG_RUNTIME_DIR=xdg. */
static test_run_t by_hand(const char *vars, const char *xdg, const char *launcher)
{
    char cmd[1024], env[512];
    snprintf(cmd, sizeof cmd, PY_ENV "%s%s " PY_DIR "/pe_py_torchrun.py init", launcher,
             test_python_with("numpy"));
    snprintf(env, sizeof env, "TORCHELASTIC_RUN_ID=by-hand-%d MASTER_PORT=1 "
             "XDG_RUNTIME_DIR=%s %s", (int)getpid(), xdg, vars);
    return test_run(env, cmd, 60);
}

/* One rank: LOCAL_RANK 0 starts the server; two init cycles; the server
 * goes with the process and removes its directory. */
Test(torchrun, one_rank_by_hand)
{
    char *xdg = new_runtime_dir();
    test_run_t r = by_hand("RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1", xdg, "");
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "pe_py_torchrun: PE 0 of 1\n"), 2, "%s", test_tail(&r));
    expect_empty(xdg, &r);
    test_run_free(&r);
    gshmemi_rmtree(xdg);
}

static void expect_refusal(const char *vars, const char *w1, const char *w2, const char *w3)
{
    char *xdg = new_runtime_dir();
    test_run_t r = by_hand(vars, xdg, "");
    cr_assert_eq(r.status, 5, "%s: status %d:\n%s", vars, r.status, test_tail(&r));
    cr_assert(strstr(r.output, "GshmemError: gshmem.init: torchrun RANK ") &&
                  strstr(r.output, w1) && strstr(r.output, w2) && strstr(r.output, w3),
              "%s: expected '%s', '%s', '%s':\n%s", vars, w1, w2, w3, test_tail(&r));
    cr_assert_lt(r.seconds, 20.0, "took %.1f s", r.seconds);
    expect_empty(xdg, &r);
    test_run_free(&r);
    gshmemi_rmtree(xdg);
}

Test(torchrun, several_nodes_refused)
{
    /* torch 1.x with c10d: no agent store to hand the ID over */
    expect_refusal("RANK=2 WORLD_SIZE=4 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 "
                   "TORCHELASTIC_USE_AGENT_STORE=False",
                   "across nodes gshmem hands its unique ID over the store",
                   "TORCHELASTIC_USE_AGENT_STORE='False'", "--rdzv_backend static");
    expect_refusal("RANK=2 WORLD_SIZE=4 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 "
                   "TORCHELASTIC_USE_AGENT_STORE=True GSHMEM_BOOTSTRAP=local",
                   "GSHMEM_BOOTSTRAP=local is one node", "WORLD_SIZE=4 over", "unset it");
}

Test(torchrun, no_gshmemrun_refused)
{
    expect_refusal("GSHMEMRUN=/nonexistent/gshmemrun RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 "
                   "LOCAL_WORLD_SIZE=1", "cannot find the gshmemrun program",
                   "/nonexistent/gshmemrun", "Set GSHMEMRUN");
}

/* LOCAL_RANK 0 never starts the server: RANK 1 gives up after
 * GSHMEM_TIMEOUT, naming the socket it waited for. */
Test(torchrun, waiting_rank_times_out_naming_the_socket)
{
    expect_refusal("GSHMEM_TIMEOUT=1 RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2",
                   "waited 1 s (GSHMEM_TIMEOUT) for the rendezvous",
                   "names in /tmp/gshmem-torchrun-test-", "LOCAL_RANK 0");
}

/* Under gshmemrun, torchrun's variables (here impossible ones) are not
 * looked at. */
Test(torchrun, gshmemrun_variables_win)
{
    char *xdg = new_runtime_dir();
    test_run_t r = by_hand("RANK=5 WORLD_SIZE=7 LOCAL_RANK=3 LOCAL_WORLD_SIZE=3", xdg,
                           "%B/tools/gshmemrun/gshmemrun -n 2 ");
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, " of 2"), 4, "%s", test_tail(&r));   /* lines may mix */
    expect_empty(xdg, &r);
    test_run_free(&r);
    gshmemi_rmtree(xdg);
}

/* ---- another user's rendezvous (issue 38 item 2) ---------------------------- */

#define OTHER_UID 65534   /* nobody */

static void require_root(void)
{
    if (geteuid() != 0)
        cr_skip_test("needs root, to act as another user (uid %d)", OTHER_UID);
}

/* Another user made the job's pointer file first (its name is guessable;
 * the directory it names is random): RANK 1 refuses it at once, naming it
 * and its owner, instead of following it to a rendezvous of theirs. */
Test(torchrun, pointer_of_another_user_refused)
{
    char cmd[1024], env[512], p[512];
    require_root();
    const char *py = test_python_with("numpy");   /* skips in sanitizer builds */
    char *xdg = new_runtime_dir();
    const char *vars = "GSHMEM_TIMEOUT=5 RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2";
    snprintf(cmd, sizeof cmd, PY_ENV "%s -c 'from gshmem._torchrun import job_pointer; "
             "print(\"P=\" + job_pointer())'", py);
    snprintf(env, sizeof env, "TORCHELASTIC_RUN_ID=by-hand-%d MASTER_PORT=1 XDG_RUNTIME_DIR=%s "
             "%s", (int)getpid(), xdg, vars);
    test_run_t q = test_run(env, cmd, 30);
    const char *at = strstr(q.output, "P=");
    cr_assert(q.status == 0 && at != NULL, "job_pointer: %s", test_tail(&q));
    snprintf(p, sizeof p, "%.*s", (int)strcspn(at + 2, "\n"), at + 2);
    test_run_free(&q);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "create %s", p);
    fprintf(f, "%s/their-rdv", xdg);
    fclose(f);
    cr_assert_eq(chmod(p, 0600), 0, "chmod %s", p);
    cr_assert_eq(chown(p, OTHER_UID, OTHER_UID), 0, "chown %s", p);
    test_run_t r = by_hand(vars, xdg, "");
    cr_expect_eq(r.status, 5, "status %d:\n%s", r.status, test_tail(&r));
    cr_expect(strstr(r.output, "the job's pointer ") && strstr(r.output, p) &&
                  strstr(r.output, "owned by uid 65534") && strstr(r.output, "refused"),
              "%s", test_tail(&r));
    cr_expect_lt(r.seconds, 4.0, "took %.1f s (waited instead of refusing)", r.seconds);
    test_run_free(&r);
    gshmemi_rmtree(xdg);
}

/* A server of another user at the socket a PE is told to use: gshmem_init
 * refuses it (SO_PEERCRED) and says so, before it sends its heap, keys and
 * endpoints. The server accepts and then holds the connection. */
Test(torchrun, server_of_another_user_refused)
{
    char dir[64] = "/tmp/gshmem-fake-rdv-XXXXXX", sock[96], env[512];
    require_root();
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chmod(dir, 0777), 0);
    snprintf(sock, sizeof sock, "%s/rdv.sock", dir);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {   /* the other user's fake server */
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
        int l = socket(AF_UNIX, SOCK_STREAM, 0);
        if (setgid(OTHER_UID) != 0 || setuid(OTHER_UID) != 0 || l < 0 ||
            bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 4) != 0)
            _exit(2);
        int c = accept(l, NULL, NULL);
        sleep(c >= 0 ? 20 : 0);
        _exit(0);
    }
    for (int i = 0; i < 200 && access(sock, F_OK) != 0; i++)
        usleep(10000);
    snprintf(env, sizeof env, "GSHMEM_HEAP=host GSHMEM_TRANSPORTS=shm GSHMEM_TIMEOUT=5 "
             "GSHMEMRUN_SOCKET=%s GSHMEMRUN_PE=0 GSHMEMRUN_N_PES=1 GSHMEMRUN_DIR=%s", sock,
             dir);
    test_run_t r = test_run(env, "%B/tests/pe/pe_wait stuck -", 30);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    cr_expect_neq(r.status, 0, "%s", test_tail(&r));
    cr_expect(strstr(r.output, "the rendezvous server at ") &&
                  strstr(r.output, "runs as uid 65534") && strstr(r.output, "refused"),
              "%s", test_tail(&r));
    cr_expect_lt(r.seconds, 4.0, "took %.1f s (talked to the server instead of refusing)",
                 r.seconds);
    test_run_free(&r);
    gshmemi_rmtree(dir);
}
