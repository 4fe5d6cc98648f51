/// ITU-T G.711 companding (μ-law and A-law) expanded to linear s16.
///
/// Pure lookup tables; used for `ulaw_<rate>`/`alaw_<rate>` clips and WAV format tags 7 and 6.
public enum G711 {
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
