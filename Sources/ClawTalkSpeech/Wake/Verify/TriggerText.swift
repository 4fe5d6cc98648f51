import Foundation

/// The text normalization every trigger comparison uses (talk.md §6.3.2): case, diacritics
/// and character width are folded (`Ｃｌàude` → `claude`, `ß` → `ss`), apostrophes are dropped
/// (`what's` → `whats`), every other character that is not a letter or digit separates words
/// (`open-claw!` → `open claw`, `hey_jarvis` → `hey jarvis`), and whitespace collapses.
public enum TriggerText {
    /// `text` normalized and re-joined with single spaces.
    public static func normalize(_ text: String) -> String {
        words(text).joined(separator: " ")
    }

    /// The normalized words of `text`, in order.
    public static func words(_ text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            if apostrophes.contains(scalar) || CharacterSet.nonBaseCharacters.contains(scalar) {
                continue
            }
            if CharacterSet.alphanumerics.contains(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    /// The normalized words joined without spaces: the key under which spellings that differ only
    /// in word breaks compare equal (`open claw`, `OpenClaw` and `open-claw` all give `openclaw`).
    public static func key(_ text: String) -> String {
        words(text).joined()
    }

    /// ASCII and typographic apostrophes and the modifier letter apostrophe.
    private static let apostrophes: Set<Unicode.Scalar> = ["'", "\u{2019}", "\u{2018}", "\u{02BC}"]
}
