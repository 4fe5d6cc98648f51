public import Foundation

/// The container/encoding of a gateway TTS clip, as far as clawtalk can play it
/// (talk.md §7.2).
///
/// ``detect(data:outputFormat:mimeType:fileExtension:)`` trusts, in order: the provider's
/// `outputFormat` string, then `mimeType`, then `fileExtension`, then the clip's magic bytes.
/// Each step either decides or, when it says nothing useful (absent, `auto`, unknown), defers to
/// the next. Pure: no I/O, no C.
public enum ClipFormat: Sendable, Hashable, CustomStringConvertible {
    /// Raw s16le mono at `rate` Hz (`pcm_24000`).
    case pcm(rate: Int)
    /// Raw G.711 μ-law mono at `rate` Hz (`ulaw_8000`).
    case muLaw(rate: Int)
    /// Raw G.711 A-law mono at `rate` Hz (`alaw_8000`).
    case aLaw(rate: Int)
    /// MPEG audio (Layer III, also I/II), with or without an ID3 tag.
    case mp3
    /// Opus in an Ogg container.
    case oggOpus
    /// RIFF/WAVE.
    case wav
    /// Recognised or not, clawtalk cannot play it; the text says what it is.
    case unsupported(String)

    /// For example `pcm 24000 Hz` or `unsupported (webm)`.
    public var description: String {
        switch self {
        case .pcm(let rate): "pcm \(rate) Hz"
        case .muLaw(let rate): "mu-law \(rate) Hz"
        case .aLaw(let rate): "a-law \(rate) Hz"
        case .mp3: "mp3"
        case .oggOpus: "ogg opus"
        case .wav: "wav"
        case .unsupported(let what): "unsupported (\(what))"
        }
    }

    /// True for every case except ``unsupported(_:)``.
    public var isPlayable: Bool {
        if case .unsupported = self { return false }
        return true
    }

    /// Lowest and highest sample rate accepted from a format name.
    static let rateRange = 1000...384_000

    /// Decides the clip format from the response fields and, failing those, the bytes.
    public static func detect(
        data: Data, outputFormat: String? = nil, mimeType: String? = nil, fileExtension: String? = nil
    ) -> ClipFormat {
        if let outputFormat, let format = ClipFormat(outputFormat: outputFormat) { return format }
        if let mimeType, let format = ClipFormat(mimeType: mimeType) { return format }
        if let fileExtension, let format = ClipFormat(fileExtension: fileExtension) { return format }
        if let format = ClipFormat(magicBytes: data) { return format }
        if let name = outputFormat?.lowercased(), name == "pcm" || name.hasPrefix("pcm_") {
            return .unsupported("headerless \(name) without a sample rate")
        }
        return .unsupported("unrecognised audio data")
    }

    /// Reads a provider `outputFormat` (`pcm_24000`, `mp3_44100_128`, `opus_48000_64`, `wav`,
    /// `riff-24khz-16bit-mono-pcm`, `…-wav`, `raw-…`); nil when it says nothing usable.
    public init?(outputFormat raw: String) {
        let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
        guard !name.isEmpty, name != "auto" else { return nil }
        if name.contains("-") {
            // Dash-separated names (Azure style, e.g. `audio-24khz-48kbitrate-mono-mp3`).
            if name.hasPrefix("raw-") {
                self = .unsupported("headerless \(name)")
            } else if name.hasPrefix("webm-") || name.hasSuffix("-webm") {
                self = .unsupported("webm (\(name))")
            } else if name.hasPrefix("riff-") || name.hasSuffix("-wav") {
                self = .wav
            } else if name.hasPrefix("ogg-") && name.hasSuffix("-opus") {
                self = .oggOpus
            } else if name.hasSuffix("-mp3") {
                self = .mp3
            } else {
                return nil
            }
            return
        }
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        let rate = parts.count > 1 ? Int(parts[1]).flatMap { Self.rateRange.contains($0) ? $0 : nil } : nil
        switch parts[0] {
        case "pcm", "s16le":
            guard let rate else { return nil }  // bare `pcm`: let mimeType (audio/L16;rate=…) decide
            self = .pcm(rate: rate)
        case "ulaw", "mulaw", "alaw":
            guard let rate else {
                self = .unsupported("headerless \(name) without a sample rate")
                return
            }
            self = parts[0] == "alaw" ? .aLaw(rate: rate) : .muLaw(rate: rate)
        case "mp3": self = .mp3
        case "opus", "ogg": self = .oggOpus
        case "wav": self = .wav
        case "webm", "aac", "flac", "m4a", "vorbis": self = .unsupported(name)
        default: return nil
        }
    }

