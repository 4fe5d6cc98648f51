import ClawTalkAudio
import ClawTalkTesting
import Foundation
import Testing

@Suite("EnergyGate (talk.md §5.4)")
struct EnergyGateTests {
    /// 20 ms of a sine at `amplitude` (full scale 1.0).
    static func tone(amplitude: Double, frequency: Double = 440, frame: Int = 0) -> [Int16] {
        (0..<320).map { i in
            let t = Double(frame * 320 + i) / 16000
            return Int16((sin(2 * .pi * frequency * t) * amplitude * 32767).rounded())
        }
    }

    /// 20 ms of deterministic white noise with RMS near `rms`.
    static func noise(rms: Double, seed: inout UInt64) -> [Int16] {
        (0..<320).map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let uniform = Double(seed >> 11) / Double(1 << 53) * 2 - 1  // RMS 1/√3
            return Int16((uniform * rms * 3.0.squareRoot() * 32767).rounded())
        }
    }

    @Test("RMS uses full scale 1.0")
    func rmsScale() {
        let square = [Int16](repeating: 16384, count: 160) + [Int16](repeating: -16384, count: 160)
        #expect(square.withUnsafeBufferPointer { EnergyGate.rms($0) } == 0.5)
        let sine = Self.tone(amplitude: 0.5)
        #expect(abs(sine.withUnsafeBufferPointer { EnergyGate.rms($0) } - 0.5 / 2.0.squareRoot()) < 1e-3)
        #expect([Int16]().withUnsafeBufferPointer { EnergyGate.rms($0) } == 0)
    }

    @Test("digital silence is never speech and pulls the floor down to its limit")
    func silence() {
        var gate = EnergyGate()
        let silence = [Int16](repeating: 0, count: 320)
        for _ in 0..<500 { #expect(!gate.process(silence).isSpeech) }
        #expect(gate.noiseFloor == EnergyGate.lowestFloor)
        #expect(gate.threshold == EnergyGate.minimumSpeechRMS)
    }

    @Test("the floor follows talk.md §5.4 exactly: α 0.08 down, 0.01 up, updated before the comparison")
    func floorUpdate() {
        var gate = EnergyGate(initialFloor: 0.01)
        let quiet = [Int16](repeating: 0, count: 320)
        _ = gate.process(quiet)
        #expect(abs(gate.noiseFloor - 0.01 * 0.92) < 1e-12)
        var loudGate = EnergyGate(initialFloor: 0.01)
        let loud = [Int16](repeating: 16384, count: 320)  // RMS 0.5
        let decision = loudGate.process(loud)
        let floor = 0.01 + (0.5 - 0.01) * 0.01
        #expect(abs(loudGate.noiseFloor - floor) < 1e-12)
        #expect(abs(decision.threshold - floor * 6) < 1e-12)
        #expect(decision.isSpeech)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var leadInRMS: Double  // quiet noise before the probe
        var probeAmplitude: Double  // sine amplitude of the probe
        var expectSpeech: Bool
        var testDescription: String { name }
    }

    @Test(
        "a probe after three seconds of background noise",
        arguments: [
            Case(name: "−20 dBFS tone after silence is speech", leadInRMS: 0, probeAmplitude: 0.14, expectSpeech: true),
            Case(
                name: "−60 dBFS tone after silence is speech", leadInRMS: 0, probeAmplitude: 0.0015, expectSpeech: true),
            Case(name: "−70 dBFS tone after silence is not", leadInRMS: 0, probeAmplitude: 0.0004, expectSpeech: false),
            Case(
                name: "tone 10× above room noise is speech", leadInRMS: 0.003, probeAmplitude: 0.045, expectSpeech: true
            ),
            Case(name: "tone 3× above room noise is not", leadInRMS: 0.003, probeAmplitude: 0.013, expectSpeech: false),
        ])
    func probe(_ scenario: Case) {
        var gate = EnergyGate()
        var seed: UInt64 = 7
        for _ in 0..<150 { _ = gate.process(Self.noise(rms: scenario.leadInRMS, seed: &seed)) }
        let decision = gate.process(Self.tone(amplitude: scenario.probeAmplitude), timestamp: 42)
        #expect(decision.isSpeech == scenario.expectSpeech, "rms \(decision.rms), threshold \(decision.threshold)")
        #expect(gate.lastSpeechTimestamp == (scenario.expectSpeech ? 42 : nil))
    }

    @Test("a steady noise starts as speech, then the floor adapts upward and it stops counting")
    func stationaryNoise() throws {
        var gate = EnergyGate()
        var seed: UInt64 = 99
        var decisions: [EnergyGate.Decision] = []
        for _ in 0..<150 { decisions.append(gate.process(Self.noise(rms: 0.05, seed: &seed))) }
        #expect(decisions[0].isSpeech, "a sudden loud noise counts at first")
        let lastSpeech = try #require(decisions.lastIndex { $0.isSpeech })
        #expect(lastSpeech < 40, "the floor should catch up within ~0.8 s")
        #expect(decisions[40...].allSatisfy { !$0.isSpeech })
        #expect(gate.noiseFloor > 0.05 / 6)
        #expect(gate.noiseFloor < 0.05)
        // A clearly louder voice over the same noise still counts.
        #expect(gate.process(Self.tone(amplitude: 0.9)).isSpeech)
    }

    @Test("after loud noise stops, the floor falls quickly and quiet speech counts again")
    func recovery() {
        var gate = EnergyGate()
        var seed: UInt64 = 3
        for _ in 0..<200 { _ = gate.process(Self.noise(rms: 0.05, seed: &seed)) }
        #expect(!gate.process(Self.tone(amplitude: 0.06)).isSpeech)
        var quietFrames = 0
        while gate.threshold > EnergyGate.minimumSpeechRMS * 2, quietFrames < 1000 {
            _ = gate.process(Self.noise(rms: 0.0001, seed: &seed))
            quietFrames += 1
        }
        #expect(quietFrames < 80, "α 0.08 should bring the floor down within ~1.5 s")
        #expect(gate.process(Self.tone(amplitude: 0.01)).isSpeech)
    }

    @Test("reset forgets the floor and the last speech")
    func reset() {
        var gate = EnergyGate()
        for _ in 0..<10 { _ = gate.process(Self.tone(amplitude: 0.5), timestamp: 5) }
        #expect(gate.lastSpeechTimestamp == 5)
        #expect(gate.noiseFloor > 0.01)
        gate.reset()
        #expect(gate.noiseFloor == EnergyGate.defaultInitialFloor)
        #expect(gate.lastSpeechTimestamp == nil)
    }
}
