import ClawTalkAudio
import Testing

@testable import ClawTalkTalk

/// ``EchoPathEstimate/bandExcess(_:)``: the double-talk test's spectral view (measured and
/// logged, not yet decided on; issue 15).
@Suite("Echo path: band view")
struct EchoPathBandTests {
    /// A reply whose far end plays in bands 0–3, heard through a path of gain 0.5 in each.
    static let farEnd = BandLevels(SIMD8(0.04, 0.06, 0.03, 0.01, 0, 0, 0, 0))

    static func learned() -> EchoPathEstimate {
        var path = EchoPathEstimate()
        for _ in 0..<EchoPathEstimate.framesToLearn {
            path.learn(
                EchoReference(
                    input: 0.04, farEnd: 0.08, inputBands: BandLevels(farEnd.values * 0.5), farEndBands: farEnd))
        }
        return path
    }

    @Test func theEchoAloneIsExplainedInEveryBand() throws {
        let path = Self.learned()
        let echo = EchoReference(
            input: 0.04, farEnd: 0.08, inputBands: BandLevels(Self.farEnd.values * 0.5), farEndBands: Self.farEnd)
        let view = try #require(path.bandExcess(echo))
        #expect(abs(view.highest - 1) < 1e-9)
        #expect(view.unexplained < 1e-9)
    }

    @Test func aVoiceWhereTheReplyIsQuietIsUnexplained() throws {
        let path = Self.learned()
        // As loud overall as the echo, but in band 4, where the reply plays nothing.
        var input = BandLevels(Self.farEnd.values * 0.5)
        input[4] = 0.04
        let voice = EchoReference(input: 0.05, farEnd: 0.08, inputBands: input, farEndBands: Self.farEnd)
        let view = try #require(path.bandExcess(voice))
        #expect(abs(view.highest - 1) < 1e-9, "the bands the reply plays in hold its echo only")
        #expect(view.unexplained > 0.4)
        // Twice the echo in band 3 (where the reply is quiet) stands out there.
        var louder = BandLevels(Self.farEnd.values * 0.5)
        louder[3] = 0.01
        let second = try #require(
            path.bandExcess(EchoReference(input: 0.04, farEnd: 0.08, inputBands: louder, farEndBands: Self.farEnd)))
        #expect(abs(second.highest - 2) < 1e-9)
    }

    @Test func noViewBeforeTheBandsAreLearnedOrWithoutBands() {
        #expect(EchoPathEstimate().bandExcess(EchoReference(input: 0.04, farEnd: 0.08)) == nil)
        var path = EchoPathEstimate()
        path.learn(EchoReference(input: 0.04, farEnd: 0.08))
        #expect(path.bandExcess(EchoReference(input: 0.04, farEnd: 0.08, farEndBands: Self.farEnd)) == nil)
        #expect(Self.learned().bandExcess(nil) == nil)
    }
}
