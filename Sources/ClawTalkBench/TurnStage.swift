import ClawTalkAudio
import ClawTalkDevices
import ClawTalkProtocol
import ClawTalkTesting
import Foundation

/// The turn bench's running service: ``SoakBench``'s rig (private sound server, loopback
/// devices, TLS test gateway answering every `chat.send` with a short reply, `clawtalk run`),
/// the user's voice into `ct_mic`, the node's log, and what reached the gateway with its
/// arrival instant.
struct TurnStage {
    /// The running service and its gateway.
    let rig: SoakBench.Rig
    /// The set-up that started it (its connection helpers).
    let soak: SoakBench
    /// The user's voice into `ct_mic`.
    let harness: PlaybackController
    /// The node's log, read for its Talk phases.
    let log: BargeInLog

    /// A transcript as the gateway received it: `chat.send` or `agent` on the operator
    /// connection, or the `voice.transcript` node event.
    struct Delivery: Sendable, Equatable {
        /// The transcript.
        var text: String
        /// `chat.send`, `agent` or `voice.transcript`.
        var route: String
        /// When the gateway received it.
        var at: ContinuousClock.Instant
    }

    /// Where the gateway's event list stands now (pass it to ``deliveries(since:)``).
    func mark() async -> Int {
        await rig.gateway.observedEvents.count
    }

    /// The transcripts that arrived since `mark`, in order.
    func deliveries(since mark: Int) async -> [Delivery] {
        await rig.gateway.timedEvents(from: mark).compactMap { timed -> Delivery? in
            switch timed.event {
            case .operatorCall(_, let method, let params) where method == "chat.send" || method == "agent":
                params?["message"]?.stringValue.map { Delivery(text: $0, route: method, at: timed.at) }
            case .nodeEvent(_, "voice.transcript", let payload):
                payload?["text"]?.stringValue.map { Delivery(text: $0, route: "voice.transcript", at: timed.at) }
            default:
                nil
            }
        }
    }

    /// The first transcript after `mark`, waiting up to `seconds`.
    func firstDelivery(since mark: Int, seconds: Double = 20) async -> Delivery? {
        var found: Delivery?
        _ = await BenchTool.wait(seconds: seconds, every: .milliseconds(20)) {
            found = await deliveries(since: mark).first
            return found != nil
        }
        return found
    }

    /// Plays `samples` into the microphone and returns the instant the last sample above
    /// −40 dBFS entered the sink (the playback's start as the sound server reported it, plus
    /// that sample's offset); nil when it did not play.
    func play(_ samples: [Int16]) async -> ContinuousClock.Instant? {
        guard let bounds = LoopbackBench.speechBounds(samples) else { return nil }
        let outcome = await harness.play(.pcm(PCMBuffer(format: .speech, samples: samples), kind: .speech))
        return outcome.timing?.startedAt.map { $0 + BenchClock.duration(samples: bounds.end) }
    }

    /// Invokes `command` on the node (`{}` params) and returns its outcome.
    func invoke(_ command: String, timeoutMs: Int) async throws -> TestInvokeOutcome {
        let nodeId = try await soak.nodeId(rig)
        return await rig.gateway.invoke(nodeId: nodeId, command: command, params: .json("{}"), timeoutMs: timeoutMs)
    }

    /// How many push-to-talk captures the node has opened (`ptt.capture.open`, for `start` and `once`).
    var captures: Int { rig.count("ptt.capture.open") }

    /// Waits (≤ 5 s) for the node to open a capture after `count` of them.
    func waitCaptureStarted(after count: Int) async -> Bool {
        await BenchTool.wait(seconds: 5, every: .milliseconds(10)) { captures > count }
    }

    /// After a delivery: waits (≤ `seconds`) for the reply to be spoken (`tts.spoken` past
    /// `spoken`), then 0.8 s, so that the next probe starts on a quiet node.
    func settle(spoken: Int, seconds: Double = 8) async throws {
        _ = await BenchTool.wait(seconds: seconds, every: .milliseconds(100)) { rig.count("tts.spoken") > spoken }
        try await Task.sleep(for: .milliseconds(800))
    }

    /// The `status` of a `talk.ptt.*` result (`empty`, `ok`, …), or the outcome itself.
    static func status(_ outcome: TestInvokeOutcome) -> String {
        guard case .ok(let json, let payload) = outcome else { return "\(outcome)" }
        let object = payload ?? json.flatMap { try? WireJSON(parsing: Array($0.utf8)) }
        return object?["status"]?.stringValue ?? "ok"
    }

    /// `/proc/loadavg`'s 1-, 5- and 15-minute figures.
    static func load() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "? ? ?"
        return text.split(separator: " ").prefix(3).joined(separator: "/")
    }
}
