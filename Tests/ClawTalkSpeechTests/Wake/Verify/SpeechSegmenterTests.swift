import ClawTalkSpeech
import Foundation
import Testing

@Suite struct SpeechSegmenterTests {
    /// Steps for a run of frame decisions (true = speech).
    static func steps(_ pattern: [Bool], options: SpeechSegmenter.Options = .init()) -> [SpeechSegmenter.Step] {
        var segmenter = SpeechSegmenter(options: options)
        return pattern.map { segmenter.step(isSpeech: $0) }
    }

    @Test func silenceOpensNothing() {
        #expect(Self.steps(Array(repeating: false, count: 100)).allSatisfy { $0 == .silence })
    }

    @Test func speechIsConfirmedAfterFourFramesAndClosesAfterTheHangover() {
        // 0.25 s hangover = 13 frames of 20 ms (12.5 rounded).
        let pattern = Array(repeating: true, count: 10) + Array(repeating: false, count: 14)
        let steps = Self.steps(pattern)
        #expect(steps[0] == .opened)
        #expect(steps[1] == .pending && steps[2] == .pending)
        #expect(steps[3] == .confirmed)
        #expect(steps[4...9].allSatisfy { $0 == .speaking })
        #expect(steps[10...21].allSatisfy { $0 == .speaking })
        #expect(steps[22] == .closed(confirmed: true))
        #expect(steps[23] == .silence)
    }

    @Test func aClickIsDroppedUnconfirmed() {
        let pattern = [true, true] + Array(repeating: false, count: 13)
        let steps = Self.steps(pattern)
        #expect(steps[0] == .opened)
        #expect(!steps.contains(.confirmed))
        #expect(steps.last == .closed(confirmed: false))
    }

    @Test func aShortPauseInsideAWordKeepsTheSegmentOpen() {
        // Speech, 0.2 s of stop closure, speech again: one segment.
        let pattern =
            Array(repeating: true, count: 6) + Array(repeating: false, count: 10) + Array(repeating: true, count: 6)
        let steps = Self.steps(pattern)
        #expect(!steps.contains(.closed(confirmed: true)))
        #expect(steps.filter { $0 == .opened }.count == 1)
    }

    @Test func theEnergyGateOpensOnLoudFramesOnly() {
        var segmenter = SpeechSegmenter()
        let quiet = [Int16](repeating: 0, count: SpeechSegmenter.frameSize)
        let loud = (0..<SpeechSegmenter.frameSize).map { Int16(8000 * sin(Double($0) * 0.3)) }
        for _ in 0..<20 { #expect(quiet.withUnsafeBufferPointer { segmenter.process($0) } == .silence) }
        #expect(loud.withUnsafeBufferPointer { segmenter.process($0) } == .opened)
        #expect(segmenter.isOpen && !segmenter.isConfirmed)
    }
}
