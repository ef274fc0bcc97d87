/* test_wrappers.c: the OpenSHMEM wrapper commands of tools/wrappers
 * (gshmem-oshcc, -oshc++, -oshnvcc, -oshrun and their short names):
 *   showme          --showme / -show / --showme:compile / --showme:link
 *                   print the flags, -c leaves out the link flags, bad
 *                   input is refused naming it ($OSHCC picks the compiler)
 *   build_tree      the build folder's oshcc and oshc++ build a program
 *                   that oshrun -np 4 / -n 2 runs
 *   moved_install   a `cmake --install` prefix, moved: its bin/oshcc and
 *                   a plain `cc $(pkg-config --cflags --libs gshmem)` build
 *                   programs that run with no LD_LIBRARY_PATH (the rpath);
 *                   CUDA builds: nvcc through pkg-config and oshnvcc too
 *                   (linked and resolved with ldd)
 *   moved_install_gpu  those two device programs run at 2 PEs on CUDA
 *                   heaps (GPU machines; skipped elsewhere) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests_common.h"

#define HELLO_SRC                                                                    \
    "#include <stdio.h>\n#include <shmem.h>\nint main(void)\n{\n    shmem_init();\n" \
    "    printf(\"hello from PE %d of %d\\n\", shmem_my_pe(), shmem_n_pes());\n"      \
    "    shmem_finalize();\n    return 0;\n}\n"

/* Writes the hello program to <dir>/hello.c and <dir>/hello.cc. */
static void write_hello(const char *dir)
{
    const char *names[] = {"hello.c", "hello.cc"};
    for (int i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f, "cannot write %s", path);
        fputs(HELLO_SRC, f);
        fclose(f);
    }
}

/* Runs cmd under env (may be NULL); asserts exit status want; returns
 * the run (caller frees). */
static test_run_t run_want(const char *env, const char *cmd, int want, int timeout_s)
{
    test_run_t r = test_run(env, cmd, timeout_s);
    cr_assert_eq(r.status, want, "%s: status %d (want %d), output:\n%s", cmd, r.status, want,
                 test_tail(&r));
    return r;
}

static void expect_has(const test_run_t *r, const char *needle, const char *what)
{
    cr_expect(strstr(r->output, needle), "%s: no \"%s\" in:\n%s", what, needle, test_tail(r));
}

static void expect_lacks(const test_run_t *r, const char *needle, const char *what)
{
    cr_expect(!strstr(r->output, needle), "%s: \"%s\" in:\n%s", what, needle, test_tail(r));
}

Test(wrappers, showme, .timeout = 60)
{
    test_run_t r = run_want(NULL, "%B/tools/wrappers/oshcc --showme x.c -o x", 0, 20);
    expect_has(&r, "cc -I" GSHMEM_SOURCE_DIR "/include x.c -o x -L", "--showme");
    expect_has(&r, "-Wl,-rpath,", "--showme");
    expect_has(&r, " -lgshmem", "--showme");
    test_run_free(&r);

    r = run_want(NULL, "%B/tools/wrappers/gshmem-oshcc -show -c x.c", 0, 20);
    expect_has(&r, "-c x.c", "-show -c");
    expect_lacks(&r, "-lgshmem", "-show -c (no link)");
    test_run_free(&r);

    r = run_want(NULL, "%B/tools/wrappers/oshcc --showme:compile", 0, 20);
    expect_has(&r, "-I" GSHMEM_SOURCE_DIR "/include", "--showme:compile");
    expect_lacks(&r, "-lgshmem", "--showme:compile");
    test_run_free(&r);

    r = run_want(NULL, "%B/tools/wrappers/oshcc --showme:link", 0, 20);
    expect_has(&r, "-lgshmem", "--showme:link");
    expect_lacks(&r, "-I", "--showme:link");
    test_run_free(&r);

    r = run_want("OSHCXX=clang++", "%B/tools/wrappers/oshc++ --showme a.cc", 0, 20);
    cr_expect(strncmp(r.output, "clang++ -I", 10) == 0, "$OSHCXX: %s", test_tail(&r));
    test_run_free(&r);

    r = run_want(NULL, "%B/tools/wrappers/oshcc --showme:bogus", 2, 20);
    expect_has(&r, "unknown option --showme:bogus", "--showme:bogus");
    test_run_free(&r);
    r = run_want(NULL, "%B/tools/wrappers/oshcc", 2, 20);
    expect_has(&r, "no input files", "no arguments");
    test_run_free(&r);
#ifdef GSHMEM_HAVE_CUDA
    /* nvcc takes no -Wl,: the rpath is -Xlinker -rpath=DIR; no -rdc. */
    r = run_want(NULL, "%B/tools/wrappers/oshnvcc --showme k.cu", 0, 20);
    expect_has(&r, "-Xlinker -rpath=", "oshnvcc --showme");
    expect_lacks(&r, "-Wl,", "oshnvcc --showme");
    expect_lacks(&r, "-rdc", "oshnvcc --showme");
    test_run_free(&r);
#endif
}

