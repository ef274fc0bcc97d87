/* test_hardening.c: the hardening checks in CI size. The apps refuse
 * garbage on their command lines by name, before gshmem_init (empty lists
 * and paths, hex numbers, blanks around numbers, unknown long flags, stray
 * words: each once accepted, see docs/results/hardening-2026-12-02), and
 * gshmemrun names a PE that dies in the middle of traffic with its real end
 * (pe_kill). The full matrices: scripts/kill-matrix.sh, scripts/fuzz-args.py. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "tests_common.h"

typedef struct hd_case {
    const char *cmd;    /* after %B/ */
    int status;         /* wanted exit status */
    const char *want;   /* in the output */
} hd_case_t;

static void hd_run_all(const hd_case_t *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%%B/%s", t[i].cmd);
        test_run_t r = test_run(NULL, cmd, 30);
        cr_expect(r.status == t[i].status && r.output && strstr(r.output, t[i].want),
                  "%s: status %d (want %d) and '%s' in the output:\n%s", t[i].cmd, r.status,
                  t[i].status, t[i].want, test_tail(&r));
        test_run_free(&r);
    }
}

/* strtod reads "0x10" as 16: app_args.h promises decimal forms only. */
Test(hardening, app_args_refuse_hex)
{
    static const char *const bad[] = {"0x10", "-0x1", "0X1p3", "+0x0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = -99;
        double d = -99;
        test_cap_t c;
        test_cap_start(&c);
        int rc_i = app_arg_int("prog", "-n", bad[i], -100, 100, &v);
        int rc_r = app_arg_real("prog", "-f", bad[i], -100, 100, &d);
        char *out = test_cap_end(&c);
        cr_expect(rc_i == -1 && rc_r == -1 && v == -99 && d == -99, "'%s' accepted", bad[i]);
        cr_expect(strstr(out, "not a decimal number") != NULL, "'%s': %s", bad[i], out);
        free(out);
    }
    int64_t v = 0;
    cr_expect(app_arg_int("prog", "-n", "10", 0, 100, &v) == 0 && v == 10, "10 refused");
}

/* Lists with an empty item (an empty list ran nothing and exited 0) and
 * empty paths (taken as "not given", the results silently not written). */
Test(hardening, dlrm_sparse_refuse_empty_items_and_paths, .timeout = 120)
{
    static const hd_case_t t[] = {
        {"apps/dlrm/gshmem-dlrm --mode ,", 2, "--mode ',': an empty item in the list"},
        {"apps/dlrm/gshmem-dlrm --mode ''", 2, "--mode '': an empty item in the list"},
        {"apps/dlrm/gshmem-dlrm --mode fused,,baseline", 2, "an empty item in the list"},
        {"apps/dlrm/gshmem-dlrm --csv ''", 2, "--csv '': an empty path"},
        {"apps/dlrm/gshmem-dlrm --dump-inputs ''", 2, "--dump-inputs '': an empty path"},
        {"apps/dlrm/gshmem-dlrm --warmup 0x10", 2, "--warmup '0x10': not a decimal number"},
        {"apps/sparse_allreduce/gshmem-sparse-allreduce --modes ''", 2,
         "--modes '': an empty item in the list"},
        {"apps/sparse_allreduce/gshmem-sparse-allreduce --dist uniform,,zipf", 2,
         "--dist 'uniform,,zipf': an empty item in the list"},
        {"apps/sparse_allreduce/gshmem-sparse-allreduce --dist zipf,bogus", 2,
         "--dist 'zipf,bogus': unknown name 'bogus'"},
        {"apps/sparse_allreduce/gshmem-sparse-allreduce --md ''", 2, "--md '': an empty path"},
    };
    hd_run_all(t, sizeof t / sizeof t[0]);
}

/* The perf driver's flags: blanks before a number (strtol and strtoull
 * skip them, and " -5" became a huge size), an unknown long flag named by
 * its word (it said "unknown flag --"), -O's empty items, -o ''. */
Test(hardening, perf_flags_refused_by_name, .timeout = 120)
{
    static const hd_case_t t[] = {
        {"apps/perf/host/gshmem-perf-coll --bogus", 2, "unknown flag -- (in '--bogus')"},
        {"apps/perf/host/gshmem-perf-coll -e 64 -Zq", 2, "unknown flag -Z (in '-Zq')"},
        {"apps/perf/host/gshmem-perf-coll -n", 2, "missing value of -n"},
        {"apps/perf/host/gshmem-perf-coll -e 64 junk -n 3", 2, "unexpected argument 'junk'"},
        {"apps/perf/host/gshmem-perf-coll -O barrier,,sync", 2,
         "-O 'barrier,,sync': an empty item in the list"},
        {"apps/perf/host/gshmem-perf-coll -O ,", 2, "-O ',': an empty item in the list"},
        {"apps/perf/host/gshmem-perf-coll -n ' 5'", 2, "-n ' 5'"},
        {"apps/perf/host/gshmem-perf-coll -b ' -5'", 2, "-b ' -5'"},
        {"apps/perf/host/gshmem-perf-coll -e '  8'", 2, "-e '  8'"},
        {"apps/perf/host/gshmem-perf-coll -o ''", 2, "-o '': expected a file name"},
        {"apps/perf/host/gshmem-perf-put-bw -W ' 5'", 2, "-W ' 5'"},
        {"apps/perf/host/gshmem-perf-queue-host -T ' 2'", 2, "-T ' 2'"},
    };
    hd_run_all(t, sizeof t / sizeof t[0]);
}

