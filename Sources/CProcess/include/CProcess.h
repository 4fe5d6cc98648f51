#ifndef CPROCESS_H
#define CPROCESS_H

#include <stddef.h>
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

/// glibc's heap figures (mallinfo2), in bytes.
typedef struct {
    /// Held by the program (allocated and not freed).
    size_t in_use;
    /// Freed but kept by the allocator in its arenas (counts in the RSS once touched).
    size_t free;
    /// In chunks mapped on their own (large allocations, returned at free).
    size_t mapped;
} ct_heap_figures;

/// Reads the heap figures of the whole process (every arena).
ct_heap_figures ct_heap_read(void);

/// Returns the free memory of every arena to the kernel (malloc_trim(0)); 1 if any was.
int ct_heap_trim(void);

#endif