Test(wrappers, build_tree, .timeout = 120)
{
#ifdef GSHMEM_SANITIZED
    cr_skip_test("sanitizer build: a program oshcc links against an ASan library aborts unless "
                 "the ASan runtime is loaded first");
#endif
    char dir[] = "/tmp/gshmem-wrap-XXXXXX", cmd[1024];
    cr_assert_not_null(mkdtemp(dir));
    write_hello(dir);
    snprintf(cmd, sizeof cmd, "sh -c 'cd %s && %%B/tools/wrappers/oshcc hello.c && "
             "%%B/tools/wrappers/oshrun -np 4 ./a.out'", dir);
    test_run_t r = run_want("GSHMEM_TRANSPORTS=shm", cmd, 0, 60);
    cr_expect_eq(test_count_of(r.output, "hello from PE"), 4, "oshrun -np 4:\n%s", test_tail(&r));
    test_run_free(&r);

    snprintf(cmd, sizeof cmd, "sh -c 'cd %s && %%B/tools/wrappers/oshc++ -o hx hello.cc && "
             "%%B/tools/wrappers/gshmem-oshrun -n 2 ./hx'", dir);
    r = run_want("GSHMEM_TRANSPORTS=shm", cmd, 0, 60);
    cr_expect_eq(test_count_of(r.output, "hello from PE"), 2, "oshc++, -n 2:\n%s",
                 test_tail(&r));
    test_run_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    r = test_run(NULL, cmd, 30);
    test_run_free(&r);
}

/* `cmake --install` into <dir>/p, then moved to <dir>/moved: everything
 * must follow the prefix. dir: a mkdtemp template, filled in. */
static void install_moved(char *dir)
{
    char cmd[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cmake --install %%B --prefix %s/p", dir);
    test_run_t r = run_want(NULL, cmd, 0, 120);
    test_run_free(&r);
    snprintf(cmd, sizeof cmd, "mv %s/p %s/moved", dir, dir);
    r = run_want(NULL, cmd, 0, 30);
    test_run_free(&r);
}

static void remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    test_run_t r = test_run(NULL, cmd, 30);
    test_run_free(&r);
}

#ifdef GSHMEM_HAVE_CUDA
/* The README's device example (tests/install/consumer_dev.cu) built
 * against the moved prefix as written, by nvcc with pkg-config (<dir>/dev)
 * and by oshnvcc (<dir>/dev2); both must resolve libgshmem there. */
static void build_dev_programs(const char *dir)
{
    char cmd[2048], env[600], want[300];
    snprintf(env, sizeof env, "PKG_CONFIG_PATH=%s/moved/lib/pkgconfig", dir);
    snprintf(cmd, sizeof cmd, "env -u LD_LIBRARY_PATH sh -c 'cd %s && %s -arch=sm_%s -o dev "
             "%s/tests/install/consumer_dev.cu $(pkg-config --cflags --libs gshmem) && "
             "%s/moved/bin/oshnvcc -arch=sm_%s -o dev2 %s/tests/install/consumer_dev.cu && "
             "ldd ./dev ./dev2'", dir, GSHMEM_NVCC, GSHMEM_CUDA_ARCH, GSHMEM_SOURCE_DIR, dir,
             GSHMEM_CUDA_ARCH, GSHMEM_SOURCE_DIR);
    test_run_t r = run_want(env, cmd, 0, 180);
    snprintf(want, sizeof want, "libgshmem.so.0 => %s/moved/", dir);
    cr_expect_eq(test_count_of(r.output, want), 2, "ldd (want %s):\n%s", want, test_tail(&r));
    expect_lacks(&r, "not found", "ldd of the nvcc programs");
    test_run_free(&r);
}
#endif

