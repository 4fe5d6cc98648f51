internal import COpus
internal import COpusControl
public import ClawTalkAudio

/// Owner of one libopus encoder: s16 frames in, Opus packets out.
///
/// Opus encodes only whole frames of 2.5, 5, 10, 20, 40, 60, 80, 100 or 120 ms (20 ms is the
/// usual choice: 320 samples at 16 kHz mono); rates 8/12/16/24/48 kHz, mono or stereo.
/// Settings go through COpusControl because `opus_encoder_ctl` is C-variadic.
/// Not thread-safe: use one encoder from one thread or lane at a time.
public final class OpusEncoder {
    /// Sample rate and channel count of the PCM the encoder takes.
    public let format: AudioFormat
    private let encoder: OpaquePointer
    private let scratch: UnsafeMutableBufferPointer<UInt8>

    /// Largest packet ``encode(_:)`` can return (the RFC 6716 recommendation).
    public static let maxPacketBytes = 4000

    /// Creates an encoder for `format` (8000/12000/16000/24000/48000 Hz, 1 or 2 channels).
    public init(format: AudioFormat = .speech, application: OpusApplication = .voip) throws {
        guard OpusLimits.sampleRates.contains(format.sampleRate), (1...2).contains(format.channels) else {
            throw CodecError.opus(operation: "create encoder", message: "unsupported format \(format)")
        }
        var rc: Int32 = 0
        guard
            let encoder = opus_encoder_create(
                Int32(format.sampleRate), Int32(format.channels), application.code, &rc),
            rc == OPUS_OK
        else {
            throw CodecError.opus(operation: "create encoder", message: OpusLimits.message(rc))
        }
        self.format = format
        self.encoder = encoder
        scratch = .allocate(capacity: Self.maxPacketBytes)
    }

    deinit {
        opus_encoder_destroy(encoder)
        scratch.deallocate()
    }

    /// Samples (all channels) in one 20 ms frame of ``format``.
    public var samplesPer20ms: Int { format.sampleCount(milliseconds: 20) }

    /// Sets the target bit rate in bits per second (500 … 512000).
    public func setBitrate(_ bitsPerSecond: Int) throws {
        try check(copus_encoder_set_bitrate(encoder, Int32(clamping: bitsPerSecond)), "set bitrate")
    }

    /// Sets the computational complexity, 0 (fastest) … 10 (best quality).
    public func setComplexity(_ complexity: Int) throws {
        try check(copus_encoder_set_complexity(encoder, Int32(clamping: complexity)), "set complexity")
    }

    /// Turns discontinuous transmission (tiny packets during silence) on or off.
    public func setDTX(_ enabled: Bool) throws {
        try check(copus_encoder_set_dtx(encoder, enabled ? 1 : 0), "set DTX")
    }

    /// Turns in-band forward error correction on or off.
    public func setInbandFEC(_ enabled: Bool) throws {
        try check(copus_encoder_set_inband_fec(encoder, enabled ? 1 : 0), "set in-band FEC")
    }

    /// Tells the encoder how much packet loss to expect, in percent (0 … 100).
    public func setPacketLossPercent(_ percent: Int) throws {
        try check(copus_encoder_set_packet_loss_perc(encoder, Int32(clamping: percent)), "set packet loss")
    }

    /// Encoder delay in samples per channel: decoded audio lags the input by this much.
    public func lookahead() throws -> Int {
        var value: Int32 = 0
        try check(copus_encoder_get_lookahead(encoder, &value), "get lookahead")
        return Int(value)
    }

    /// Forgets all history, as if newly created (settings are kept).
    public func reset() throws {
        try check(copus_encoder_reset(encoder), "reset encoder")
    }

    /// Encodes one frame (interleaved, a valid Opus duration) into a new packet.
    public func encode(_ frame: [Int16]) throws -> [UInt8] {
        let length = try frame.withUnsafeBufferPointer { try encode($0, into: scratch) }
        return Array(scratch[0..<length])
    }

    /// Encodes one frame into `packet` without allocating; returns the packet length in bytes.
    public func encode(_ frame: UnsafeBufferPointer<Int16>, into packet: UnsafeMutableBufferPointer<UInt8>) throws
        -> Int
    {
        let perChannel = frame.count / format.channels
        let valid = OpusLimits.frameSamples(sampleRate: format.sampleRate)
        guard frame.count % format.channels == 0, valid.contains(perChannel), let base = frame.baseAddress,
            let out = packet.baseAddress
        else {
            throw CodecError.invalidFrameLength(
                samples: frame.count,
                expected: "per channel one of " + valid.map(String.init).joined(separator: ", "))
        }
        let rc = opus_encode(encoder, base, Int32(perChannel), out, Int32(clamping: packet.count))
        try check(rc, "encode")
        return Int(rc)
    }

    private func check(_ rc: Int32, _ operation: String) throws {
        if rc < 0 { throw CodecError.opus(operation: operation, message: OpusLimits.message(rc)) }
    }
}

/// Explicitly not Sendable: libopus encoder state is not thread-safe.
@available(*, unavailable)
extension OpusEncoder: Sendable {}
