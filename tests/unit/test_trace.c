/* test_trace.c: GSHMEM_TRACE's files (base/util/trace.c): a new file gets
 * the stamps; a link or a file already at the path is refused at init,
 * naming it, and what it points to is left untouched. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "base/util/trace.h"
#include "tests_common.h"

#define VICTIM_TEXT "someone else's data\n"

typedef struct trace_dir {
    char dir[64], prefix[96], path[128], victim[128];
} trace_dir_t;

static void trace_dir_make(trace_dir_t *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/gshmem-trace-XXXXXX");
    cr_assert_not_null(mkdtemp(t->dir), "mkdtemp");
    snprintf(t->prefix, sizeof t->prefix, "%s/tr", t->dir);
    snprintf(t->path, sizeof t->path, "%s.0.csv", t->prefix);
    snprintf(t->victim, sizeof t->victim, "%s/victim", t->dir);
    FILE *f = fopen(t->victim, "w");
    cr_assert_not_null(f, "%s", t->victim);
    fputs(VICTIM_TEXT, f);
    fclose(f);
    chmod(t->victim, 0600);
}

static void trace_dir_remove(trace_dir_t *t)
{
    unlink(t->path);
    unlink(t->victim);
    rmdir(t->dir);
}

static void expect_file(const char *path, const char *want)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s is gone", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cr_assert_str_eq(buf, want, "%s was changed", path);
}

/* trace_init on t's prefix must fail naming the path, the victim intact. */
static void expect_refused(trace_dir_t *t)
{
    test_cap_t c;
    test_cap_start(&c);
    int rc = gshmemi_trace_init(t->prefix, 0);
    char *out = test_cap_end(&c);
    if (rc == 0)
        gshmemi_trace_fini(1);
    cr_assert_eq(rc, GSHMEM_ERR_CONFIG, "trace_init over %s returned %d", t->path, rc);
    cr_assert_not_null(strstr(out, t->path), "the error does not name %s:\n%s", t->path, out);
    cr_assert_not_null(strstr(out, "exists"), "%s", out);
    free(out);
    expect_file(t->victim, VICTIM_TEXT);
}

Test(trace, writes_a_new_file)
{
    trace_dir_t t;
    trace_dir_make(&t);
    cr_assert_eq(gshmemi_trace_init(t.prefix, 0), 0);
    gshmemi_trace(GSHMEMI_TR_TAKE);
    gshmemi_trace_fini(1);
    char buf[128] = "";
    FILE *f = fopen(t.path, "r");
    cr_assert_not_null(f, "%s was not written", t.path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cr_assert(strncmp(buf, "pe,stage,ns\n0,take,", 19) == 0, "%s holds:\n%s", t.path, buf);
    trace_dir_remove(&t);
}

Test(trace, planted_symlink_is_not_followed)
{
    trace_dir_t t;
    trace_dir_make(&t);
    cr_assert_eq(symlink(t.victim, t.path), 0, "symlink");
    expect_refused(&t);
    trace_dir_remove(&t);
}

Test(trace, existing_file_is_refused)
{
    trace_dir_t t;
    trace_dir_make(&t);
    cr_assert_eq(link(t.victim, t.path), 0, "link");   /* a hard link: the same file */
    expect_refused(&t);
    trace_dir_remove(&t);
}

/* A failed init (fini without writing) leaves no file behind: init again works. */
Test(trace, failed_init_removes_its_file)
{
    trace_dir_t t;
    trace_dir_make(&t);
    cr_assert_eq(gshmemi_trace_init(t.prefix, 0), 0);
    gshmemi_trace_fini(0);
    cr_assert(access(t.path, F_OK) != 0, "%s is still there", t.path);
    cr_assert_eq(gshmemi_trace_init(t.prefix, 0), 0);
    gshmemi_trace_fini(1);
    trace_dir_remove(&t);
}
