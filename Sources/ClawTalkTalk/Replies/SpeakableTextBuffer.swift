import ClawTalkProtocol

/// Turns a growing assistant reply into speakable segments (talk-contract §4.3, §7.6):
///
/// - the directive (§5.6) is parsed from the first non-empty line before any segment is
///   emitted (a first line starting with `{` is waited for until it is complete);
/// - fenced code blocks (```` ``` ```` or `~~~` lines) are skipped;
/// - segments end at `.`, `!` or `?` followed by whitespace, at a newline, or at whitespace once
///   `softLimit` characters are buffered; a decision that needs the next character waits for it;
/// - Markdown markup is stripped from each segment (``MarkdownStripper``).
///
/// Feed the whole reply so far with ``update(_:)`` (cumulative) and the final text with
/// ``finish(_:)``. Pure and synchronous.
struct SpeakableTextBuffer: Sendable {
    /// Cut at whitespace once this many characters are buffered.
    let softLimit: Int
    /// The directive of the reply's first line, once known.
    private(set) var directive: TalkDirective?
    /// Segments emitted so far.
    private(set) var segments: [String] = []

    private var raw: [Character] = []
    private var position = 0
    private var headerDone = false
    private var inFence = false
    private var atLineStart = true
    private var pending: [Character] = []
    private var pendingAtLineStart = false
    private var nextCharStartsLine = false

    /// An empty buffer.
    init(softLimit: Int = 72) {
        self.softLimit = softLimit
    }

    /// Everything spoken, segments joined by spaces.
    var spokenText: String { segments.joined(separator: " ") }

    /// Takes the reply so far; returns the segments that became complete.
    mutating func update(_ text: String) -> [String] {
        replace(with: text)
        return process(final: false)
    }

    /// Takes the final reply (nil: keep the text held); returns the remaining segments.
    mutating func finish(_ text: String?) -> [String] {
        if let text { replace(with: text) }
        var output = process(final: true)
        if let segment = flush() { output.append(segment) }
        return output
    }

    /// Adopts a new full text. Text that extends what was read continues where reading stopped;
    /// a rewrite before anything was spoken starts over; otherwise reading continues at the
    /// same offset (best effort).
    private mutating func replace(with text: String) {
        let next = Array(text)
        if next.count >= position, next[..<position] == raw[..<position] {
            raw = next
        } else if segments.isEmpty {
            self = SpeakableTextBuffer(softLimit: softLimit)
            raw = next
        } else {
            raw = next
            position = min(position, next.count)
        }
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
            directive = parsed
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

    /// The pending characters as a segment (markup stripped), nil when nothing speakable.
    private mutating func flush() -> String? {
        guard !pending.isEmpty else { return nil }
        let text = MarkdownStripper.strip(String(pending), atLineStart: pendingAtLineStart)
        pending = []
        guard !text.isEmpty else { return nil }
        segments.append(text)
        return text
    }
}
