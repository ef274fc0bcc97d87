/* test_app_common: apps/common (timing statistics over PEs, the host
 * all-gather, NCCL loading errors) through pe_app_common at 1, 2 and 4 PEs
 * over shm. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests_common.h"

Test(app_common, stats_and_nccl_errors, .timeout = 120)
{
    static const int pes[] = {1, 2, 4};
    for (size_t i = 0; i < sizeof pes / sizeof pes[0]; i++) {
        test_run_t r = test_run_pes("shm", pes[i], "pe_app_common", "", 60);
        cr_expect(r.status == 0 && strstr(r.output, "pe_app_common: OK") != NULL,
                  "pe_app_common with %d PEs: exit status %d (want 0 and 'pe_app_common: OK'); "
                  "output (end):\n%s", pes[i], r.status, test_tail(&r));
        test_run_free(&r);
    }
}
