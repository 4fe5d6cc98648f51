import Testing

@testable import ClawTalkTalk

/// Realtime barge-in decisions (talk.md §9.2 "Barge-in"), table-driven: each case is a script of
/// 20 ms frames after output started, and the decisions they produce, by frame.
struct RealtimeBargeInTests {
    /// One frame: speech, the onset detector's onset, strong evidence, level evidence, input over
    /// the echo.
    struct Frame: Sendable {
        var speech: Bool
        var onset = false
        var strong = false
        var level = false
        var overEcho = false

        static let quiet = Frame(speech: false)
        static let speech = Frame(speech: true)
        static let strong = Frame(speech: true, strong: true)
        static let onset = Frame(speech: true, onset: true)
        static let strongOnset = Frame(speech: true, onset: true, strong: true)
        static let level = Frame(speech: true, level: true)
        static let levelOnset = Frame(speech: true, onset: true, level: true)
        static let voice = Frame(speech: true, strong: true, level: true, overEcho: true)
        static let voiceOnset = Frame(speech: true, onset: true, strong: true, level: true, overEcho: true)
        static let overEcho = Frame(speech: true, overEcho: true)
        static let overEchoOnset = Frame(speech: true, onset: true, overEcho: true)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var frames: [Frame]
        /// Decisions by frame index.
        var expected: [Int: RealtimeBargeIn.Decision]
        var reason: RealtimeBargeIn.Reason?
        /// The cancel window (nil: the default, the whole pause).
        var cancelWindow: Double?
        var testDescription: String { name }
    }

    /// The defaults with a 60 ms settle (the indices below count from it).
    static let settings: RealtimeBargeIn.Settings = {
        var settings = RealtimeBargeIn.Settings()
        settings.settle = 0.06
        return settings
    }()

    static func repeated(_ frame: Frame, _ count: Int) -> [Frame] { Array(repeating: frame, count: count) }

    /// Speech in one frame of every five (0.02 s of each 0.1 s), for 1 s.
    static let cycles: [Frame] = (0..<50).map { $0 % 5 == 0 ? .speech : .quiet }

