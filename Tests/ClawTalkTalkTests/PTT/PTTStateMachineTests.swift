import ClawTalkProtocol
import Testing

@testable import ClawTalkTalk

/// Every cell of talk.md §2.5 plus the events around it, as scripts: each step applies
/// one event and states the exact actions and the state after it.
@Suite("PTT state machine")
struct PTTStateMachineTests {
    typealias Machine = PTTStateMachine
    typealias Action = Machine.Action
    typealias Event = Machine.Event

    /// One event with the actions it must produce and the state it must leave.
    struct Step: Sendable, CustomStringConvertible {
        let event: Event
        let actions: [Action]
        let state: Machine.State
        var description: String { "\(event)" }
    }

    /// A named script.
    struct Script: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]
        var testDescription: String { name }
    }

    // MARK: - Vocabulary

    static let acquire: [Action] = [.stopSpeech, .claimMicrophone]
    static let release: [Action] = [.releaseMicrophone]

    static func step(_ event: Event, _ actions: [Action], _ state: Machine.State) -> Step {
        Step(event: event, actions: actions, state: state)
    }

    static func cmd(_ command: Machine.Command, _ request: Int) -> Event { .command(command, request) }

    static func result(_ request: Int, _ captureId: String, _ transcript: String?, _ status: TalkPTTStatus)
        -> Action
    {
        .respond(request, .finished(TalkPTTResult(captureId: captureId, transcript: transcript, status: status)))
    }

    static func started(_ request: Int, _ captureId: String) -> Action {
        .respond(request, .started(captureId: captureId))
    }

    static func failed(_ request: Int, _ failure: PTTFailure) -> Action { .respond(request, .failed(failure)) }

    static let idle = Machine.State.idle
    static func starting(_ id: String, _ mode: Machine.Mode) -> Machine.State { .starting(captureId: id, mode: mode) }
    static func capturing(_ id: String, _ mode: Machine.Mode) -> Machine.State { .capturing(captureId: id, mode: mode) }
    static func finalizing(_ id: String) -> Machine.State { .finalizing(captureId: id) }

    // MARK: - Setups (request 1 opens capture c1)

    static let startingPTT = [
        step(cmd(.start, 1), acquire + [.beginCapture(captureId: "c1", mode: .ptt)], starting("c1", .ptt))
    ]
    static let startingOnce = [
        step(cmd(.once, 1), acquire + [.beginCapture(captureId: "c1", mode: .once)], starting("c1", .once))
    ]
    static let capturingPTT =
        startingPTT + [step(.captureBegan(captureId: "c1"), [started(1, "c1")], capturing("c1", .ptt))]
    static let capturingOnce = startingOnce + [step(.captureBegan(captureId: "c1"), [], capturing("c1", .once))]
    /// PTT stopped by request 2: finalizing c1 with request 2 waiting.
    static let finalizingPTT = capturingPTT + [step(cmd(.stop, 2), [.finalize(captureId: "c1")], finalizing("c1"))]
    /// Transcribed "hello" and delivered `queued`.
    static func deliverHello(then actions: [Action], _ state: Machine.State = .idle) -> [Step] {
        [
            step(
                .finalResult(captureId: "c1", transcript: "  hello \n"),
                [.deliver(captureId: "c1", transcript: "hello")], finalizing("c1")),
            step(.delivered(captureId: "c1", status: .queued), actions, state),
        ]
    }

    // MARK: - The talk.md §2.5 table

    static let table: [Script] = [
        // idle
        Script(
            name: "idle start: begin capture, respond with the id once open",
            steps: startingPTT + [
                step(.captureBegan(captureId: "c1"), [started(1, "c1")], capturing("c1", .ptt))
            ]),
        Script(
            name: "idle stop: fresh id, null, idle",
            steps: [
                step(cmd(.stop, 10), [result(10, "c1", nil, .idle)], idle)
            ]),
        Script(
            name: "idle cancel: fresh id, null, idle",
            steps: [
                step(cmd(.cancel, 10), [result(10, "c1", nil, .idle)], idle)
            ]),
        Script(name: "idle once: begin capture with auto-stop", steps: startingOnce),

        // starting
        Script(
            name: "starting start: waits and returns the in-flight id",
            steps: startingPTT + [
                step(cmd(.start, 10), [], starting("c1", .ptt)),
                step(.captureBegan(captureId: "c1"), [started(1, "c1"), started(10, "c1")], capturing("c1", .ptt)),
            ]),
        Script(
            name: "starting(once) start: waits and returns the once's id",
            steps: startingOnce + [
                step(cmd(.start, 10), [], starting("c1", .once)),
                step(.captureBegan(captureId: "c1"), [started(10, "c1")], capturing("c1", .once)),
            ]),
        Script(
            name: "starting stop: waits for the start, then stops",
            steps: startingPTT + [
                step(cmd(.stop, 10), [], starting("c1", .ptt)),
                step(.captureBegan(captureId: "c1"), [started(1, "c1"), .finalize(captureId: "c1")], finalizing("c1")),
                step(
                    .finalResult(captureId: "c1", transcript: "hi"), [.deliver(captureId: "c1", transcript: "hi")],
                    finalizing("c1")),
                step(.delivered(captureId: "c1", status: .queued), [result(10, "c1", "hi", .queued)] + release, idle),
            ]),
        Script(
            name: "starting(once) stop: the once gets the same result",
            steps: startingOnce + [
                step(cmd(.stop, 10), [], starting("c1", .once)),
                step(.captureBegan(captureId: "c1"), [.finalize(captureId: "c1")], finalizing("c1")),
                step(
                    .finalResult(captureId: "c1", transcript: nil),
                    [result(1, "c1", nil, .empty), result(10, "c1", nil, .empty)] + release, idle),
            ]),
        Script(
            name: "starting cancel: start fails PTT_CANCELLED, cancel returns cancelled",
            steps: startingPTT + [
                step(
                    cmd(.cancel, 10),
                    [failed(1, .startCancelled), result(10, "c1", nil, .cancelled), .discard(captureId: "c1")]
                        + release, idle),
                step(.captureBegan(captureId: "c1"), [.discard(captureId: "c1")], idle),
            ]),
        Script(
            name: "starting(once) cancel: once and cancel both cancelled",
            steps: startingOnce + [
                step(
                    cmd(.cancel, 10),
                    [result(1, "c1", nil, .cancelled), result(10, "c1", nil, .cancelled), .discard(captureId: "c1")]
                        + release, idle)
            ]),
        Script(
            name: "starting once: busy with a fresh id",
            steps: startingPTT + [
                step(cmd(.once, 10), [result(10, "c2", nil, .busy)], starting("c1", .ptt))
            ]),
        Script(
            name: "starting(once) once: busy with a fresh id",
            steps: startingOnce + [
                step(cmd(.once, 10), [result(10, "c2", nil, .busy)], starting("c1", .once))
            ]),

        // capturing(ptt)
        Script(
            name: "capturing(ptt) start: the same id (idempotent)",
            steps: capturingPTT + [
                step(cmd(.start, 10), [started(10, "c1")], capturing("c1", .ptt)),
                step(cmd(.start, 11), [started(11, "c1")], capturing("c1", .ptt)),
            ]),
        Script(
            name: "capturing(ptt) stop: finalize → queued with the transcript",
            steps: capturingPTT + [
                step(cmd(.stop, 10), [.finalize(captureId: "c1")], finalizing("c1"))
            ] + deliverHello(then: [result(10, "c1", "hello", .queued)] + release)),
        Script(
            name: "capturing(ptt) cancel: discard → cancelled",
            steps: capturingPTT + [
                step(cmd(.cancel, 10), [result(10, "c1", nil, .cancelled), .discard(captureId: "c1")] + release, idle)
            ]),
        Script(
            name: "capturing(ptt) once: busy with a fresh id, capture continues",
            steps: capturingPTT + [
                step(cmd(.once, 10), [result(10, "c2", nil, .busy)], capturing("c1", .ptt))
            ]),

        // capturing(once)
        Script(
            name: "capturing(once) start: the same id",
            steps: capturingOnce + [
                step(cmd(.start, 10), [started(10, "c1")], capturing("c1", .once))
            ]),
        Script(
            name: "capturing(once) stop: finalize; the once completes with the same result",
            steps: capturingOnce + [
                step(cmd(.stop, 10), [.finalize(captureId: "c1")], finalizing("c1"))
            ] + deliverHello(then: [result(1, "c1", "hello", .queued), result(10, "c1", "hello", .queued)] + release)),
        Script(
            name: "capturing(once) cancel: once and cancel both cancelled",
            steps: capturingOnce + [
                step(
                    cmd(.cancel, 10),
                    [result(1, "c1", nil, .cancelled), result(10, "c1", nil, .cancelled), .discard(captureId: "c1")]
                        + release, idle)
            ]),
        Script(
            name: "capturing(once) once: the previous once is cancelled, a new one starts",
            steps: capturingOnce + [
                step(
                    cmd(.once, 10),
                    [
                        result(1, "c1", nil, .cancelled), .discard(captureId: "c1"),
                        .beginCapture(captureId: "c2", mode: .once),
                    ], starting("c2", .once)),
                step(.captureBegan(captureId: "c2"), [], capturing("c2", .once)),
                step(.silenceElapsed(captureId: "c2"), [.finalize(captureId: "c2")], finalizing("c2")),
                step(.finalResult(captureId: "c2", transcript: ""), [result(10, "c2", nil, .empty)] + release, idle),
            ]),

        // finalizing
        Script(
            name: "finalizing stop: waits and gets the result being finalized",
            steps: finalizingPTT + [
                step(cmd(.stop, 10), [], finalizing("c1"))
            ] + deliverHello(then: [result(2, "c1", "hello", .queued), result(10, "c1", "hello", .queued)] + release)),
        Script(
            name: "finalizing cancel: waits and gets the result being finalized",
            steps: finalizingPTT + [
                step(cmd(.cancel, 10), [], finalizing("c1"))
            ] + deliverHello(then: [result(2, "c1", "hello", .queued), result(10, "c1", "hello", .queued)] + release)),
        Script(
            name: "finalizing start: waits, then acts as in idle",
            steps: finalizingPTT + [
                step(cmd(.start, 10), [], finalizing("c1"))
            ]
                + deliverHello(
                    then: [result(2, "c1", "hello", .queued)] + release + acquire + [
                        .beginCapture(captureId: "c2", mode: .ptt)
                    ], starting("c2", .ptt)) + [
                    step(.captureBegan(captureId: "c2"), [started(10, "c2")], capturing("c2", .ptt))
                ]),
        Script(
            name: "finalizing once: waits, then acts as in idle",
            steps: finalizingPTT + [
                step(cmd(.once, 10), [], finalizing("c1")),
                step(
                    .finalResult(captureId: "c1", transcript: nil),
                    [result(2, "c1", nil, .empty)] + release + acquire + [.beginCapture(captureId: "c2", mode: .once)],
                    starting("c2", .once)),
            ]),
        Script(
            name: "finalizing start then once: the once sees the new start (busy)",
            steps: finalizingPTT + [
                step(cmd(.start, 10), [], finalizing("c1")),
                step(cmd(.once, 11), [], finalizing("c1")),
                step(
                    .finalResult(captureId: "c1", transcript: nil),
                    [result(2, "c1", nil, .empty)] + release + acquire + [
                        .beginCapture(captureId: "c2", mode: .ptt), result(11, "c3", nil, .busy),
                    ], starting("c2", .ptt)),
            ]),
    ]

    @Test(arguments: table)
    func stateTable(_ script: Script) {
        run(script)
    }

    // MARK: - Events around the table

    static let events: [Script] = [
        Script(
            name: "capture failure: start and once get the error, a waiting stop gets idle",
            steps: startingPTT + [
                step(cmd(.stop, 10), [], starting("c1", .ptt)),
                step(
                    .captureFailed(captureId: "c1", .microphoneUnavailable("no source")),
                    [failed(1, .microphoneUnavailable("no source")), result(10, "c2", nil, .idle)] + release, idle),
            ]),
        Script(
            name: "once capture failure: the once gets MIC_BUSY",
            steps: startingOnce + [
                step(
                    .captureFailed(captureId: "c1", .microphoneBusy("held")),
                    [failed(1, .microphoneBusy("held"))] + release, idle)
            ]),
        Script(
            name: "stale capture events are ignored or discarded",
            steps: capturingPTT + [
                step(.captureBegan(captureId: "zz"), [.discard(captureId: "zz")], capturing("c1", .ptt)),
                step(.captureFailed(captureId: "zz", .startCancelled), [], capturing("c1", .ptt)),
                step(.silenceElapsed(captureId: "zz"), [], capturing("c1", .ptt)),
                step(.hardCapReached(captureId: "zz"), [], capturing("c1", .ptt)),
                step(.finalResult(captureId: "c1", transcript: "x"), [], capturing("c1", .ptt)),
                step(.delivered(captureId: "c1", status: .queued), [], capturing("c1", .ptt)),
            ]),
        Script(
            name: "silence does not end a ptt capture",
            steps: capturingPTT + [
                step(.silenceElapsed(captureId: "c1"), [], capturing("c1", .ptt))
            ]),
        Script(
            name: "once ends on silence",
            steps: capturingOnce + [
                step(.silenceElapsed(captureId: "c1"), [.finalize(captureId: "c1")], finalizing("c1"))
            ] + deliverHello(then: [result(1, "c1", "hello", .queued)] + release)),
        Script(
            name: "once ends at the hard cap",
            steps: capturingOnce + [
                step(.hardCapReached(captureId: "c1"), [.finalize(captureId: "c1")], finalizing("c1")),
                step(.finalResult(captureId: "c1", transcript: "   "), [result(1, "c1", nil, .empty)] + release, idle),
            ]),
        Script(
            name: "ptt safety cap finalizes as stop; a later stop gets idle",
            steps: capturingPTT + [
                step(.hardCapReached(captureId: "c1"), [.finalize(captureId: "c1")], finalizing("c1"))
            ] + deliverHello(then: release) + [
                step(cmd(.stop, 10), [result(10, "c2", nil, .idle)], idle)
            ]),
        Script(
            name: "ptt safety cap: a stop during finalization gets the result",
            steps: capturingPTT + [
                step(.hardCapReached(captureId: "c1"), [.finalize(captureId: "c1")], finalizing("c1")),
                step(cmd(.stop, 10), [], finalizing("c1")),
            ] + deliverHello(then: [result(10, "c1", "hello", .queued)] + release)),
        Script(
            name: "a capture whose audio ends is finalized",
            steps: capturingPTT + [
                step(.captureEnded(captureId: "c1"), [.finalize(captureId: "c1")], finalizing("c1"))
            ]),
        Script(
            name: "final result timeout uses the last partial",
            steps: finalizingPTT + [
                step(
                    .finalizeTimedOut(captureId: "c1", lastPartial: "turn on"),
                    [.deliver(captureId: "c1", transcript: "turn on")], finalizing("c1")),
                step(
                    .delivered(captureId: "c1", status: .offline), [result(2, "c1", "turn on", .offline)] + release,
                    idle),
            ]),
        Script(
            name: "final result timeout without a partial is empty",
            steps: finalizingPTT + [
                step(
                    .finalizeTimedOut(captureId: "c1", lastPartial: nil), [result(2, "c1", nil, .empty)] + release, idle
                )
            ]),
        Script(
            name: "speech-to-text failure answers STT_UNAVAILABLE",
            steps: finalizingPTT + [
                step(
                    .finalizeFailed(captureId: "c1", .speechToTextUnavailable("down")),
                    [failed(2, .speechToTextUnavailable("down"))] + release, idle)
            ]),
        Script(
            name: "offline delivery answers offline with the transcript",
            steps: finalizingPTT + [
                step(
                    .finalResult(captureId: "c1", transcript: "hello"),
                    [.deliver(captureId: "c1", transcript: "hello")], finalizing("c1")),
                step(
                    .delivered(captureId: "c1", status: .offline), [result(2, "c1", "hello", .offline)] + release, idle),
            ]),

        // abandoned requests (node.invoke.cancel, invoke timeout)
        Script(
            name: "abandoned start while starting: like cancel",
            steps: startingPTT + [
                step(.abandoned(1), [failed(1, .startCancelled), .discard(captureId: "c1")] + release, idle)
            ]),
        Script(
            name: "abandoned once while capturing: cancelled",
            steps: capturingOnce + [
                step(.abandoned(1), [result(1, "c1", nil, .cancelled), .discard(captureId: "c1")] + release, idle)
            ]),
        Script(
            name: "abandoned waiting stop while starting: cancels the capture",
            steps: startingPTT + [
                step(cmd(.stop, 10), [], starting("c1", .ptt)),
                step(
                    .abandoned(10),
                    [failed(1, .startCancelled), result(10, "c1", nil, .cancelled), .discard(captureId: "c1")]
                        + release, idle),
            ]),
        Script(
            name: "abandoned answered or unknown requests change nothing",
            steps: capturingPTT + [
                step(.abandoned(1), [], capturing("c1", .ptt)),
                step(.abandoned(99), [], capturing("c1", .ptt)),
            ]),
        Script(
            name: "abandoned waiter in finalizing keeps waiting",
            steps: finalizingPTT + [
                step(.abandoned(2), [], finalizing("c1"))
            ] + deliverHello(then: [result(2, "c1", "hello", .queued)] + release)),
        Script(
            name: "abandoned queued start and once are dropped before they begin",
            steps: finalizingPTT + [
                step(cmd(.start, 10), [], finalizing("c1")),
                step(cmd(.once, 11), [], finalizing("c1")),
                step(.abandoned(10), [failed(10, .startCancelled)], finalizing("c1")),
                step(.abandoned(11), [result(11, "c2", nil, .cancelled)], finalizing("c1")),
            ] + deliverHello(then: [result(2, "c1", "hello", .queued)] + release)),

        // shutdown
        Script(
            name: "shutdown while idle: later commands begin nothing",
            steps: [
                step(.shutdown, [], idle),
                step(cmd(.start, 10), [failed(10, .startCancelled)], idle),
                step(cmd(.once, 11), [result(11, "c1", nil, .cancelled)], idle),
                step(cmd(.stop, 12), [result(12, "c2", nil, .idle)], idle),
            ]),
        Script(
            name: "shutdown while starting: start fails PTT_CANCELLED",
            steps: startingPTT + [
                step(.shutdown, [failed(1, .startCancelled), .discard(captureId: "c1")] + release, idle)
            ]),
        Script(
            name: "shutdown while capturing: the once ends cancelled",
            steps: capturingOnce + [
                step(.shutdown, [result(1, "c1", nil, .cancelled), .discard(captureId: "c1")] + release, idle)
            ]),
        Script(
            name: "shutdown while finalizing: waiters cancelled, queued dropped",
            steps: finalizingPTT + [
                step(cmd(.start, 10), [], finalizing("c1")),
                step(cmd(.once, 11), [], finalizing("c1")),
                step(
                    .shutdown,
                    [
                        result(2, "c1", nil, .cancelled), failed(10, .startCancelled),
                        result(11, "c2", nil, .cancelled), .discard(captureId: "c1"),
                    ] + release, idle),
            ]),
    ]

    @Test(arguments: events)
    func eventScripts(_ script: Script) {
        run(script)
    }

    private func run(_ script: Script) {
        var machine = Machine(makeCaptureID: { "c\($0)" })
        for (index, step) in script.steps.enumerated() {
            let actions = machine.handle(step.event)
            #expect(actions == step.actions, "step \(index): \(step.event)")
            #expect(machine.state == step.state, "step \(index): \(step.event)")
        }
    }

    @Test func defaultCaptureIDsAreFreshLowercaseUUIDv4() throws {
        var machine = Machine()
        guard case .respond(1, .finished(let idle)) = machine.handle(.command(.stop, 1)).first else {
            Issue.record("stop while idle is answered at once")
            return
        }
        guard case .beginCapture(let started, .ptt) = machine.handle(.command(.start, 2)).last else {
            Issue.record("start while idle begins a capture")
            return
        }
        for id in [idle.captureId, started] {
            #expect(id == id.lowercased())
            let parts = id.split(separator: "-")
            #expect(parts.map(\.count) == [8, 4, 4, 4, 12])
            #expect(parts.count == 5 && parts[2].first == "4", "version nibble of \(id)")
            #expect(parts.count == 5 && ["8", "9", "a", "b"].contains(parts[3].first), "variant nibble of \(id)")
        }
        #expect(idle.captureId != started)
    }
}