/* gshmem-perf-ofi-rate read its numbers with atoi/strtoull: "12abc" was
 * 12, "-1" messages ran forever, a stray word was ignored. */
Test(hardening, ofi_rate_flags_refused_by_name, .timeout = 60)
{
    test_require_built("apps/perf/host/gshmem-perf-ofi-rate");
    static const hd_case_t t[] = {
        {"apps/perf/host/gshmem-perf-ofi-rate -p shm -n abc", 2, "-n 'abc': expected a whole"},
        {"apps/perf/host/gshmem-perf-ofi-rate -p shm -n -1", 2, "-n '-1'"},
        {"apps/perf/host/gshmem-perf-ofi-rate -p shm -r 12abc", 2, "-r '12abc'"},
        {"apps/perf/host/gshmem-perf-ofi-rate -p shm -W '5 '", 2, "-W '5 '"},
        {"apps/perf/host/gshmem-perf-ofi-rate -p shm -s 0x10", 2, "-s '0x10'"},
        {"apps/perf/host/gshmem-perf-ofi-rate -p shm junk", 2, "unexpected argument 'junk'"},
        {"apps/perf/host/gshmem-perf-ofi-rate -p shm --bogus", 2, "(in '--bogus')"},
        {"apps/perf/host/gshmem-perf-ofi-rate -p shm -s", 2, "-s needs a value"},
        {"apps/perf/host/gshmem-perf-ofi-rate -n 10", 2, "-p PROVIDER is required"},
        {"apps/perf/host/gshmem-perf-ofi-rate -h", 0, "usage: gshmem-perf-ofi-rate"},
    };
    hd_run_all(t, sizeof t / sizeof t[0]);
}

/* gshmem-demo ignored its arguments (even -h ran the demo). */
Test(hardening, demo_takes_no_argument, .timeout = 60)
{
    static const hd_case_t t[] = {
        {"apps/demo/gshmem-demo extra", 2, "unexpected argument 'extra'"},
        {"apps/demo/gshmem-demo --help", 0, "usage: gshmemrun -n N gshmem-demo"},
    };
    hd_run_all(t, sizeof t / sizeof t[0]);
}

/* One PE fails during traffic; gshmemrun names it, its pid and its real
 * end, and exits with its status (128 + signal for a signal). */
static void hd_death(const char *tp, const char *args, int status, const char *pe,
                     const char *how)
{
    test_run_t r = test_run_pes(tp, 4, "pe_kill", args, 60);
    cr_expect(r.status == status && r.output && strstr(r.output, pe) && strstr(r.output, how),
              "pe_kill %s over %s: status %d (want %d), want '%s' ... '%s' in:\n%s", args, tp,
              r.status, status, pe, how, test_tail(&r));
    test_run_free(&r);
}

Test(hardening, pe_death_named_with_its_end, .timeout = 180)
{
    static const char *const tps[] = {"shm", "ofi-shm"};
    for (size_t i = 0; i < sizeof tps / sizeof tps[0]; i++) {
        test_run_t r = test_run_pes(tps[i], 4, "pe_kill", "none 0 200 amo", 60);
        cr_expect(r.status == 0, "pe_kill none over %s: status %d:\n%s", tps[i], r.status,
                  test_tail(&r));
        test_run_free(&r);
#ifdef GSHMEM_SANITIZED
        /* ASan catches the SIGSEGV, reports it and aborts: signal 6 */
        hd_death(tps[i], "segv 2 200 amo", 134, "gshmemrun: PE 2 (pid ",
                 "was killed by signal 6");
#else
        hd_death(tps[i], "segv 2 200 amo", 139, "gshmemrun: PE 2 (pid ",
                 "was killed by signal 11");
#endif
        hd_death(tps[i], "exit3 1 150 barrier", 3, "gshmemrun: PE 1 (pid ",
                 "exited with status 3");
        hd_death(tps[i], "abort 3 init barrier", 134, "gshmemrun: PE 3 (pid ",
                 "was killed by signal 6");
    }
}
