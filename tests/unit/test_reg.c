/* test_reg.c: local registrations (gshmem_register's list). */
#include <criterion/criterion.h>
#include <stdint.h>

#include "gshmem_types.h"
#include "base/heap/heap.h"
#include "base/util/log.h"

static char mem[4096];

Test(reg, add_find_remove)
{
    gshmemi_reg_t *list = NULL;

    cr_assert_eq(gshmemi_reg_add(&list, mem + 1000, 100), 0);
    cr_assert_eq(gshmemi_reg_add(&list, mem, 100), 0);
    cr_assert_eq(gshmemi_reg_add(&list, mem + 100, 100), 0);   /* adjacent is fine */
    cr_assert_eq(gshmemi_reg_add(&list, mem + 2000, 1), 0);

    const gshmemi_reg_t *a = gshmemi_reg_find(list, mem, 100);
    const gshmemi_reg_t *b = gshmemi_reg_find(list, mem + 150, 50);
    cr_assert_not_null(a);
    cr_assert_not_null(b);
    cr_assert_neq(a, b);
    cr_assert_eq(gshmemi_reg_find(list, mem + 50, 10), a);
    cr_assert_eq(gshmemi_reg_find(list, mem + 1099, 1), gshmemi_reg_find(list, mem + 1000, 1));
    cr_assert_not_null(gshmemi_reg_find(list, mem + 2000, 1));
    cr_assert_null(gshmemi_reg_find(list, mem + 90, 20), "straddles two registrations");
    cr_assert_null(gshmemi_reg_find(list, mem + 1050, 51));
    cr_assert_null(gshmemi_reg_find(list, mem + 500, 1));
    cr_assert_null(gshmemi_reg_find(list, mem + 2001, 1));
    cr_assert_null(gshmemi_reg_find(list, mem + 3000, 1));

    cr_assert_eq(gshmemi_reg_remove(&list, mem + 100), 0);
    cr_assert_null(gshmemi_reg_find(list, mem + 150, 1));
    cr_assert_not_null(gshmemi_reg_find(list, mem + 50, 1));
    cr_assert_eq(gshmemi_reg_add(&list, mem + 100, 900), 0, "the space is free again");
    gshmemi_reg_clear(&list);
    cr_assert_null(list);
    cr_assert_null(gshmemi_reg_find(list, mem, 1));
}

Test(reg, overlap_rejected)
{
    gshmemi_reg_t *list = NULL;
    static const struct {
        size_t off, len;
    } bad[] = {
        {1000, 100},   /* same */
        {950, 100},    /* straddles the start */
        {1050, 100},   /* straddles the end */
        {1010, 10},    /* inside */
        {900, 400},    /* contains */
        {1099, 1},     /* last byte */
        {999, 2},      /* first byte */
    };

    gshmemi_log_level = GSHMEMI_LOG_NONE;
    cr_assert_eq(gshmemi_reg_add(&list, mem + 1000, 100), 0);
    cr_assert_eq(gshmemi_reg_add(&list, mem + 2000, 100), 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_assert_eq(gshmemi_reg_add(&list, mem + bad[i].off, bad[i].len), GSHMEM_ERR_ALREADY,
                     "[%zu, +%zu) accepted", bad[i].off, bad[i].len);
    cr_assert_eq(gshmemi_reg_add(&list, mem + 1900, 200), GSHMEM_ERR_ALREADY);
    cr_assert_eq(gshmemi_reg_add(&list, mem + 1100, 900), 0, "exactly the gap");
    cr_assert_eq(gshmemi_reg_add(&list, NULL, 10), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemi_reg_add(&list, mem, 0), GSHMEM_ERR_INVALID_ARG);
    gshmemi_reg_clear(&list);
}

Test(reg, remove_unknown)
{
    gshmemi_reg_t *list = NULL;

    gshmemi_log_level = GSHMEMI_LOG_NONE;
    cr_assert_eq(gshmemi_reg_remove(&list, mem), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemi_reg_add(&list, mem, 100), 0);
    cr_assert_eq(gshmemi_reg_remove(&list, mem + 1), GSHMEM_ERR_INVALID_ARG, "not the start");
    cr_assert_eq(gshmemi_reg_remove(&list, mem), 0);
    cr_assert_eq(gshmemi_reg_remove(&list, mem), GSHMEM_ERR_INVALID_ARG, "twice");
    cr_assert_null(list);
}
