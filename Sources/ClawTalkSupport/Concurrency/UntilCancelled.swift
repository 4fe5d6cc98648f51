import Synchronization

/// Suspends the calling task until it is cancelled (at once when it already is), without a
/// timer: the wait of a component whose work runs in child tasks or callbacks, and that only has
/// to hold its resources until the service stops. It replaces "sleep an hour, again, until
/// cancelled" loops, which woke for nothing and read as if time mattered.
public func untilCancelled() async {
    let waiter = Mutex<(continuation: CheckedContinuation<Void, Never>?, cancelled: Bool)>((nil, false))
    await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let cancelled = waiter.locked { state -> Bool in
                if !state.cancelled { state.continuation = continuation }
                return state.cancelled
            }
            if cancelled { continuation.resume() }
        }
    } onCancel: {
        let continuation = waiter.locked { state -> CheckedContinuation<Void, Never>? in
            state.cancelled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}
