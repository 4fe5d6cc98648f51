import ClawTalkAudio
import Testing

@Suite("PreRollBuffer")
struct PreRollBufferTests {
    /// Consecutive 20 ms frames (320 samples) numbered through their samples.
    static func frames(_ count: Int, from start: Int = 0) -> [[Int16]] {
        (start..<start + count).map { index in
            (0..<320).map { Int16(truncatingIfNeeded: index * 320 + $0) }
        }
    }

    @Test("the default keeps 300 ms of 16 kHz mono")
    func defaults() {
        let buffer = PreRollBuffer()
        #expect(buffer.capacity == 4800)
        #expect(buffer.milliseconds == 300)
        #expect(buffer.isEmpty)
        #expect(buffer.snapshot().isEmpty)
    }

    @Test("before it fills, the snapshot is everything appended, in order")
    func partial() {
        var buffer = PreRollBuffer(milliseconds: 300)
        let frames = Self.frames(5)
        for frame in frames { buffer.append(frame) }
        #expect(buffer.count == 1600)
        #expect(buffer.heldMilliseconds == 100)
        #expect(buffer.snapshot() == frames.flatMap { $0 })
    }

    @Test("after it fills, the snapshot is the most recent capacity, oldest first", arguments: [300, 310, 500])
    func rolling(milliseconds: Int) {
        var buffer = PreRollBuffer(milliseconds: milliseconds)
        let frames = Self.frames(60)
        for frame in frames { buffer.append(frame) }
        let all = frames.flatMap { $0 }
        let expected = Array(all.suffix(milliseconds * 16))
        #expect(buffer.count == milliseconds * 16)
        #expect(buffer.snapshot() == expected)
    }

    @Test("a block longer than the buffer keeps only its tail; odd sizes wrap correctly")
    func oddSizes() {
        var buffer = PreRollBuffer(milliseconds: 1, format: AudioFormat(sampleRate: 10_000))  // 10 samples
        var reference: [Int16] = []
        for (index, size) in [3, 7, 1, 25, 4, 9, 10, 0, 2].enumerated() {
            let block = (0..<size).map { Int16(index * 100 + $0) }
            buffer.append(block)
            reference += block
            #expect(buffer.snapshot() == Array(reference.suffix(10)))
        }
        buffer.removeAll()
        #expect(buffer.isEmpty)
        buffer.append([1, 2])
        #expect(buffer.snapshot() == [1, 2])
    }
}
