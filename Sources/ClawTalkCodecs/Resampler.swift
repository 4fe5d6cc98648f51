internal import CSoxr
public import ClawTalkAudio

/// Owner of one libsoxr stream resampler for interleaved s16 between any two rates.
///
/// Streaming: call ``process(_:)`` with blocks of any size (whole frames), then ``flush()`` once
/// at the end of the signal to drain the filter's tail; after a flush the resampler is cleared and
/// ready for a new signal. Output is undithered (`SOXR_NO_DITHER`) so results are deterministic:
/// chunked and one-shot processing of the same input give the same samples.
/// Not thread-safe: one thread or lane at a time.
public final class Resampler {
    /// libsoxr quality presets.
    public enum Quality: Sendable, Hashable {
        /// Cubic interpolation (`SOXR_QQ`): cheapest, audible aliasing.
        case quick
        /// 16-bit, large roll-off (`SOXR_LQ`).
        case low
        /// 16-bit, medium roll-off (`SOXR_MQ`): the default, ample for speech.
        case medium
        /// 20-bit (`SOXR_HQ`).
        case high

        var recipe: UInt {
            switch self {
            case .quick: UInt(SOXR_QQ)
            case .low: UInt(SOXR_LQ)
            case .medium: UInt(SOXR_MQ)
            case .high: UInt(SOXR_20_BITQ)
            }
        }
    }

    /// Input sample rate in Hz.
    public let inputRate: Int
    /// Output sample rate in Hz.
    public let outputRate: Int
    /// Interleaved channels in both input and output.
    public let channels: Int
    private let soxr: OpaquePointer

    /// Creates a resampler from `inputRate` to `outputRate` for `channels` interleaved channels.
    public init(from inputRate: Int, to outputRate: Int, channels: Int = 1, quality: Quality = .medium) throws {
        guard inputRate > 0, outputRate > 0, channels > 0 else {
            throw CodecError.resampler(message: "invalid rates \(inputRate) → \(outputRate) or \(channels) channels")
        }
        var ioSpec = soxr_io_spec(SOXR_INT16_I, SOXR_INT16_I)
        ioSpec.flags = UInt(SOXR_NO_DITHER)
        var qualitySpec = soxr_quality_spec(quality.recipe, 0)
        var error: soxr_error_t?
        let soxr = soxr_create(
            Double(inputRate), Double(outputRate), UInt32(channels), &error, &ioSpec, &qualitySpec, nil)
        if let error {
            soxr_delete(soxr)
            throw CodecError.resampler(message: String(cString: error))
        }
        guard let soxr else { throw CodecError.resampler(message: "soxr_create returned nothing") }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        self.soxr = soxr
    }

    deinit {
        soxr_delete(soxr)
    }

    /// Resamples the next block (a whole number of frames); returns what is ready so far.
    public func process(_ samples: [Int16]) throws -> [Int16] {
        guard samples.count % channels == 0 else {
            throw CodecError.resampler(
                message: "\(samples.count) samples is not a whole number of \(channels)-channel frames")
        }
        guard !samples.isEmpty else { return [] }  // an empty block must not read as end-of-input (NULL)
        return try samples.withUnsafeBufferPointer { input in
            var output: [Int16] = []
            var offset = 0
            let frames = input.count / channels
            var consumed = 0
            repeat {
                let capacity = outputCapacity(forInputFrames: frames - consumed)
                let (used, produced) = try run(
                    input.baseAddress.map { UnsafeRawPointer($0 + offset) }, frames - consumed, capacity, into: &output)
                consumed += used
                offset = consumed * channels
                // Stop once all input is taken and soxr left room in the output (nothing more pending).
                if consumed == frames && produced < capacity { break }
                // With input left and room to write, soxr always moves; anything else would spin.
                guard used > 0 || produced > 0 else {
                    throw CodecError.resampler(message: "soxr made no progress")
                }
            } while true
            return output
        }
    }

    /// Ends the signal: returns the filter's remaining output and clears the resampler for reuse.
    public func flush() throws -> [Int16] {
        var output: [Int16] = []
        let capacity = max(1024, outputCapacity(forInputFrames: 1024))
        while true {
            let (_, produced) = try run(nil, 0, capacity, into: &output)
            if produced == 0 { break }
        }
        try check(soxr_clear(soxr))
        return output
    }

    /// Resamples a whole buffer in one go (returns it unchanged when the rate already matches).
    public static func resample(_ pcm: PCMBuffer, to rate: Int, quality: Quality = .medium) throws -> PCMBuffer {
        guard pcm.format.sampleRate != rate else { return pcm }
        let resampler = try Resampler(
            from: pcm.format.sampleRate, to: rate, channels: pcm.format.channels, quality: quality)
        var samples = try resampler.process(pcm.samples)
        samples += try resampler.flush()
        return PCMBuffer(format: AudioFormat(sampleRate: rate, channels: pcm.format.channels), samples: samples)
    }

    private func outputCapacity(forInputFrames frames: Int) -> Int {
        frames * outputRate / inputRate + 256
    }

    /// One `soxr_process` call appending to `output`; returns (input frames used, output frames made).
    private func run(
        _ input: UnsafeRawPointer?, _ inputFrames: Int, _ capacity: Int, into output: inout [Int16]
    ) throws -> (Int, Int) {
        var used = 0
        var produced = 0
        let start = output.count
        let width = channels
        var failure: soxr_error_t?
        output.append(contentsOf: repeatElement(0, count: capacity * width))
        output.withUnsafeMutableBufferPointer { buffer in
            let out = UnsafeMutableRawPointer(buffer.baseAddress! + start)
            failure = soxr_process(soxr, input, inputFrames, &used, out, capacity, &produced)
        }
        output.removeLast((capacity - produced) * width)
        try check(failure)
        return (used, produced)
    }

    private func check(_ error: soxr_error_t?) throws {
        if let error { throw CodecError.resampler(message: String(cString: error)) }
    }
}

/// Explicitly not Sendable: a soxr_t must stay on one thread at a time.
@available(*, unavailable)
extension Resampler: Sendable {}
