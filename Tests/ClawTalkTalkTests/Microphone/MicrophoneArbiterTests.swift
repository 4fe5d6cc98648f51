import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

/// Who listens (talk.md §1): push-to-talk over Talk mode over voice wake.
struct MicrophoneArbiterTests {
    typealias Arbiter = MicrophoneArbiter

    @Test func talkModeTakesTheMicrophoneFromWakeAndGivesItBack() {
        var arbiter = Arbiter()
        #expect(arbiter.holder == .wake)
        #expect(arbiter.handle(.talkEntered) == [.suspendWake])
        #expect(arbiter.holder == .talk)
        #expect(arbiter.handle(.talkEntered) == [], "already on: nothing changes")
        #expect(arbiter.handle(.talkExited) == [.resumeWake])
        #expect(arbiter.holder == .wake)
    }

    @Test func pushToTalkPausesTalkBeforeWakeAndResumesThemTheOtherWayRound() {
        var arbiter = Arbiter()
        _ = arbiter.handle(.talkEntered)
        #expect(arbiter.handle(.pushToTalkBegan) == [.pauseTalk], "wake is suspended already (Talk has it)")
        #expect(arbiter.holder == .pushToTalk)
        #expect(arbiter.handle(.pushToTalkEnded) == [.resumeTalk])
        #expect(arbiter.holder == .talk)

        var wakeOnly = Arbiter()
        #expect(wakeOnly.handle(.pushToTalkBegan) == [.suspendWake], "Talk off: nothing to pause")
        #expect(wakeOnly.handle(.pushToTalkEnded) == [.resumeWake])
    }

    /// Talk turned off while push-to-talk holds the microphone: wake comes back when push-to-talk
    /// ends, not before and not never (the counted suspends of the hooks this replaced left one
    /// lease behind here: wake stayed deaf until restart).
    @Test func talkEndedDuringPushToTalkGivesWakeBackWhenPushToTalkEnds() {
        var arbiter = Arbiter()
        #expect(arbiter.handle(.talkEntered) == [.suspendWake])
        #expect(arbiter.handle(.pushToTalkBegan) == [.pauseTalk])
        #expect(arbiter.handle(.talkExited) == [], "push-to-talk still holds it")
        #expect(arbiter.holder == .pushToTalk)
        #expect(arbiter.handle(.pushToTalkEnded) == [.resumeWake], "Talk is off: nothing to resume")
        #expect(arbiter.holder == .wake)
    }

    /// Talk turned on during push-to-talk waits for it: paused at once, resumed when it ends.
    @Test func talkEnteredDuringPushToTalkIsPausedUntilItEnds() {
        var arbiter = Arbiter()
        #expect(arbiter.handle(.pushToTalkBegan) == [.suspendWake])
        #expect(arbiter.handle(.talkEntered) == [.pauseTalk])
        #expect(arbiter.handle(.pushToTalkEnded) == [.resumeTalk], "wake stays off: Talk has it")
        #expect(arbiter.holder == .talk)
    }

    @Test func anUnmatchedEndGivesNothingAway() {
        var arbiter = Arbiter()
        #expect(arbiter.handle(.pushToTalkEnded) == [])
        #expect(arbiter.handle(.talkExited) == [])
        #expect(arbiter.holder == .wake)
        #expect(arbiter.handle(.pushToTalkBegan) == [.suspendWake], "the count never went below zero")
    }

    /// Over any sequence of claims and releases, wake is told strictly alternating suspends and
    /// resumes, Talk alternating pauses and resumes, and what they were told matches the holder.
    @Test func wakeAndTalkAreToldEveryChangeExactlyOnce() {
        let events: [Arbiter.Event] = [.talkEntered, .talkExited, .pushToTalkBegan, .pushToTalkEnded]
        var generator = SeededGenerator(state: 15)
        for _ in 0..<200 {
            var arbiter = Arbiter()
            var wakeListening = true
            var talkPaused = false
            for _ in 0..<12 {
                let event = events[Int(generator.next() % UInt64(events.count))]
                for action in arbiter.handle(event) {
                    switch action {
                    case .suspendWake:
                        #expect(wakeListening)
                        wakeListening = false
                    case .resumeWake:
                        #expect(!wakeListening)
                        wakeListening = true
                    case .pauseTalk:
                        #expect(!talkPaused)
                        talkPaused = true
                    case .resumeTalk:
                        #expect(talkPaused)
                        talkPaused = false
                    }
                }
                // Talk turned off forgets its pause.
                if !arbiter.talkOn { talkPaused = false }
                #expect(wakeListening == (arbiter.holder == .wake))
                #expect(talkPaused == arbiter.talkPaused)
            }
        }
    }

    /// The owner carries the decisions out in order: push-to-talk's claim returns once Talk and
    /// wake have let go.
    @Test func theOwnerTellsWakeAndTalkInOrder() async {
        let calls = Locked<[String]>([])
        let owner = MicrophoneClaims(wake: RecordingWake(calls: calls), talk: RecordingTalk(calls: calls))
        await owner.talkEntered()
        await owner.pushToTalkBegan()
        #expect(calls.value == ["suspend", "pauseTalk"])
        await owner.talkExited()
        await owner.pushToTalkEnded()
        #expect(calls.value == ["suspend", "pauseTalk", "resume"])
        #expect(await owner.holder == .wake)
    }

    /// A holder attached after claims were made is brought in line at once.
    @Test func attachingCatchesUp() async {
        let calls = Locked<[String]>([])
        let owner = MicrophoneClaims()
        await owner.talkEntered()
        await owner.pushToTalkBegan()
        await owner.attach(wake: RecordingWake(calls: calls), talk: RecordingTalk(calls: calls))
        await owner.settle()
        #expect(calls.value == ["suspend", "pauseTalk"])
        await owner.pushToTalkEnded()
        #expect(calls.value == ["suspend", "pauseTalk", "resumeTalk"])
    }
}

/// Talk mode that records what it is told ("pauseTalk", "resumeTalk").
struct RecordingTalk: TalkPausing {
    let calls: Locked<[String]>

    func pauseForPushToTalk() async { calls.update { $0.append("pauseTalk") } }
    func resumeAfterPushToTalk() async { calls.update { $0.append("resumeTalk") } }
}
