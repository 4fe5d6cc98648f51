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
}
