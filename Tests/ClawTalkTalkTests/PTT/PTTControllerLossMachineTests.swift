import ClawTalkProtocol
import Testing

@testable import ClawTalkTalk

/// talk.md §2.7, "a capture whose controller is gone", as state-machine scripts: a `ptt`
/// capture started by the gateway over socket 1 ends when that socket closes — at once if
/// nothing is being said, else at the next pause or the loss cap — with its transcript kept in
/// the outbox (`queued`); a `stop` before that wins, one after it gets the finished result.
@Suite("PTT state machine: a capture whose controller is gone")
struct PTTControllerLossMachineTests {
    typealias Machine = PTTStateMachine
    typealias Action = Machine.Action
    typealias Event = Machine.Event
    typealias Step = PTTStateMachineTests.Step
    typealias Script = PTTStateMachineTests.Script
    typealias T = PTTStateMachineTests

    static let socket1 = Machine.Origin.gateway(connection: 1)
    static let socket2 = Machine.Origin.gateway(connection: 2)

    static func cmd(_ command: Machine.Command, _ request: Int, _ origin: Machine.Origin) -> Event {
        .command(command, request, origin: origin)
    }

    /// `start` from socket 1 (request 1), open: capturing c1.
    static let gatewayCapture = [
        T.step(
            cmd(.start, 1, socket1), T.acquire + [.beginCapture(captureId: "c1", mode: .ptt)], T.starting("c1", .ptt)),
        T.step(.captureBegan(captureId: "c1"), [T.started(1, "c1")], T.capturing("c1", .ptt)),
    ]
    /// The same, with speech going on.
    static let gatewaySpeaking =
        gatewayCapture + [T.step(.speechStarted(captureId: "c1"), [], T.capturing("c1", .ptt))]
    /// Socket 1 closes while speech goes on: waits for the pause.
    static let lostWhileSpeaking =
        gatewaySpeaking + [
            T.step(.connectionClosed(connection: 1), [.awaitPause(captureId: "c1")], T.capturing("c1", .ptt))
        ]
    /// Transcribed "hello", kept in the outbox.
    static let helloToOutbox = [
        T.step(
            .finalResult(captureId: "c1", transcript: "hello"), [.deliver(captureId: "c1", transcript: "hello")],
            T.finalizing("c1")),
        T.step(.keptInOutbox(captureId: "c1"), T.release, T.idle),
    ]