Test(wrappers, moved_install, .timeout = 240)
{
#ifdef GSHMEM_SANITIZED
    cr_skip_test("sanitizer build: an installed ASan library cannot serve a plain program");
#endif
    char dir[] = "/tmp/gshmem-wrapinst-XXXXXX", cmd[2048], env[600];
    install_moved(dir);
    write_hello(dir);

    /* The short names in <prefix>/bin and <prefix>/lib/gshmem/bin. */
    snprintf(env, sizeof env, "GSHMEM_TRANSPORTS=shm PATH=%s/moved/lib/gshmem/bin:/usr/bin:/bin",
             dir);
    snprintf(cmd, sizeof cmd, "env -u LD_LIBRARY_PATH sh -c 'cd %s && %s/moved/bin/oshcc "
             "-o h1 hello.c && ./h1 && command -v oshcc && oshcc -o lb hello.c && "
             "oshrun -np 2 ./lb'", dir, dir);
    test_run_t r = run_want(env, cmd, 0, 90);
    cr_expect_eq(test_count_of(r.output, "hello from PE"), 3, "installed oshcc:\n%s",
                 test_tail(&r));
    expect_has(&r, "/moved/lib/gshmem/bin/oshcc", "command -v oshcc");
    test_run_free(&r);

    /* Item 5: pkg-config's flags alone give a program that finds the
     * library (the rpath), in the moved prefix. */
    snprintf(env, sizeof env, "GSHMEM_TRANSPORTS=shm PKG_CONFIG_PATH=%s/moved/lib/pkgconfig", dir);
    snprintf(cmd, sizeof cmd, "env -u LD_LIBRARY_PATH sh -c 'cd %s && cc -o pc hello.c "
             "$(pkg-config --cflags --libs gshmem) && %s/moved/bin/gshmemrun -n 2 ./pc'",
             dir, dir);
    r = run_want(env, cmd, 0, 90);
    cr_expect_eq(test_count_of(r.output, "hello from PE"), 2, "pkg-config build:\n%s",
                 test_tail(&r));
    test_run_free(&r);
#ifdef GSHMEM_HAVE_CUDA
    build_dev_programs(dir);
#endif
    remove_dir(dir);
}

/* The device example of the moved prefix, run: 2 PEs on CUDA heaps, each
 * kernel's put checked by the next PE (skipped without a GPU). */
Test(wrappers, moved_install_gpu, .timeout = 300)
{
#ifndef GSHMEM_HAVE_CUDA
    cr_skip_test("not a CUDA build");
#else
#ifdef GSHMEM_SANITIZED
    cr_skip_test("sanitizer build: an installed ASan library cannot serve a plain program");
#endif
    test_require_gpu("pe_dev_rma", "probe");
    char dir[] = "/tmp/gshmem-wrapgpu-XXXXXX", cmd[1024];
    install_moved(dir);
    build_dev_programs(dir);
    snprintf(cmd, sizeof cmd, "env -u LD_LIBRARY_PATH sh -c 'cd %s && moved/bin/oshrun -np 2 "
             "./dev && moved/lib/gshmem/bin/oshrun -np 2 ./dev2'", dir);
    test_run_t r = run_want("GSHMEM_HEAP=cuda", cmd, 0, 120);
    cr_expect_eq(test_count_of(r.output, "consumer_dev PE OK"), 4,
                 "the installed device example at 2 PEs, twice:\n%s", test_tail(&r));
    test_run_free(&r);
    remove_dir(dir);
#endif
}