    static let cases: [Case] = [
        Case(
            name: "an onset with two strong frames in its run cancels at once",
            frames: [.speech, .strong, .strongOnset], expected: [2: .cancel], reason: .evidenceAtOnset),
        Case(
            name: "one strong frame is not enough: pause",
            frames: [.speech, .speech, .strongOnset] + repeated(.quiet, 5), expected: [2: .pause]),
        Case(
            name: "a strong frame beside a frame over the echo by the onset cancels at once",
            frames: [.speech, .overEcho, .strongOnset], expected: [2: .cancel], reason: .evidenceAtOnset),
        Case(
            name: "a strong frame beside a level frame is not enough: pause (logged echo)",
            frames: [.speech, .speech, .strongOnset, .level] + repeated(.quiet, 5), expected: [2: .pause]),
        Case(
            name: "a strong onset and a frame over the echo just after it cancel",
            frames: [.speech, .speech, .strongOnset, .overEcho], expected: [2: .pause, 3: .cancel],
            reason: .evidenceAfterOnset),
        Case(
            name: "a frame over the echo and a strong frame broken by silence do not add up",
            frames: [.overEcho, .quiet, .strongOnset, .speech] + repeated(.quiet, 5), expected: [2: .pause]),
        Case(
            name: "strong evidence in the two frames after the onset cancels",
            frames: [.speech, .speech, .onset, .strong, .strong], expected: [2: .pause, 4: .cancel],
            reason: .evidenceAfterOnset),
        Case(
            name: "strong evidence on the third frame after the onset still cancels",
            frames: [.speech, .speech, .onset, .speech, .strong, .strong], expected: [2: .pause, 5: .cancel],
            reason: .evidenceAfterOnset),
        Case(
            name: "strong evidence completed on the fourth frame after the onset still cancels",
            frames: [.speech, .speech, .onset, .speech, .speech, .strong, .strong], expected: [2: .pause, 6: .cancel],
            reason: .evidenceAfterOnset),
        Case(
            name: "strong evidence later in the pause cancels",
            frames: [.speech, .speech, .onset] + repeated(.speech, 6) + [.strong, .strong],
            expected: [2: .pause, 10: .cancel], reason: .evidenceAfterOnset),
        Case(
            name: "strong evidence later than a set cancel window does not cancel by itself",
            frames: [.speech, .speech, .onset, .speech, .speech, .speech, .strong, .strong] + repeated(.quiet, 20),
            expected: [2: .pause, 17: .resume], reason: .quiet, cancelWindow: 0.06),
        Case(
            name: "one frame strong, level and over the echo at the onset is not enough: pause (logged echo)",
            frames: [.speech, .speech, .voiceOnset] + repeated(.quiet, 5), expected: [2: .pause]),
        Case(
            name: "one frame strong, level and over the echo just after the onset is not enough",
            frames: [.speech, .speech, .onset, .voice] + repeated(.quiet, 14), expected: [2: .pause, 15: .resume],
            reason: .quiet),
        Case(
            name: "two frames of level evidence in a row by the onset cancel at once",
            frames: [.speech, .level, .levelOnset], expected: [2: .cancel], reason: .voiceInARowAtOnset),
        Case(
            name: "one frame of level evidence is not enough: pause",
            frames: [.speech, .speech, .levelOnset] + repeated(.quiet, 5), expected: [2: .pause]),
        Case(
            name: "two level frames of the run apart are not enough: pause",
            frames: [.level, .speech, .levelOnset, .speech] + repeated(.quiet, 5), expected: [2: .pause]),
        Case(
            name: "three level frames of the run, not in a row, cancel",
            frames: [.level, .level, .speech, .levelOnset], expected: [3: .cancel], reason: .levelAtOnset),
        Case(
            name: "level frames broken by silence do not add up",
            frames: [.level, .level, .quiet, .levelOnset, .speech] + repeated(.quiet, 5), expected: [3: .pause]),
        Case(
            name: "level evidence completed just after the onset cancels",
            frames: [.speech, .speech, .levelOnset, .level], expected: [2: .pause, 3: .cancel],
            reason: .voiceInARowAfterOnset),
        Case(
            name: "level evidence completed after a set cancel window does not cancel by itself",
            frames: [.speech, .speech, .onset, .speech, .speech, .speech, .level, .level] + repeated(.quiet, 20),
            expected: [2: .pause, 17: .resume], reason: .quiet, cancelWindow: 0.06),
        Case(
            name: "two frames over the echo in a row by the onset cancel at once",
            frames: [.speech, .speech, .overEcho, .overEchoOnset], expected: [3: .cancel],
            reason: .voiceInARowAtOnset),
        Case(
            name: "a level frame then one over the echo by the onset cancel at once",
            frames: [.speech, .level, .overEchoOnset], expected: [2: .cancel], reason: .voiceInARowAtOnset),
        Case(
            name: "one frame over the echo is not enough: pause",
            frames: [.speech, .speech, .overEchoOnset, .speech] + repeated(.quiet, 5), expected: [2: .pause]),
        Case(
            name: "frames over the echo broken by a frame without it do not add up",
            frames: [.overEcho, .speech, .overEchoOnset, .speech, .overEcho] + repeated(.quiet, 5),
            expected: [2: .pause]),
        Case(
            name: "a frame over the echo and a level one broken by silence do not add up",
            frames: [.overEcho, .quiet, .levelOnset, .speech] + repeated(.quiet, 5), expected: [2: .pause]),
        Case(
            name: "frames over the echo completed after the onset cancel",
            frames: [.speech, .speech, .overEchoOnset, .overEcho], expected: [2: .pause, 3: .cancel],
            reason: .voiceInARowAfterOnset),
        Case(
            name: "level evidence without an onset does nothing",
            frames: repeated(.level, 10) + repeated(.quiet, 10), expected: [:]),
        Case(
            name: "strong frames broken by silence do not add up",
            frames: [.strong, .quiet, .strongOnset, .quiet], expected: [2: .pause]),
        Case(
            name: "speech over the silenced reply confirms after the settle (here 0.06 s) + 0.2 s",
            frames: [.speech, .speech, .onset] + repeated(.speech, 14), expected: [2: .pause, 15: .cancel],
            reason: .speechWhilePaused),
        Case(
            name: "silence after the settle resumes the reply after 0.2 s",
            frames: [.speech, .speech, .onset] + repeated(.quiet, 14), expected: [2: .pause, 15: .resume],
            reason: .quiet),
        Case(
            name: "speech that comes and goes resumes at the window",
            frames: [.onset] + repeated(.quiet, 3) + cycles,
            expected: [0: .pause, 40: .resume], reason: .window),
        Case(
            name: "without an onset nothing happens",
            frames: repeated(.strong, 10) + repeated(.quiet, 10), expected: [:]),
    ]

