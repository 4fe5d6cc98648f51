import ClawTalkProtocol
import Foundation

/// The push-to-talk state machine of talk.md §2.5 as a pure value: events in, actions out.
/// ``PTTController`` performs the actions and feeds back what they produce.
///
/// | Command | `idle` | `starting` | `capturing(ptt)` | `capturing(once)` |
/// |---|---|---|---|---|
/// | `start` | begin → `{captureId}` | wait for the start, same id | same id | same id |
/// | `stop` | `{fresh, null, idle}` | wait for the start, then stop | finalize | finalize; `once` gets the same result |
/// | `cancel` | `{fresh, null, idle}` | abort: start fails `PTT_CANCELLED`, cancel `cancelled` | discard → `cancelled` | discard; `once` and `cancel` `cancelled` |
/// | `once` | begin with auto-stop | `busy` (fresh id) | `busy` (fresh id) | previous `once` `cancelled`, new capture |
///
/// In `finalizing`, `stop` and `cancel` wait for the result being finalized; `start` and `once`
/// wait and then act as in `idle`. Beginning a capture stops speech, pauses Talk and suspends
/// wake (in that order); returning to `idle` resumes wake, then Talk. After ``Event/shutdown``
/// nothing begins again: `start` fails `PTT_CANCELLED`, `once` is `cancelled`.
///
/// A capture whose controller is gone (talk.md §2.7): when the node connection that sent a `ptt`
/// capture's `start` closes (``Event/connectionClosed(connection:)``), the capture ends at once
/// if nothing is being said, else at its next pause (``Event/silenceElapsed(captureId:)``) or
/// at the loss cap (``Action/awaitPause(captureId:)``), and is finalized as for `stop` with
/// nobody waiting; its transcript goes to the outbox (`queued`). A `stop` or `cancel` before
/// that wins as usual; one after it answers the finished result, without a second delivery,
/// until the next capture begins. Local captures and `once` (which ends by itself) are not
/// affected.
public struct PTTStateMachine: Sendable {
    /// Makes capture ids; gets a sequence number (1, 2, …) for deterministic tests.
    public typealias CaptureIDMaker = @Sendable (Int) -> String

    private var phase = Phase.idle
    private var ended: Ended?
    private var closed = false
    private var sequence = 0
    private let makeCaptureID: CaptureIDMaker

    /// A machine in `idle`; capture ids come from `makeCaptureID` (default: lowercase UUID v4).
    public init(makeCaptureID: @escaping CaptureIDMaker = { _ in PTTStateMachine.randomCaptureID() }) {
        self.makeCaptureID = makeCaptureID
    }

    /// A lowercase UUID v4.
    public static func randomCaptureID() -> String {
        UUID().uuidString.lowercased()
    }

    /// The current state.
    public var state: State {
        switch phase {
        case .idle: .idle
        case .starting(let s): .starting(captureId: s.captureId, mode: s.mode)
        case .capturing(let c): .capturing(captureId: c.captureId, mode: c.mode)
        case .finalizing(let f): .finalizing(captureId: f.captureId)
        }
    }

    /// Whether ``Event/shutdown`` happened.
    public var isShutDown: Bool { closed }

    /// Whether speech is going on in the current capture (since its start or last pause).
    var speaking: Bool {
        guard case .capturing(let c) = phase else { return false }
        return c.speaking
    }

    /// The capture being finalized because its controller is gone, if any.
    public var finalizingWithoutController: String? {
        guard case .finalizing(let f) = phase, f.controllerGone else { return nil }
        return f.captureId
    }

