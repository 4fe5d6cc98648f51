// The heap's own figures, to tell a leak (memory in use grows) from an allocator that keeps what
// was freed (free memory grows) when the service's RSS rises over hours.
#include "CProcess.h"

#include <malloc.h>

ct_heap_figures ct_heap_read(void) {
    struct mallinfo2 info = mallinfo2();
    ct_heap_figures figures = {
        .in_use = info.uordblks + info.hblkhd,
        .free = info.fordblks,
        .mapped = info.hblkhd,
    };
    return figures;
}

int ct_heap_trim(void) {
    return malloc_trim(0);
}
