/* test_package.c: the Debian packages of this build (cmake/package.cmake),
 * made with cpack into a temporary folder:
 *   deb_install  `apt-get install ./*.deb` of all four on this machine
 *                (what they depend on is installed: nothing is fetched;
 *                root only), then what
 *                a user types: `oshcc hello.c && oshrun -np 4 ./a.out`
 *                with the short names of <libdir>/gshmem/bin first in PATH,
 *                gshmem-oshcc, pkg-config (no rpath in /usr), the installed
 *                gshmem-demo and Python package on 2 PEs; the machine's
 *                /usr/bin/osh* (Open MPI's) and their alternatives are as
 *                before the install and after the purge, which runs even
 *                when a check fails (.fini; a run killed before it is
 *                cleaned up by the next, through the marker file).
 *   lintian      lintian on the packages: no error or warning beyond the
 *                overrides they carry (cmake/deb/overrides, with reasons).
 * Both skip, saying why, in sanitizer builds, without dpkg or cpack;
 * deb_install also when not root, when gshmem packages not installed by
 * it are present, or when the machine lacks what they depend on
 * (deb_unmet.sh: another distribution, such as the GPU machine's). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#ifdef GSHMEM_HAVE_CUDA
#define PKG_V "-cuda"
#else
#define PKG_V ""
#endif
#define PKG_LIB "libgshmem0" PKG_V
#define PKG_DEV "libgshmem" PKG_V "-dev"
#define PKG_PY "python3-gshmem" PKG_V
#define PKG_APPS "gshmem-apps" PKG_V
#define PKGS PKG_LIB " " PKG_DEV " " PKG_PY " " PKG_APPS
/* Both variants: either one present means a real install to leave alone. */
#define PKGS_ANY "libgshmem0 libgshmem-dev python3-gshmem gshmem-apps libgshmem0-cuda " \
                 "libgshmem-cuda-dev python3-gshmem-cuda gshmem-apps-cuda"
/* Present while this test's packages are installed. */
#define PKG_MARKER "/var/tmp/gshmem-test-package.installed"
/* The machine's short names and their alternatives, one line each. */
#define PKG_SNAPSHOT                                                                       \
    "sh -c 'for n in oshcc oshc++ oshrun oshnvcc; do printf \"%s: %s\\n\" $n "             \
    "\"$(readlink /usr/bin/$n || { test -e /usr/bin/$n && echo file; } || echo none)\"; " \
    "update-alternatives --list $n 2>/dev/null; done; true'"

static char pkg_dir[] = "/tmp/gshmem-deb-XXXXXX";

static test_run_t run_want(const char *env, const char *cmd, int timeout_s)
{
    test_run_t r = test_run(env, cmd, timeout_s);
    cr_assert_eq(r.status, 0, "%s: status %d, output:\n%s", cmd, r.status, test_tail(&r));
    return r;
}

static void run_quiet(const char *cmd, int timeout_s)
{
    test_run_t r = test_run(NULL, cmd, timeout_s);
    test_run_free(&r);
}

/* Purges the packages if this test installed them (the marker says so). */
static void pkg_purge(void)
{
    if (access(PKG_MARKER, F_OK) != 0)
        return;
    run_quiet("dpkg --purge " PKGS, 120);
    unlink(PKG_MARKER);
}

static void pkg_fini(void)
{
    pkg_purge();
    if (strstr(pkg_dir, "XXXXXX") == NULL) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", pkg_dir);
        run_quiet(cmd, 60);
    }
}

/* Skips without dpkg and cpack, in sanitizer builds; then makes the
 * packages into pkg_dir and checks their names. */
