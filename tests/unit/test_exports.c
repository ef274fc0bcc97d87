/* test_exports.c: libgshmem.so exports its API and nothing else
 * (src/gshmem.map): every defined dynamic symbol starts with gshmem_ or
 * gshmemx_. Before the map it exported 361 internal names (gshmemi_*,
 * ofi_*, p2p_*), which a program or another library could bind to. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

Test(exports, only_the_api, .timeout = 60)
{
    test_run_t r = test_run(NULL, "nm -D --defined-only %B/libgshmem.so | awk '{print $NF}'", 50);
    cr_assert_eq(r.status, 0, "nm -D of libgshmem.so failed (%d):\n%s", r.status, test_tail(&r));
    int api = 0, other = 0;
    char others[2048] = "";
    for (char *save = NULL, *name = strtok_r(r.output, "\n", &save); name != NULL;
         name = strtok_r(NULL, "\n", &save)) {
        if (strncmp(name, "gshmem_", 7) == 0 || strncmp(name, "gshmemx_", 8) == 0) {
            api++;
            continue;
        }
        if (other++ < 20 && strlen(others) + strlen(name) + 2 < sizeof others) {
            strcat(others, name);
            strcat(others, " ");
        }
    }
    cr_expect_eq(other, 0, "libgshmem.so exports %d names outside the API, e.g. %s", other,
                 others);
    /* the API itself is there (an nm that listed nothing would pass above) */
    cr_expect(api > 1000, "libgshmem.so exports only %d API names", api);
    test_run_free(&r);
}
