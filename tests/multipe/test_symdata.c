/* test_symdata: global and static variables are symmetric (pe_api_symdata;
 * its 2- and 4-PE runs over shm, ofi/shm and ofi/tcp are api_symdata::* in
 * test_api.c, its runs under mpirun conform_mpirun::* in
 * test_conform_mpirun.c). Here: the globals of a library named in
 * GSHMEM_SYMMETRIC_LIBS, and what a PE is told when an address is not
 * symmetric: a thread-local or malloc'd word, a job whose PEs run
 * different executables, GSHMEM_SYMMETRIC_DATA=0, a library that is not
 * loaded. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

/* Exit status not 0 (nor the timeout's) and every string of want[] seen. */
static void expect_fatal(test_run_t *r, const char *what, const char *const *want)
{
    cr_expect(r->status != 0 && r->status != 124, "%s: exit status %d after %.1f s (want "
              "non-zero before the timeout); output (end):\n%s", what, r->status, r->seconds,
              test_tail(r));
    for (; *want != NULL; want++)
        cr_expect(strstr(r->output, *want) != NULL, "%s: no '%s' in the output:\n%s", what,
                  *want, test_tail(r));
    test_run_free(r);
}

Test(symdata, library_globals, .timeout = 200)
{
    static const char *const tps[] = {"shm", "ofi-tcp"};
    for (int i = 0; i < 2; i++) {
        char env[256];
        snprintf(env, sizeof env, "%s GSHMEM_SYMMETRIC_LIBS=libpe_symlib.so", test_tp_env(tps[i]));
        test_run_t r = test_run(env, "%B/tools/gshmemrun/gshmemrun -n 4 --timeout 60 "
                                "%B/tests/pe/pe_api_symdata lib", 70);
        char what[64];
        snprintf(what, sizeof what, "%s (mode lib)", tps[i]);
        test_expect_ok(&r, "pe_api_symdata", what, 4, "pe_api_symdata: OK (4 PEs, library)");
    }
    /* not named: its globals are not symmetric, and the message says so */
    test_run_t r = test_run_pes("shm", 2, "pe_api_symdata", "lib", 60);
    const char *want[] = {"is not inside the symmetric heap",
                          "or the program's data/bss segments",
                          "not named in GSHMEM_SYMMETRIC_LIBS", NULL};
    expect_fatal(&r, "pe_api_symdata lib without GSHMEM_SYMMETRIC_LIBS", want);
}

/* pe_api_symdata at 2 PEs over shm with one more setting: it must fail. */
static void expect_fatal_with(const char *setting, const char *const *want)
{
    char env[256];
    snprintf(env, sizeof env, "GSHMEM_TRANSPORTS=shm %s", setting);
    test_run_t r = test_run(env, "%B/tools/gshmemrun/gshmemrun -n 2 --timeout 30 "
                            "%B/tests/pe/pe_api_symdata", 40);
    expect_fatal(&r, setting, want);
}

Test(symdata, library_not_loaded, .timeout = 60)
{
    const char *want[] = {"GSHMEM_SYMMETRIC_LIBS names 'libnot_here.so.3', which is not loaded",
                          "gshmem_init failed", NULL};
    expect_fatal_with("GSHMEM_SYMMETRIC_LIBS=libnot_here.so.3", want);
}

/* PE 0 runs pe_api_symdata, the others pe_api_symdata_pad (1 MiB more
 * bss): init warns, and an atomic on a static ends the job saying why. */
Test(symdata, different_executables, .timeout = 60)
{
    test_run_t r = test_run("GSHMEM_TRANSPORTS=shm",
                            "%B/tools/gshmemrun/gshmemrun -n 3 --timeout 30 sh -c "
                            "'if [ \"$GSHMEMRUN_PE\" = 0 ]; then "
                            "exec %B/tests/pe/pe_api_symdata mismatch; else "
                            "exec %B/tests/pe/pe_api_symdata_pad mismatch; fi'", 40);
    const char *want[] = {"global and static variables are not symmetric in this job: "
                          "writable segment 0 of PE 1 is",
                          "gshmem_int64_atomic_inc: dest 0x",
                          "every PE must run the same executable", NULL};
    expect_fatal(&r, "pe_api_symdata and pe_api_symdata_pad", want);
}

Test(symdata, disabled_by_setting, .timeout = 60)
{
    const char *want[] = {"is not inside the symmetric heap",
                          "global and static variables are not symmetric in this job (PE 0 "
                          "runs with GSHMEM_SYMMETRIC_DATA=0)", NULL};
    expect_fatal_with("GSHMEM_SYMMETRIC_DATA=0", want);
}

/* A thread-local and a malloc'd word are never symmetric: the message
 * names the address (pe_bad prints it first) and what is symmetric. */
static void expect_not_symmetric(const char *mode, const char *call)
{
    test_run_t r = test_run_pes("shm", 2, "pe_bad", mode, 30);
    char line[160];
    int named = 0;
    for (const char *at = strstr(r.output, "dest="); at && !named; at = strstr(at + 1, "dest=")) {
        char addr[64] = "";
        if (sscanf(at + 5, "%63s", addr) != 1)
            continue;
        snprintf(line, sizeof line, "%s: dest %s", call, addr);
        named = strstr(r.output, line) != NULL;
    }
    cr_expect(named, "pe_bad %s: no message names a printed address:\n%s", mode, test_tail(&r));
    const char *want[] = {"is not inside the symmetric heap [",
                          "or the program's data/bss segments [",
                          "thread-locals, malloc'd memory", NULL};
    expect_fatal(&r, mode, want);
}

Test(symdata, thread_local_not_symmetric, .timeout = 60)
{
    expect_not_symmetric("tls_dest", "gshmem_putmem");
}

Test(symdata, malloc_not_symmetric, .timeout = 60)
{
    expect_not_symmetric("malloc_dest", "gshmem_int64_atomic_add");
}
