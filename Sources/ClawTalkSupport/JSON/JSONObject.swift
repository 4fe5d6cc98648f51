/// A JSON object: members in source order, keys unique.
public struct JSONObject: Sendable, Equatable {
    /// One `key: value` pair.
    public struct Member: Sendable, Equatable {
        /// The key.
        public var key: String
        /// The value.
        public var value: JSONValue

        /// Creates a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Members in order.
    public private(set) var members: [Member]

    /// Creates an object from members; a later member replaces an earlier one with the same key.
    public init(_ members: [Member] = []) {
        self.members = []
        for member in members { self[member.key] = member.value }
    }

    /// Keys in order.
    public var keys: [String] { members.map(\.key) }

    /// Number of members.
    public var count: Int { members.count }

    /// The value for `key`; setting nil removes the member, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            let index = members.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let i?, let v?): members[i].value = v
            case (let i?, nil): members.remove(at: i)
            case (nil, let v?): members.append(Member(key: key, value: v))
            case (nil, nil): break
            }
        }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object from a literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { Member(key: $0.0, value: $0.1) })
    }
}
