import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import Foundation
import Synchronization

/// A copy of what the render tap delivered, with the capture-clock time of each frame, so a test
/// can rebuild the far end on the capture timeline. Storage is reserved up front.
final class FarEndRecorder: Sendable {
    private let frames = Mutex<(samples: [Int16], stamps: [UInt64])>(([], []))

    init(seconds: Int) {
        frames.locked {
            $0.samples.reserveCapacity(seconds * 16000)
            $0.stamps.reserveCapacity(seconds * 100)
        }
    }

    /// Records one 10 ms frame written now.
    func record(_ frame: UnsafeBufferPointer<Int16>) {
        let now = MonotonicTime.nanoseconds()
        frames.locked {
            $0.samples.append(contentsOf: frame)
            $0.stamps.append(now)
        }
    }

    /// Everything recorded: samples and one stamp per 160 samples.
    var recorded: (samples: [Int16], stamps: [UInt64]) { frames.locked { $0 } }
}

/// Collects an async stream into an array on a task.
final class StreamCollector<Element: Sendable>: Sendable {
    private let task: Task<[Element], Never>

    init(_ stream: AsyncStream<Element>) {
        task = Task {
            var items: [Element] = []
            for await item in stream { items.append(item) }
            return items
        }
    }

    /// Waits for the stream to finish and returns what arrived.
    func finish() async -> [Element] {
        await task.value
    }
}

/// Correlation helpers over Int16 signals (pointer loops: fast enough in debug builds).
enum Correlation {
    /// Σ signal[i + lag] · reference[i] over `range` of the reference.
    static func dot(_ signal: [Int16], _ reference: [Int16], lag: Int, range: Range<Int>) -> Double {
        signal.withUnsafeBufferPointer { s in
            reference.withUnsafeBufferPointer { r in
                var sum = 0.0
                for index in range {
                    let position = index + lag
                    guard position >= 0, position < s.count else { continue }
                    sum += Double(s[position]) * Double(r[index])
                }
                return sum
            }
        }
    }

    /// Σ reference[i]² over `range`.
    static func power(_ reference: [Int16], range: Range<Int>) -> Double {
        dot(reference, reference, lag: 0, range: range)
    }

    /// The `ranges` of `reference` that carry speech: power above a tenth of the loudest one's.
    static func carryingSpeech(_ ranges: [Range<Int>], of reference: [Int16]) -> [Range<Int>] {
        let powers = ranges.map { power(reference, range: $0) }
        let loudest = powers.max() ?? 0
        return zip(ranges, powers).filter { $0.1 > loudest / 10 }.map(\.0)
    }

    /// The lag in `lags` where `reference` (over `range`) best matches `signal`, found on every
    /// `coarse`-th lag and sample first, then refined sample by sample; with the least-squares
    /// gain there.
    static func bestLag(
        of reference: [Int16], in signal: [Int16], lags: ClosedRange<Int>, range: Range<Int>, coarse: Int = 4
    ) -> (lag: Int, gain: Double) {
        let decimated = Swift.stride(from: range.lowerBound, to: range.upperBound, by: coarse)
        var best = (lag: lags.lowerBound, score: -Double.infinity)
        signal.withUnsafeBufferPointer { s in
            reference.withUnsafeBufferPointer { r in
                for lag in Swift.stride(from: lags.lowerBound, through: lags.upperBound, by: coarse) {
                    var sum = 0.0
                    for index in decimated {
                        let position = index + lag
                        guard position >= 0, position < s.count else { continue }
                        sum += Double(s[position]) * Double(r[index])
                    }
                    if sum > best.score { best = (lag, sum) }
                }
            }
        }
        var refined = (lag: best.lag, score: -Double.infinity)
        for lag in (best.lag - coarse)...(best.lag + coarse) {
            let score = dot(signal, reference, lag: lag, range: range)
            if score > refined.score { refined = (lag, score) }
        }
        return (refined.lag, refined.score / max(power(reference, range: range), 1))
    }
}
