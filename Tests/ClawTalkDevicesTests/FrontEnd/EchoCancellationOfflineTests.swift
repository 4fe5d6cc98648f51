import ClawTalkAudio
import ClawTalkDevices
import Foundation
import Testing

/// ``AudioFrontEnd`` echo cancellation without a sound server: a simulated playback path with
/// the controller's write pattern (a 40 ms burst, then one 10 ms frame per 10 ms), a sink delay,
/// a small room response and a capture latency. A fast regression test for the alignment.
@Suite("Front end: echo cancellation (offline)")
struct EchoCancellationOfflineTests {
    typealias Fixtures = FrontEndFixtures

    /// One simulated run's result.
    struct Run {
        var input: [Int16]
        var frames: [FrontEndFrame]
        var output: [Int16]
    }

    /// Plays `far` through a simulated sink (written 40 ms ahead, heard `sinkDelayMs` after it is
    /// due) and room; the microphone hears that plus `near`. The front end is told the output
    /// latency (`40 + sinkDelayMs` ms, as `pa_simple_get_latency` reports it) and
    /// `captureLatencyMs`, unless `reportedOffsetMs` skews the estimate.
    static func simulate(
        far: [Int16], near: [Int16], sinkDelayMs: Int = 20, captureLatencyMs: Int = 10, reportedOffsetMs: Int = 0,
        feedFarEnd: Bool = true, settings: FrontEndSettings = FrontEndSettings()
    ) throws -> Run {
        let rate = Fixtures.rate
        let origin: UInt64 = 5_000_000_000
        // The microphone: far end delayed by the sink delay through a short room response.
        let delay = sinkDelayMs * rate / 1000
        let taps: [(Int, Double)] = [(0, 0.5), (80, 0.2), (190, -0.1), (400, 0.05)]
        var mic = [Int16](repeating: 0, count: max(far.count, near.count))
        for index in mic.indices {
            var value = index < near.count ? Double(near[index]) : 0
            for (lag, gain) in taps where index - delay - lag >= 0 && index - delay - lag < far.count {
                value += gain * Double(far[index - delay - lag])
            }
            mic[index] = Int16(clamping: Int(value.rounded()))
        }
        var settings = settings
        settings.assumedOutputLatency = .milliseconds(40 + sinkDelayMs + reportedOffsetMs)
        settings.captureLatency = .milliseconds(captureLatencyMs)
        let frontEnd = try AudioFrontEnd(settings: settings)
        // Far-end frame k is due (starts playing) at origin + k·10 ms + sink delay; the playback
        // thread writes frames 0…3 at once at `origin`, then frame k at origin + (k − 4)·10 ms.
        let farFrames = far.count / 160
        var nextFar = 0
        let frames = try Fixtures.drive(
            frontEnd, near: mic, origin: origin, captureLatency: UInt64(captureLatencyMs) * 1_000_000
        ) { stamp in
            guard feedFarEnd else { return }
            while nextFar < farFrames {
                let written = origin + UInt64(max(0, nextFar - 4)) * 10_000_000
                guard written <= stamp + 15_000_000 else { break }
                far[nextFar * 160..<(nextFar + 1) * 160].withUnsafeBufferPointer {
                    frontEnd.pushFarEnd($0, timestampNanoseconds: written)
                }
                nextFar += 1
            }
        }
        return Run(input: mic, frames: frames, output: frames.flatMap(\.aec))
    }

    /// Energy ratio in dB of `input` over `output` in `range`.
    static func attenuation(_ input: [Int16], _ output: [Int16], _ range: Range<Int>) -> Double {
        10 * log10(TestSignals.energy(input[range]) / max(TestSignals.energy(output[range]), 1))
    }

    @Test("echo of the node's own playback is cancelled by at least 10 dB after 1 s (ERLE)")
    func echoIsCancelled() throws {
        let far = try Fixtures.speech("This is the node talking. It should not hear itself in the microphone at all.")
        let run = try Self.simulate(far: far, near: [])
        let erle = Self.attenuation(run.input, run.output, Fixtures.rate..<min(far.count, run.output.count))
        print("offline ERLE (speech far end, 20 ms sink, 10 ms capture latency): \(String(format: "%.1f", erle)) dB")
        #expect(erle >= 10, "ERLE \(erle) dB")
        #expect(run.frames.contains { $0.echoActive })
    }

