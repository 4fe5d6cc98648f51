import ClawTalkSupport
import Dispatch
import Foundation
import Synchronization

/// Calls a handler for each delivery of some signals (e.g. `SIGHUP` for "reload"), through
/// libdispatch signal sources, until cancelled.
///
/// As in ``ServiceRunner``: each signal is first set to `SIG_IGN` when it still has its default
/// action, so an early delivery cannot kill the process (the default action of `SIGHUP` is to
/// terminate); ``start()`` returns only after every source is registered. The disposition is
/// never restored: on Linux libdispatch keeps its own handler for the process.
package final class SignalListener: Sendable {
    private let signals: [Int32]
    private let handler: @Sendable (Int32) -> Void
    private let sources = Mutex<[SourceBox]>([])

    /// A listener for `signals`; nothing is installed until ``start()``.
    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        self.handler = handler
    }

    deinit {
        cancel()
    }

    /// Installs the sources and waits until each is registered.
    func start() async {
        let registered = DispatchGroup()
        let handler = self.handler
        let made = signals.map { number in
            Self.ignoreIfDefault(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.setEventHandler { handler(number) }
            source.resume()
            return SourceBox(source: source)
        }
        sources.locked { $0 += made }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            registered.notify(queue: .global()) { done.resume() }
        }
    }

    /// Removes the sources (the signals stay ignored).
    func cancel() {
        let taken = sources.locked { sources in
            defer { sources.removeAll() }
            return sources
        }
        for box in taken { box.source.cancel() }
    }

    /// Sets `SIG_IGN` for `number` unless a handler is already installed.
    private static func ignoreIfDefault(_ number: Int32) {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return }
        if current.__sigaction_handler.sa_handler == nil {
            signal(number, SIG_IGN)
        }
    }
}

/// A dispatch source; only cancelled, from any thread (dispatch sources are thread-safe).
private struct SourceBox: @unchecked Sendable {
    let source: any DispatchSourceSignal
}
