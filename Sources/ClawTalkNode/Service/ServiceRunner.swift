import ClawTalkSupport
import Dispatch
import Foundation
import Synchronization

/// A stop signal that arrived while the runner was registering its signal sources (set by a
/// plain C handler, which may only store to an atomic).
private let earlyStopSignal = Atomic<Int32>(0)

/// Runs the node service in the foreground until its work ends or a stop signal arrives.
///
/// Signals: each stop signal first gets a handler that only notes it (if it still has the default
/// action), so it can neither kill the process nor be lost before the `DispatchSource` signal
/// source is registered (issue 35: one SIGTERM in ten, 0.2 s after start, was ignored under the
/// `SIG_IGN` used before, and the node ran on); a signal noted then is handled as soon as the
/// sources are in place. `.started` is reported only after every source is registered. On Linux libdispatch then installs its own
/// handler once per signal and process (it reroutes the signal to its signalfd), so the runner
/// never restores `SIG_DFL` afterwards: that would disarm sources of a later run in the same
/// process. On a signal the runner reports `.stopping`, cancels the work, gives it
/// ``stopGrace`` to wind down (sockets close with 1000, children get SIGTERM) and returns 0:
/// work that is still running then (a C library's model load on its own thread) is abandoned,
/// reported as `.abandoned`, and ends with the process. So a stop takes at most about
/// ``stopGrace`` whatever the work is doing. Work that throws (other than by cancellation) ends
/// the run with that error.
public struct ServiceRunner: Sendable {
    /// The service body; runs until it returns, throws or is cancelled.
    public typealias Work = @Sendable () async throws -> Void

    /// Why the service is stopping.
    public enum StopReason: Equatable, Sendable {
        /// A stop signal (e.g. `SIGTERM`) arrived.
        case signal(Int32)
        /// The work returned by itself.
        case finished
        /// The work threw; the payload is the error's description.
        case failed(String)
    }

    /// What the runner reports, for logging.
    public enum Event: Equatable, Sendable {
        /// Signal handlers are installed and the work is starting.
        case started
        /// The service is shutting down.
        case stopping(StopReason)
        /// Part of the work had not ended ``ServiceRunner/stopGrace`` after the stop; the run
        /// returned without it.
        case abandoned
    }

    /// Work that idles until cancelled: the service body until the node's components are wired in.
    public static let idle: Work = {
        await untilCancelled()
        throw CancellationError()
    }

    /// `SIGTERM` (systemd's stop) and `SIGINT` (Ctrl-C).
    public static let defaultStopSignals: [Int32] = [SIGTERM, SIGINT]

    /// How long the work may take to end after a stop signal (the budget for a whole
    /// stop is 500 ms; this leaves room for the process to exit).
    public static let defaultStopGrace: Duration = .milliseconds(300)

    /// Signals that stop the service.
    public var stopSignals: [Int32]
    /// How long cancelled work may take to end before the run returns without it.
    public var stopGrace: Duration
    /// The service body.
    public var work: Work
    /// Receives `.started` and `.stopping` (called on arbitrary threads).
    public var onEvent: @Sendable (Event) -> Void

    /// A runner stopping on `stopSignals` (default `SIGTERM`, `SIGINT`) that runs `work`.
    public init(
        stopSignals: [Int32] = ServiceRunner.defaultStopSignals, stopGrace: Duration = ServiceRunner.defaultStopGrace,
        work: @escaping Work = ServiceRunner.idle, onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.stopSignals = stopSignals
        self.stopGrace = stopGrace
        self.work = work
        self.onEvent = onEvent
    }

    /// Runs until a stop signal or the end of the work; returns the exit code (0).
    public func run() async throws -> Int32 {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(8))
        let registered = DispatchGroup()
        earlyStopSignal.store(0, ordering: .relaxed)
        let sources = stopSignals.map { number in
            Self.noteIfDefault(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            continuation.finish()
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            registered.notify(queue: .global()) { done.resume() }
        }
        let early = earlyStopSignal.exchange(0, ordering: .relaxed)
        if early != 0 { continuation.yield(early) }
        onEvent(.started)
        let onEvent = self.onEvent
        // The work runs outside the task tree so that a stop can return without awaiting it.
        let running = Task { [work] in try await work() }
        let first: Outcome = await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                for await number in signals { return .signal(number) }
                return .cancelled
            }
            group.addTask { await Self.outcome(of: running) ?? .cancelled }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            return first
        }
        switch first {
        case .signal(let number):
            onEvent(.stopping(.signal(number)))
        case .finished, .cancelled:
            onEvent(.stopping(.finished))
        case .failed(let error):
            onEvent(.stopping(.failed(String(describing: error))))
            running.cancel()
            throw error
        }
        running.cancel()
        let ended = try? await withTimeout(stopGrace) { await Self.outcome(of: running) }
        if ended == nil { onEvent(.abandoned) }
        return 0
    }

    /// How `task` ended (cancellation counts as finished); nil when the caller is cancelled
    /// first (the task goes on).
    private static func outcome(of task: Task<Void, any Error>) async -> Outcome? {
        let result = try? await awaitDetached { finish in
            // Unstructured on purpose: it outlives a cancelled caller ("the task goes on").
            Task { finish(.success(await task.result)) }
        }
        switch result {
        case nil: return nil
        case .success?: return .finished
        case .failure(let error)? where error is CancellationError: return .finished
        case .failure(let error)?: return .failed(error)
        }
    }

    /// Installs a handler that notes `number` in ``earlyStopSignal``, unless a handler is already
    /// installed (libdispatch's own, from an earlier run, must stay in place; a `SIG_IGN` the
    /// caller set stays too).
    private static func noteIfDefault(_ number: Int32) {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return }
        if current.__sigaction_handler.sa_handler == nil {
            signal(number) { earlyStopSignal.store($0, ordering: .relaxed) }
        }
    }

    /// How the wait for a signal or the work's end came out.
    private enum Outcome: Sendable {
        case signal(Int32)
        case finished
        case failed(any Error)
        case cancelled
    }
}
