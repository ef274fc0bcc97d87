/* proc_state.h: a process's state from /proc (proc_state.c). */
#ifndef GSHMEMI_PROC_STATE_H
#define GSHMEMI_PROC_STATE_H

/* The state letter of /proc/<pid>/stat (R, S, D, T stopped by a signal, t
 * stopped by a debugger, Z, X, ...), or 0 when it cannot be read: errno
 * ENOENT when the process is gone. */
char gshmemi_proc_state(int pid);
/* The same, *start the process's start time (clock ticks after boot, field
 * 22; 0 when unknown: another process with the pid starts later) and, for
 * a zombie, *exit_code its status as waitpid reports it (field 52; -1 when
 * unknown). Either pointer may be NULL. */
char gshmemi_proc_stat(int pid, unsigned long long *start, int *exit_code);

#endif