    /// Applies `event` and returns the actions to perform, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        var out: [Action] = []
        switch event {
        case .command(let command, let request, let origin):
            self.command(command, request, origin, &out)
        case .abandoned(let request):
            abandon(request, &out)
        case .captureBegan(let id):
            began(id, &out)
        case .captureFailed(let id, let failure):
            failed(id, failure, &out)
        case .speechStarted(let id):
            speech(id, started: true, &out)
        case .silenceElapsed(let id):
            speech(id, started: false, &out)
        case .connectionClosed(let connection):
            connectionClosed(connection, &out)
        case .lossCapReached(let id):
            guard case .capturing(let c) = phase, c.captureId == id, c.controllerGone else { break }
            finalize(c, waiters: [], &out)
        case .hardCapReached(let id), .captureEnded(let id):
            guard case .capturing(let c) = phase, c.captureId == id else { break }
            finalize(c, waiters: [c.onceWaiter].compactMap { $0 }, &out)
        case .finalResult(let id, let transcript), .finalizeTimedOut(let id, let transcript):
            transcribed(id, transcript, &out)
        case .finalizeFailed(let id, let failure):
            finalizeFailed(id, failure, &out)
        case .delivered(let id, let status):
            delivered(id, status, &out)
        case .keptInOutbox(let id):
            guard case .finalizing(let f) = phase, f.captureId == id else { break }
            delivered(id, f.origin == .local ? .offline : .queued, &out)
        case .shutdown:
            shutdown(&out)
        }
        return out
    }

    // MARK: - Commands

    private mutating func command(
        _ command: Command, _ request: RequestID, _ origin: Origin, _ out: inout [Action]
    ) {
        switch phase {
        case .idle:
            switch command {
            case .start where closed:
                out.append(.respond(request, .failed(.startCancelled)))
            case .once where closed:
                out.append(.respond(request, .result(freshID(), nil, .cancelled)))
            case .start:
                begin(.ptt, origin, startWaiters: [request], onceWaiter: nil, acquire: true, &out)
            case .once:
                begin(.once, origin, startWaiters: [], onceWaiter: request, acquire: true, &out)
            case .stop, .cancel:
                // The capture that ended without its controller is the one meant (talk.md §2.7).
                out.append(.respond(request, ended?.response ?? .result(freshID(), nil, .idle)))
            }
        case .starting(var s):
            switch command {
            case .start:
                s.startWaiters.append(request)
                if origin == .local || s.controllerGone { (s.origin, s.controllerGone) = (origin, false) }
                phase = .starting(s)
            case .stop:
                s.stopWaiters.append(request)
                phase = .starting(s)
            case .cancel:
                abortStart(s, canceller: request, &out)
            case .once:
                out.append(.respond(request, .result(freshID(), nil, .busy)))
            }
        case .capturing(var c):
            switch command {
            case .start:
                // A local start, or one from a gateway that is back, becomes the controller.
                if origin == .local || c.controllerGone { (c.origin, c.controllerGone) = (origin, false) }
                phase = .capturing(c)
                out.append(.respond(request, .started(captureId: c.captureId)))
            case .stop:
                c.controllerGone = false
                finalize(c, waiters: [c.onceWaiter, request].compactMap { $0 }, &out)
            case .cancel:
                discard(c, canceller: request, &out)
            case .once where c.mode == .ptt:
                out.append(.respond(request, .result(freshID(), nil, .busy)))
            case .once:
                if let previous = c.onceWaiter {
                    out.append(.respond(previous, .result(c.captureId, nil, .cancelled)))
                }
                out.append(.discard(captureId: c.captureId))
                begin(.once, origin, startWaiters: [], onceWaiter: request, acquire: false, &out)
            }
        case .finalizing(var f):
            switch command {
            case .stop, .cancel:
                f.waiters.append(request)
            case .start, .once:
                f.queued.append(Queued(command: command, request: request, origin: origin))
            }
            phase = .finalizing(f)
        }
    }

    private mutating func abandon(_ request: RequestID, _ out: inout [Action]) {
        switch phase {
        case .idle:
            break
        case .starting(let s):
            if s.startWaiters.contains(request) || s.onceWaiter == request || s.stopWaiters.contains(request) {
                abortStart(s, canceller: nil, &out)
            }
        case .capturing(let c):
            if c.onceWaiter == request { discard(c, canceller: nil, &out) }
        case .finalizing(var f):
            // Waiters keep waiting (a cancel in `finalizing` returns the result); a queued
            // start or once is dropped before it began.
            guard let index = f.queued.firstIndex(where: { $0.request == request }) else { return }
            let queued = f.queued.remove(at: index)
            phase = .finalizing(f)
            out.append(.respond(request, cancelledBeforeStart(queued.command)))
        }
    }

    // MARK: - Capture lifecycle

    private mutating func began(_ id: String, _ out: inout [Action]) {
        guard case .starting(let s) = phase, s.captureId == id else {
            out.append(.discard(captureId: id))
            return
        }
        for waiter in s.startWaiters { out.append(.respond(waiter, .started(captureId: id))) }
        let capture = Capturing(captureId: id, mode: s.mode, origin: s.origin, onceWaiter: s.onceWaiter)
        if !s.stopWaiters.isEmpty {
            finalize(capture, waiters: [s.onceWaiter].compactMap { $0 } + s.stopWaiters, &out)
        } else if s.controllerGone {
            // Its connection closed while the microphone opened: nothing was said yet.
            var orphan = capture
            orphan.controllerGone = true
            finalize(orphan, waiters: [], &out)
        } else {
            phase = .capturing(capture)
        }
    }

    private mutating func failed(_ id: String, _ failure: PTTFailure, _ out: inout [Action]) {
        guard case .starting(let s) = phase, s.captureId == id else { return }
        for waiter in s.startWaiters { out.append(.respond(waiter, .failed(failure))) }
        if let once = s.onceWaiter { out.append(.respond(once, .failed(failure))) }
        for waiter in s.stopWaiters { out.append(.respond(waiter, .result(freshID(), nil, .idle))) }
        release(&out)
    }

    /// Speech began (`started`) or paused for the silence window: a pause ends a `once`, and a
    /// capture whose controller is gone.
    private mutating func speech(_ id: String, started: Bool, _ out: inout [Action]) {
        guard case .capturing(var c) = phase, c.captureId == id else { return }
        c.speaking = started
        if !started, c.mode == .once || c.controllerGone {
            finalize(c, waiters: [c.onceWaiter].compactMap { $0 }, &out)
        } else {
            phase = .capturing(c)
        }
    }

    /// The node connection's socket `connection` closed: a `ptt` capture it started has no
    /// controller left (talk.md §2.7).
    private mutating func connectionClosed(_ connection: Int, _ out: inout [Action]) {
        let origin = Origin.gateway(connection: connection)
        switch phase {
        case .starting(var s) where s.mode == .ptt && s.origin == origin:
            s.controllerGone = true
            phase = .starting(s)
        case .capturing(var c) where c.mode == .ptt && c.origin == origin && !c.controllerGone:
            c.controllerGone = true
            if c.speaking {
                phase = .capturing(c)
                out.append(.awaitPause(captureId: c.captureId))
            } else {
                finalize(c, waiters: [], &out)
            }
        default:
            break
        }
    }

    private mutating func transcribed(_ id: String, _ transcript: String?, _ out: inout [Action]) {
        guard case .finalizing(var f) = phase, f.captureId == id, f.delivering == nil else { return }
        let text = transcript?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if text.isEmpty {
            complete(f, .result(id, nil, .empty), &out)
        } else {
            f.delivering = text
            phase = .finalizing(f)
            out.append(.deliver(captureId: id, transcript: text))
        }
    }

    private mutating func finalizeFailed(_ id: String, _ failure: PTTFailure, _ out: inout [Action]) {
        guard case .finalizing(let f) = phase, f.captureId == id, f.delivering == nil else { return }
        complete(f, .failed(failure), &out)
    }

    private mutating func delivered(_ id: String, _ status: TalkPTTStatus, _ out: inout [Action]) {
        guard case .finalizing(let f) = phase, f.captureId == id, let text = f.delivering else { return }
        complete(f, .result(id, text, status), &out)
    }

    private mutating func shutdown(_ out: inout [Action]) {
        closed = true
        switch phase {
        case .idle:
            break
        case .starting(let s):
            abortStart(s, canceller: nil, &out)
        case .capturing(let c):
            discard(c, canceller: nil, &out)
        case .finalizing(let f):
            for waiter in f.waiters { out.append(.respond(waiter, .result(f.captureId, nil, .cancelled))) }
            for queued in f.queued {
                out.append(.respond(queued.request, cancelledBeforeStart(queued.command)))
            }
            out.append(.discard(captureId: f.captureId))
            release(&out)
        }
    }

    // MARK: - Steps

    private mutating func begin(
        _ mode: Mode, _ origin: Origin, startWaiters: [RequestID], onceWaiter: RequestID?, acquire: Bool,
        _ out: inout [Action]
    ) {
        let id = freshID()
        ended = nil
        if acquire { out += [.stopSpeech, .claimMicrophone] }
        out.append(.beginCapture(captureId: id, mode: mode))
        phase = .starting(
            Starting(
                captureId: id, mode: mode, origin: origin, startWaiters: startWaiters, onceWaiter: onceWaiter,
                stopWaiters: []))
    }

    /// `cancel` (or an abandoned request) while starting: start fails `PTT_CANCELLED`, everyone
    /// else gets `cancelled`.
    private mutating func abortStart(_ s: Starting, canceller: RequestID?, _ out: inout [Action]) {
        for waiter in s.startWaiters { out.append(.respond(waiter, .failed(.startCancelled))) }
        let cancelled = PTTResponse.result(s.captureId, nil, .cancelled)
        for waiter in [s.onceWaiter].compactMap({ $0 }) + s.stopWaiters + [canceller].compactMap({ $0 }) {
            out.append(.respond(waiter, cancelled))
        }
        out.append(.discard(captureId: s.captureId))
        release(&out)
    }

    private mutating func discard(_ c: Capturing, canceller: RequestID?, _ out: inout [Action]) {
        let cancelled = PTTResponse.result(c.captureId, nil, .cancelled)
        for waiter in [c.onceWaiter, canceller].compactMap({ $0 }) { out.append(.respond(waiter, cancelled)) }
        out.append(.discard(captureId: c.captureId))
        release(&out)
    }

    private mutating func finalize(_ c: Capturing, waiters: [RequestID], _ out: inout [Action]) {
        out.append(.finalize(captureId: c.captureId))
        phase = .finalizing(
            Finalizing(
                captureId: c.captureId, origin: c.origin, waiters: waiters, delivering: nil, queued: [],
                controllerGone: c.controllerGone))
    }

    /// Answers the waiters, releases the microphone and runs the queued commands as in `idle`.
    private mutating func complete(_ f: Finalizing, _ response: PTTResponse, _ out: inout [Action]) {
        for waiter in f.waiters { out.append(.respond(waiter, response)) }
        if f.controllerGone { ended = Ended(captureId: f.captureId, response: response) }
        release(&out)
        for queued in f.queued { command(queued.command, queued.request, queued.origin, &out) }
    }

    private mutating func release(_ out: inout [Action]) {
        out.append(.releaseMicrophone)
        phase = .idle
    }

    private mutating func freshID() -> String {
        sequence += 1
        return makeCaptureID(sequence)
    }

    /// A queued `start` fails `PTT_CANCELLED`; a queued `once` is `cancelled` with a fresh id.
    private mutating func cancelledBeforeStart(_ command: Command) -> PTTResponse {
        command == .start ? .failed(.startCancelled) : .result(freshID(), nil, .cancelled)
    }
}
