/// The lost-turn sequence's bookkeeping, pure: each delivery is counted for the question whose
/// text it carries (the lowest ``WordErrorRate``, at most ``TurnLedger/maximumRate``), and each
/// question is then delivered exactly once, lost, or duplicated. A delivery too garbled to
/// match, arriving where a question that nothing else carried belongs (between the deliveries of
/// the questions asked before and after it), is that question misheard: delivered, not lost.
enum TurnLedger {
    /// A delivery further from every question than this belongs to none (a hallucination, or a
    /// transcript too garbled to say which question it was).
    static let maximumRate = 0.5

    /// Questions by how often they arrived, and deliveries that matched none.
    struct Count: Sendable, Equatable {
        /// Questions that arrived exactly once.
        var once = 0
        /// Questions that never arrived.
        var lost = 0
        /// Questions that arrived more than once.
        var duplicated = 0
        /// Deliveries that carried no question.
        var unmatched = 0
        /// Questions delivered once, but too misheard to match their text (counted in ``once``).
        var misheard = 0

        /// Sums two counts (several runs).
        static func + (lhs: Count, rhs: Count) -> Count {
            Count(
                once: lhs.once + rhs.once, lost: lhs.lost + rhs.lost, duplicated: lhs.duplicated + rhs.duplicated,
                unmatched: lhs.unmatched + rhs.unmatched, misheard: lhs.misheard + rhs.misheard)
        }
    }

    /// The question (index) that `text` carries, or nil.
    static func owner(of text: String, questions: [String]) -> Int? {
        let scored = questions.enumerated().map {
            ($0.offset, WordErrorRate.rate(reference: $0.element, hypothesis: text))
        }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= maximumRate else { return nil }
        return best.0
    }

    /// How often each question arrived among `deliveries` (in arrival order; questions in the
    /// order they were asked).
    static func count(questions: [String], deliveries: [String]) -> Count {
        let owners = deliveries.map { owner(of: $0, questions: questions) }
        var arrivals = [Int](repeating: 0, count: questions.count)
        for case let owner? in owners { arrivals[owner] += 1 }
        var count = Count()
        // Runs of unmatched deliveries, each between the matched deliveries around it: paired in
        // order with the questions between those two that nothing carried, when the numbers agree.
        var index = 0
        while index < owners.count {
            guard owners[index] == nil else {
                index += 1
                continue
            }
            var end = index
            while end < owners.count, owners[end] == nil { end += 1 }
            let before = owners[..<index].last { $0 != nil }.flatMap { $0 } ?? -1
            let after = owners[end...].first { $0 != nil }.flatMap { $0 } ?? questions.count
            let missing = before + 1 < after ? (before + 1..<after).filter { arrivals[$0] == 0 } : []
            if missing.count == end - index {
                for question in missing { arrivals[question] = 1 }
                count.misheard += missing.count
            } else {
                count.unmatched += end - index
            }
            index = end
        }
        for arrived in arrivals {
            switch arrived {
            case 0: count.lost += 1
            case 1: count.once += 1
            default: count.duplicated += 1
            }
        }
        return count
    }
}
