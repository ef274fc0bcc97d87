/* test_app_args.c: the apps' strict parsing of command-line numbers
 * (apps/common/app_args.c): the whole string, finite, in range, or an
 * error naming the program, the flag and the value. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "tests_common.h"

Test(app_args, int_good)
{
    static const struct {
        const char *s;
        int64_t v;
    } t[] = {{"0", 0}, {"7", 7}, {"1e3", 1000}, {"5M", 5000000}, {"4k", 4000}, {"2.5e3", 2500},
             {"-3", -3}, {"1099511627776", (int64_t)1 << 40}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int64_t v = -99;
        cr_assert_eq(app_arg_int("prog", "-N", t[i].s, -10, (int64_t)1 << 40, &v), 0, "%s",
                     t[i].s);
        cr_assert_eq(v, t[i].v, "%s -> %lld", t[i].s, (long long)v);
    }
}

/* Each bad value: -1, nothing written, and the message names prog, flag
 * and value, and why. */
Test(app_args, bad_values_are_named)
{
    static const struct {
        const char *s, *why;
        int real;
    } t[] = {{"abc", "not a number", 0}, {"", "not a number", 0}, {"12x", "trailing", 0},
             {"1.5", "not a whole number", 0}, {"0", "out of range [1, 100]", 0},
             {"101", "out of range [1, 100]", 0}, {"nan", "not a finite number", 0},
             {"nan", "not a finite number", 1}, {"inf", "not a finite number", 1},
             {"1e-999", "too large or too small", 1},
             {"-0.5", "out of range", 1}, {"0", "out of range", 1}, {"1.5", "out of range", 1},
             {" 1", "not a number", 1}, {"1e999", "not a finite number", 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int64_t v = -99;
        double d = -99;
        test_cap_t c;
        test_cap_start(&c);
        int rc = t[i].real ? app_arg_real("prog", "--density", t[i].s, 0, 1, &d)
                           : app_arg_int("prog", "-n", t[i].s, 1, 100, &v);
        char *out = test_cap_end(&c), want[64];
        cr_assert_eq(rc, -1, "'%s' accepted", t[i].s);
        cr_assert(v == -99 && d == -99, "'%s': output written", t[i].s);
        snprintf(want, sizeof want, "prog: %s '%s': ", t[i].real ? "--density" : "-n", t[i].s);
        cr_assert(strstr(out, want) && strstr(out, t[i].why), "'%s': want '%s' and '%s' in:\n%s",
                  t[i].s, want, t[i].why, out);
        free(out);
    }
}

Test(app_args, lists)
{
    int64_t iv[4];
    double dv[4];
    int n = -1;
    cr_assert_eq(app_arg_int_list("p", "-d", "256,2048", 1, 65536, iv, 4, &n), 0);
    cr_assert(n == 2 && iv[0] == 256 && iv[1] == 2048, "n %d", n);
    cr_assert_eq(app_arg_real_list("p", "--density", "0.001,0.1,1", 0, 1, dv, 4, &n), 0);
    cr_assert(n == 3 && dv[0] == 0.001 && dv[2] == 1, "n %d", n);
    static const char *const bad[] = {"", "1,,2", "1,", ",1", "1,2,3,4,5", "1,nan", "0.5,-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_cap_t c;
        test_cap_start(&c);
        int rc = app_arg_real_list("p", "--density", bad[i], 0, 1, dv, 4, &n);
        char *out = test_cap_end(&c);
        cr_assert_eq(rc, -1, "'%s' accepted", bad[i]);
        cr_assert(strstr(out, "p: --density '") != NULL, "'%s': %s", bad[i], out);
        free(out);
    }
}
