/* proc_state.c: a process's state letter and start time from /proc/<pid>/stat,
 * for the library's watch of stopped and ended PEs (peers.c) and gshmemrun's watcher
 * (tools/gshmemrun/watch.c, which compiles this file). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util/proc_state.h"

char gshmemi_proc_stat(int pid, unsigned long long *start, int *exit_code)
{
    char path[64], buf[1024];
    if (start != NULL)
        *start = 0;
    if (exit_code != NULL)
        *exit_code = -1;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *r = strrchr(buf, ')');   /* the name may hold spaces and parentheses */
    if (r == NULL || r[1] != ' ') {
        errno = EIO;
        return 0;
    }
    char state = r[2];
    const char *q = r + 2;   /* field 3, the state; fields are one space apart */
    for (int field = 3; q != NULL && field <= 52; field++) {
        if (field == 22 && start != NULL)   /* starttime */
            *start = strtoull(q, NULL, 10);
        if (field == 52 && exit_code != NULL && (state == 'Z' || state == 'X'))
            *exit_code = (int)strtol(q, NULL, 10);   /* as waitpid reports it */
        q = strchr(q, ' ');
        q = q != NULL ? q + 1 : NULL;
    }
    return state;
}

char gshmemi_proc_state(int pid)
{
    return gshmemi_proc_stat(pid, NULL, NULL);
}
