/* proc_state.h: a process's state from /proc (proc_state.c). */
#ifndef GSHMEMI_PROC_STATE_H
#define GSHMEMI_PROC_STATE_H

/* The state letter of /proc/<pid>/stat (R, S, D, T stopped by a signal, t
 * stopped by a debugger, Z, X, ...), or 0 when it cannot be read (gone). */
char gshmemi_proc_state(int pid);

#endif
