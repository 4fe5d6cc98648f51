extension WAVFile {
    /// What the `fmt ` chunk says, after validation.
    private struct FormatChunk {
        var encoding: SampleEncoding
        var channels: Int
        var sampleRate: Int
    }

    /// GUID tail shared by every `KSDATAFORMAT_SUBTYPE_*` (bytes 2..<16 of the sub-format).
    private static let subFormatTail: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
    ]

    private static let maxChannels = 8
    private static let maxSampleRate = 1_000_000

    /// Parses a whole file; never reads outside `bytes`.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(AudioError) -> WAVFile {
        let count = bytes.count
        let signature = fourCC(bytes, at: 0, available: min(4, count))
        if signature == "RIFX" || signature == "RF64" {
            throw .invalidWAV(reason: "\(signature) files are not supported")
        }
        guard "RIFF".hasPrefix(signature), count > 0 else {
            throw .invalidWAV(reason: count == 0 ? "empty input" : "missing RIFF signature")
        }
        guard count >= 12 else { throw .truncated(what: "RIFF header") }
        guard fourCC(bytes, at: 8) == "WAVE" else {
            throw .invalidWAV(reason: "RIFF form is \"\(fourCC(bytes, at: 8))\", not WAVE")
        }

        var format: FormatChunk?
        var dataRange: Range<Int>?
        var dataTruncated = false
        var cutInside: String?  // the part the file ends inside of, if the walk ran off the end
        var offset = 12
        while offset < count {
            guard count - offset >= 8 else {
                cutInside = "chunk header"
                break
            }
            let id = fourCC(bytes, at: offset)
            let size = Int(load(UInt32.self, bytes, at: offset + 4))
            let body = offset + 8
            let available = count - body
            if id == "data" {
                if size > available {
                    dataRange = body..<count
                    dataTruncated = true
                    break
                }
                dataRange = body..<(body + size)
                if format != nil { break }
            } else if size > available {
                cutInside = id == "fmt " ? "fmt chunk" : "\"\(id)\" chunk"
                break
            } else if id == "fmt " {
                format = try parseFormat(UnsafeRawBufferPointer(rebasing: bytes[body..<(body + size)]))
            }
            offset = body + size + (size & 1)
        }

        guard let format else {
            if let cutInside { throw .truncated(what: cutInside) }
            throw .invalidWAV(reason: "no fmt chunk")
        }
        guard let dataRange else {
            if let cutInside { throw .truncated(what: cutInside) }
            throw .invalidWAV(reason: "no data chunk")
        }
        let frameBytes = format.channels * format.encoding.bytesPerSample
        let usable = dataRange.count - dataRange.count % frameBytes
        let payload = UnsafeRawBufferPointer(
            rebasing: bytes[dataRange.lowerBound..<(dataRange.lowerBound + usable)])
        let pcm = PCMBuffer(
            format: AudioFormat(sampleRate: format.sampleRate, channels: format.channels),
            samples: convert(payload, from: format.encoding))
        return WAVFile(
            pcm: pcm, sourceEncoding: format.encoding,
            isTruncated: dataTruncated || usable != dataRange.count)
    }

    private static func parseFormat(_ chunk: UnsafeRawBufferPointer) throws(AudioError) -> FormatChunk {
        guard chunk.count >= 16 else {
            throw .invalidWAV(reason: "fmt chunk is \(chunk.count) bytes, needs 16")
        }
        var tag = load(UInt16.self, chunk, at: 0)
        let channels = Int(load(UInt16.self, chunk, at: 2))
        let sampleRate = Int(load(UInt32.self, chunk, at: 4))
        let blockAlign = Int(load(UInt16.self, chunk, at: 12))
        let bits = Int(load(UInt16.self, chunk, at: 14))
        if tag == 0xFFFE {
            guard chunk.count >= 40 else {
                throw .invalidWAV(reason: "WAVE_FORMAT_EXTENSIBLE fmt chunk is \(chunk.count) bytes, needs 40")
            }
            let tail = (0..<subFormatTail.count).map { chunk[26 + $0] }
            guard tail == subFormatTail else { throw .unsupportedEncoding(formatTag: 0xFFFE, bitsPerSample: bits) }
            tag = load(UInt16.self, chunk, at: 24)
        }
        guard channels > 0 else { throw .invalidWAV(reason: "0 channels") }
        guard channels <= maxChannels else {
            throw .invalidWAV(reason: "\(channels) channels (at most \(maxChannels))")
        }
        guard sampleRate > 0, sampleRate <= maxSampleRate else {
            throw .invalidWAV(reason: "sample rate \(sampleRate) Hz")
        }
        let encoding: SampleEncoding
        switch (tag, bits) {
        case (1, 1...8): encoding = .unsignedInt8
        case (1, 9...16): encoding = .signedInt(bits: 16)
        case (1, 17...24): encoding = .signedInt(bits: 24)
        case (1, 25...32): encoding = .signedInt(bits: 32)
        case (3, 32), (3, 64): encoding = .float(bits: bits)
        case (6, 8): encoding = .aLaw
        case (7, 8): encoding = .muLaw
        default: throw .unsupportedEncoding(formatTag: tag, bitsPerSample: bits)
        }
        let expectedAlign = channels * encoding.bytesPerSample
        guard blockAlign == expectedAlign else {
            throw .invalidWAV(
                reason: "block align \(blockAlign) does not match \(channels) × \(encoding.bytesPerSample) bytes")
        }
        return FormatChunk(encoding: encoding, channels: channels, sampleRate: sampleRate)
    }

    /// Converts whole samples of `encoding` to s16.
    private static func convert(_ bytes: UnsafeRawBufferPointer, from encoding: SampleEncoding) -> [Int16] {
        let count = bytes.count / encoding.bytesPerSample
        switch encoding {
        case .unsignedInt8:
            return bytes.map { Int16(bitPattern: UInt16($0 ^ 0x80) << 8) }
        case .muLaw:
            return G711.decodeMuLaw(bytes)
        case .aLaw:
            return G711.decodeALaw(bytes)
        case .signedInt(let bits):
            // The two most significant bytes of each little-endian sample hold the s16 value.
            let step = bits / 8
            return (0..<count).map { Int16(bitPattern: load(UInt16.self, bytes, at: $0 * step + step - 2)) }
        case .float(let bits):
            if bits == 64 {
                return (0..<count).map { floatToInt16(Float(Double(bitPattern: load(UInt64.self, bytes, at: $0 * 8)))) }
            }
            return (0..<count).map { floatToInt16(Float(bitPattern: load(UInt32.self, bytes, at: $0 * 4))) }
        }
    }

    /// Scales ±1.0 to s16 with rounding and clamping; NaN becomes silence.
    private static func floatToInt16(_ value: Float) -> Int16 {
        guard !value.isNaN else { return 0 }
        let scaled = (value * 32768).rounded()
        return Int16(max(-32768, min(32767, scaled)))
    }

    private static func load<T: FixedWidthInteger>(_: T.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    private static func fourCC(_ bytes: UnsafeRawBufferPointer, at offset: Int, available: Int = 4) -> String {
        String(decoding: bytes[offset..<(offset + available)], as: UTF8.self)
    }
}
