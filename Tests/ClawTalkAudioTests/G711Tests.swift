import ClawTalkAudio
import Testing

@Suite struct G711Tests {
    @Test(arguments: [
        (UInt8(0xFF), Int16(0)), (0x7F, 0), (0x80, 32124), (0x00, -32124), (0xFE, 8), (0x7E, -8), (0xEF, 132),
    ])
    func expandsMuLaw(byte: UInt8, sample: Int16) {
        #expect(G711.expandMuLaw(byte) == sample)
        #expect(G711.decodeMuLaw([byte]) == [sample])
    }

    @Test(arguments: [(UInt8(0xD5), Int16(8)), (0x55, -8), (0xAA, 32256), (0x2A, -32256), (0xC5, 264)])
    func expandsALaw(byte: UInt8, sample: Int16) {
        #expect(G711.expandALaw(byte) == sample)
        #expect(G711.decodeALaw([byte]) == [sample])
    }

    @Test func tablesAreMonotonicWithinEachSign() {
        // μ-law: 0x80...0xFF are positive and descending in magnitude.
        let positives = (0x80...0xFF).map { G711.expandMuLaw(UInt8($0)) }
        #expect(zip(positives, positives.dropFirst()).allSatisfy { $0 > $1 })
        let aLaw = (0...255).map { G711.expandALaw(UInt8($0)) }
        #expect(Set(aLaw).count == 256)
    }

    @Test("compressing reverses expanding: every A-law byte, every μ-law byte but negative zero")
    func compressionRoundTrips() {
        for byte in 0...255 {
            let code = UInt8(byte)
            #expect(G711.compressALaw(G711.expandALaw(code)) == code, "A-law \(byte)")
            let muLaw = G711.compressMuLaw(G711.expandMuLaw(code))
            // 0x7F is μ-law's negative zero: it expands to 0, which compresses to 0xFF.
            #expect(muLaw == code || (code == 0x7F && muLaw == 0xFF), "μ-law \(byte)")
        }
    }

    @Test("compressed speech levels come back within the companding step")
    func compressionError() {
        for sample in stride(from: -32_768, through: 32_767, by: 97).map(Int16.init) {
            let magnitude = Double(abs(Int(sample)))
            let muLaw = Double(G711.expandMuLaw(G711.compressMuLaw(sample)))
            let aLaw = Double(G711.expandALaw(G711.compressALaw(sample)))
            // 4-bit mantissas: within 1/16 of the magnitude (plus the smallest steps near zero).
            #expect(abs(muLaw - Double(sample)) <= magnitude / 16 + 8, "μ-law \(sample) → \(muLaw)")
            #expect(abs(aLaw - Double(sample)) <= magnitude / 16 + 16, "A-law \(sample) → \(aLaw)")
        }
        #expect(G711.encodeMuLaw([0, 1000, -1000]).count == 3)
        #expect(G711.compressMuLaw(0) == 0xFF)
        #expect(G711.compressALaw(0) == 0xD5)
    }
}
