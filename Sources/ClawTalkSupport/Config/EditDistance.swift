/// "Did you mean" suggestions for misspelled keys and variable names.
enum EditDistance {
    /// Levenshtein distance between `a` and `b`, ignoring case.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.lowercased())
        let y = Array(b.lowercased())
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }

    /// The candidate closest to `word` if it is close enough (at most a third of the word's
    /// length, minimum 2); else a candidate whose last dotted component equals the word's.
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { (candidate: $0, distance: distance(word, $0)) }
        if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= max(2, word.count / 3) {
            return best.candidate
        }
        let last = word.split(separator: ".").last.map { $0.lowercased() }
        return candidates.first { $0.split(separator: ".").last.map { $0.lowercased() } == last }
    }
}
