import ClawTalkAudio
import Foundation
import Testing

@Suite("FrameRing (SPSC)")
struct FrameRingTests {
    /// A frame whose samples all derive from `sequence`, so corruption and mix-ups are visible.
    static func frame(_ sequence: Int, size: Int) -> [Int16] {
        (0..<size).map { Int16(truncatingIfNeeded: sequence &* 31 &+ $0 &* 7) }
    }

    static func stamp(_ sequence: Int) -> FrameRing.Stamp {
        FrameRing.Stamp(timestampNanoseconds: UInt64(1_000 + sequence * 20_000_000), sequence: UInt64(sequence))
    }

    @discardableResult
    static func write(_ ring: FrameRing, _ sequence: Int) -> Bool {
        frame(sequence, size: ring.frameSize).withUnsafeBufferPointer { ring.write($0, stamp: stamp(sequence)) }
    }

    @Test("frames come out in order with their stamps")
    func ordering() throws {
        let ring = FrameRing(capacity: 4, frameSize: 5)
        #expect(ring.isEmpty)
        for sequence in 0..<3 { #expect(Self.write(ring, sequence)) }
        #expect(ring.count == 3)
        for sequence in 0..<3 {
            let (samples, stamp) = try #require(ring.read())
            #expect(samples == Self.frame(sequence, size: 5))
            #expect(stamp == Self.stamp(sequence))
        }
        #expect(ring.read() == nil)
        #expect(ring.isEmpty)
    }

    @Test("indices wrap around the storage many times without mixing frames")
    func wraparound() throws {
        let ring = FrameRing(capacity: 3, frameSize: 4)
        var next = 0
        for round in 0..<50 {
            // Alternate between writing one or two frames ahead, so read and write slots drift.
            let batch = round % 2 + 1
            for offset in 0..<batch { #expect(Self.write(ring, next + offset)) }
            for offset in 0..<batch {
                let (samples, stamp) = try #require(ring.read())
                #expect(samples == Self.frame(next + offset, size: 4))
                #expect(stamp.sequence == UInt64(next + offset))
            }
            next += batch
        }
        #expect(ring.written == next)
        #expect(ring.overruns == 0)
    }

    @Test("a full ring drops the incoming frame and counts an overrun; reading makes room again")
    func fullRing() throws {
        let ring = FrameRing(capacity: 2, frameSize: 3)
        #expect(Self.write(ring, 0))
        #expect(Self.write(ring, 1))
        #expect(!Self.write(ring, 2))
        #expect(!Self.write(ring, 3))
        #expect(ring.overruns == 2)
        #expect(ring.count == 2)
        #expect(ring.written == 2)
        #expect(try #require(ring.read()).stamp.sequence == 0)
        #expect(Self.write(ring, 4))
        #expect(try #require(ring.read()).stamp.sequence == 1)
        // The dropped frames 2 and 3 show up as a gap in the sequence.
        #expect(try #require(ring.read()).stamp.sequence == 4)
        #expect(ring.read() == nil)
        #expect(ring.overruns == 2)
    }

    @Test("reading an empty ring leaves the buffer untouched")
    func emptyRead() {
        let ring = FrameRing(capacity: 2, frameSize: 3)
        var buffer: [Int16] = [9, 9, 9, 9]
        let stamp = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(stamp == nil)
        #expect(buffer == [9, 9, 9, 9])
        Self.write(ring, 5)
        let read = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(read?.sequence == 5)
        #expect(Array(buffer[0..<3]) == Self.frame(5, size: 3))
        #expect(buffer[3] == 9)
    }

    /// Shared between the stress test's producer thread and the test body.
    final class ProducerReport: @unchecked Sendable {
        var rejected = 0
    }

    @Test("a producer thread and a consumer thread pass 200k frames in order, uncorrupted", .timeLimit(.minutes(1)))
    func twoThreadStress() throws {
        let total = 200_000
        let ring = FrameRing(capacity: 16, frameSize: 8)
        let report = ProducerReport()
        let done = DispatchSemaphore(value: 0)
        let producer = Thread {
            var frame = [Int16](repeating: 0, count: 8)
            var rejected = 0
            for sequence in 0..<total {
                for index in 0..<8 { frame[index] = Int16(truncatingIfNeeded: sequence &* 31 &+ index &* 7) }
                let stamp = FrameRingTests.stamp(sequence)
                // Retry a rejected frame so every sequence number must arrive exactly once.
                while !frame.withUnsafeBufferPointer({ ring.write($0, stamp: stamp) }) {
                    rejected += 1
                    sched_yield()
                }
            }
            report.rejected = rejected
            done.signal()
        }
        producer.start()

        var buffer = [Int16](repeating: 0, count: 8)
        var expected = 0
        var corrupt = 0
        var outOfOrder = 0
        while expected < total {
            guard let stamp = buffer.withUnsafeMutableBufferPointer({ ring.read(into: $0) }) else {
                sched_yield()
                continue
            }
            if stamp != Self.stamp(expected) { outOfOrder += 1 }
            for index in 0..<8 where buffer[index] != Int16(truncatingIfNeeded: expected &* 31 &+ index &* 7) {
                corrupt += 1
            }
            expected = Int(stamp.sequence) + 1
        }
        done.wait()
        #expect(outOfOrder == 0)
        #expect(corrupt == 0)
        #expect(ring.written == total)
        #expect(ring.overruns == report.rejected)
        #expect(ring.read() == nil)
    }
}
