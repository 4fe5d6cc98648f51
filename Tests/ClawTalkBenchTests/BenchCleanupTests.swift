import Foundation
import Testing

@testable import ClawTalkBench

/// An interrupted bench stops what it started: SIGTERM, then SIGKILL for what ignores it.
@Suite struct BenchCleanupTests {
    /// A Python child running `code` with SIGTERM unblocked (a child of the test process
    /// inherits its blocked signals).
    static func start(_ code: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", "import signal, time\nsignal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})\n" + code,
        ]
        try process.run()
        return process
    }

    /// Waits (≤ 60 s) until SIGTERM's bit in `field` of the child's /proc status is `set`.
    static func waitFor(_ process: Process, _ field: String, set: Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let data = FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/status")?.readDataToEndOfFile()
            let line = String(decoding: data ?? Data(), as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix(field + ":") }
            if let mask = line.flatMap({ UInt64($0.split(separator: "\t").last ?? "", radix: 16) }),
                (mask & (1 << (UInt64(SIGTERM) - 1)) != 0) == set
            {
                return true
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    @Test func everyRegisteredProcessIsStoppedAndTheStubbornOneKilled() throws {
        let polite = try Self.start("time.sleep(60)")
        let stubborn = try Self.start("signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)")
        let other = try Self.start("time.sleep(60)")
        defer { other.terminate() }
        // Ready once Python has unblocked SIGTERM (and the stubborn one ignores it).
        #expect(Self.waitFor(polite, "SigBlk", set: false) && Self.waitFor(stubborn, "SigIgn", set: true))
        BenchCleanup.register(polite.processIdentifier)
        BenchCleanup.register(stubborn.processIdentifier)
        BenchCleanup.stopAll(grace: .milliseconds(500))
        polite.waitUntilExit()
        stubborn.waitUntilExit()
        #expect(
            polite.terminationReason == .uncaughtSignal && polite.terminationStatus == SIGTERM,
            "\(polite.terminationReason.rawValue) \(polite.terminationStatus)")
        #expect(stubborn.terminationReason == .uncaughtSignal && stubborn.terminationStatus == SIGKILL)
        #expect(other.isRunning, "a process that was not registered is left alone")
        #expect(BenchCleanup.registered.isEmpty)
    }
}
