internal import CMpg123
public import ClawTalkAudio
public import Foundation

/// Owner of one libmpg123 handle in feed mode: MP3 bytes in (all at once or in pieces), s16 PCM
/// out at the stream's own rate and channel count.
///
/// libmpg123 quirks handled here: `mpg123_init` is run once per process (a no-op on current
/// versions, required on old ones); the output format table is narrowed to
/// `MPG123_ENC_SIGNED_16` so no conversion happens in Swift; gapless decoding (LAME/Xing info
/// frame) trims encoder delay and padding; ID3v2 tags and junk before the first frame are skipped
/// by libmpg123's resync.
///
/// Damaged input: bytes without a single decodable MPEG frame end in ``CodecError/noMPEGAudio``
/// at ``finish()``. A stream cut short decodes to the PCM of every complete frame, and
/// ``isTruncated`` is set when the stream's info frame announced more samples than arrived (MP3s
/// without an info frame give no way to tell). Not thread-safe: one thread or lane at a time.
public final class MP3Decoder {
    private let handle: OpaquePointer
    private let scratch: UnsafeMutableBufferPointer<Int16>
    /// Sample rate and channels of the stream, known once the first frame header was read.
    public private(set) var format: AudioFormat?
    /// True after ``finish()`` when the stream announced more audio than it contained.
    public private(set) var isTruncated = false
    /// Frames (samples per channel) decoded so far.
    public private(set) var decodedFrames = 0

    /// Runs `mpg123_init` exactly once per process (Swift's lazy global initialisation is thread-safe).
    private static let libraryInit: Int32 = mpg123_init()

    /// Creates a decoder ready to be fed.
    public init() throws {
        let initResult = Self.libraryInit
        guard initResult == MPG123_OK.rawValue else {
            throw CodecError.mp3(message: String(cString: mpg123_plain_strerror(initResult)))
        }
        var rc: Int32 = 0
        guard let handle = mpg123_new(nil, &rc) else {
            throw CodecError.mp3(message: String(cString: mpg123_plain_strerror(rc)))
        }
        self.handle = handle
        scratch = .allocate(capacity: 32 * 1024)
        try check(mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_QUIET.rawValue), 0))
        try check(mpg123_format_none(handle))
        var rates: UnsafePointer<Int>?
        var rateCount = 0
        mpg123_rates(&rates, &rateCount)
        let channels = Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue)
        for index in 0..<rateCount {
            guard let rate = rates?[index] else { continue }
            try check(mpg123_format(handle, rate, channels, Int32(MPG123_ENC_SIGNED_16.rawValue)))
        }
        try check(mpg123_open_feed(handle))
    }

    deinit {
        mpg123_delete(handle)
        scratch.deallocate()
    }

    /// Feeds the next piece of the stream; returns the PCM it completed, or nil if none yet.
    public func feed(_ bytes: Data) throws -> PCMBuffer? {
        if !bytes.isEmpty {
            try bytes.withUnsafeBytes { raw in
                let base = raw.bindMemory(to: UInt8.self).baseAddress
                try check(mpg123_feed(handle, base, raw.count))
            }
        }
        var samples: [Int16] = []
        while true {
            var done = 0
            let rc = mpg123_read(handle, UnsafeMutableRawPointer(scratch.baseAddress), scratch.count * 2, &done)
            samples.append(contentsOf: scratch[0..<(done / 2)])
            switch rc {
            case MPG123_OK.rawValue:
                continue
            case MPG123_NEW_FORMAT.rawValue:
                // Samples decoded earlier in this call count as decoded: a new format after them
                // is a change midway, not the first format.
                try adoptFormat(afterAudio: decodedFrames > 0 || !samples.isEmpty)
            case MPG123_NEED_MORE.rawValue, MPG123_DONE.rawValue:
                guard let format, !samples.isEmpty else { return nil }
                decodedFrames += samples.count / format.channels
                return PCMBuffer(format: format, samples: samples)
            default:
                try check(rc)
            }
        }
    }

    /// Declares the end of the stream: throws ``CodecError/noMPEGAudio`` if no frame was ever
    /// found, and sets ``isTruncated`` when the info frame announced more samples.
    public func finish() throws {
        guard format != nil, decodedFrames > 0 else { throw CodecError.noMPEGAudio }
        let announced = mpg123_length(handle)
        // One MPEG frame (1152 samples) of slack: gapless trimming may differ by a frame's padding.
        isTruncated = announced > 0 && decodedFrames + 1152 < announced
    }

    /// Decodes a whole MP3 held in memory (feed everything, then ``finish()``).
    public func decodeAll(_ data: Data) throws -> PCMBuffer {
        let pcm = try feed(data)
        try finish()
        guard let format else { throw CodecError.noMPEGAudio }
        return pcm ?? PCMBuffer(format: format)
    }

    private func adoptFormat(afterAudio: Bool) throws {
        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        try check(mpg123_getformat(handle, &rate, &channels, &encoding))
        guard rate > 0, channels > 0, encoding == Int32(MPG123_ENC_SIGNED_16.rawValue) else {
            throw CodecError.mp3(
                message: "unexpected output format (rate \(rate), \(channels) ch, encoding \(encoding))")
        }
        let next = AudioFormat(sampleRate: rate, channels: Int(channels))
        if let format, format != next, afterAudio {
            throw CodecError.formatChanged(from: format, to: next)
        }
        format = next
    }

    private func check(_ rc: Int32) throws {
        guard rc != MPG123_OK.rawValue else { return }
        let message = rc == MPG123_ERR.rawValue ? mpg123_strerror(handle) : mpg123_plain_strerror(rc)
        throw CodecError.mp3(message: message.map { String(cString: $0) } ?? "error \(rc)")
    }
}

/// Explicitly not Sendable: an mpg123 handle must stay on one thread at a time.
@available(*, unavailable)
extension MP3Decoder: Sendable {}
