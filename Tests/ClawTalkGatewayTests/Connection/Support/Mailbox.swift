import ClawTalkSupport
import Foundation
import Synchronization

/// An unbounded async queue with a timeout on every take, so a test never hangs.
final class Mailbox<Element: Sendable>: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case finished
        var description: String { "mailbox finished" }
    }

    private struct Waiter {
        let id: UUID
        let continuation: CheckedContinuation<Element, any Error>
    }

    private struct State {
        var items: [Element] = []
        var waiters: [Waiter] = []
        var cancelled: Set<UUID> = []
        var finished = false
    }

    private enum Step {
        case item(Element)
        case fail(any Error)
        case wait
    }

    private let state = Mutex(State())

    init() {}

    func push(_ element: Element) {
        let waiter: Waiter? = state.locked { state in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.items.append(element)
            return nil
        }
        waiter?.continuation.resume(returning: element)
    }

    func finish() {
        let waiters = state.locked { state in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: Failure.finished) }
    }

    /// Items queued now.
    var queued: [Element] { state.locked { $0.items } }

    /// The next element, or a `TimeoutError` after `timeout` of real time.
    func next(within timeout: Duration = .seconds(30)) async throws -> Element {
        try await withTimeout(timeout) { try await self.take() }
    }

    private func take() async throws -> Element {
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element, any Error>) in
                let step: Step = state.locked { state in
                    if !state.items.isEmpty { return .item(state.items.removeFirst()) }
                    if state.cancelled.remove(id) != nil { return .fail(CancellationError()) }
                    if state.finished { return .fail(Failure.finished) }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .wait
                }
                switch step {
                case .item(let element): continuation.resume(returning: element)
                case .fail(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.locked { state in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
