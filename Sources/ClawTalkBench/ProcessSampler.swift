import ClawTalkNode
import Foundation

/// Reads another process's CPU time, memory and threads from `/proc` (benchmarks.md §3, for
/// `bench service`): the process itself and, separately, each of its children (the supervised
/// Whisper server and keyword scorer), so a figure is the whole service's and its parts'.
struct ProcessSampler {
    /// One reading of one process.
    struct Reading: Sendable, Equatable {
        /// The process id.
        var pid: Int32
        /// The executable's name (`comm`).
        var name: String
        /// User + system CPU seconds so far.
        var cpuSeconds: Double
        /// Resident set size, MiB.
        var rssMiB: Double
        /// Threads.
        var threads: Int
    }

    /// The process watched.
    let pid: Int32
    private static let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The process and its direct children, or nil when the process is gone.
    func sample() -> (node: Reading, children: [Reading])? {
        guard let node = Self.read(pid) else { return nil }
        return (node, Self.children(of: pid).compactMap(Self.read))
    }

    /// A reading of `pid` from `/proc/<pid>/stat` and `/proc/<pid>/status`.
    static func read(_ pid: Int32) -> Reading? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { return nil }
        let name = String(stat[stat.index(after: open)..<close])
        // Fields after the name, from field 3 (state): utime is field 14, stime 15, threads 20.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 18, let user = Double(fields[11]), let system = Double(fields[12]),
            let threads = Int(fields[17])
        else { return nil }
        let rss = ResourceUsage.rssMiB(status: "/proc/\(pid)/status") ?? 0
        return Reading(pid: pid, name: name, cpuSeconds: (user + system) / ticks, rssMiB: rss, threads: threads)
    }

    /// Direct children of `pid`, from `/proc/<pid>/task/*/children`.
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var result: [Int32] = []
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)
            else { continue }
            result += text.split(separator: " ").compactMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        return Array(Set(result)).sorted()
    }
}
