/* test_info.c: gshmem-info (tools/info) lists every GSHMEM_* setting of
 * config_table.h, as lines and as JSON that parses; a value set in the
 * environment shows as set; --all adds each setting's meaning; a bad
 * argument is refused with the usage. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests_common.h"

#define INFO "%B/tools/info/gshmem-info"

static const struct {
    const char *name, *help;
} info_settings[] = {
#define GSHMEMI_CFG(type, NAME, field, dflt, help) {"GSHMEM_" #NAME, help},
#include "base/util/config_table.h"
#undef GSHMEMI_CFG
};
#define INFO_N (sizeof info_settings / sizeof info_settings[0])

static test_run_t info_run(const char *env, const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s %s", INFO, args);
    return test_run_bare(env, cmd, 60);
}

Test(info, json_lists_every_setting)
{
    /* python3's json module parses it and prints the object's sections,
     * then the settings' names, one per line */
    test_run_t r = test_run_bare(NULL, INFO " --json | python3 -c 'import json, sys; "
                                       "d = json.load(sys.stdin); print(\"sections:\", sorted(d)); "
                                       "[print(s[\"name\"]) for s in d[\"settings\"]]'", 60);
    cr_assert_eq(r.status, 0, "gshmem-info --json did not parse:\n%s", test_tail(&r));
    cr_expect(strstr(r.output, "sections: ['bootstraps', 'build', 'name', "
                               "'openshmem', 'settings', 'transports', 'version']\n") != NULL,
              "%s", test_tail(&r));
    size_t listed = 0;
    for (const char *l = strstr(r.output, "\nGSHMEM_"); l; l = strstr(l + 1, "\nGSHMEM_"))
        listed++;
    cr_expect_eq(listed, INFO_N, "--json lists %zu settings, config_table.h has %zu", listed,
                 INFO_N);
    for (size_t i = 0; i < INFO_N; i++) {
        char line[96];
        snprintf(line, sizeof line, "\n%s\n", info_settings[i].name);
        cr_expect(strstr(r.output, line) != NULL, "%s missing from --json",
                  info_settings[i].name);
    }
    test_run_free(&r);
}

Test(info, lines_show_defaults_and_set_values)
{
    test_run_t r = info_run("GSHMEM_SYMMETRIC_SIZE=1G", "");
    cr_assert_eq(r.status, 0, "%s", test_tail(&r));
    for (size_t i = 0; i < INFO_N; i++) {
        char *at = strstr(r.output, info_settings[i].name);
        cr_expect(at != NULL && at[strlen(info_settings[i].name)] == ' ', "%s missing:\n%s",
                  info_settings[i].name, test_tail(&r));
    }
    cr_expect(strstr(r.output, "1G             (set; default 256M)") != NULL, "%s",
              test_tail(&r));
    cr_expect(strstr(r.output, "gshmem 0.") == r.output, "no version line first:\n%s",
              test_tail(&r));
    cr_expect(strstr(r.output, info_settings[0].help) == NULL, "help without --all");
    test_run_free(&r);

    r = info_run(NULL, "--all");
    cr_assert_eq(r.status, 0, "%s", test_tail(&r));
    for (size_t i = 0; i < INFO_N; i++)
        cr_expect(strstr(r.output, info_settings[i].help) != NULL, "--all lacks %s's help",
                  info_settings[i].name);
    test_run_free(&r);
}

Test(info, bad_argument_is_refused)
{
    test_run_t r = info_run(NULL, "--jsn");
    cr_expect_eq(r.status, 2, "status %d:\n%s", r.status, test_tail(&r));
    cr_expect(strstr(r.output, "unknown argument '--jsn'") != NULL, "%s", test_tail(&r));
    cr_expect(strstr(r.output, "usage: gshmem-info") != NULL, "%s", test_tail(&r));
    test_run_free(&r);
}
