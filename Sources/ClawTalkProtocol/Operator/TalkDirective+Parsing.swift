extension TalkDirective {
    /// Splits a reply into its directive and the text to speak (talk.md §5.6).
    ///
    /// The first non-empty line is a directive when, trimmed, it starts with `{`, ends with `}`
    /// and parses as a JSON object; then that line, the blank lines before it and one blank
    /// line after it are removed. Otherwise the reply is returned unchanged with no directive.
    public static func parse(reply: String) -> (directive: TalkDirective?, text: String) {
        // "\r\n" is one Character in Swift, so both separators are listed.
        let lines = reply.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        guard let index = lines.firstIndex(where: { !String($0).trimmingWhitespace().isEmpty }) else {
            return (nil, reply)
        }
        let head = String(lines[index]).trimmingWhitespace()
        guard head.hasPrefix("{"), head.hasSuffix("}"), let object = try? WireJSON(parsing: head).objectValue else {
            return (nil, reply)
        }
        var rest = Array(lines[(index + 1)...])
        if let first = rest.first, String(first).trimmingWhitespace().isEmpty { rest.removeFirst() }
        return (TalkDirective(object: object), rest.joined(separator: "\n"))
    }

    /// Reads the recognized keys of a directive object (first alias present wins).
    init(object: WireObject) {
        var reader = DirectiveReader(object: object)
        self.init()
        voice = reader.string(["voice", "voice_id", "voiceId"])
        modelId = reader.string(["model", "model_id", "modelId"])
        speed = reader.double(["speed"], in: 0.5...2)
        rateWpm = reader.int(["rate", "wpm", "rateWpm"]) { 87.5 < Double($0) && Double($0) < 350 }
        stability = reader.double(["stability"], in: 0...1)
        similarity = reader.double(["similarity", "similarity_boost", "similarityBoost"], in: 0...1)
        style = reader.double(["style"], in: 0...1)
        speakerBoost =
            reader.bool(["speakerBoost", "speaker_boost"])
            ?? reader.bool(["no_speaker_boost", "noSpeakerBoost"]).map { !$0 }
        seed = reader.int(["seed"]) { $0 >= 0 }
        normalize = reader.string(["normalize", "apply_text_normalization"])
        language = reader.string(["lang", "language", "language_code"])
        outputFormat = reader.string(["output_format", "outputFormat", "format"])
        latencyTier = reader.int(["latency_tier", "latencyTier", "latency"]) { (0...4).contains($0) }
        once = reader.bool(["once"]) ?? false
        unknownKeys = object.keys.filter { !reader.known.contains($0) }.sorted()
        droppedKeys = reader.dropped.sorted()
    }
}

/// Typed, range-checked access to directive keys, recording which keys were known or dropped.
private struct DirectiveReader {
    let object: WireObject
    var known: Set<String> = []
    var dropped: [String] = []

    init(object: WireObject) {
        self.object = object
    }

    /// The first alias present, marking all aliases known.
    private mutating func value(_ keys: [String]) -> (key: String, value: WireJSON)? {
        known.formUnion(keys)
        for key in keys { if let value = object[key] { return (key, value) } }
        return nil
    }

    mutating func string(_ keys: [String]) -> String? {
        guard let (key, value) = value(keys) else { return nil }
        guard let string = value.stringValue?.trimmingWhitespace(), !string.isEmpty else {
            dropped.append(key)
            return nil
        }
        return string
    }

    mutating func double(_ keys: [String], in range: ClosedRange<Double>) -> Double? {
        guard let (key, value) = value(keys) else { return nil }
        let number = value.doubleValue ?? value.stringValue.flatMap { Double($0.trimmingWhitespace()) }
        guard let number, number.isFinite, range.contains(number) else {
            dropped.append(key)
            return nil
        }
        return number
    }

    mutating func int(_ keys: [String], valid: (Int) -> Bool) -> Int? {
        guard let (key, value) = value(keys) else { return nil }
        let number = value.intValue ?? value.stringValue.flatMap { Int($0.trimmingWhitespace()) }
        guard let number, valid(number) else {
            dropped.append(key)
            return nil
        }
        return number
    }

    mutating func bool(_ keys: [String]) -> Bool? {
        guard let (key, value) = value(keys) else { return nil }
        if let bool = value.boolValue { return bool }
        switch value.stringValue?.trimmingWhitespace().lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default:
            dropped.append(key)
            return nil
        }
    }
}