static void pkg_make(void)
{
#ifdef GSHMEM_SANITIZED
    cr_skip_test("sanitizer build: an installed ASan library cannot serve a plain program");
#endif
    if (access("/usr/bin/dpkg", X_OK) != 0)
        cr_skip_test("no /usr/bin/dpkg: not a Debian machine");
    test_run_t r = test_run(NULL, "sh -c 'command -v cpack'", 10);
    int have_cpack = r.status == 0;
    test_run_free(&r);
    if (!have_cpack)
        cr_skip_test("no cpack on PATH (it comes with cmake)");
    cr_assert_not_null(mkdtemp(pkg_dir));
    char cmd[512];
    /* cpack builds the preinstall target of the build folder: one at a time. */
    snprintf(cmd, sizeof cmd, "sh -c 'flock %%B/.cpack.lock cpack -G DEB -B %s --config "
             "%%B/CPackConfig.cmake "
             ">%s/cpack.log 2>&1 || { cat %s/cpack.log; exit 1; }'", pkg_dir, pkg_dir, pkg_dir);
    r = run_want(NULL, cmd, 240);
    test_run_free(&r);
    snprintf(cmd, sizeof cmd, "sh -c 'cd %s && ls *.deb'", pkg_dir);
    r = run_want(NULL, cmd, 10);
    const char *names[] = {PKG_LIB "_", PKG_DEV "_", PKG_PY "_", PKG_APPS "_"};
    for (int i = 0; i < 4; i++)
        cr_assert(strstr(r.output, names[i]), "no %s*.deb among:\n%s", names[i], r.output);
    cr_assert_eq(test_count_of(r.output, ".deb"), 4, "not 4 packages:\n%s", r.output);
    test_run_free(&r);
}

/* Root, and no gshmem package on the machine but this test's leftovers. */
static void pkg_require_install(void)
{
    if (geteuid() != 0)
        cr_skip_test("not root: apt-get install needs root (the CI machine runs the tests as root)");
    pkg_purge();   /* a previous run's, killed before its .fini */
    test_run_t r = test_run(NULL, "sh -c \"dpkg-query -W -f '${Package} ${db:Status-Status}\\n' "
                            PKGS_ANY " 2>/dev/null | grep ' installed$'\"", 30);
    if (r.status == 0)
        cr_skip_test("gshmem packages are installed on this machine, not by this test: "
                     "left alone (%s)", r.output);
    test_run_free(&r);
}

/* What a user types: oshcc and oshrun, the short names gshmem offers in
 * <libdir>/gshmem/bin (Open MPI's own are /usr/bin/oshcc, oshrun). */
static void check_hello(void)
{
    char cmd[1024];
    FILE *f;
    char path[128];
    snprintf(path, sizeof path, "%s/hello.c", pkg_dir);
    cr_assert_not_null(f = fopen(path, "w"));
    fputs("#include <stdio.h>\n#include <shmem.h>\nint main(void)\n{\n    shmem_init();\n"
          "    printf(\"hello from PE %d of %d\\n\", shmem_my_pe(), shmem_n_pes());\n"
          "    shmem_finalize();\n    return 0;\n}\n", f);
    fclose(f);
    /* <libdir>/gshmem/bin: /usr/lib/gshmem/bin, or lib/<triplet>/... in a
     * build configured with -DCMAKE_INSTALL_PREFIX=/usr */
    snprintf(cmd, sizeof cmd, "env -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH sh -c 'cd %s && "
             "d=$(dpkg -L " PKG_DEV " | grep /gshmem/bin/oshcc$) && "
             "PATH=${d%%/oshcc}:$PATH && command -v oshcc oshrun && "
             "oshcc hello.c && oshrun -np 4 ./a.out'", pkg_dir);
    test_run_t r = run_want(NULL, cmd, 90);
    cr_expect_eq(test_count_of(r.output, "hello from PE"), 4, "oshrun -np 4:\n%s", test_tail(&r));
    cr_expect(strstr(r.output, "/gshmem/bin/oshcc\n"), "not gshmem's oshcc:\n%s", test_tail(&r));
    test_run_free(&r);

    /* gshmem-oshcc and pkg-config in /usr: no -I/usr/include, no rpath. */
    r = run_want(NULL, "sh -c 'gshmem-oshcc --showme x.c; pkg-config --cflags --libs gshmem'",
                 30);
    cr_expect(strstr(r.output, "cc x.c -L/usr/lib"), "gshmem-oshcc --showme:\n%s", r.output);
    cr_expect(!strstr(r.output, "rpath") && !strstr(r.output, "-I/usr/include"),
              "flags for /usr:\n%s", r.output);
    test_run_free(&r);
}

/* The installed example and Python package (Debian's python3) on 2 PEs. */
static void check_installed_programs(void)
{
    test_run_t r = run_want(NULL, "env -u LD_LIBRARY_PATH gshmem-oshrun -n 2 gshmem-demo", 90);
    cr_expect(strstr(r.output, "gshmem-demo: all OK"), "gshmem-demo:\n%s", test_tail(&r));
    test_run_free(&r);
    r = run_want("PYTHONDONTWRITEBYTECODE=1",
                 "env -u PYTHONPATH -u LD_LIBRARY_PATH gshmem-oshrun -n 2 /usr/bin/python3 -c "
                 "\"import gshmem, gshmem._lib as l\ngshmem.init(heap='host')\nl.op_lib()\nif "
                 "gshmem.my_pe() == 1: print('PE 1 of', gshmem.n_pes(), 'lib', l.lib_dir)\n"
                 "gshmem.finalize()\"", 90);
    cr_expect(strstr(r.output, "PE 1 of 2 lib /usr/lib"), "python3-gshmem:\n%s", test_tail(&r));
    test_run_free(&r);
}

