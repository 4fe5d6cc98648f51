import Dispatch
import Foundation

/// Runs the node service in the foreground until its work ends or a stop signal arrives.
///
/// Signals: each stop signal is first set to `SIG_IGN` (if it still has the default action), so
/// it cannot kill the process before the `DispatchSource` signal source is registered; `.started`
/// is reported only after every source is registered. On Linux libdispatch then installs its own
/// handler once per signal and process (it reroutes the signal to its signalfd), so the runner
/// never restores `SIG_DFL` afterwards: that would disarm sources of a later run in the same
/// process. On a signal the runner reports `.stopping`, cancels the work, waits for it to wind
/// down and returns 0. Work that throws (other than by cancellation) ends the run with that
/// error. Work must honour cancellation, or shutdown waits for it.
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
    }

    /// Work that idles until cancelled: the service body until the node's components are wired in.
    public static let idle: Work = {
        while true { try await Task.sleep(for: .seconds(3600)) }
    }

    /// `SIGTERM` (systemd's stop) and `SIGINT` (Ctrl-C).
    public static let defaultStopSignals: [Int32] = [SIGTERM, SIGINT]

    /// Signals that stop the service.
    public var stopSignals: [Int32]
    /// The service body.
    public var work: Work
    /// Receives `.started` and `.stopping` (called on arbitrary threads).
    public var onEvent: @Sendable (Event) -> Void

    /// A runner stopping on `stopSignals` (default `SIGTERM`, `SIGINT`) that runs `work`.
    public init(
        stopSignals: [Int32] = ServiceRunner.defaultStopSignals, work: @escaping Work = ServiceRunner.idle,
        onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.stopSignals = stopSignals
        self.work = work
        self.onEvent = onEvent
    }

    /// Runs until a stop signal or the end of the work; returns the exit code (0).
    public func run() async throws -> Int32 {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(8))
        let registered = DispatchGroup()
        let sources = stopSignals.map { number in
            Self.ignoreIfDefault(number)
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
        onEvent(.started)
        let work = self.work
        let onEvent = self.onEvent
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                for await number in signals { return .signal(number) }
                return .cancelled
            }
            group.addTask {
                try await work()
                return .finished
            }
            let first: Outcome?
            do {
                first = try await group.next()
            } catch {
                onEvent(.stopping(.failed(String(describing: error))))
                group.cancelAll()
                throw error
            }
            switch first {
            case .signal(let number):
                onEvent(.stopping(.signal(number)))
            case .finished, .cancelled, nil:
                onEvent(.stopping(.finished))
            }
            group.cancelAll()
            do {
                while try await group.next() != nil {}
            } catch is CancellationError {
                // The work ended because we cancelled it: the normal way to stop.
            }
            return ExitCode.success.rawValue
        }
    }

    /// Sets `SIG_IGN` for `number` unless a handler is already installed (libdispatch's own,
    /// from an earlier run, must stay in place).
    private static func ignoreIfDefault(_ number: Int32) {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return }
        if current.__sigaction_handler.sa_handler == nil {
            signal(number, SIG_IGN)
        }
    }

    /// How one child of the run's task group ended.
    private enum Outcome: Sendable {
        case signal(Int32)
        case finished
        case cancelled
    }
}