    @Test(arguments: cases)
    func decides(_ row: Case) {
        var settings = Self.settings
        if let window = row.cancelWindow { settings.cancelWindow = window }
        var bargeIn = RealtimeBargeIn(settings: settings)
        bargeIn.outputStarted()
        var decisions: [Int: RealtimeBargeIn.Decision] = [:]
        for (index, frame) in row.frames.enumerated() {
            let observation = RealtimeOnsetDetector.Observation(
                onset: frame.onset, strong: frame.strong, level: frame.level, overEcho: frame.overEcho)
            if let decision = bargeIn.frame(isSpeech: frame.speech, seconds: 0.02, observation: observation) {
                decisions[index] = decision
            }
        }
        #expect(decisions == row.expected)
        if let reason = row.reason { #expect(bargeIn.reason == reason) }
    }

    @Test func nothingIsDecidedWithoutOutputAndAfterACancel() {
        var idle = RealtimeBargeIn()
        #expect(idle.frame(isSpeech: true, seconds: 0.02, observation: .init(onset: true, strong: true)) == nil)
        var bargeIn = RealtimeBargeIn()
        bargeIn.outputStarted()
        bargeIn.outputEnded()
        #expect(bargeIn.frame(isSpeech: true, seconds: 0.02, observation: .init(onset: true)) == nil)
    }

    @Test func theSettleCountsFromWhenOutputWentSilentWhereKnown() {
        var bargeIn = RealtimeBargeIn()
        bargeIn.outputStarted()
        #expect(bargeIn.frame(isSpeech: true, seconds: 0.02, observation: .init(onset: true)) == .pause)
        // A pause that took effect late (a loaded machine): the echo heard until then is no voice,
        // however long after the onset.
        for _ in 0..<30 {
            #expect(bargeIn.frame(isSpeech: true, seconds: 0.02, observation: .init(), silence: 0) == nil)
        }
        // Silent for 0.16 s: now speech counts, 0.2 s of it confirms.
        var decision: RealtimeBargeIn.Decision?
        var frames = 0
        while decision == nil, frames < 20 {
            decision = bargeIn.frame(
                isSpeech: true, seconds: 0.02, observation: .init(), silence: 0.16 + Double(frames) * 0.02)
            frames += 1
        }
        #expect(decision == .cancel)
        #expect(frames == 10)
    }

    @Test func aResumedReplyIsWatchedAgain() {
        var bargeIn = RealtimeBargeIn()
        bargeIn.outputStarted()
        #expect(bargeIn.frame(isSpeech: true, seconds: 0.02, observation: .init(onset: true)) == .pause)
        #expect(bargeIn.isPaused)
        var decision: RealtimeBargeIn.Decision?
        for _ in 0..<20 where decision == nil {
            decision = bargeIn.frame(isSpeech: false, seconds: 0.02, observation: .init())
        }
        #expect(decision == .resume)
        #expect(!bargeIn.isPaused)
        #expect(bargeIn.frame(isSpeech: true, seconds: 0.02, observation: .init(onset: true)) == .pause)
    }
}
