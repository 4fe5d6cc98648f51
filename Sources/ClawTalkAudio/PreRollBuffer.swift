/// The most recent stretch of captured audio (300 ms by default), so that speech which began
/// just before a wake word fired or a push-to-talk key went down is not lost.
///
/// A circular buffer of samples, allocated once: appending a buffer
/// overwrites the oldest samples and never allocates; ``snapshot()`` returns them oldest first.
/// A value type with no locking: the owner keeps it on one task or behind its own lock.
public struct PreRollBuffer: Sendable {
    /// The default length: long enough for the start of the first word after a trigger.
    public static let defaultMilliseconds = 300

    /// Format of the samples (16 kHz mono by default).
    public let format: AudioFormat
    /// Samples kept at most (``milliseconds`` of ``format``).
    public let capacity: Int

    private var storage: [Int16]
    /// Index where the next sample goes.
    private var next = 0
    /// Samples held, up to ``capacity``.
    public private(set) var count = 0

    /// Keeps the last `milliseconds` (at least one sample) of `format` audio.
    public init(milliseconds: Int = PreRollBuffer.defaultMilliseconds, format: AudioFormat = .speech) {
        self.format = format
        capacity = max(format.sampleCount(milliseconds: milliseconds), 1)
        storage = [Int16](repeating: 0, count: capacity)
    }

    /// Length kept at most, in milliseconds (rounded down).
    public var milliseconds: Int { capacity * 1000 / (format.sampleRate * format.channels) }

    /// Length held now, in milliseconds (rounded down).
    public var heldMilliseconds: Int { count * 1000 / (format.sampleRate * format.channels) }

    /// True before anything was appended (or after ``removeAll()``).
    public var isEmpty: Bool { count == 0 }

    /// Appends samples, dropping the oldest beyond ``capacity``.
    public mutating func append(_ samples: UnsafeBufferPointer<Int16>) {
        // Only the last `capacity` samples can survive.
        let kept = UnsafeBufferPointer(rebasing: samples[max(samples.count - capacity, 0)...])
        guard !kept.isEmpty else { return }
        storage.withUnsafeMutableBufferPointer { ring in
            let first = min(kept.count, capacity - next)
            _ = UnsafeMutableBufferPointer(rebasing: ring[next..<next + first])
                .update(fromContentsOf: UnsafeBufferPointer(rebasing: kept[0..<first]))
            let rest = kept.count - first
            if rest > 0 {
                _ = UnsafeMutableBufferPointer(rebasing: ring[0..<rest])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: kept[first...]))
            }
        }
        next = (next + kept.count) % capacity
        count = min(count + kept.count, capacity)
    }

    /// Appends samples, dropping the oldest beyond ``capacity``.
    public mutating func append(_ samples: [Int16]) {
        samples.withUnsafeBufferPointer { append($0) }
    }

    /// The samples held, oldest first (at most ``capacity``).
    public func snapshot() -> [Int16] {
        let start = (next - count + capacity) % capacity
        if start + count <= capacity {
            return Array(storage[start..<start + count])
        }
        return Array(storage[start...]) + storage[0..<(start + count - capacity)]
    }

    /// Forgets everything held (the storage stays allocated).
    public mutating func removeAll() {
        next = 0
        count = 0
    }
}
