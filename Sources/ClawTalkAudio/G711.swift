/// ITU-T G.711 companding (μ-law and A-law): linear s16 to bytes and back.
///
/// Pure functions and lookup tables; used for `ulaw_<rate>`/`alaw_<rate>` clips, WAV format tags 7
/// and 6, and the gateway's transcription relay, which takes μ-law at 8 kHz (talk.md §9.1).
public enum G711 {
    /// Compresses s16 samples to μ-law bytes (one byte per sample).
    public static func encodeMuLaw(_ samples: some Sequence<Int16>) -> [UInt8] {
        samples.map(compressMuLaw)
    }

    /// Compresses s16 samples to A-law bytes (one byte per sample).
    public static func encodeALaw(_ samples: some Sequence<Int16>) -> [UInt8] {
        samples.map(compressALaw)
    }

    /// Compresses one sample to μ-law: bias 0x84, clipped at 32635, segment and 4-bit mantissa,
    /// all bits inverted.
    public static func compressMuLaw(_ sample: Int16) -> UInt8 {
        let negative = sample < 0
        let magnitude = min(abs(Int(sample)), 32_635) + 0x84
        var exponent = 7
        var mask = 0x4000
        while exponent > 0, magnitude & mask == 0 {
            exponent -= 1
            mask >>= 1
        }
        let mantissa = (magnitude >> (exponent + 3)) & 0x0F
        let byte = UInt8((negative ? 0x80 : 0) | (exponent << 4) | mantissa)
        return ~byte
    }

    /// Compresses one sample to A-law: 13-bit magnitude, segment and 4-bit mantissa, sign bit set
    /// for positive values, even bits inverted (0x55).
    public static func compressALaw(_ sample: Int16) -> UInt8 {
        let positive = sample >= 0
        let magnitude = min(positive ? Int(sample) : -Int(sample) - 1, 32_767) >> 3
        let byte: Int
        if magnitude < 32 {
            byte = magnitude >> 1
        } else {
            var exponent = 1
            while exponent < 7, magnitude >= (32 << exponent) { exponent += 1 }
            byte = (exponent << 4) | ((magnitude >> exponent) & 0x0F)
        }
        return UInt8((positive ? 0x80 : 0) | byte) ^ 0x55
    }

    /// Expands μ-law bytes to s16 samples (one sample per byte).
    public static func decodeMuLaw(_ bytes: some Sequence<UInt8>) -> [Int16] {
        bytes.map { muLawTable[Int($0)] }
    }

    /// Expands A-law bytes to s16 samples (one sample per byte).
    public static func decodeALaw(_ bytes: some Sequence<UInt8>) -> [Int16] {
        bytes.map { aLawTable[Int($0)] }
    }

    /// Expands one μ-law byte.
    public static func expandMuLaw(_ byte: UInt8) -> Int16 {
        let value = ~byte
        let exponent = Int((value >> 4) & 0x07)
        let mantissa = Int(value & 0x0F)
        let magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84
        return Int16(value & 0x80 != 0 ? -magnitude : magnitude)
    }

    /// Expands one A-law byte.
    public static func expandALaw(_ byte: UInt8) -> Int16 {
        let value = byte ^ 0x55
        let exponent = Int((value >> 4) & 0x07)
        let mantissa = Int(value & 0x0F)
        let magnitude = exponent == 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1)
        // In A-law a set sign bit means positive.
        return Int16(value & 0x80 != 0 ? magnitude : -magnitude)
    }

    private static let muLawTable: [Int16] = (0...255).map { expandMuLaw(UInt8($0)) }
    private static let aLawTable: [Int16] = (0...255).map { expandALaw(UInt8($0)) }
}
