public import Foundation

/// A RIFF/WAVE file as s16 PCM: decoded from any common WAV encoding, written as canonical
/// 16-bit PCM with a 44-byte header.
///
/// Decoding accepts `WAVE_FORMAT_PCM` (8-bit unsigned, 16/24/32-bit signed), `IEEE_FLOAT`
/// (32/64-bit), μ-law and A-law, and the same inside `WAVE_FORMAT_EXTENSIBLE`; everything is
/// converted to s16 (high bits kept, floats scaled by 32768 and clamped). Chunks other than
/// `fmt ` and `data` are skipped, honouring the pad byte after odd-sized chunks; any channel
/// count from 1 to 8 is kept interleaved.
///
/// Damaged input never traps. Missing or malformed headers throw ``AudioError``. Once the
/// `fmt ` chunk and the `data` chunk header are intact, a data chunk that claims more bytes than
/// the file holds is **truncated to what is there** (whole frames only) and ``isTruncated`` is
/// set; the same happens for a trailing partial frame. Streaming writers that leave the size at
/// 0xFFFFFFFF therefore decode fine, just flagged as truncated.
public struct WAVFile: Sendable, Equatable {
    /// The audio, converted to interleaved s16.
    public var pcm: PCMBuffer
    /// How samples were stored in the source file (``SampleEncoding/signedInt(bits:)`` 16 when
    /// built from PCM for writing).
    public var sourceEncoding: SampleEncoding
    /// True when the data chunk was cut short (declared size past the end, or a partial last frame).
    public var isTruncated: Bool

    /// Sample storage formats a WAV file can declare that this decoder understands.
    public enum SampleEncoding: Sendable, Equatable {
        /// 8-bit unsigned integer, 128 = silence.
        case unsignedInt8
        /// Little-endian two's complement integer in a container of `bits` (16, 24 or 32).
        case signedInt(bits: Int)
        /// Little-endian IEEE float of `bits` (32 or 64), full scale ±1.0.
        case float(bits: Int)
        /// G.711 μ-law, one byte per sample.
        case muLaw
        /// G.711 A-law, one byte per sample.
        case aLaw

        /// Bytes each sample occupies in the file.
        public var bytesPerSample: Int {
            switch self {
            case .unsignedInt8, .muLaw, .aLaw: 1
            case .signedInt(let bits), .float(let bits): bits / 8
            }
        }
    }

    /// Wraps PCM for writing with ``data``.
    public init(pcm: PCMBuffer) {
        self.pcm = pcm
        sourceEncoding = .signedInt(bits: 16)
        isTruncated = false
    }

    /// Parses a complete WAV file held in memory.
    public init(data: Data) throws(AudioError) {
        let result: Result<WAVFile, AudioError> = data.withUnsafeBytes { bytes in
            do throws(AudioError) {
                return .success(try WAVFile.parse(bytes))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// Memberwise init used by the parser.
    init(pcm: PCMBuffer, sourceEncoding: SampleEncoding, isTruncated: Bool) {
        self.pcm = pcm
        self.sourceEncoding = sourceEncoding
        self.isTruncated = isTruncated
    }

    /// Decodes WAV bytes to s16 PCM (see the type's documentation for what is accepted).
    public static func decode(_ data: Data) throws(AudioError) -> PCMBuffer {
        try WAVFile(data: data).pcm
    }

    /// Length of the canonical header ``encode(_:)`` writes.
    public static let canonicalHeaderSize = 44

    /// Serializes ``pcm`` as a canonical 16-bit PCM WAV file.
    public var data: Data { Self.encode(pcm) }

    /// Serializes PCM as a canonical WAV file: `RIFF`, `WAVE`, a 16-byte `fmt ` chunk
    /// (format tag 1, 16 bits) and the `data` chunk, little-endian.
    public static func encode(_ pcm: PCMBuffer) -> Data {
        let dataSize = pcm.samples.count * 2
        precondition(dataSize <= Int(UInt32.max) - 36, "PCM too large for a RIFF file")
        let channels = pcm.format.channels
        let rate = pcm.format.sampleRate
        var out = Data(capacity: canonicalHeaderSize + dataSize)
        out.append(contentsOf: Array("RIFF".utf8))
        appendLE(UInt32(36 + dataSize), to: &out)
        out.append(contentsOf: Array("WAVEfmt ".utf8))
        appendLE(UInt32(16), to: &out)
        appendLE(UInt16(1), to: &out)
        appendLE(UInt16(channels), to: &out)
        appendLE(UInt32(rate), to: &out)
        appendLE(UInt32(rate * channels * 2), to: &out)
        appendLE(UInt16(channels * 2), to: &out)
        appendLE(UInt16(16), to: &out)
        out.append(contentsOf: Array("data".utf8))
        appendLE(UInt32(dataSize), to: &out)
        #if _endian(little)
            pcm.samples.withUnsafeBytes { out.append(contentsOf: $0) }
        #else
            for sample in pcm.samples { appendLE(UInt16(bitPattern: sample), to: &out) }
        #endif
        return out
    }

    private static func appendLE<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}
