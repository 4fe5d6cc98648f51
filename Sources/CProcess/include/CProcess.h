#ifndef CPROCESS_H
#define CPROCESS_H

#include <sys/types.h>

/// Spawns `path` with `argv` and `envp` (NULL-terminated) as a child that cannot outlive this
/// process: it gets SIGKILL when this process ends in any way (exit, crash, SIGKILL), through
/// PR_SET_PDEATHSIG. The child leads its own process group (kill(-pid, …) reaches everything it
/// starts), starts with default signal actions and an empty signal mask, reads stdin from
/// /dev/null, writes stdout and stderr into one pipe whose read end (close-on-exec) is returned in
/// `*output`, inherits no other descriptor, and runs `nice_increment` steps nicer than this
/// process.
///
/// Returns 0 and sets `*pid` and `*output`, or an errno value (from pipe or fork, or from exec in
/// the child).
int ct_spawn(const char *path, char *const argv[], char *const envp[], int nice_increment, pid_t *pid,
             int *output);

#endif
