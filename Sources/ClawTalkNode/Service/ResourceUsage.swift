import Foundation

/// Process CPU time and memory (benchmarks.md §3 CPU and Memory): `getrusage` user + system
/// seconds, peak RSS (`ru_maxrss`) and the current RSS from /proc/self/status.
public enum ResourceUsage {
    /// User + system CPU seconds of this process (all threads).
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Peak resident set size in MiB.
    public static func peakRSSMiB() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }

    /// Current resident set size in MiB (VmRSS), nil if unreadable.
    public static func currentRSSMiB() -> Double? {
        rssMiB(status: "/proc/self/status")
    }

    /// VmRSS in MiB from a `/proc/<pid>/status` file, nil if unreadable.
    public static func rssMiB(status path: String) -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").compactMap({ Double($0) }).first
        else { return nil }
        return kilobytes / 1024
    }
}