    @Test("pairing by write and capture stamps aligns the far end exactly (fixed filter, no delay search)")
    func stampPairingAligns() throws {
        let far = try Fixtures.speech("This is the node talking. It should not hear itself in the microphone at all.")
        let fixed = FrontEndSettings(extendedFilter: false, delayAgnostic: false)
        let aligned = try Self.simulate(far: far, near: [], settings: fixed)
        let skewed = try Self.simulate(far: far, near: [], reportedOffsetMs: 40, settings: fixed)
        let range = Fixtures.rate..<min(far.count, aligned.output.count)
        let good = Self.attenuation(aligned.input, aligned.output, range)
        let bad = Self.attenuation(skewed.input, skewed.output, range)
        print(
            "offline ERLE, 48 ms filter: \(String(format: "%.1f", good)) dB aligned, \(String(format: "%.1f", bad)) dB with the delay 40 ms too high"
        )
        #expect(good >= 25, "aligned ERLE \(good) dB")
        #expect(bad < good - 10, "a 40 ms error should hurt: \(bad) dB vs \(good) dB")
    }

    @Test("with the default extended filter a delay error of ±40 ms still cancels", arguments: [-40, 40])
    func toleratesDelayError(offset: Int) throws {
        let far = try Fixtures.speech("This is the node talking. It should not hear itself in the microphone at all.")
        let run = try Self.simulate(far: far, near: [], reportedOffsetMs: offset)
        let erle = Self.attenuation(run.input, run.output, Fixtures.rate..<min(far.count, run.output.count))
        print("offline ERLE with the delay estimate off by \(offset) ms: \(String(format: "%.1f", erle)) dB")
        #expect(erle >= 10, "ERLE \(erle) dB")
    }

    @Test("without the far-end reference nothing is cancelled (the ERLE measure can fail)")
    func noReferenceNoCancellation() throws {
        let far = try Fixtures.speech("This is the node talking. It should not hear itself in the microphone at all.")
        let run = try Self.simulate(far: far, near: [], feedFarEnd: false)
        let erle = Self.attenuation(run.input, run.output, Fixtures.rate..<min(far.count, run.output.count))
        print("offline ERLE without a far-end reference: \(String(format: "%.1f", erle)) dB")
        #expect(erle < 3)
        #expect(!run.frames.contains { $0.echoActive })
    }

    @Test("a near-end talker 6 dB above the echo survives double talk with < 10 dB loss")
    func nearTalkerSurvives() throws {
        let far = try Fixtures.speech("This is the node talking. It should not hear itself in the microphone at all.")
        let talker = try Fixtures.speech("Stop! Hey computer, what time is it?", voice: "en-gb", speed: 150)
        // The talker starts after 1.5 s, at twice the direct echo's gain (+6 dB).
        let start = Fixtures.rate * 3 / 2
        let near = [Int16](repeating: 0, count: start) + talker
        let run = try Self.simulate(far: far, near: near)
        let window = start..<min(near.count, run.output.count) - 400
        let (lag, kept) = Self.bestProjection(of: run.output, onto: near, window)
        let keptDB = 20 * log10(max(kept, 1e-6))
        print(
            "offline near-end talker after AEC in double talk: \(String(format: "%.1f", keptDB)) dB "
                + "(AEC output lags its input by \(lag) samples)")
        #expect(keptDB > -10, "near talker attenuated by \(-keptDB) dB")
    }

    /// Least-squares gain of `reference` in `signal` over `range`, at the lag (0…20 ms, steps of
    /// 8 samples) where it is largest: the canceller delays its output by a few milliseconds.
    static func bestProjection(
        of signal: [Int16], onto reference: [Int16], _ range: Range<Int>
    ) -> (lag: Int, gain: Double) {
        var power = 0.0
        for index in range { power += Double(reference[index]) * Double(reference[index]) }
        var best = (lag: 0, gain: 0.0)
        for lag in stride(from: 0, through: 320, by: 8) {
            var cross = 0.0
            for index in range where index + lag < signal.count {
                cross += Double(signal[index + lag]) * Double(reference[index])
            }
            let gain = cross / max(power, 1)
            if gain > best.gain { best = (lag, gain) }
        }
        return best
    }
}
