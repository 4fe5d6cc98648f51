/// Finds the known name closest to a mistyped one ("Did you mean 'devices'?").
public enum NameSuggester {
    /// The candidate nearest to `typed` by edit distance, if it is near enough to be a typo.
    ///
    /// Near enough means at most a third of the longer name's letters (at least 1, at most 3)
    /// differ, or `typed` is a prefix of exactly one candidate.
    public static func suggestion(for typed: String, among candidates: [String]) -> String? {
        let prefixed = candidates.filter { !typed.isEmpty && $0.hasPrefix(typed) }
        if prefixed.count == 1 { return prefixed[0] }
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, candidate)
            let limit = min(3, max(1, max(typed.count, candidate.count) / 3))
            guard distance <= limit else { continue }
            if best == nil || distance < best!.distance {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Edit distance between `a` and `b` counting insertions, deletions, substitutions and swaps
    /// of two adjacent characters as one edit each (optimal string alignment).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // d[i][j]: distance between the first i characters of a and the first j of b.
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
