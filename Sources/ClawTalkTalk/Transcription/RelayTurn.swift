import ClawTalkProtocol
import ClawTalkSupport
import Synchronization

/// What one relay session has heard so far: events are recorded as they arrive (even before
/// the `talk.session.create` answer names the session, since `ready` may come first) and read
/// back for the bound session only.
final class RelayTurn: Sendable {
    private struct State {
        var events: [TalkRelayEvent] = []
        var sessionIds: Set<String> = []
        var disconnected: String?
        var lastEventAt: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// Records one relay event.
    func receive(_ event: TalkRelayEvent) {
        state.locked { state in
            state.events.append(event)
            if state.sessionIds.contains(event.relaySessionId) { state.lastEventAt = .now }
        }
    }

    /// Records that the operator socket ended.
    func disconnect(_ reason: String) {
        state.locked { $0.disconnected = reason }
    }

    /// Names the session whose events count, by every id its events may carry.
    func bind(_ sessionIds: Set<String>) {
        state.locked { state in
            state.sessionIds = sessionIds
            if state.events.contains(where: { sessionIds.contains($0.relaySessionId) }) { state.lastEventAt = .now }
        }
    }

    /// The bound session's view: ready, finals, the latest partial, an error, when the last event came.
    struct Snapshot {
        var ready = false
        var finals: [String] = []
        var partial: String?
        var error: String?
        var closed = false
        var lastEventAt: ContinuousClock.Instant?
    }

    /// The bound session's events so far.
    func snapshot() -> Snapshot {
        state.locked { state in
            var snapshot = Snapshot(lastEventAt: state.lastEventAt)
            if let reason = state.disconnected { snapshot.error = "operator connection lost: \(reason)" }
            guard !state.sessionIds.isEmpty else { return snapshot }
            for event in state.events where state.sessionIds.contains(event.relaySessionId) {
                switch event {
                case .ready: snapshot.ready = true
                case .transcript(_, let role, let text, let final) where role == "user":
                    if final {
                        snapshot.finals.append(text)
                        snapshot.partial = nil
                    } else {
                        snapshot.partial = text
                    }
                case .error(_, let message): snapshot.error = snapshot.error ?? message
                case .closed: snapshot.closed = true
                case .transcript, .other: break
                }
            }
            return snapshot
        }
    }
}
