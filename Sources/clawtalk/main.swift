// The executable only hands the command line to ClawTalkCLI, which parses, composes and runs.
import ClawTalkCLI
import Foundation

/// glibc's `mallopt` (malloc.h is not in the Glibc module); `M_ARENA_MAX` is -8 there.
@_silgen_name("mallopt") func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
let mallocArenaMax: Int32 = -8  // M_ARENA_MAX

// glibc gives each thread that allocates its own heap arena (up to 8 per core), and memory freed
// in one arena is not reused by another: a long-running node with a dozen threads then holds the
// high-water mark of each. Two arenas keep the resident size near what is in use (bench service:
// the node's RSS after a wake turn).
_ = mallopt(mallocArenaMax, 2)
// glibc raises its mmap threshold (up to 32 MiB) each time a large mapped block is freed, so later
// large buffers (clips, a frame near the receive limit) come from the arenas and stay there once
// freed. A fixed threshold keeps every block over 128 KiB mapped on its own and returned at free.
let mallocMmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
_ = mallopt(mallocMmapThreshold, 128 * 1024)

// A stop signal the process inherited as ignored (a parent that ignores SIGTERM; SIGINT in a
// shell's background job) gets its default action back. `clawtalk run`'s signal sources take
// these signals once they are registered, whatever the disposition was; before that, during the
// start, an ignored SIGTERM was discarded and the service ran on (a stop that never came).
for number in [SIGTERM, SIGINT] {
    var current = sigaction()
    if sigaction(number, nil, &current) == 0,
        unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN
    {
        var fallback = sigaction()  // SIG_DFL: a nil handler, no flags
        sigemptyset(&fallback.sa_mask)
        _ = sigaction(number, &fallback, nil)
    }
}

let code = await ClawTalk.main(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)
// `clawtalk run` may return while work it abandoned on a stop (a model load in a C library)
// still runs on its own thread; C++ static destructors run by exit() could race it. Flush
// stdio and leave without them. Children end with the process (see ChildProcess).
fflush(nil)
_exit(code)
