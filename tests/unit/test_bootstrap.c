/* test_bootstrap.c: bootstrap selection, the self bootstrap, rmtree, and the
 * local client against a scripted fake server (timeouts, a server that
 * reports a dead peer, a server that hangs up). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/bootstrap/bootstrap.h"
#include "base/bootstrap/bootstrap_int.h"
#include "base/bootstrap/local_proto.h"
#include "gshmem_types.h"
#include "base/util/log.h"

static gshmemi_config_t make_cfg(const char *boot, long timeout)
{
    gshmemi_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.bootstrap, sizeof cfg.bootstrap, "%s", boot);
    cfg.timeout = timeout;
    return cfg;
}

static void clear_launcher_env(void)
{
    unsetenv("GSHMEMRUN_SOCKET");
    unsetenv("PMIX_RANK");
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("PMI_RANK");
}

static void quiet_logs(void)
{
    gshmemi_log_level = GSHMEMI_LOG_NONE;
}

Test(bootstrap, auto_without_launcher_is_self)
{
    clear_launcher_env();
    gshmemi_config_t cfg = make_cfg("auto", 5);
    gshmemi_bootstrap_t *b = NULL;
    cr_assert_eq(gshmemi_bootstrap_open(&cfg, NULL, &b), 0);
    cr_assert_str_eq(b->ops->name, "self");
    cr_assert_eq(b->ops->size, sizeof(gshmemi_bootstrap_ops_t));
    cr_assert_eq(b->my_pe, 0);
    cr_assert_eq(b->n_pes, 1);
    cr_assert_eq(b->ops->finalize(b), 0);
}

Test(bootstrap, unknown_name_is_config_error, .init = quiet_logs)
{
    gshmemi_config_t cfg = make_cfg("carrier-pigeon", 5);
    gshmemi_bootstrap_t *b = (gshmemi_bootstrap_t *)0x1;
    cr_assert_eq(gshmemi_bootstrap_open(&cfg, NULL, &b), GSHMEM_ERR_CONFIG);
    cr_assert_eq(b, (gshmemi_bootstrap_t *)0x1, "output written on failure");
}

Test(bootstrap, local_without_gshmemrun_fails, .init = quiet_logs)
{
    clear_launcher_env();
    gshmemi_config_t cfg = make_cfg("local", 5);
    gshmemi_bootstrap_t *b = NULL;
    cr_assert_eq(gshmemi_bootstrap_open(&cfg, NULL, &b), GSHMEM_ERR_BOOTSTRAP);
    setenv("GSHMEMRUN_SOCKET", "/nonexistent/rdv.sock", 1);
    setenv("GSHMEMRUN_PE", "0", 1);
    setenv("GSHMEMRUN_N_PES", "2", 1);
    setenv("GSHMEMRUN_DIR", "/nonexistent", 1);
    cr_assert_eq(gshmemi_bootstrap_open(&cfg, NULL, &b), GSHMEM_ERR_BOOTSTRAP);
    setenv("GSHMEMRUN_PE", "2", 1);   /* out of range */
    cr_assert_eq(gshmemi_bootstrap_open(&cfg, NULL, &b), GSHMEM_ERR_BOOTSTRAP);
}

Test(bootstrap, unavailable_impls_say_not_supported, .init = quiet_logs)
{
    gshmemi_bootstrap_t *b = NULL;
    gshmemi_config_t cfg = make_cfg("mpi", 5);
#ifndef GSHMEM_HAVE_MPI
    cr_assert_eq(gshmemi_bootstrap_open(&cfg, NULL, &b), GSHMEM_ERR_NOT_SUPPORTED);
#endif
    cfg = make_cfg("pmix", 5);
#ifndef GSHMEM_HAVE_PMIX
    cr_assert_eq(gshmemi_bootstrap_open(&cfg, NULL, &b), GSHMEM_ERR_NOT_SUPPORTED);
#endif
    (void)b;
    (void)cfg;
}

