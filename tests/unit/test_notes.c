/* test_notes.c: a test's note (test_note) leaves the run green. Criterion
 * counts every cr_log_warn as a warning and exits non-zero when there is
 * one, even with every test passing: CI failed that way with 0 failing
 * tests, on a loaded machine where a test noted a relaxed bound. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define NOTES_TEXT "a note from notes::emits_a_note"

/* The run that a_note_keeps_the_run_green starts: a passing test with a
 * note. In the whole suite it passes like any other. */
Test(notes, emits_a_note)
{
    test_note("%s", NOTES_TEXT);
    cr_assert(1, "the note was written");
}

Test(notes, a_note_keeps_the_run_green, .timeout = 60)
{
    /* BXFI_MAP would make the child a Criterion worker of this run */
    test_run_t r = test_run(NULL, "env -u BXFI_MAP %B/tests/gshmem-tests "
                            "--filter 'notes/emits_a_note' --jobs 1", 50);
    cr_expect_eq(r.status, 0, "a run whose one test passed with a note exited %d:\n%s",
                 r.status, test_tail(&r));
    cr_expect(strstr(r.output, "[NOTE] " NOTES_TEXT) != NULL, "the note is not in the output:\n%s",
              test_tail(&r));
    cr_expect(strstr(r.output, "Passing: 1") != NULL, "the one test did not run:\n%s",
              test_tail(&r));
    test_run_free(&r);
}

/* Nothing in the suite writes a Criterion warning: each would fail CI. */
Test(notes, no_criterion_warnings_in_the_suite, .timeout = 60)
{
    test_run_t r = test_run(NULL, "grep -rn -E 'cr_log_warn *\\(|CR_LOG_WARNING' "
                            GSHMEM_SOURCE_DIR "/tests --include='*.c' --include='*.h'"
                            " --exclude=test_notes.c", 30);
    cr_expect_eq(r.status, 1, "tests that write Criterion warnings (use test_note):\n%s",
                 test_tail(&r));
    test_run_free(&r);
}
