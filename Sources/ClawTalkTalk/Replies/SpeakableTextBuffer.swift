import ClawTalkProtocol

/// Turns a growing assistant reply into speakable segments (talk.md §4.3, §7.6):
///
/// - the directive (talk.md §5.6) is parsed from the first non-empty line before any segment is
///   emitted (a first line starting with `{` is waited for until it is complete);
/// - fenced code blocks (```` ``` ```` or `~~~` lines) are skipped;
/// - segments end at `.`, `!` or `?` followed by whitespace, at a newline, or at whitespace once
///   `softLimit` characters are buffered; a decision that needs the next character waits for it;
/// - Markdown markup is stripped from each segment (``MarkdownStripper``).
///
/// Feed the whole reply so far with ``update(_:rewrite:)`` (cumulative) and the final text with
/// ``finish(_:)``. A text that does not continue what was read, or one marked as a rewrite, is a
/// new **draft** of the reply (a new LLM call inside the run restarted it):
///
/// - what was read of the previous draft but not emitted (the sentence under way) is dropped;
/// - the new draft is read from its start, and each of its segments that repeats a segment
///   already emitted is not emitted again (see ``repeatKey(_:)``): a spoken sentence cannot be
///   taken back, and a listener who heard it once does not want it twice. Each emitted segment
///   stands for one repeat per draft, so a sentence the new draft says twice is spoken once more;
/// - the emitted segments of earlier drafts that the new draft has not repeated when it emits
///   its first new segment (or ends) are **withdrawn** (``takeWithdrawals()``): speech drops
///   them unless they already play;
/// - the directive stays the one of the first emitted segment (the reply's voice does not change
///   mid-reply; a directive line of the new draft is still stripped). Before anything was
///   emitted, the new draft's own directive line decides.
///
/// Pure and synchronous.
struct SpeakableTextBuffer: Sendable {
    /// Cut at whitespace once this many characters are buffered.
    let softLimit: Int
    /// The directive of the reply's first line, once known.
    private(set) var directive: TalkDirective?
    /// Segments emitted so far (over every draft, in order): what was handed to speech.
    private(set) var segments: [String] = []
    /// Segments of the current draft so far, including those not emitted because an earlier
    /// draft had already spoken them.
    private(set) var draftSegments: [String] = []

    private var raw: [Character] = []
    private var position = 0
    private var headerDone = false
    private var inFence = false
    private var atLineStart = true
    private var pending: [Character] = []
    private var pendingAtLineStart = false
    private var nextCharStartsLine = false
    /// Repeat keys of emitted segments the current draft may still repeat, with their indices in
    /// ``segments``.
    private var repeatable: [String: [Int]] = [:]
    /// Segments of earlier drafts that the current draft has not repeated (yet).
    private var candidates: Set<Int> = []
    /// Segments withdrawn and not yet taken (``takeWithdrawals()``).
    private var withdrawals: [Int] = []

    /// An empty buffer.
    init(softLimit: Int = 72) {
        self.softLimit = softLimit
    }

    /// Everything spoken, segments joined by spaces.
    var spokenText: String { segments.joined(separator: " ") }

    /// The speakable text of the current draft (the reply as it now reads), segments joined by
    /// spaces.
    var draftText: String { draftSegments.joined(separator: " ") }

    /// Takes the reply so far (`rewrite`: it restarts the reply even if it continues the text
    /// read, e.g. `replace:true`); returns the segments that became complete.
    mutating func update(_ text: String, rewrite: Bool = false) -> [String] {
        adopt(text, rewrite: rewrite)
        return process(final: false)
    }

    /// Takes the final reply (nil: keep the text held); returns the remaining segments.
    mutating func finish(_ text: String?) -> [String] {
        if let text { adopt(text, rewrite: false) }
        var output = process(final: true)
        if let segment = flush() { output.append(segment) }
        withdrawCandidates()
        return output
    }

