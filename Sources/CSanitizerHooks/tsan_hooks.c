#include "CSanitizerHooks.h"

/* The ThreadSanitizer runtime's annotations (compiler-rt's tsan_interface.h). Weak: in a process
 * without the runtime they are null and the hooks do nothing. */
extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));

void clawtalk_tsan_acquire(const void *address) {
    if (__tsan_acquire) __tsan_acquire((void *)address);
}

void clawtalk_tsan_release(const void *address) {
    if (__tsan_release) __tsan_release((void *)address);
}