    /// Reads a MIME type (`audio/mpeg`, `audio/ogg`, `audio/wav`, `audio/L16; rate=24000`);
    /// nil when it says nothing usable.
    public init?(mimeType raw: String) {
        let fields = raw.lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = fields.first, !type.isEmpty else { return nil }
        var parameters: [String: String] = [:]
        for field in fields.dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 {
                parameters[pair[0]] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        let rate = parameters["rate"].flatMap(Int.init).flatMap { Self.rateRange.contains($0) ? $0 : nil }
        let mono = (parameters["channels"] ?? "1") == "1"
        switch type {
        case "audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg", "audio/x-mp3":
            self = .mp3
        case "audio/ogg", "audio/opus", "application/ogg":
            let codecs = parameters["codecs"] ?? "opus"
            self = codecs.contains("opus") ? .oggOpus : .unsupported("ogg \(codecs)")
        case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave":
            self = .wav
        case "audio/l16", "audio/pcmu", "audio/pcma":
            guard let rate, mono else {
                self = .unsupported("\(type) without a sample rate or not mono")
                return
            }
            // audio/L16 is taken as little-endian like every TTS provider's raw PCM (RFC 2586 says
            // network order; no provider seen in the contract sends that).
            self =
                type == "audio/l16" ? .pcm(rate: rate) : type == "audio/pcmu" ? .muLaw(rate: rate) : .aLaw(rate: rate)
        case "audio/webm", "video/webm", "audio/aac", "audio/mp4", "audio/x-m4a", "audio/flac", "audio/x-flac":
            self = .unsupported(type)
        default:
            return nil
        }
    }

    /// Reads a file extension with or without its dot (`.mp3`, `opus`, `.ogg`, `.wav`); nil when unknown.
    public init?(fileExtension raw: String) {
        var name = raw.trimmingCharacters(in: .whitespaces).lowercased()
        if name.hasPrefix(".") { name.removeFirst() }
        switch name {
        case "mp3", "mpga": self = .mp3
        case "opus", "ogg", "oga": self = .oggOpus
        case "wav", "wave": self = .wav
        case "webm", "aac", "m4a", "mp4", "flac": self = .unsupported(name)
        default: return nil
        }
    }

    /// Recognises a clip by its first bytes (`ID3`/MPEG frame sync, `OggS`, `RIFF…WAVE`, EBML,
    /// `fLaC`, AAC ADTS, MP4 `ftyp`); nil when nothing matches.
    public init?(magicBytes data: Data) {
        let head = [UInt8](data.prefix(64))
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let pattern = Array(text.utf8)
            return head.count >= offset + pattern.count && Array(head[offset..<(offset + pattern.count)]) == pattern
        }
        if starts("ID3") {
            self = .mp3
        } else if starts("RIFF") && starts("WAVE", at: 8) {
            self = .wav
        } else if starts("OggS") {
            let text = String(decoding: head.map { $0 < 0x20 || $0 > 0x7E ? 0x2E : $0 }, as: UTF8.self)
            if text.contains("vorbis") {
                self = .unsupported("ogg vorbis")
            } else if text.contains("FLAC") {
                self = .unsupported("ogg flac")
            } else {
                self = .oggOpus  // OpusHead, or a page too short to tell: the decoder decides
            }
        } else if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) {
            self = .unsupported("webm/matroska")
        } else if starts("fLaC") {
            self = .unsupported("flac")
        } else if starts("ftyp", at: 4) {
            self = .unsupported("mp4/m4a")
        } else if head.count >= 2, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 {
            let version = (head[1] >> 3) & 0x03
            let layer = (head[1] >> 1) & 0x03
            if layer == 0 {
                self = .unsupported("aac (adts)")
            } else if version == 1 {
                return nil  // reserved MPEG version: not an MPEG audio frame
            } else {
                self = .mp3
            }
        } else {
            return nil
        }
    }
}
