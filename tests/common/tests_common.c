/* tests_common.c: run a command with a time limit and capture its output;
 * the skip probes and stderr capture shared by the Criterion drivers. */
#define _GNU_SOURCE
#include "tests_common.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The build directory: GSHMEM_TEST_BUILD_DIR when set (a build carried to
 * another machine), else the one CMake configured. */
const char *test_build_dir(void)
{
    const char *d = getenv("GSHMEM_TEST_BUILD_DIR");
    return d && *d ? d : GSHMEM_BUILD_DIR;
}

char *test_expand_build(const char *cmd)
{
    const char *bdir = test_build_dir();
    size_t n = strlen(cmd), blen = strlen(bdir), cap = n + 1;
    for (const char *p = cmd; (p = strstr(p, "%B")); p += 2)
        cap += blen;
    char *out = malloc(cap), *o = out;
    for (const char *p = cmd; *p;) {
        if (p[0] == '%' && p[1] == 'B') {
            memcpy(o, bdir, blen);
            o += blen;
            p += 2;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* "unset NAME ...; " for every GSHMEM_* variable of this process
 * (malloc'd; "" when there is none). */
static char *unset_gshmem(void)
{
    extern char **environ;
    size_t cap = 16, used = 0;
    char *p;

    for (char **e = environ; *e; e++)
        if (strncmp(*e, "GSHMEM_", 7) == 0)
            cap += strcspn(*e, "=") + 8;
    p = malloc(cap);
    p[0] = '\0';
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "GSHMEM_", 7) == 0)
            used += (size_t)snprintf(p + used, cap - used, "%s%.*s", used ? " " : "unset ",
                                     (int)strcspn(*e, "="), *e);
    if (used > 0)
        snprintf(p + used, cap - used, "; ");
    return p;
}

/* The line test_run hands to sh. The suite's programs are host programs
 * unless a test says otherwise: without GSHMEM_HEAP in env or cmd, the
 * line sets GSHMEM_HEAP=host (GSHMEM_HEAP=auto gives a CUDA heap on a GPU
 * machine, where this suite runs too). bare: no GSHMEM_* variable at all
 * but those of env (the caller's are unset, no default is added). */
static char *run_line(const char *env, const char *cmd, int bare)
{
    char *full_cmd = test_expand_build(cmd);
    char *unset = bare ? unset_gshmem() : strdup("");
    int named = (env && strstr(env, "GSHMEM_HEAP=")) || strstr(full_cmd, "GSHMEM_HEAP=");
    const char *heap = bare || named ? "" : "GSHMEM_HEAP=host ";
    size_t len = strlen(unset) + strlen(heap) + (env ? strlen(env) : 0) + strlen(full_cmd) + 16;
    char *line = malloc(len);

    snprintf(line, len, "%s%s%s%s exec %s", unset, heap, env ? env : "", env ? " " : "",
             full_cmd);
    free(unset);
    free(full_cmd);
    return line;
}

static test_run_t run_cmd(const char *env, const char *cmd, int timeout_s, int bare)
{
    test_run_t r = {.status = -1, .seconds = 0, .output = NULL};
    char *line = run_line(env, cmd, bare);

    int fds[2];
    if (pipe(fds) != 0) {
        free(line);
        return r;
    }
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execl("/bin/sh", "sh", "-c", line, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    int killed = 0;
    for (;;) {
        double left = timeout_s - (now_s() - t0);
        if (left <= 0 && !killed) {
            kill(-pid, SIGKILL);
            killed = 1;
        }
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
        int pr = poll(&pfd, 1, killed ? 1000 : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            continue;
        if (used + 1024 > cap)
            buf = realloc(buf, cap *= 2);
        ssize_t got = read(fds[0], buf + used, cap - used - 1);
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    close(fds[0]);
    buf[used] = '\0';
    int st = 0;
    waitpid(pid, &st, 0);
    kill(-pid, SIGKILL);   /* any straggler of the group */
    r.seconds = now_s() - t0;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (killed)
        r.status = 124;
    r.output = buf;
    free(line);
    return r;
}

test_run_t test_run(const char *env, const char *cmd, int timeout_s)
{
    return run_cmd(env, cmd, timeout_s, 0);
}

test_run_t test_run_bare(const char *env, const char *cmd, int timeout_s)
{
    return run_cmd(env, cmd, timeout_s, 1);
}

void test_run_free(test_run_t *r)
{
    free(r->output);
    r->output = NULL;
}

const char *test_tail(const test_run_t *r)
{
    if (r->output == NULL)
        return "(no output)";
    size_t n = strlen(r->output);
    return n > TEST_TAIL_MAX ? r->output + n - TEST_TAIL_MAX : r->output;
}

const char *test_tp_env(const char *tp)
{
    if (strcmp(tp, "shm") == 0)
        return "GSHMEM_TRANSPORTS=shm";
    if (strcmp(tp, "ofi-shm") == 0)
        return "GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=shm";
    if (strcmp(tp, "ofi-tcp") == 0)
        return "GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER='tcp;ofi_rxm' FI_TCP_IFACE=lo "
               "FI_SOCKETS_IFACE=lo";
    return "";
}

test_run_t test_run_env_pes(const char *env, int n, const char *prog, const char *args,
                            int timeout_s)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d %%B/tests/pe/%s %s",
             n, timeout_s, prog, args ? args : "");
    return test_run(env, cmd, timeout_s + 10);
}

test_run_t test_run_pes(const char *tp, int n, const char *prog, const char *args,
                        int timeout_s)
{
    return test_run_env_pes(test_tp_env(tp), n, prog, args, timeout_s);
}

void test_expect_ok(test_run_t *r, const char *prog, const char *what, int n,
                    const char *must_have)
{
    char ok[128];
    snprintf(ok, sizeof ok, "%s: OK", prog);
    cr_expect(r->status == 0 && r->output != NULL && strstr(r->output, ok) != NULL,
              "%s over %s with %d PEs: exit status %d after %.1f s (want 0 and '%s'); "
              "output (end):\n%s", prog, what, n, r->status, r->seconds, ok, test_tail(r));
    if (must_have != NULL)
        cr_expect(r->output != NULL && strstr(r->output, must_have) != NULL,
                  "%s over %s with %d PEs: output lacks '%s'; output (end):\n%s", prog, what,
                  n, must_have, test_tail(r));
    test_run_free(r);
}

void test_expect_ok_2_4(const char *env, const char *what, const char *prog, int timeout_s)
{
    static const int pes[] = {2, 4};
    for (size_t i = 0; i < sizeof pes / sizeof pes[0]; i++) {
        test_run_t r = test_run_env_pes(env, pes[i], prog, NULL, timeout_s);
        test_expect_ok(&r, prog, what, pes[i], NULL);
    }
}

const char *test_order_iters(const char *tp)
{
    if (strcmp(tp, "shm") == 0)
        return "5000";
    if (strcmp(tp, "ofi-shm") == 0)
        return "2000";
    return "1000";
}

const char *test_ctx_mode(const char *tp)
{
    return strncmp(tp, "ofi-", 4) == 0 ? "isolated" : "shared";
}

/* detect_leaks=0 (ASan builds): Open MPI's components are dlopen'd and
 * keep allocations until exit; after dlclose LeakSanitizer can neither
 * symbolize nor suppress them. */
#define TEST_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " \
                     "OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo " \
                     "ASAN_OPTIONS=detect_leaks=0"

test_run_t test_run_mpirun(int n, const char *xenv, const char *prog, const char *args,
                           int timeout_s)
{
    return test_run_mpirun_via(n, xenv, "", prog, args, timeout_s);
}

test_run_t test_run_mpirun_via(int n, const char *xenv, const char *via, const char *prog,
                               const char *args, int timeout_s)
{
    char cmd[1536];
    size_t used;

    if (GSHMEM_MPIEXEC[0] == '\0')
        cr_skip_test("no mpiexec found at configure time");
    used = (size_t)snprintf(cmd, sizeof cmd, "%s --allow-run-as-root --oversubscribe -np %d",
                            GSHMEM_MPIEXEC, n);
    for (const char *p = xenv ? xenv : ""; *p != '\0' && used < sizeof cmd;) {
        size_t len = strcspn(p, " "), k = 0;
        char var[256];   /* the setting without its single quotes */
        for (size_t j = 0; j < len && k + 1 < sizeof var; j++)
            if (p[j] != '\'')
                var[k++] = p[j];
        var[k] = '\0';
        if (k > 0)
            used += (size_t)snprintf(cmd + used, sizeof cmd - used, " -x '%s'", var);
        p += len;
        p += strspn(p, " ");
    }
    if (used < sizeof cmd)
        snprintf(cmd + used, sizeof cmd - used, " %s%s%%B/tests/pe/%s %s", via, via[0] ? " " : "",
                 prog, args ? args : "");
    return test_run(TEST_MPI_ENV, cmd, timeout_s);
}

int test_count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

void test_require_built(const char *rel)
{
    char path[1024];

    snprintf(path, sizeof path, "%s/%s", test_build_dir(), rel);
    if (access(path, X_OK) != 0)
        cr_skip_test("no CUDA build: %s does not exist (configure with -DGSHMEM_ENABLE_CUDA=ON)",
                     path);
}

void test_skip_if_sanitized(void)
{
#ifdef GSHMEM_SANITIZED
    cr_skip_test("sanitizer build: python3 cannot load an ASan libgshmem (the ASan runtime "
                 "must come first); the C code under the Python package runs under ASan in "
                 "the C tests");
#endif
}

void test_skip_in_sanitizer(const char *why)
{
#ifdef GSHMEM_SANITIZED
    cr_skip_test("sanitizer build: %s", why);
#else
    (void)why;
#endif
}

const char *test_python_with(const char *mods)
{
    static const char *const cands[] = {"python3", "/usr/bin/python3"};
    char cmd[256];

    test_skip_if_sanitized();
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s -c 'import %s'", cands[i], mods);
        test_run_t r = test_run(NULL, cmd, 120);
        int ok = r.status == 0;
        test_run_free(&r);
        if (ok)
            return cands[i];
    }
    cr_skip_test("no python3 (PATH, /usr/bin) imports %s: install python3-numpy and "
                 "python3-torch (scripts/install-deps.sh)", mods);
    return NULL;
}

void test_require_cmd(const char *cmd, int timeout_s, const char *skip_prefix)
{
    test_run_t r = test_run(NULL, cmd, timeout_s);
    if (r.status == 77) {
        char why[512];
        const char *s = strstr(r.output, "SKIP: ");
        snprintf(why, sizeof why, "%s", s ? s + 6 : r.output);
        why[strcspn(why, "\n")] = '\0';
        test_run_free(&r);
        cr_skip_test("%s%s", skip_prefix, why);
    }
    cr_assert_eq(r.status, 0, "%s: status %d, output:\n%s", cmd, r.status, test_tail(&r));
    test_run_free(&r);
}

void test_require_probe(const char *rel, const char *args, const char *skip_prefix)
{
    char cmd[1100];

    snprintf(cmd, sizeof cmd, "%%B/%s %s", rel, args);
    test_require_cmd(cmd, 60, skip_prefix);
}

void test_require_gpu_at(const char *rel, const char *probe_args)
{
    test_require_built(rel);
    test_require_probe(rel, probe_args, "no CUDA device: ");
}

void test_require_gpu(const char *probe_prog, const char *probe_args)
{
    char rel[512];

    snprintf(rel, sizeof rel, "tests/pe/%s", probe_prog);
    test_require_gpu_at(rel, probe_args);
}

void test_note(const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[NOTE] %s\n", line);
    fflush(stderr);
}

void test_cap_start(test_cap_t *c)
{
    fflush(stderr);
    c->f = tmpfile();
    cr_assert_not_null(c->f);
    c->saved = dup(2);
    dup2(fileno(c->f), 2);
}

char *test_cap_end(test_cap_t *c)
{
    long n;
    char *buf;

    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    fseek(c->f, 0, SEEK_END);
    n = ftell(c->f);
    rewind(c->f);
    buf = calloc(1, (size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, c->f), (size_t)n);
    fclose(c->f);
    return buf;
}
