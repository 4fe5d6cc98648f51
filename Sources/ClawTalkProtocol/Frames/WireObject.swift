/// A JSON object that remembers the order its keys were first set, so encoding is
/// deterministic. Equality and hashing ignore order, as JSON does. A repeated key keeps its
/// first position and takes the last value (JavaScript's `JSON.parse`).
public struct WireObject: Sendable, Hashable {
    /// The keys in insertion order.
    public private(set) var keys: [String]
    private var storage: [String: WireJSON]

    /// An empty object.
    public init() {
        keys = []
        storage = [:]
    }

    /// An object with `members` in order.
    public init(_ members: some Sequence<(String, WireJSON)>) {
        self.init()
        for (key, value) in members { self[key] = value }
    }

    /// The value for `key`; setting nil removes the member.
    public subscript(key: String) -> WireJSON? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// Number of members.
    public var count: Int { keys.count }

    /// True when there are no members.
    public var isEmpty: Bool { keys.isEmpty }

    /// The members in key order.
    public var members: [(key: String, value: WireJSON)] {
        keys.map { ($0, storage[$0] ?? .null) }
    }

    /// The members as a dictionary (order lost).
    public var dictionary: [String: WireJSON] { storage }

    /// Order-insensitive equality.
    public static func == (lhs: WireObject, rhs: WireObject) -> Bool {
        lhs.storage == rhs.storage
    }

    /// Order-insensitive hash.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage)
    }
}

extension WireObject: ExpressibleByDictionaryLiteral {
    /// An object with the literal's key order.
    public init(dictionaryLiteral elements: (String, WireJSON)...) {
        self.init(elements)
    }
}
