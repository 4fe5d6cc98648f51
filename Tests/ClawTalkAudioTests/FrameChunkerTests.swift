import ClawTalkAudio
import Testing

@Suite struct FrameChunkerTests {
    @Test(arguments: [
        // frame size, input chunk sizes
        (320, [320, 320, 320]),
        (320, [100, 100, 100, 100, 100, 100, 100]),
        (160, [1, 159, 161, 319, 0, 480, 7]),
        (160, [1000]),
        (3, [1, 1, 1, 2, 2, 2, 5]),
        (320, [319]),
        (1, [4, 0, 3]),
    ])
    func framesFollowTheInputInOrder(frameSize: Int, chunks: [Int]) {
        var chunker = FrameChunker(frameSize: frameSize)
        let total = chunks.reduce(0, +)
        let input = (0..<total).map { Int16(truncatingIfNeeded: $0) }
        var frames: [[Int16]] = []
        var offset = 0
        for size in chunks {
            frames += chunker.append(Array(input[offset..<(offset + size)]))
            offset += size
        }
        #expect(frames.count == total / frameSize)
        #expect(frames.allSatisfy { $0.count == frameSize })
        #expect(frames.flatMap { $0 } == Array(input.prefix(frames.count * frameSize)))
        #expect(chunker.pendingCount == total % frameSize)

        let rest = chunker.flush(padWithZeros: true)
        if total % frameSize == 0 {
            #expect(rest == nil)
        } else {
            let tail = Array(input.suffix(total % frameSize))
            #expect(rest == tail + [Int16](repeating: 0, count: frameSize - tail.count))
        }
        #expect(chunker.pendingCount == 0)
    }

    @Test func pointerAPIEmitsTheSameFramesAsTheArrayAPI() {
        var byPointer = FrameChunker(format: .speech, milliseconds: 10)
        var byArray = FrameChunker(frameSize: 160)
        #expect(byPointer.frameSize == 160)
        let input = (0..<1234).map { Int16(truncatingIfNeeded: $0 * 31) }
        var pointerFrames: [[Int16]] = []
        var arrayFrames: [[Int16]] = []
        for range in [0..<70, 70..<400, 400..<401, 401..<1234] {
            let chunk = Array(input[range])
            chunk.withUnsafeBufferPointer { buffer in
                byPointer.append(buffer) { pointerFrames.append(Array($0)) }
            }
            arrayFrames += byArray.append(chunk)
        }
        #expect(pointerFrames == arrayFrames)
        #expect(pointerFrames.count == 7)
    }

    @Test func flushWithoutPaddingReturnsTheShortRemainder() {
        var chunker = FrameChunker(frameSize: 4)
        #expect(chunker.flush(padWithZeros: false) == nil)
        #expect(chunker.append([1, 2, 3, 4, 5, 6]) == [[1, 2, 3, 4]])
        #expect(chunker.flush(padWithZeros: false) == [5, 6])
        #expect(chunker.flush(padWithZeros: true) == nil)
        _ = chunker.append([7, 8, 9])
        chunker.reset()
        #expect(chunker.pendingCount == 0)
        #expect(chunker.append([1, 2, 3, 4]) == [[1, 2, 3, 4]])
    }

    @Test func errorsThrownByTheEmitterStopTheLoop() {
        struct Stop: Error {}
        var chunker = FrameChunker(frameSize: 2)
        var seen = 0
        let input: [Int16] = [1, 2, 3, 4, 5, 6]
        #expect(throws: Stop.self) {
            try input.withUnsafeBufferPointer { buffer in
                try chunker.append(buffer) { _ throws(Stop) in
                    seen += 1
                    if seen == 2 { throw Stop() }
                }
            }
        }
        #expect(seen == 2)
    }
}
