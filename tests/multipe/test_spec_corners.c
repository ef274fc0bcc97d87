/* test_spec_corners: the OpenSHMEM 1.5 corners of pe_api_spec_corners, one
 * test per mode (the _any rotation, quiet and fence on SHMEM_CTX_INVALID,
 * the deprecated memory and unsigned AMO names, the pshmem_ names), each
 * at 2 and 4 PEs over shm and ofi with tcp;ofi_rxm on loopback; and the
 * headers that have no program of their own compiled: <mpp/shmem.h> alone,
 * <pshmem.h> as strict C11 and as C++. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define SC_TIMEOUT_S 120

/* pe_api_spec_corners <mode> at 2 and 4 PEs over shm and ofi-tcp. */
static void sc_ok(const char *mode)
{
    static const char *const tps[] = {"shm", "ofi-tcp"};
    static const int pes[] = {2, 4};
    char want[64];

    snprintf(want, sizeof want, "OK (%s,", mode);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 2; i++) {
            test_run_t r = test_run_env_pes(test_tp_env(tps[t]), pes[i],
                                            "pe_api_spec_corners", mode, SC_TIMEOUT_S);
            test_expect_ok(&r, "pe_api_spec_corners", tps[t], pes[i], want);
        }
}

Test(spec_corners, any_rotates, .timeout = 600) { sc_ok("any"); }
Test(spec_corners, ctx_invalid_quiet_fence, .timeout = 600) { sc_ok("ctx_invalid"); }
Test(spec_corners, deprecated_names, .timeout = 600) { sc_ok("deprecated"); }
Test(spec_corners, pshmem_names, .timeout = 600) { sc_ok("pshmem"); }

/* cmd must exit 0 (77: skip, naming why). */
static void sc_compiles(const char *what, const char *cmd)
{
    test_run_t r = test_run(NULL, cmd, 100);
    if (r.status == 77) {
        test_run_free(&r);
        cr_skip_test("no c++ compiler: %s was not compiled", what);
    }
    cr_expect(r.status == 0, "%s does not compile (status %d):\n%s", what, r.status,
              test_tail(&r));
    test_run_free(&r);
}

#define SC_INC " -I" GSHMEM_SOURCE_DIR "/include"
#define SC_STRICT " -Wall -Wextra -Werror -pedantic-errors -fsyntax-only"

Test(spec_corners, headers_compile, .timeout = 200)
{
    sc_compiles("a program with <mpp/shmem.h> only",
                "printf '#include <mpp/shmem.h>\\nint main(void) { long *p = shmalloc(8); "
                "shmem_ulong_finc((unsigned long *)p, 0); shfree(p); return 0; }\\n' | "
                GSHMEM_C_COMPILER " -std=c11" SC_STRICT SC_INC " -x c -");
    sc_compiles("<pshmem.h> as C11",
                "printf '#include <pshmem.h>\\nint main(void) { pshmem_init(); "
                "pshmem_long_p(0, 1, 0); return pshmem_short_test_any(0, 0, 0, "
                "SHMEM_CMP_EQ, 0) == 0; }\\n' | " GSHMEM_C_COMPILER " -std=c11" SC_STRICT SC_INC
                " -x c -");
    sc_compiles("<pshmem.h> as C++",
                "sh -c 'command -v c++ >/dev/null || exit 77; printf \"#include <pshmem.h>\\n"
                "int main() { pshmem_init(); pshmem_ctx_long_put(SHMEM_CTX_DEFAULT, 0, 0, 0, 0); "
                "return (int)pshmem_uint_fadd(0, 1u, 0); }\\n\" | c++ -std=c++11" SC_STRICT
                SC_INC " -x c++ -'");
}