    static let scripts: [Script] = [
        Script(
            name: "loss with nothing said: ends at once; later stops answer empty",
            steps: gatewayCapture + [
                T.step(.connectionClosed(connection: 1), [.finalize(captureId: "c1")], T.finalizing("c1")),
                T.step(.finalResult(captureId: "c1", transcript: nil), T.release, T.idle),
                T.step(cmd(.stop, 2, socket2), [T.result(2, "c1", nil, .empty)], T.idle),
                T.step(cmd(.stop, 3, socket2), [T.result(3, "c1", nil, .empty)], T.idle),
            ]),
        Script(
            name: "loss after a pause: the pause is on, so it ends at once",
            steps: gatewaySpeaking + [
                T.step(.silenceElapsed(captureId: "c1"), [], T.capturing("c1", .ptt)),
                T.step(.connectionClosed(connection: 1), [.finalize(captureId: "c1")], T.finalizing("c1")),
            ] + helloToOutbox),
        Script(
            name: "loss while speaking: ends at the next pause, outbox, a later stop gets queued without a deliver",
            steps: lostWhileSpeaking + [
                T.step(.speechStarted(captureId: "c1"), [], T.capturing("c1", .ptt)),
                T.step(.silenceElapsed(captureId: "c1"), [.finalize(captureId: "c1")], T.finalizing("c1")),
            ] + helloToOutbox + [
                T.step(.lossCapReached(captureId: "c1"), [], T.idle),
                T.step(cmd(.stop, 2, socket2), [T.result(2, "c1", "hello", .queued)], T.idle),
                T.step(cmd(.cancel, 3, socket2), [T.result(3, "c1", "hello", .queued)], T.idle),
            ]),
        Script(
            name: "continuous speech: the loss cap ends it",
            steps: lostWhileSpeaking + [
                T.step(.lossCapReached(captureId: "c1"), [.finalize(captureId: "c1")], T.finalizing("c1"))
            ] + helloToOutbox + [
                T.step(cmd(.stop, 2, socket2), [T.result(2, "c1", "hello", .queued)], T.idle)
            ]),
        Script(
            name: "a stop from the gateway that is back, before the end, wins",
            steps: lostWhileSpeaking + [
                T.step(cmd(.stop, 2, socket2), [.finalize(captureId: "c1")], T.finalizing("c1")),
                T.step(
                    .finalResult(captureId: "c1", transcript: "hello"),
                    [.deliver(captureId: "c1", transcript: "hello")], T.finalizing("c1")),
                T.step(
                    .delivered(captureId: "c1", status: .queued), [T.result(2, "c1", "hello", .queued)] + T.release,
                    T.idle),
                T.step(.silenceElapsed(captureId: "c1"), [], T.idle),
                T.step(.lossCapReached(captureId: "c1"), [], T.idle),
                T.step(cmd(.stop, 3, socket2), [T.result(3, "c2", nil, .idle)], T.idle),
            ]),
        Script(
            name: "a cancel before the end wins: discarded, nothing remembered",
            steps: lostWhileSpeaking + [
                T.step(
                    cmd(.cancel, 2, socket2),
                    [T.result(2, "c1", nil, .cancelled), .discard(captureId: "c1")] + T.release, T.idle),
                T.step(cmd(.stop, 3, socket2), [T.result(3, "c2", nil, .idle)], T.idle),
            ]),
        Script(
            name: "a stop while the ended capture is finalized waits for its result",
            steps: lostWhileSpeaking + [
                T.step(.silenceElapsed(captureId: "c1"), [.finalize(captureId: "c1")], T.finalizing("c1")),
                T.step(cmd(.stop, 2, socket2), [], T.finalizing("c1")),
                T.step(
                    .finalResult(captureId: "c1", transcript: "hello"),
                    [.deliver(captureId: "c1", transcript: "hello")], T.finalizing("c1")),
                T.step(.keptInOutbox(captureId: "c1"), [T.result(2, "c1", "hello", .queued)] + T.release, T.idle),
                T.step(cmd(.stop, 3, socket2), [T.result(3, "c1", "hello", .queued)], T.idle),
            ]),
        Script(
            name: "the next capture forgets the ended result",
            steps: gatewayCapture + [
                T.step(.connectionClosed(connection: 1), [.finalize(captureId: "c1")], T.finalizing("c1")),
                T.step(.finalResult(captureId: "c1", transcript: nil), T.release, T.idle),
                T.step(
                    cmd(.start, 2, socket2), T.acquire + [.beginCapture(captureId: "c2", mode: .ptt)],
                    T.starting("c2", .ptt)),
                T.step(
                    cmd(.cancel, 3, socket2),
                    [T.failed(2, .startCancelled), T.result(3, "c2", nil, .cancelled), .discard(captureId: "c2")]
                        + T.release, T.idle),
                T.step(cmd(.stop, 4, socket2), [T.result(4, "c3", nil, .idle)], T.idle),
            ]),
        Script(
            name: "lost while the microphone opens: ends as soon as it is open",
            steps: [
                T.step(
                    cmd(.start, 1, socket1), T.acquire + [.beginCapture(captureId: "c1", mode: .ptt)],
                    T.starting("c1", .ptt)),
                T.step(.connectionClosed(connection: 1), [], T.starting("c1", .ptt)),
                T.step(
                    .captureBegan(captureId: "c1"), [T.started(1, "c1"), .finalize(captureId: "c1")],
                    T.finalizing("c1")),
            ]),
        Script(
            name: "a start from the gateway that is back takes the capture over",
            steps: lostWhileSpeaking + [
                T.step(cmd(.start, 2, socket2), [T.started(2, "c1")], T.capturing("c1", .ptt)),
                T.step(.silenceElapsed(captureId: "c1"), [], T.capturing("c1", .ptt)),
                T.step(.lossCapReached(captureId: "c1"), [], T.capturing("c1", .ptt)),
                T.step(cmd(.stop, 3, socket2), [.finalize(captureId: "c1")], T.finalizing("c1")),
            ]),
        Script(
            name: "a local capture is unaffected",
            steps: T.capturingPTT + [
                T.step(.speechStarted(captureId: "c1"), [], T.capturing("c1", .ptt)),
                T.step(.connectionClosed(connection: 1), [], T.capturing("c1", .ptt)),
                T.step(.silenceElapsed(captureId: "c1"), [], T.capturing("c1", .ptt)),
                T.step(.lossCapReached(captureId: "c1"), [], T.capturing("c1", .ptt)),
                T.step(T.cmd(.stop, 2), [.finalize(captureId: "c1")], T.finalizing("c1")),
                T.step(
                    .finalResult(captureId: "c1", transcript: "hello"),
                    [.deliver(captureId: "c1", transcript: "hello")], T.finalizing("c1")),
                T.step(.keptInOutbox(captureId: "c1"), [T.result(2, "c1", "hello", .offline)] + T.release, T.idle),
                T.step(T.cmd(.stop, 3), [T.result(3, "c2", nil, .idle)], T.idle),
            ]),
        Script(
            name: "a local start for a gateway capture makes it local",
            steps: gatewaySpeaking + [
                T.step(T.cmd(.start, 2), [T.started(2, "c1")], T.capturing("c1", .ptt)),
                T.step(.connectionClosed(connection: 1), [], T.capturing("c1", .ptt)),
            ]),
        Script(
            name: "another socket closing does not touch the capture",
            steps: gatewaySpeaking + [
                T.step(.connectionClosed(connection: 2), [], T.capturing("c1", .ptt)),
                T.step(.connectionClosed(connection: 0), [], T.capturing("c1", .ptt)),
            ]),
        Script(
            name: "a once from the gateway ends by itself as before",
            steps: [
                T.step(
                    cmd(.once, 1, socket1), T.acquire + [.beginCapture(captureId: "c1", mode: .once)],
                    T.starting("c1", .once)),
                T.step(.captureBegan(captureId: "c1"), [], T.capturing("c1", .once)),
                T.step(.speechStarted(captureId: "c1"), [], T.capturing("c1", .once)),
                T.step(.connectionClosed(connection: 1), [], T.capturing("c1", .once)),
                T.step(.silenceElapsed(captureId: "c1"), [.finalize(captureId: "c1")], T.finalizing("c1")),
                T.step(
                    .finalResult(captureId: "c1", transcript: "hello"),
                    [.deliver(captureId: "c1", transcript: "hello")], T.finalizing("c1")),
                T.step(.keptInOutbox(captureId: "c1"), [T.result(1, "c1", "hello", .queued)] + T.release, T.idle),
                T.step(cmd(.stop, 2, socket2), [T.result(2, "c2", nil, .idle)], T.idle),
            ]),
    ]

    @Test(arguments: scripts)
    func controllerLoss(_ script: Script) {
        var machine = Machine(makeCaptureID: { "c\($0)" })
        for (index, step) in script.steps.enumerated() {
            let actions = machine.handle(step.event)
            #expect(actions == step.actions, "step \(index + 1): \(step.event)")
            #expect(machine.state == step.state, "step \(index + 1): \(step.event)")
        }
    }

    @Test func theEndedCaptureIsReportedAsFinalizingWithoutController() {
        var machine = Machine(makeCaptureID: { "c\($0)" })
        for step in Self.lostWhileSpeaking { _ = machine.handle(step.event) }
        #expect(machine.finalizingWithoutController == nil)
        _ = machine.handle(.silenceElapsed(captureId: "c1"))
        #expect(machine.finalizingWithoutController == "c1")
    }
}