    /// How segments compare when a new draft repeats one: letter case, runs of whitespace and
    /// closing punctuation do not matter (`Sure!` repeats `sure.`).
    static func repeatKey(_ segment: String) -> String {
        var key = Substring(segment.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " "))
        while let last = key.last, last.isWhitespace || ".!?…,;:".contains(last) { key.removeLast() }
        return String(key)
    }

    /// Adopts a new full text: one that agrees with everything read so far continues where
    /// reading stopped; anything else (or `rewrite`) starts a new draft.
    private mutating func adopt(_ text: String, rewrite: Bool) {
        let next = Array(text)
        if !rewrite, next.count >= position, next[..<position] == raw[..<position] {
            raw = next
        } else {
            startDraft(next)
        }
    }

    /// Reads `next` from its start as a new draft (see the type's documentation).
    private mutating func startDraft(_ next: [Character]) {
        var fresh = SpeakableTextBuffer(softLimit: softLimit)
        fresh.segments = segments
        fresh.directive = segments.isEmpty ? nil : directive
        for (index, segment) in segments.enumerated() {
            fresh.repeatable[Self.repeatKey(segment), default: []].append(index)
        }
        fresh.raw = next
        fresh.candidates = Set(segments.indices)
        fresh.withdrawals = withdrawals
        self = fresh
    }

    private mutating func process(final: Bool) -> [String] {
        var output: [String] = []
        if !headerDone, !readHeader(final: final) { return output }
        while position < raw.count {
            if atLineStart {
                switch lineStart(final: final) {
                case .wait:
                    return output
                case .skip(let next):
                    if let segment = flush() { output.append(segment) }
                    position = next
                    continue
                case .text:
                    atLineStart = false
                    nextCharStartsLine = true
                }
            }
            let char = raw[position]
            if char.isNewline {
                if let segment = flush() { output.append(segment) }
                position += 1
                atLineStart = true
                continue
            }
            let terminal = ".!?…".contains(char)
            let isLast = position + 1 >= raw.count
            if isLast, !final, terminal || pending.count + 1 >= softLimit { return output }
            if pending.isEmpty { pendingAtLineStart = nextCharStartsLine }
            nextCharStartsLine = false
            pending.append(char)
            position += 1
            let next = position < raw.count ? raw[position] : nil
            let followedBySpace = next.map(\.isWhitespace) ?? true
            if terminal, followedBySpace {
                if let segment = flush() { output.append(segment) }
            } else if pending.count >= softLimit, followedBySpace {
                if let segment = flush() { output.append(segment) }
            }
        }
        return output
    }

    /// Reads the directive line, if any; false while the first line is still incomplete.
    private mutating func readHeader(final: Bool) -> Bool {
        guard let start = raw.firstIndex(where: { !$0.isWhitespace }) else {
            if final { headerDone = true }
            return final
        }
        headerDone = true
        guard raw[start] == "{" else { return true }
        let end = raw[start...].firstIndex(where: \.isNewline)
        if end == nil, !final {
            headerDone = false
            return false
        }
        let line = String(raw[start..<(end ?? raw.count)])
        if let parsed = TalkDirective.parse(reply: line).directive {
            if segments.isEmpty { directive = parsed }
            position = end.map { $0 + 1 } ?? raw.count
        }
        return true
    }

    private enum LineStart {
        case wait
        case skip(to: Int)
        case text
    }

    /// Decides a line at `position`: a fence line or a line inside a fence is skipped whole;
    /// a line whose start could still become a fence is waited for.
    private mutating func lineStart(final: Bool) -> LineStart {
        let end = raw[position...].firstIndex(where: \.isNewline)
        let contentStart = raw[position..<(end ?? raw.count)].firstIndex { $0 != " " && $0 != "\t" }
        let content = contentStart.map { String(raw[$0..<(end ?? raw.count)]) } ?? ""
        let skipTo = end.map { $0 + 1 } ?? raw.count
        if content.hasPrefix("```") || content.hasPrefix("~~~") {
            if end == nil, !final { return .wait }
            inFence.toggle()
            return .skip(to: skipTo)
        }
        if end == nil, !final, "```".hasPrefix(content) || "~~~".hasPrefix(content) { return .wait }
        if inFence {
            if end == nil, !final { return .wait }
            return .skip(to: skipTo)
        }
        return .text
    }

    /// The pending characters as a segment to emit (markup stripped); nil when nothing
    /// speakable, or when the segment repeats one an earlier draft already emitted.
    private mutating func flush() -> String? {
        guard !pending.isEmpty else { return nil }
        let text = MarkdownStripper.strip(String(pending), atLineStart: pendingAtLineStart)
        pending = []
        guard !text.isEmpty else { return nil }
        draftSegments.append(text)
        let key = Self.repeatKey(text)
        if var indices = repeatable[key], !indices.isEmpty {
            candidates.remove(indices.removeFirst())
            repeatable[key] = indices
            return nil
        }
        withdrawCandidates()
        segments.append(text)
        return text
    }

    /// The segments of earlier drafts that the current draft did not repeat before its first new
    /// segment (or its end) were discarded with their draft: they are withdrawn.
    private mutating func withdrawCandidates() {
        guard !candidates.isEmpty else { return }
        withdrawals.append(contentsOf: candidates.sorted())
        candidates = []
    }

    /// Segments (indices in ``segments``) discarded by a rewrite since the last call: what of
    /// them has not started playing must not be spoken (talk.md §4.3).
    mutating func takeWithdrawals() -> [Int] {
        defer { withdrawals = [] }
        return withdrawals
    }
}