Test(bootstrap, self_exchanges_and_node_dir)
{
    clear_launcher_env();
    gshmemi_config_t cfg = make_cfg("self", 5);
    gshmemi_bootstrap_t *b = NULL;
    cr_assert_eq(gshmemi_bootstrap_open(&cfg, NULL, &b), 0);
    char in[100], out[100];
    for (int i = 0; i < 100; i++)
        in[i] = (char)(i * 3 + 1);
    cr_assert_eq(b->ops->allgather(b, in, out, sizeof in), 0);
    cr_assert_arr_eq(in, out, sizeof in);
    cr_assert_eq(b->ops->barrier(b), 0);
    int node_of[1] = {-1}, n_nodes = 0;
    cr_assert_eq(gshmemi_bootstrap_node_map(b, node_of, &n_nodes), 0);
    cr_assert_eq(n_nodes, 1);
    cr_assert_eq(node_of[0], 0);
    struct stat st;
    char dir[sizeof b->node_dir];
    strcpy(dir, b->node_dir);
    cr_assert(strncmp(dir, "/tmp/gshmem-", 12) == 0, "node_dir %s", dir);
    cr_assert_eq(stat(dir, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0700, "mode %o", (unsigned)(st.st_mode & 0777));
    char f[300];   /* something a transport left behind */
    snprintf(f, sizeof f, "%s/leftover", dir);
    FILE *fp = fopen(f, "w");
    cr_assert(fp);
    fclose(fp);
    cr_assert_eq(b->ops->finalize(b), 0);
    cr_assert(stat(dir, &st) != 0 && errno == ENOENT, "%s not removed", dir);
}

Test(bootstrap, rmtree_removes_nested)
{
    char root[] = "/tmp/gshmem-test-XXXXXX", p[256];
    cr_assert(mkdtemp(root));
    snprintf(p, sizeof p, "%s/a", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/a/b", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/a/b/file", root);
    FILE *fp = fopen(p, "w");
    fclose(fp);
    cr_assert_eq(gshmemi_rmtree(root), 0);
    struct stat st;
    cr_assert(stat(root, &st) != 0 && errno == ENOENT);
    cr_assert_eq(gshmemi_rmtree("/tmp/gshmem-test-does-not-exist"), 0);
}

/* ---- the local client against a fake server ------------------------- */

typedef enum { FAKE_SILENT, FAKE_ERROR, FAKE_HANGUP, FAKE_ECHO } fake_mode_t;

typedef struct fake {
    int lfd;
    fake_mode_t mode;
    char dir[64], sock[128];
} fake_t;

static int read_full(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

static void send_hdr(int fd, uint32_t type, int32_t arg, const void *p, size_t len)
{
    gshmemi_lp_hdr_t h = {.magic = GSHMEMI_LP_MAGIC, .type = type, .arg = arg, .len = len};
    if (write(fd, &h, sizeof h) != sizeof h || (len && write(fd, p, len) != (ssize_t)len))
        return;
}

/* One client: HELLO -> WELCOME, then one exchange handled per mode. */
static void *fake_main(void *arg)
{
    fake_t *f = arg;
    int fd = accept(f->lfd, NULL, NULL);
    gshmemi_lp_hdr_t h;
    char buf[4096];
    if (fd < 0 || read_full(fd, &h, sizeof h) != 0)
        return NULL;
    send_hdr(fd, GSHMEMI_LP_WELCOME, h.arg, NULL, 0);
    while (read_full(fd, &h, sizeof h) == 0 && h.len <= sizeof buf &&
           read_full(fd, buf, h.len) == 0) {
        if (h.type == GSHMEMI_LP_QUERY)
            send_hdr(fd, GSHMEMI_LP_QUERY_REPLY, 0, "PEs not arrived: 1", 19);
        else if (h.type == GSHMEMI_LP_BYE)
            send_hdr(fd, GSHMEMI_LP_BYE_ACK, 0, NULL, 0);
        else if (h.type == GSHMEMI_LP_ALLGATHER && f->mode == FAKE_ECHO) {
            memcpy(buf + h.len, buf, h.len);   /* 2 PEs: the other gives the same */
            send_hdr(fd, GSHMEMI_LP_RESULT, 0, buf, 2 * h.len);
        } else if (h.type == GSHMEMI_LP_ALLGATHER && f->mode == FAKE_ERROR) {
            const char *t = "PE 1 (pid 99) was killed by signal 9 (Killed)";
            send_hdr(fd, GSHMEMI_LP_ERROR, 0, t, strlen(t) + 1);
            break;
        } else if (h.type == GSHMEMI_LP_ALLGATHER && f->mode == FAKE_HANGUP) {
            break;
        }
    }
    close(fd);
    return NULL;
}

static pthread_t fake_start(fake_t *f, fake_mode_t mode)
{
    f->mode = mode;
    strcpy(f->dir, "/tmp/gshmem-fake-XXXXXX");
    cr_assert(mkdtemp(f->dir));
    snprintf(f->sock, sizeof f->sock, "%s/rdv.sock", f->dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, f->sock);
    f->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert_eq(bind(f->lfd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(f->lfd, 4), 0);
    setenv("GSHMEMRUN_SOCKET", f->sock, 1);
    setenv("GSHMEMRUN_PE", "0", 1);
    setenv("GSHMEMRUN_N_PES", "2", 1);
    setenv("GSHMEMRUN_DIR", f->dir, 1);
    pthread_t t;
    pthread_create(&t, NULL, fake_main, f);
    return t;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static gshmemi_bootstrap_t *open_local(long timeout)
{
    gshmemi_config_t cfg = make_cfg("auto", timeout);
    gshmemi_bootstrap_t *b = NULL;
    cr_assert_eq(gshmemi_bootstrap_open(&cfg, NULL, &b), 0);
    cr_assert_str_eq(b->ops->name, "local");
    cr_assert_eq(b->n_pes, 2);
    return b;
}

Test(bootstrap, local_exchange_and_finalize)
{
    fake_t f;
    pthread_t t = fake_start(&f, FAKE_ECHO);
    gshmemi_bootstrap_t *b = open_local(5);
    cr_assert_str_eq(b->node_dir, f.dir);
    int in = 1234, out[2] = {0, 0};
    cr_assert_eq(b->ops->allgather(b, &in, out, sizeof in), 0);
    cr_assert(out[0] == 1234 && out[1] == 1234);
    cr_assert_eq(b->ops->barrier(b), 0);
    cr_assert_eq(b->ops->finalize(b), 0);
    pthread_join(t, NULL);
    gshmemi_rmtree(f.dir);
}

Test(bootstrap, local_barrier_times_out, .init = quiet_logs)
{
    fake_t f;
    pthread_t t = fake_start(&f, FAKE_SILENT);
    gshmemi_bootstrap_t *b = open_local(1);
    double t0 = now_s();
    cr_assert_eq(b->ops->barrier(b), GSHMEM_ERR_TIMEOUT);
    double dt = now_s() - t0;
    cr_assert(dt > 0.9 && dt < 4.0, "timed out after %.2f s, GSHMEM_TIMEOUT=1", dt);
    cr_assert_eq(b->ops->barrier(b), GSHMEM_ERR_BOOTSTRAP, "a broken bootstrap must fail fast");
    b->ops->finalize(b);
    pthread_join(t, NULL);
    gshmemi_rmtree(f.dir);
}

Test(bootstrap, local_peer_dead_message)
{
    fake_t f;
    pthread_t t = fake_start(&f, FAKE_ERROR);
    gshmemi_bootstrap_t *b = open_local(5);
    cr_assert_eq(b->ops->barrier(b), GSHMEM_ERR_PEER_DEAD);
    b->ops->finalize(b);
    pthread_join(t, NULL);
    gshmemi_rmtree(f.dir);
}

Test(bootstrap, local_server_hangup, .init = quiet_logs)
{
    fake_t f;
    pthread_t t = fake_start(&f, FAKE_HANGUP);
    gshmemi_bootstrap_t *b = open_local(5);
    double t0 = now_s();
    char in[8] = {0}, out[16];
    cr_assert_eq(b->ops->allgather(b, in, out, sizeof in), GSHMEM_ERR_PEER_DEAD);
    cr_assert_lt(now_s() - t0, 2.0);
    b->ops->finalize(b);
    pthread_join(t, NULL);
    gshmemi_rmtree(f.dir);
}
