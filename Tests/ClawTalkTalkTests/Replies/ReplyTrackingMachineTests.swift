import ClawTalkProtocol
import Testing

@testable import ClawTalkTalk

/// The reply-tracking rules of talk.md §4, step by step, with no gateway or clock.
@Suite("Reply tracking machine")
struct ReplyTrackingMachineTests {
    typealias Machine = ReplyTrackingMachine

    static func chat(
        _ state: String, _ text: String, run: String = "run-1", session: String = "main", seq: Int? = nil,
        viaNode: Bool = false
    ) -> BacklogEvent {
        .chat(
            ChatEvent(
                runId: run, sessionKey: session, seq: seq, state: state,
                message: ChatMessage(role: "assistant", content: [ChatContentPart(type: "text", text: text)])),
            viaNode: viaNode)
    }

    static func published(_ actions: [Machine.Action]) -> [ReplyUpdate] {
        actions.compactMap {
            if case .publish(let update) = $0 { return update }
            return nil
        }
    }

    static func began(adopt: Bool) -> (Machine, Int) {
        var machine = Machine(softLimit: 72)
        let (id, actions) = machine.begin(
            sessionKey: "main", prompt: "hello", sentAtMs: 1000, adoptFirstRun: adopt, incremental: true)
        #expect(actions.first == .startTimers(turn: id))
        return (machine, id)
    }

    @Test func eventsBeforeTheRunIsBoundAreKeptAndReplayedInOrder() {
        var (machine, id) = Self.began(adopt: false)
        #expect(machine.receive(Self.chat("delta", "Hello there. How", seq: 1)).isEmpty)
        #expect(machine.receive(Self.chat("delta", "Other run.", run: "run-2", seq: 1)).isEmpty)
        #expect(machine.backlog.count == 2)
        let actions = machine.bind(turn: id, runId: "run-1", status: "accepted")
        #expect(actions.first == .log(.bound(turn: id, runId: "run-1")))
        #expect(Self.published(actions) == [.segment(turn: id, index: 0, text: "Hello there.", directive: nil)])
        #expect(machine.backlog.isEmpty, "the other run's event is dropped with the replay")
        #expect(!actions.contains(.pollHistory(turn: id, force: true)), "not a terminal status")
    }

    @Test func aTerminalStatusReadsHistoryAtOnceAndHistoryEndsTheTurn() {
        var (machine, id) = Self.began(adopt: false)
        #expect(machine.bind(turn: id, runId: "run-1", status: "OK").last == .pollHistory(turn: id, force: true))
        #expect(
            machine.historyQuery(turn: id, force: true) == .init(sessionKey: "main", prompt: "hello", sentAtMs: 1000))
        let actions = machine.historyFound(turn: id, text: "From history.")
        #expect(actions.first == .stopTimers(turn: id))
        #expect(
            Self.published(actions) == [
                .segment(turn: id, index: 0, text: "From history.", directive: nil),
                .finished(turn: id, text: "From history.", directive: nil),
            ])
        #expect(machine.turn == nil)
        #expect(machine.historyQuery(turn: id, force: true) == nil, "an ended turn reads no history")
    }

    @Test func theHistoryFallbackStopsOnceAnEventOfTheRunArrived() {
        var (machine, id) = Self.began(adopt: false)
        _ = machine.bind(turn: id, runId: "run-1", status: nil)
        #expect(machine.historyQuery(turn: id, force: false) != nil)
        _ = machine.receive(Self.chat("delta", "Thinking", seq: 1))
        #expect(machine.historyQuery(turn: id, force: false) == nil)
        #expect(machine.historyQuery(turn: id, force: true) != nil, "a forced read goes on")
    }

    @Test func nodeOnlyAdoptsTheFirstRunOnItsSessionAndEachEventCountsOnce() {
        var (machine, id) = Self.began(adopt: true)
        #expect(machine.receive(Self.chat("delta", "Elsewhere.", run: "run-x", session: "other", seq: 1)).isEmpty)
        let adopted = machine.receive(Self.chat("delta", "Yes. And", run: "run-1", session: "agent:main:main", seq: 1))
        #expect(adopted.first == .log(.adopted(turn: id, runId: "run-1", sessionKey: "agent:main:main")))
        #expect(Self.published(adopted) == [.segment(turn: id, index: 0, text: "Yes.", directive: nil)])
        // The same event again, through the other connection: nothing new.
        #expect(machine.receive(Self.chat("delta", "Yes. And", run: "run-1", seq: 1, viaNode: true)).isEmpty)
        let final = machine.receive(Self.chat("final", "Yes. And no.", run: "run-1", seq: 2))
        #expect(
            Self.published(final) == [
                .segment(turn: id, index: 1, text: "And no.", directive: nil),
                .finished(turn: id, text: "Yes. And no.", directive: nil),
            ])
    }

    @Test func aTimedOutSendSwitchesToAdoptionAndLooksAtTheKeptEvents() {
        var (machine, id) = Self.began(adopt: false)
        _ = machine.receive(Self.chat("final", "Done.", seq: 1))
        let actions = machine.adoptFirstRun(turn: id)
        #expect(Self.published(actions).last == .finished(turn: id, text: "Done.", directive: nil))
    }

    @Test func eachTurnEndsExactlyOnce() {
        var (machine, first) = Self.began(adopt: false)
        let (second, superseding) = machine.begin(
            sessionKey: "main", prompt: "again", sentAtMs: 2000, adoptFirstRun: false, incremental: true)
        #expect(Self.published(superseding) == [.failed(turn: first, reason: .superseded)])
        #expect(superseding.contains(.stopTimers(turn: first)))
        #expect(machine.expire(turn: first).isEmpty, "an ended turn's deadline does nothing")
        _ = machine.bind(turn: second, runId: "run-2", status: nil)
        #expect(
            Self.published(machine.receive(Self.chat("aborted", "", run: "run-2"))) == [
                .failed(turn: second, reason: .aborted)
            ])
        #expect(machine.cancel(turn: nil).isEmpty)
        #expect(machine.receive(Self.chat("final", "Late.", run: "run-2")).isEmpty)
    }

    @Test func theBacklogKeepsTheNewestEvents() {
        var (machine, _) = Self.began(adopt: false)
        for index in 0..<(Machine.backlogLimit + 10) {
            _ = machine.receive(Self.chat("delta", "x", run: "run-\(index)"))
        }
        #expect(machine.backlog.count == Machine.backlogLimit)
        #expect(machine.backlog.first?.runId == "run-10")
    }
}
