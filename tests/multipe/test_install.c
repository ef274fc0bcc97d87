/* test_install.c: `cmake --install` of this build into a temporary prefix,
 * then a program built against it through find_package(gshmem) and through
 * pkg-config, both run on 2 PEs with the installed gshmemrun; in CUDA builds
 * also a CUDA source using the installed device headers (built, not run). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests_common.h"

static void expect_ok(test_run_t *r, const char *what)
{
    cr_assert_eq(r->status, 0, "%s: status %d, output:\n%s", what, r->status, test_tail(r));
}

Test(install, cmake_package_and_pkg_config, .timeout = 300)
{
#ifdef GSHMEM_SANITIZED
    cr_skip_test("sanitizer build: an installed ASan library cannot serve a plain consumer");
#endif
    char prefix[] = "/tmp/gshmem-install-XXXXXX", cmd[2048], env[1200];
    cr_assert_not_null(mkdtemp(prefix));

    snprintf(cmd, sizeof cmd, "cmake --install %%B --prefix %s", prefix);
    test_run_t r = test_run(NULL, cmd, 120);
    expect_ok(&r, "cmake --install");
    test_run_free(&r);

    snprintf(cmd, sizeof cmd,
             "sh -c 'cmake -S %s/tests/install -B %s/cm -DCMAKE_PREFIX_PATH=%s >%s/cm.log 2>&1 "
             "&& cmake --build %s/cm >>%s/cm.log 2>&1 || { cat %s/cm.log; exit 1; }'",
             GSHMEM_SOURCE_DIR, prefix, prefix, prefix, prefix, prefix, prefix);
    r = test_run(NULL, cmd, 180);
    expect_ok(&r, "find_package(gshmem) consumer build");
    test_run_free(&r);

    snprintf(env, sizeof env, "PKG_CONFIG_PATH=%s/lib/pkgconfig", prefix);
    snprintf(cmd, sizeof cmd,
             "sh -c 'cc -o %s/pc %s/tests/install/consumer.c $(pkg-config --cflags --libs gshmem)'",
             prefix, GSHMEM_SOURCE_DIR);
    r = test_run(env, cmd, 120);
    expect_ok(&r, "pkg-config consumer build");
    test_run_free(&r);

#ifdef GSHMEM_HAVE_CUDA
    /* The device headers as installed: a CUDA source through pkg-config. */
    snprintf(env, sizeof env, "PKG_CONFIG_PATH=%s/lib/pkgconfig", prefix);
    snprintf(cmd, sizeof cmd,
             "sh -c '%s -arch=sm_%s -o %s/dev %s/tests/install/consumer_dev.cu "
             "$(pkg-config --cflags --libs gshmem)'", GSHMEM_NVCC, GSHMEM_CUDA_ARCH, prefix,
             GSHMEM_SOURCE_DIR);
    r = test_run(env, cmd, 180);
    expect_ok(&r, "pkg-config CUDA consumer build (installed device headers)");
    test_run_free(&r);
#endif

    const char *bins[] = {"cm/consumer", "pc"};
    for (int i = 0; i < 2; i++) {
        snprintf(env, sizeof env, "GSHMEM_TRANSPORTS=shm LD_LIBRARY_PATH=%s/lib", prefix);
        snprintf(cmd, sizeof cmd, "%s/bin/gshmemrun -n 2 --timeout 60 %s/%s", prefix, prefix,
                 bins[i]);
        r = test_run(env, cmd, 70);
        expect_ok(&r, bins[i]);
        cr_expect(strstr(r.output, "consumer PE 0 OK") && strstr(r.output, "consumer PE 1 OK"),
                  "%s: output:\n%s", bins[i], test_tail(&r));
        test_run_free(&r);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", prefix);
    r = test_run(NULL, cmd, 60);
    test_run_free(&r);
}
