/// Samples appended in blocks and read out in order, without moving or freeing what was appended.
///
/// Appending allocates (on the producer's side); ``read(into:maximum:)`` only copies, so the
/// playback thread can drain it without allocating. Blocks stay until the queue is released.
struct SampleQueue {
    private var blocks: [[Int16]] = []
    private var block = 0
    private var offset = 0
    /// Samples appended and not yet read.
    private(set) var available = 0
    /// Samples appended in total.
    private(set) var appended = 0

    /// Adds a block at the end.
    mutating func append(_ samples: [Int16]) {
        guard !samples.isEmpty else { return }
        blocks.append(samples)
        available += samples.count
        appended += samples.count
    }

    /// Copies up to `maximum` samples into the start of `destination`; returns how many.
    mutating func read(into destination: UnsafeMutableBufferPointer<Int16>, maximum: Int) -> Int {
        let wanted = min(maximum, destination.count, available)
        var copied = 0
        while copied < wanted {
            let take = blocks[block].withUnsafeBufferPointer { source in
                let take = min(wanted - copied, source.count - offset)
                (destination.baseAddress! + copied).update(from: source.baseAddress! + offset, count: take)
                return take
            }
            copied += take
            offset += take
            if offset == blocks[block].count {
                block += 1
                offset = 0
            }
        }
        available -= copied
        return copied
    }

    /// Moves the read position back by up to `count` samples (what was read is still held), so
    /// they are read again; returns how many. Does not allocate.
    mutating func rewind(by count: Int) -> Int {
        var left = count
        while left > 0 {
            if offset == 0 {
                guard block > 0 else { break }
                block -= 1
                offset = blocks[block].count
            }
            let step = min(left, offset)
            offset -= step
            left -= step
        }
        let moved = count - left
        available += moved
        return moved
    }
}
