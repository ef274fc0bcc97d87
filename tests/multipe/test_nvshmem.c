/* test_nvshmem: NVSHMEM's names on gshmem (include/nvshmem.h).
 * - names_current: include/gshmem/nvshmem_names.h is what
 *   scripts/gen-nvshmem-names.sh makes from today's headers;
 * - refused: a name gshmem cannot honour stops the compilation, saying why;
 * - host_api / host_env / host_shmem_join: tests/nvshmem/pe_nvshmem_host
 *   on CPU PEs (its modes);
 * - gpu_p2p / gpu_queue: tests/nvshmem/pe_nvshmem_dev at 2 PEs on P2P and
 *   on the queue path (skipped without a GPU);
 * - examples_build: NVSHMEM's own examples built against gshmem by
 *   scripts/nvshmem-suite.sh, when an NVSHMEM source tree is at
 *   $NVSHMEM_SRC (skipped, saying so, when it is not).
 * CUDA builds only (nvshmem.h is CUDA's): skipped otherwise. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define NV_TIMEOUT_S 120

Test(nvshmem, names_current)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "bash %s/scripts/gen-nvshmem-names.sh --check", GSHMEM_SOURCE_DIR);
    test_run_t r = test_run(NULL, cmd, 60);
    cr_assert(r.status == 0, "nvshmem_names.h is stale or the generator failed (status %d):\n%s",
              r.status, test_tail(&r));
    test_run_free(&r);
}

#ifdef GSHMEM_HAVE_CUDA
/* Compiles "#include <nvshmem.h>" + body with nvcc (-x cu) or c++. */
static test_run_t nv_compile(const char *body, int cuda)
{
    char src[] = "/tmp/gshmem-nv-XXXXXX.cu", cmd[2048];
    int fd = mkstemps(src, 3);
    cr_assert(fd >= 0, "mkstemps");
    FILE *f = fdopen(fd, "w");
    fprintf(f, "#include <nvshmem.h>\n%s\n", body);
    fclose(f);
    if (cuda || GSHMEM_CUDA_INCLUDE[0] == '\0')
        snprintf(cmd, sizeof cmd, "%s -std=c++17 -arch=sm_%s -I%s/include -c %s -o /dev/null",
                 GSHMEM_NVCC, GSHMEM_CUDA_ARCH, GSHMEM_SOURCE_DIR, src);
    else
        /* cuda.h from the toolkit CMake found (nvcc's own folder is not
         * always beside it: a /usr/local/bin/nvcc link, say); without one,
         * nvcc above, which knows its headers */
        snprintf(cmd, sizeof cmd, "c++ -x c++ -I%s/include -I'%s' -fsyntax-only %s",
                 GSHMEM_SOURCE_DIR, GSHMEM_CUDA_INCLUDE, src);
    test_run_t r = test_run(NULL, cmd, 120);
    unlink(src);
    return r;
}

