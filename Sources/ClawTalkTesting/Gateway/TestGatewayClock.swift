import ClawTalkSupport
import Foundation
import Synchronization

/// The gateway's wall clock in milliseconds: challenge `ts`, signature skew, pairing-request
/// and bootstrap-token expiry, `issuedAtMs` and event timestamps all read it. Tick and invoke
/// timers run on real time (their intervals come from the configuration).
public protocol TestGatewayClock: Sendable {
    /// Milliseconds since the Unix epoch.
    func nowMs() -> Int64
}

/// The system wall clock.
public struct SystemGatewayClock: TestGatewayClock {
    /// A system clock.
    public init() {}

    /// Wall-clock milliseconds since the Unix epoch.
    public func nowMs() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

/// A clock that only moves when told to; for expiry and skew tests.
public final class ManualGatewayClock: TestGatewayClock {
    private let now: Mutex<Int64>

    /// A clock standing at `startMs` (default: the protocol.md §6.4 fixture time 1754640000000).
    public init(startMs: Int64 = 1_754_640_000_000) {
        now = Mutex(startMs)
    }

    /// The current reading.
    public func nowMs() -> Int64 {
        now.locked { $0 }
    }

    /// Moves the clock forward (or back, for a negative value) by `milliseconds`.
    public func advance(byMs milliseconds: Int64) {
        now.locked { $0 += milliseconds }
    }

    /// Sets the clock to `milliseconds`.
    public func set(ms milliseconds: Int64) {
        now.locked { $0 = milliseconds }
    }
}
