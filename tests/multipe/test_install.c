/* test_install.c: `cmake --install` of this build into a temporary prefix,
 * its header layout (tests/install/check_layout.sh: the public headers at
 * <prefix>/include, their inline parts beside them under
 * <prefix>/include/gshmem/, no <prefix>/include/gshmem/include; pkg-config
 * naming that folder), then one program (tests/install/consumer.c, which
 * includes <gshmem.h>) built against it three ways:
 *   cm/consumer  find_package(gshmem) (tests/install/CMakeLists.txt, which
 *                also checks the imported target's include directory)
 *   pc           cc $(pkg-config --cflags --libs gshmem)
 *   plain        cc -I<prefix>/include ... -L<prefix>/lib -lgshmem, no
 *                pkg-config, no CMake
 * each run on 2 PEs with the installed gshmemrun; in CUDA builds also a CUDA
 * source including <gshmem_device.h> from the installed headers (built
 * through pkg-config, not run). And the installed Python package
 * (<prefix>/lib/python3/dist-packages/gshmem) loading the installed
 * libraries, not the build's, on 2 PEs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

static void expect_ok(test_run_t *r, const char *what)
{
    cr_assert_eq(r->status, 0, "%s: status %d, output:\n%s", what, r->status, test_tail(r));
}

/* Runs cmd (with env, may be NULL) and asserts it succeeded. */
static void run_ok(const char *env, const char *cmd, int timeout_s, const char *what)
{
    test_run_t r = test_run(env, cmd, timeout_s);
    expect_ok(&r, what);
    test_run_free(&r);
}

/* cmake --install of this build into a new prefix (prefix: a mkdtemp
 * template, filled in); skips sanitizer builds. */
static void install_into(char *prefix)
{
#ifdef GSHMEM_SANITIZED
    cr_skip_test("sanitizer build: an installed ASan library cannot serve a plain consumer");
#endif
    char cmd[256];
    cr_assert_not_null(mkdtemp(prefix));
    snprintf(cmd, sizeof cmd, "cmake --install %%B --prefix %s", prefix);
    run_ok(NULL, cmd, 120, "cmake --install");
}

static void remove_prefix(const char *prefix)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", prefix);
    test_run_t r = test_run(NULL, cmd, 60);
    test_run_free(&r);
}

Test(install, cmake_pkg_config_and_plain, .timeout = 300)
{
    char prefix[] = "/tmp/gshmem-install-XXXXXX", cmd[2048], env[1200];
    install_into(prefix);

    /* The layout: <prefix>/include/gshmem.h, no <prefix>/include/gshmem/include. */
    char path[1100];
    snprintf(path, sizeof path, "%s/include/gshmem.h", prefix);
    cr_assert_eq(access(path, R_OK), 0, "%s is missing", path);
    snprintf(path, sizeof path, "%s/include/gshmem/include", prefix);
    cr_assert_neq(access(path, F_OK), 0, "%s exists: the headers are installed one level deep",
                  path);
    snprintf(cmd, sizeof cmd, "sh %s/tests/install/check_layout.sh %s %s", GSHMEM_SOURCE_DIR,
             prefix, GSHMEM_SOURCE_DIR);
    run_ok(NULL, cmd, 60, "installed header layout (tests/install/check_layout.sh)");

    /* (i) find_package(gshmem). */
    snprintf(cmd, sizeof cmd,
             "sh -c 'cmake -S %s/tests/install -B %s/cm -DCMAKE_PREFIX_PATH=%s >%s/cm.log 2>&1 "
             "&& cmake --build %s/cm >>%s/cm.log 2>&1 || { cat %s/cm.log; exit 1; }'",
             GSHMEM_SOURCE_DIR, prefix, prefix, prefix, prefix, prefix, prefix);
    run_ok(NULL, cmd, 180, "find_package(gshmem) consumer build");

    /* (ii) pkg-config. */
    snprintf(env, sizeof env, "PKG_CONFIG_PATH=%s/lib/pkgconfig", prefix);
    snprintf(cmd, sizeof cmd,
             "sh -c 'cc -o %s/pc %s/tests/install/consumer.c $(pkg-config --cflags --libs gshmem)'",
             prefix, GSHMEM_SOURCE_DIR);
    run_ok(env, cmd, 120, "pkg-config consumer build");

    /* (iii) nothing but -I<prefix>/include -L<prefix>/lib -lgshmem (no
     * pkg-config: PKG_CONFIG_PATH and CPATH cleared, so nothing else can
     * supply the headers). */
    snprintf(cmd, sizeof cmd,
             "env -u PKG_CONFIG_PATH -u CPATH -u C_INCLUDE_PATH cc -o %s/plain "
             "-I%s/include %s/tests/install/consumer.c -L%s/lib -lgshmem",
             prefix, prefix, GSHMEM_SOURCE_DIR, prefix);
    run_ok(NULL, cmd, 120, "plain cc -I<prefix>/include consumer build");

#ifdef GSHMEM_HAVE_CUDA
    /* The device headers as installed: a CUDA source through pkg-config. */
    snprintf(env, sizeof env, "PKG_CONFIG_PATH=%s/lib/pkgconfig", prefix);
    snprintf(cmd, sizeof cmd,
             "sh -c '%s -arch=sm_%s -o %s/dev %s/tests/install/consumer_dev.cu "
             "$(pkg-config --cflags --libs gshmem)'", GSHMEM_NVCC, GSHMEM_CUDA_ARCH, prefix,
             GSHMEM_SOURCE_DIR);
    run_ok(env, cmd, 180, "pkg-config CUDA consumer build (installed device headers)");
#endif

    const char *bins[] = {"cm/consumer", "pc", "plain"};
    for (int i = 0; i < 3; i++) {
        snprintf(env, sizeof env, "GSHMEM_TRANSPORTS=shm LD_LIBRARY_PATH=%s/lib", prefix);
        snprintf(cmd, sizeof cmd, "%s/bin/gshmemrun -n 2 --timeout 60 %s/%s", prefix, prefix,
                 bins[i]);
        test_run_t r = test_run(env, cmd, 70);
        expect_ok(&r, bins[i]);
        cr_expect(strstr(r.output, "consumer PE 0 OK") && strstr(r.output, "consumer PE 1 OK"),
                  "%s: output:\n%s", bins[i], test_tail(&r));
        test_run_free(&r);
    }
    remove_prefix(prefix);
}

/* The installed Python package (any python3: no NumPy needed) loads the
 * installed libgshmem and libgshmem_dlrm_op and runs on 2 PEs under the
 * installed gshmemrun. */
Test(install, python_package, .timeout = 300)
{
    char prefix[] = "/tmp/gshmem-pyinstall-XXXXXX", cmd[1024], env[512];
    install_into(prefix);
    snprintf(env, sizeof env, "PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=%s/lib/python3/dist-packages",
             prefix);
    snprintf(cmd, sizeof cmd, "%s/bin/gshmemrun -n 2 python3 -c \"import gshmem, gshmem._lib as "
             "l\ngshmem.init(heap='host')\nl.op_lib()\nif gshmem.my_pe() == 1: print('PE 1 of', "
             "gshmem.n_pes(), 'lib', l.lib_dir)\ngshmem.finalize()\"", prefix);
    test_run_t r = test_run(env, cmd, 120);
    expect_ok(&r, "the installed Python package");
    cr_assert(strstr(r.output, "PE 1 of 2 lib"), "%s", test_tail(&r));
    cr_assert_eq(test_count_of(r.output, prefix), 1, "the library is not the installed one:\n%s",
                 test_tail(&r));
    test_run_free(&r);
    remove_prefix(prefix);
}
