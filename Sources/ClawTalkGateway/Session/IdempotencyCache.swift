/// Outcomes by `idempotencyKey` (protocol.md §10.2.6): at most `capacity` keys, each
/// kept for `lifetime`; the oldest goes first. Pure: time is passed in.
struct IdempotencyCache: Sendable, Hashable {
    private struct Entry: Sendable, Hashable {
        var outcome: InvokeOutcome
        var storedAt: Duration
    }

    let capacity: Int
    let lifetime: Duration
    private var entries: [String: Entry] = [:]
    private var order: [String] = []

    init(capacity: Int, lifetime: Duration) {
        self.capacity = max(1, capacity)
        self.lifetime = lifetime
    }

    /// Number of keys held.
    var count: Int { entries.count }

    /// The outcome stored for `key`, unless expired.
    mutating func outcome(for key: String, now: Duration) -> InvokeOutcome? {
        prune(now: now)
        return entries[key]?.outcome
    }

    /// Stores `outcome` under `key` (replacing an older one), evicting the oldest beyond capacity.
    mutating func store(_ outcome: InvokeOutcome, for key: String, now: Duration) {
        prune(now: now)
        if entries[key] != nil { order.removeAll { $0 == key } }
        entries[key] = Entry(outcome: outcome, storedAt: now)
        order.append(key)
        while order.count > capacity {
            entries[order.removeFirst()] = nil
        }
    }

    private mutating func prune(now: Duration) {
        while let first = order.first, let entry = entries[first], now - entry.storedAt >= lifetime {
            entries[first] = nil
            order.removeFirst()
        }
    }
}