Test(nvshmem, refused)
{
    static const struct {
        const char *body, *why;
    } cases[] = {
        {"int f(void) { return nvshmemx_qp_create(1, 0); }", "has no user-managed queue pairs"},
        {"int f(void) { return nvshmem_team_n_pes(NVSHMEMX_TEAM_SAME_MYPE_NODE); }",
         "no such team in gshmem"},
        {"int f(void) { return nvshmemx_culibrary_init(0); }", "cuModuleLoad"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        test_run_t r = nv_compile(cases[i].body, 0);
        cr_expect(r.status != 0 && strstr(r.output, cases[i].why) != NULL,
                  "'%s' compiled (status %d) or without saying \"%s\":\n%s", cases[i].body,
                  r.status, cases[i].why, test_tail(&r));
        test_run_free(&r);
    }
    /* and the same header compiles what gshmem honours, host and device */
    test_run_t r = nv_compile("__global__ void k(int *p) { nvshmem_int_p(p, 1, 0); "
                              "nvshmem_quiet(); }\nint f(void) { return nvshmem_my_pe(); }", 1);
    cr_expect(r.status == 0, "a plain NVSHMEM kernel did not compile:\n%s", test_tail(&r));
    test_run_free(&r);
}

/* must_have, when given, must be in the "no gshmem equivalent, ignored:"
 * warning's line. */
static void nv_host(int n, const char *mode, const char *env, const char *must_have)
{
    test_require_built("tests/pe/pe_nvshmem_host");
    test_run_t r = test_run_env_pes(env, n, "pe_nvshmem_host", mode, NV_TIMEOUT_S);
    const char *warn = strstr(r.output, "no gshmem equivalent, ignored: ");
    size_t warn_len = warn ? strcspn(warn, "\n") : 0;
    int listed = must_have == NULL ||
                 (warn && memmem(warn, warn_len, must_have, strlen(must_have)) != NULL);
    cr_assert(r.status == 0 && listed &&
              test_count_of(r.output, "pe_nvshmem_host: OK (PE ") == n,
              "pe_nvshmem_host %s at %d PEs (%s): status %d, %d of %d OK lines%s%s; output:\n%s",
              mode, n, env ? env : "", r.status,
              test_count_of(r.output, "pe_nvshmem_host: OK (PE "), n,
              must_have ? ", want " : "", must_have ? must_have : "", test_tail(&r));
    test_run_free(&r);
}

Test(nvshmem, host_api)
{
    nv_host(2, "api", "GSHMEM_TRANSPORTS=shm", NULL);
    nv_host(4, "api", "GSHMEM_TRANSPORTS=shm", NULL);
}
Test(nvshmem, host_api_ofi)
{
    nv_host(2, "api", test_tp_env("ofi-tcp"), NULL);
}
Test(nvshmem, host_env)
{
    /* the warning lists every such variable set (the GPU machine sets
     * NVSHMEM_DISABLE_NVLS too): this one among them */
    nv_host(2, "env", "NVSHMEM_SYMMETRIC_SIZE=3M NVSHMEM_REMOTE_TRANSPORT=ibrc",
            "NVSHMEM_REMOTE_TRANSPORT");
}
Test(nvshmem, host_shmem_join) { nv_host(2, "shmem", NULL, NULL); }

static void nv_gpu(const char *extra)
{
    char env[256];
    test_require_gpu("pe_dev_rma", "probe");
    /* (the program loads nvshmem_kernel.cubin beside it and fails without
     * it: test_require_built asks for an executable, which a cubin is not) */
    test_require_built("tests/pe/pe_nvshmem_dev");
    snprintf(env, sizeof env, "GSHMEM_HEAP=cuda %s", extra);
    test_run_t r = test_run_env_pes(env, 2, "pe_nvshmem_dev", "", 180);
    cr_assert(r.status == 0 && test_count_of(r.output, "pe_nvshmem_dev: OK (PE ") == 2,
              "pe_nvshmem_dev (%s): status %d; output:\n%s", env, r.status, test_tail(&r));
    test_run_free(&r);
}

Test(nvshmem, gpu_p2p, .timeout = 240) { nv_gpu("GSHMEM_TRANSPORTS=p2p"); }
Test(nvshmem, gpu_queue, .timeout = 240) { nv_gpu("GSHMEM_DEVICE_QUEUE_ONLY=1"); }

/* NVSHMEM's examples, compiled (not run: the GPU machine runs them,
 * scripts/nvshmem-suite.sh run) against this build. */
Test(nvshmem, examples_build, .timeout = 1500)
{
    const char *src = getenv("NVSHMEM_SRC");
    char cmd[2048];
    if (src == NULL || access(src, R_OK) != 0)
        cr_skip_test("no NVSHMEM source tree: set NVSHMEM_SRC to a clone of "
                     "github.com/NVIDIA/nvshmem (or its git directory) to build its examples");
    snprintf(cmd, sizeof cmd, "ONLY=examples JOBS=2 BUILD=%s bash %s/scripts/nvshmem-suite.sh "
             "build %s /tmp/gshmem-nvshmem-suite.%d gshmem", test_build_dir(), GSHMEM_SOURCE_DIR,
             src, (int)getpid());
    test_run_t r = test_run(NULL, cmd, 1400);
    cr_expect(r.status == 0, "NVSHMEM's examples did not all build against gshmem (status "
              "%d):\n%s", r.status, test_tail(&r));
    test_run_free(&r);
}
#else
Test(nvshmem, cuda_only) { cr_skip_test("nvshmem.h needs a CUDA build (-DGSHMEM_ENABLE_CUDA=ON)"); }
#endif
