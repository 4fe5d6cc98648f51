import ClawTalkSupport
import Synchronization

/// Limits how far synthesis runs ahead of playback within one speech session: the producer
/// takes a permit before each synthesis request, the player returns one as the audio ahead of
/// it runs low. Closing the gate (stop, end of session) releases every waiter with `false`.
final class PrefetchGate: Sendable {
    private struct State {
        var permits: Int
        var closed = false
        var waiters: [CheckedContinuation<Bool, Never>] = []
    }

    private let state: Mutex<State>

    /// A gate holding `permits` permits.
    init(permits: Int) {
        state = Mutex(State(permits: permits))
    }

    /// Takes a permit, waiting for one; false once the gate is closed (or the caller cancelled).
    func acquire() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = state.locked { state in
                    if state.closed { return false }
                    if state.permits > 0 {
                        state.permits -= 1
                        return true
                    }
                    state.waiters.append(continuation)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            close()
        }
    }

    /// Returns a permit (wakes the oldest waiter).
    func release() {
        let waiter: CheckedContinuation<Bool, Never>? = state.locked { state in
            guard !state.waiters.isEmpty else {
                state.permits += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: true)
    }

    /// Refuses every later ``acquire()`` and releases the waiting ones with `false`.
    func close() {
        let waiters = state.locked { state in
            state.closed = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }
}
