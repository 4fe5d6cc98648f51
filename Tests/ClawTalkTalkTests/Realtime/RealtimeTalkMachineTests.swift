import ClawTalkProtocol
import Testing

@testable import ClawTalkTalk

/// Decisions of realtime Talk over the relay (talk.md §9.2), table-driven: each case is a script
/// of events and the actions the last one must produce.
struct RealtimeTalkMachineTests {
    typealias Event = RealtimeTalkMachine.Event
    typealias Action = RealtimeTalkMachine.Action

    /// A live session with `turn` playing `chunks` chunks (sequences 0…).
    static func live(turn: String? = nil, chunks: Int = 0) -> [Event] {
        [.start(now: 0), .created(sessionId: "s"), .ready(now: 1)]
            + (turn.map { turn in (0..<chunks).map { _ in Event.audio(turnId: turn, count: 480) } } ?? [])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var script: [Event]
        var last: Event
        var expected: [Action]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "start creates", script: [], last: .start(now: 0), expected: [.create]),
        Case(
            name: "ready starts the microphone", script: [.start(now: 0), .created(sessionId: "s")],
            last: .ready(now: 1), expected: [.startMicrophone]),
        Case(
            name: "ready before create answer is ignored", script: [.start(now: 0)], last: .ready(now: 1), expected: []),
        Case(
            name: "audio is queued", script: live(), last: .audio(turnId: "t1", count: 480),
            expected: [.play(sequence: 0)]),
        Case(
            name: "the 33rd chunk drops the oldest, logged once", script: live(turn: "t1", chunks: 32),
            last: .audio(turnId: "t1", count: 480),
            expected: [.play(sequence: 32), .dropOldest(sequence: 0, log: true)]),
        Case(
            name: "the 34th drops again without a log", script: live(turn: "t1", chunks: 33),
            last: .audio(turnId: "t1", count: 480),
            expected: [.play(sequence: 33), .dropOldest(sequence: 1, log: false)]),
        Case(
            name: "a mark waits for queued audio", script: live(turn: "t1", chunks: 2),
            last: .mark(name: "m", turnId: "t1"), expected: []),
        Case(
            name: "a mark is acknowledged when its audio played",
            script: live(turn: "t1", chunks: 2) + [
                .mark(name: "m", turnId: "t1"), .audio(turnId: "t1", count: 480), .played(sequence: 0),
            ],
            last: .played(sequence: 1), expected: [.acknowledgeMark("m")]),
        Case(
            name: "a mark with nothing queued is acknowledged at once",
            script: live(turn: "t1", chunks: 1) + [.played(sequence: 0)],
            last: .mark(name: "m", turnId: "t1"), expected: [.acknowledgeMark("m")]),
        Case(
            name: "a mark of an unknown turn is bad input", script: live(turn: "t1", chunks: 1),
            last: .mark(name: "m", turnId: "t9"),
            expected: [.logBadInput(.unknownMark(name: "m", turnId: "t9"))]),
        Case(
            name: "audioDone of an unknown turn is bad input", script: live(),
            last: .audioDone(turnId: "t9"), expected: [.logBadInput(.unknownTurn("t9"))]),
        Case(
            name: "bad input of a kind is logged once",
            script: live() + [.badInput(.malformedBase64(type: "audio"))],
            last: .badInput(.malformedBase64(type: "audio")), expected: []),
        Case(
            name: "an onset during output stops it and cancels the turn", script: live(turn: "t1", chunks: 3),
            last: .onset, expected: [.stopOutput, .cancelOutput(turnId: "t1")]),
        Case(name: "an onset with no output does nothing", script: live(), last: .onset, expected: []),
        Case(
            name: "audio of a cancelled turn is dropped", script: live(turn: "t1", chunks: 3) + [.onset],
            last: .audio(turnId: "t1", count: 480), expected: []),
        Case(
            name: "a mark of a cancelled turn is not acknowledged", script: live(turn: "t1", chunks: 3) + [.onset],
            last: .mark(name: "m", turnId: "t1"), expected: []),
        Case(
            name: "a new turn replaces the old one's audio", script: live(turn: "t1", chunks: 2),
            last: .audio(turnId: "t2", count: 480), expected: [.stopOutput, .play(sequence: 2)]),
        Case(name: "clear stops output", script: live(turn: "t1", chunks: 2), last: .clear, expected: [.stopOutput]),
        Case(
            name: "a replacement ends the reply and keeps Talk", script: live(turn: "t1", chunks: 2),
            last: .replaced, expected: [.stopOutput]),
        Case(
            name: "a new ready while live ends the reply", script: live(turn: "t1", chunks: 2),
            last: .ready(now: 5), expected: [.stopOutput]),
        Case(
            name: "the first failure retries after 0.5 s", script: live(), last: .failure("x", now: 2),
            expected: [.closeSession, .scheduleRetry(seconds: 0.5)]),
        Case(
            name: "the second after 2 s",
            script: live() + [.failure("x", now: 2), .retryDue],
            last: .failure("x", now: 3), expected: [.closeSession, .scheduleRetry(seconds: 2)]),
        Case(
            name: "the third falls back",
            script: live() + [.failure("x", now: 2), .retryDue, .failure("x", now: 3), .retryDue],
            last: .failure("x", now: 6),
            expected: [.closeSession, .fallBack(notice: RealtimeTalkMachine.fallbackNotice)]),
        Case(
            name: "a session up for 30 s resets the count",
            script: live() + [.failure("x", now: 2), .retryDue, .created(sessionId: "s2"), .ready(now: 3)],
            last: .failure("x", now: 40), expected: [.closeSession, .scheduleRetry(seconds: 0.5)]),
        Case(
            name: "exit stops output and closes", script: live(turn: "t1", chunks: 1), last: .exit,
            expected: [.stopOutput, .closeSession]),
        Case(
            name: "exit while retrying has no session to close", script: live() + [.failure("x", now: 2)],
            last: .exit, expected: []),
        Case(
            name: "a paused reply queues past 32 chunks without dropping",
            script: live(turn: "t1", chunks: 32) + [.paused(true)],
            last: .audio(turnId: "t1", count: 480), expected: [.play(sequence: 32)]),
        Case(
            name: "a paused reply drops past 32 + 50 chunks",
            script: live(turn: "t1", chunks: 32) + [.paused(true)] + live(turn: "t1", chunks: 50).dropFirst(3),
            last: .audio(turnId: "t1", count: 480),
            expected: [.play(sequence: 82), .dropOldest(sequence: 0, log: true)]),
        Case(
            name: "after the pause the extra queue stays while it lasts",
            script: live(turn: "t1", chunks: 32) + [.paused(true)] + live(turn: "t1", chunks: 10).dropFirst(3)
                + [.paused(false), .played(sequence: 0)],
            last: .audio(turnId: "t1", count: 480), expected: [.play(sequence: 42)]),
        Case(
            name: "a pause with no reply playing does nothing", script: live(), last: .paused(true), expected: []),
        Case(
            name: "played of a dropped chunk is ignored", script: live(turn: "t1", chunks: 1) + [.clear],
            last: .played(sequence: 0), expected: []),
    ]

    @Test(arguments: cases)
    func decides(_ test: Case) {
        var machine = RealtimeTalkMachine()
        for event in test.script { _ = machine.handle(event) }
        #expect(machine.handle(test.last) == test.expected)
    }

    @Test func aReplyEndsWhenItsAudioIsDoneAndPlayed() {
        var machine = RealtimeTalkMachine()
        for event in Self.live(turn: "t1", chunks: 1) { _ = machine.handle(event) }
        _ = machine.handle(.played(sequence: 0))
        #expect(machine.isOutputActive)
        _ = machine.handle(.audioDone(turnId: "t1"))
        #expect(!machine.isOutputActive)
        #expect(machine.handle(.onset) == [])
        for event: Event in [.audio(turnId: "t2", count: 480), .audioDone(turnId: "t2")] { _ = machine.handle(event) }
        #expect(machine.isOutputActive)
        _ = machine.handle(.played(sequence: 1))
        #expect(!machine.isOutputActive)
    }

    @Test func fallbackIsFinalUntilStartedAgain() {
        var machine = RealtimeTalkMachine()
        for event in Self.live() + [.failure("x", now: 2), .retryDue, .failure("x", now: 3), .retryDue] {
            _ = machine.handle(event)
        }
        _ = machine.handle(.failure("x", now: 4))
        #expect(machine.phase == .fallenBack)
        #expect(machine.handle(.retryDue) == [])
        #expect(machine.handle(.audio(turnId: "t", count: 480)) == [])
        #expect(machine.handle(.start(now: 10)) == [.create])
        #expect(machine.failures == 0)
    }

    @Test func markAfterAllOfItsAudioIsAcknowledgedOnlyOnce() {
        var machine = RealtimeTalkMachine()
        for event in Self.live(turn: "t1", chunks: 2) { _ = machine.handle(event) }
        #expect(machine.handle(.mark(name: "m1", turnId: "t1")) == [])
        #expect(machine.handle(.audio(turnId: "t1", count: 480)) == [.play(sequence: 2)])
        #expect(machine.handle(.mark(name: "m2", turnId: "t1")) == [])
        #expect(machine.handle(.played(sequence: 0)) == [])
        #expect(machine.handle(.played(sequence: 1)) == [.acknowledgeMark("m1")])
        #expect(machine.handle(.played(sequence: 2)) == [.acknowledgeMark("m2")])
        #expect(machine.handle(.played(sequence: 2)) == [])
        // The queue ran dry: the reply plays on until its audioDone.
        #expect(machine.isOutputActive)
        #expect(machine.handle(.onset) == [.stopOutput, .cancelOutput(turnId: "t1")])
        #expect(!machine.isOutputActive)
    }

    @Test func theExtraQueueLastsUntilTheQueueIsBackWithinTheLimit() {
        var machine = RealtimeTalkMachine()
        for event in Self.live(turn: "t1", chunks: 40) { _ = machine.handle(event) }
        // 8 over the limit were dropped before the pause.
        #expect(machine.queued.count == 32)
        _ = machine.handle(.paused(true))
        for _ in 0..<20 { _ = machine.handle(.audio(turnId: "t1", count: 480)) }
        #expect(machine.queued.count == 52)
        #expect(machine.queueBound == 82)
        _ = machine.handle(.paused(false))
        #expect(machine.queueBound == 82)
        for sequence in 8..<18 { _ = machine.handle(.played(sequence: sequence)) }
        #expect(machine.queueBound == 82)
        // Played down to the limit: the plain bound again.
        for sequence in 18..<28 { _ = machine.handle(.played(sequence: sequence)) }
        #expect(machine.queueBound == 32)
        for sequence in 28..<40 { _ = machine.handle(.played(sequence: sequence)) }
        #expect(machine.queueBound == 32)
        _ = machine.handle(.paused(true))
        _ = machine.handle(.onset)
        #expect(!machine.isPaused)
        #expect(machine.queueBound == 32)
    }
}
