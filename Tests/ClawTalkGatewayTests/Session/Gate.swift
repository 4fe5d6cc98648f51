import ClawTalkSupport
import Synchronization

/// Holds handlers until opened (not cancellable: models a handler that ignores cancellation
/// until its own work ends), and counts what they did.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let counters = Mutex<[String: Int]>([:])

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.locked { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.locked { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func bump(_ name: String) {
        counters.locked { $0[name, default: 0] += 1 }
    }

    func count(_ name: String) -> Int {
        counters.locked { $0[name, default: 0] }
    }
}
