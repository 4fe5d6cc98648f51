import ClawTalkSupport
import Synchronization

/// A thread-safe list of instants on the bench clock (event stamps from audio callbacks,
/// socket relays and frame handlers).
final class InstantLog: Sendable {
    private let list = Mutex<[ContinuousClock.Instant]>([])

    /// Adds `instant`.
    func append(_ instant: ContinuousClock.Instant) {
        list.locked { $0.append(instant) }
    }

    /// How many so far.
    var count: Int { list.locked { $0.count } }

    /// Every instant, in order of arrival.
    var all: [ContinuousClock.Instant] { list.locked { $0 } }

    /// The first one after the first `skip`.
    func first(after skip: Int) -> ContinuousClock.Instant? {
        list.locked { $0.dropFirst(skip).first }
    }

    /// The first one at or after `instant`.
    func first(atOrAfter instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        list.locked { $0.first { $0 >= instant } }
    }
}
