/// The lost-turn sequence's bookkeeping, pure: each delivery is counted for the question whose
/// text it carries (the lowest ``WordErrorRate``, at most ``TurnLedger/maximumRate``), and each
/// question is then delivered exactly once, lost, or duplicated.
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

        /// Sums two counts (several runs).
        static func + (lhs: Count, rhs: Count) -> Count {
            Count(
                once: lhs.once + rhs.once, lost: lhs.lost + rhs.lost, duplicated: lhs.duplicated + rhs.duplicated,
                unmatched: lhs.unmatched + rhs.unmatched)
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

    /// How often each question arrived among `deliveries`.
    static func count(questions: [String], deliveries: [String]) -> Count {
        var arrivals = [Int](repeating: 0, count: questions.count)
        var count = Count()
        for text in deliveries {
            if let owner = owner(of: text, questions: questions) {
                arrivals[owner] += 1
            } else {
                count.unmatched += 1
            }
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
