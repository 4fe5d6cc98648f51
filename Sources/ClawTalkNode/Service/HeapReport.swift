internal import CProcess
public import ClawTalkSupport
import Foundation

/// The node's memory, logged as `memory.heap` every ``interval`` while `clawtalk run` runs: its
/// RSS next to what the heap holds for the program and what it keeps freed. A rising RSS with a
/// flat `inUseMiB` is the allocator keeping memory, not a leak (the soak's question).
public enum HeapReport {
    /// One reading, MiB.
    public struct Reading: Sendable, Equatable {
        /// The process's resident set (VmRSS).
        public var rssMiB: Double
        /// Allocated by the program (mallinfo2 `uordblks` + `hblkhd`).
        public var inUseMiB: Double
        /// Free in the heap, held by malloc (`fordblks`).
        public var freeMiB: Double
        /// In mmap'ed chunks (`hblkhd`).
        public var mappedMiB: Double
    }

    /// How often it is logged (10 min).
    public static let interval = Duration.seconds(600)

    /// The figures now.
    public static func read() -> Reading {
        let heap = ct_heap_read()
        let mebibyte = 1_048_576.0
        return Reading(
            rssMiB: ResourceUsage.rssMiB(status: "/proc/self/status") ?? 0, inUseMiB: Double(heap.in_use) / mebibyte,
            freeMiB: Double(heap.free) / mebibyte, mappedMiB: Double(heap.mapped) / mebibyte)
    }

    /// Logs a reading at once and then every `interval` until cancelled. When the allocator
    /// holds more than ``trimAbove`` of freed memory, it is handed back to the kernel after the
    /// reading (`trimmedMiB`: the RSS it gave back). The soak found why: a burst of short-lived
    /// memory (40 MiB in one fault cycle) stayed in the arenas as free memory, so the RSS rose
    /// by that much while the memory in use stayed flat.
    public static func run(logger: Logger, every interval: Duration = interval) async {
        while !Task.isCancelled {
            let reading = read()
            var fields: [String: LogValue] = [
                "rssMiB": .double(tenths(reading.rssMiB)), "inUseMiB": .double(tenths(reading.inUseMiB)),
                "freeMiB": .double(tenths(reading.freeMiB)), "mappedMiB": .double(tenths(reading.mappedMiB)),
            ]
            if let trimmed = trim(after: reading) { fields["trimmedMiB"] = .double(tenths(trimmed)) }
            logger.info("memory.heap", fields)
            try? await Task.sleep(for: interval)
        }
    }

    /// Freed memory the allocator may keep before it is handed back (8 MiB).
    public static let trimAbove = 8.0

    /// Hands the allocator's free memory back when `reading` shows more than ``trimAbove`` of
    /// it; the RSS that went (MiB), or nil when nothing was asked.
    static func trim(after reading: Reading) -> Double? {
        guard reading.freeMiB > trimAbove else { return nil }
        _ = ct_heap_trim()
        let after = ResourceUsage.rssMiB(status: "/proc/self/status") ?? reading.rssMiB
        return max(0, reading.rssMiB - after)
    }

    /// The readings in a node log's `memory.heap` lines, in order.
    public static func readings(inLog text: String) -> [Reading] {
        text.split(separator: "\n").compactMap { line -> Reading? in
            guard line.contains(" memory.heap ") else { return nil }
            var fields: [String: Double] = [:]
            for pair in line.split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
            }
            guard let rss = fields["rssMiB"], let inUse = fields["inUseMiB"], let free = fields["freeMiB"],
                let mapped = fields["mappedMiB"]
            else { return nil }
            return Reading(rssMiB: rss, inUseMiB: inUse, freeMiB: free, mappedMiB: mapped)
        }
    }

    private static func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
