/// Why a base64url string (RFC 4648 §5) did not decode. Never carries the input, which may be
/// a secret.
public enum Base64URLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A byte outside `A–Z a–z 0–9 - _` (or a `=` that is not trailing padding) at this UTF-8 offset.
    case invalidCharacter(offset: Int)
    /// The unpadded length leaves a single dangling character (length % 4 == 1).
    case invalidLength(Int)
    /// Padding present but not completing a multiple of 4 characters.
    case invalidPadding
    /// The final character carries bits beyond the encoded data (not a canonical encoding).
    case nonCanonical

    /// One line, no input data.
    public var description: String {
        switch self {
        case .invalidCharacter(let offset):
            "invalid base64url: unexpected character at offset \(offset)"
        case .invalidLength(let length):
            "invalid base64url: length \(length) cannot encode whole bytes"
        case .invalidPadding:
            "invalid base64url: padding does not complete a 4-character group"
        case .nonCanonical:
            "invalid base64url: non-zero trailing bits"
        }
    }
}
