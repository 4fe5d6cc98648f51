import ClawTalkSupport
internal import Glibc
import Synchronization

/// Lets an async caller interrupt a blocking socket exchange running on a ``SerialLane``: the
/// lane registers its descriptor while it is open, and ``cancel()`` (from any thread) marks the
/// exchange cancelled and shuts the socket down, which wakes a blocked `poll`/`recv` at once.
/// Closing the descriptor happens under the same lock, so a shutdown never hits a reused number.
final class SocketCancellation: Sendable {
    private struct State {
        var cancelled = false
        var descriptor: Int32?
    }

    private let state = Mutex(State())

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { state.locked { $0.cancelled } }

    /// Marks the exchange cancelled and shuts down the registered socket, if any.
    func cancel() {
        state.locked { state in
            state.cancelled = true
            if let fd = state.descriptor { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Registers an open socket; shuts it down at once if already cancelled.
    func register(_ fd: Int32) {
        state.locked { state in
            state.descriptor = fd
            if state.cancelled { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Unregisters and closes the socket.
    func closeSocket(_ fd: Int32) {
        state.locked { state in
            if state.descriptor == fd { state.descriptor = nil }
            _ = close(fd)
        }
    }
}
