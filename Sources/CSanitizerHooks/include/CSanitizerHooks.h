#ifndef CSANITIZERHOOKS_H
#define CSANITIZERHOOKS_H

/* Tells ThreadSanitizer about a lock that it cannot see: the toolchain's Synchronization.Mutex
 * locks with atomics and futexes in a module not built with TSan. Called with the lock's address
 * right after taking it (acquire) and right before giving it back (release). Without TSan in the
 * process both do nothing. */
void clawtalk_tsan_acquire(const void *address);
void clawtalk_tsan_release(const void *address);

#endif
