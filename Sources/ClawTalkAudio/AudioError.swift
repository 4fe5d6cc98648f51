/// Why a WAV file or another pure-Swift audio container could not be read.
public enum AudioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a RIFF/WAVE file, or a required part of it is malformed.
    case invalidWAV(reason: String)
    /// The file is well formed but stores samples this module cannot convert to s16.
    case unsupportedEncoding(formatTag: UInt16, bitsPerSample: Int)
    /// The input ends before a required header is complete (`what` names the missing part).
    case truncated(what: String)

    /// One line for logs and error messages.
    public var description: String {
        switch self {
        case .invalidWAV(let reason):
            "invalid WAV: \(reason)"
        case .unsupportedEncoding(let formatTag, let bits):
            "unsupported WAV encoding: format tag 0x\(String(formatTag, radix: 16)), \(bits) bits per sample"
        case .truncated(let what):
            "truncated audio: input ends inside the \(what)"
        }
    }
}