/* Every line of before but those of free names ("<name>: none") is in
 * after: another package's short name and alternatives stay as they were. */
static void expect_kept(const char *before, const char *after)
{
    for (const char *p = before; *p;) {
        size_t n = strcspn(p, "\n");
        char line[256];
        snprintf(line, sizeof line, "%.*s\n", (int)n, p);
        if (!strstr(line, ": none\n"))
            cr_expect(strstr(after, line), "\"%.*s\" changed by the install:\n%s", (int)n, p,
                      after);
        p += n;
        if (*p)
            p++;
    }
}

Test(package, deb_install, .fini = pkg_fini, .timeout = 300)
{
    pkg_require_install();
    pkg_make();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sh " GSHMEM_SOURCE_DIR "/tests/multipe/deb_unmet.sh %s", pkg_dir);
    test_run_t r = run_want(NULL, cmd, 60);
    if (r.output[0] != '\0')
        cr_skip_test("this machine lacks what the packages depend on (they are made for the "
                     "distribution that built them): %s", r.output);
    test_run_free(&r);
    test_run_t before = run_want(NULL, PKG_SNAPSHOT, 30);

    FILE *m = fopen(PKG_MARKER, "w");
    cr_assert_not_null(m, "cannot write " PKG_MARKER);
    fclose(m);
    /* as the README says it (apt install ./*.deb): what they depend on
     * is there (deb_unmet.sh), so apt takes nothing but these files
     * (--no-download would make it look for them in its cache instead) */
    snprintf(cmd, sizeof cmd, "sh -c 'apt-get install -y --no-install-recommends %s/*.deb'",
             pkg_dir);
    r = run_want(NULL, cmd, 180);
    test_run_free(&r);

    check_hello();
    check_installed_programs();
    /* A short name another package owns stays that package's; a free one
     * (oshnvcc, CUDA builds) becomes gshmem's alternative. */
    r = run_want(NULL, PKG_SNAPSHOT, 30);
    expect_kept(before.output, r.output);
#ifdef GSHMEM_HAVE_CUDA
    if (strstr(before.output, "oshnvcc: none\n"))
        cr_expect(strstr(r.output, "oshnvcc: /etc/alternatives/oshnvcc\n/usr/bin/gshmem-oshnvcc"),
                  "oshnvcc is not gshmem's alternative:\n%s", r.output);
#endif
    test_run_free(&r);

    pkg_purge();
    r = run_want(NULL, PKG_SNAPSHOT, 30);
    cr_expect_str_eq(r.output, before.output, "after the purge the short names differ");
    test_run_free(&r);
    test_run_free(&before);
}

Test(package, lintian, .fini = pkg_fini, .timeout = 180)
{
    if (access("/usr/bin/lintian", X_OK) != 0)
        cr_skip_test("no lintian (scripts/install-deps.sh installs it)");
    pkg_make();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sh -c 'lintian --fail-on error,warning %s/*.deb 2>&1'", pkg_dir);
    test_run_t r = test_run(NULL, cmd, 120);
    cr_expect_eq(r.status, 0, "lintian failed:\n%s", test_tail(&r));
    cr_expect(!strstr(r.output, "E: ") && !strstr(r.output, "W: "), "lintian:\n%s",
              test_tail(&r));
    test_run_free(&r);
}

/* Every install rule names its component: a rule without one lands in
 * "Unspecified", which no package holds (cpack would drop its files). */
Test(package, every_install_rule_has_a_component, .timeout = 60)
{
    char dir[] = "/tmp/gshmem-nocomp-XXXXXX", cmd[512];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "sh -c 'cmake --install %%B --component Unspecified --prefix %s "
             ">/dev/null && find %s ! -type d; rm -rf %s'", dir, dir, dir);
    test_run_t r = run_want(NULL, cmd, 60);
    cr_expect_str_empty(r.output, "installed without a component:\n%s", test_tail(&r));
    test_run_free(&r);
}
