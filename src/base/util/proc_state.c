/* proc_state.c: a process's state letter from /proc/<pid>/stat, for the
 * library's watch of stopped PEs (peers.c) and gshmemrun's watcher
 * (tools/gshmemrun/watch.c, which compiles this file). */
#include <stdio.h>
#include <string.h>

#include "base/util/proc_state.h"

char gshmemi_proc_state(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *r = strrchr(buf, ')');   /* the name may hold spaces and parentheses */
    return r != NULL && r[1] == ' ' ? r[2] : 0;
}
