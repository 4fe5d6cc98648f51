internal import COpus
internal import COpusControl
public import ClawTalkAudio

/// Owner of one libopus decoder: Opus packets in, s16 PCM out.
///
/// Decodes at any of 8/12/16/24/48 kHz mono or stereo regardless of how the packet was encoded
/// (libopus resamples internally). A lost packet is concealed with ``concealLoss(samples:)``.
/// Not thread-safe: use one decoder from one thread or lane at a time.
public final class OpusDecoder {
    /// Sample rate and channel count of the PCM the decoder produces.
    public let format: AudioFormat
    private let decoder: OpaquePointer
    private let scratch: UnsafeMutableBufferPointer<Int16>

    /// Creates a decoder producing `format` (8000/12000/16000/24000/48000 Hz, 1 or 2 channels).
    public init(format: AudioFormat = .speech) throws {
        guard OpusLimits.sampleRates.contains(format.sampleRate), (1...2).contains(format.channels) else {
            throw CodecError.opus(operation: "create decoder", message: "unsupported format \(format)")
        }
        var rc: Int32 = 0
        guard let decoder = opus_decoder_create(Int32(format.sampleRate), Int32(format.channels), &rc),
            rc == OPUS_OK
        else {
            throw CodecError.opus(operation: "create decoder", message: OpusLimits.message(rc))
        }
        self.format = format
        self.decoder = decoder
        scratch = .allocate(capacity: OpusLimits.maxFrameSamples(sampleRate: format.sampleRate) * format.channels)
    }

    deinit {
        opus_decoder_destroy(decoder)
        scratch.deallocate()
    }

    /// Decodes one packet into new interleaved samples.
    public func decode(_ packet: [UInt8]) throws -> [Int16] {
        let count = try packet.withUnsafeBufferPointer { try decode($0, into: scratch) }
        return Array(scratch[0..<count])
    }

    /// Decodes one packet into `pcm` without allocating; returns the interleaved sample count.
    ///
    /// - Parameter fec: decode the forward-error-correction data in `packet` (which belongs to the
    ///   *previous*, lost frame) instead of its main payload.
    public func decode(
        _ packet: UnsafeBufferPointer<UInt8>, into pcm: UnsafeMutableBufferPointer<Int16>, fec: Bool = false
    ) throws -> Int {
        guard !packet.isEmpty, let data = packet.baseAddress else {
            throw CodecError.opus(operation: "decode", message: "empty packet")
        }
        return try run(data, Int32(clamping: packet.count), into: pcm, fec: fec)
    }

    /// Produces `samples` (per channel, a valid Opus frame length) of loss concealment for a missing packet.
    public func concealLoss(samples: Int) throws -> [Int16] {
        let capacity = min(samples * format.channels, scratch.count)
        let count = try run(nil, 0, into: UnsafeMutableBufferPointer(rebasing: scratch[0..<capacity]), fec: false)
        return Array(scratch[0..<count])
    }

    /// Forgets all history, as if newly created.
    public func reset() throws {
        try check(copus_decoder_reset(decoder), "reset decoder")
    }

    private func run(
        _ data: UnsafePointer<UInt8>?, _ length: Int32, into pcm: UnsafeMutableBufferPointer<Int16>, fec: Bool
    ) throws -> Int {
        guard let out = pcm.baseAddress else {
            throw CodecError.opus(operation: "decode", message: "empty output buffer")
        }
        let perChannel = Int32(clamping: pcm.count / format.channels)
        let rc = opus_decode(decoder, data, length, out, perChannel, fec ? 1 : 0)
        try check(rc, "decode")
        return Int(rc) * format.channels
    }

    private func check(_ rc: Int32, _ operation: String) throws {
        if rc < 0 { throw CodecError.opus(operation: operation, message: OpusLimits.message(rc)) }
    }
}

/// Explicitly not Sendable: libopus decoder state is not thread-safe.
@available(*, unavailable)
extension OpusDecoder: Sendable {}
