/// Checks beyond type and range for individual settings, used by the descriptor table.
enum SettingRefinements {
    typealias Refinement = SettingDescriptor.Refinement

    private static func string(_ check: @escaping @Sendable (String) -> Result<String, SettingRejection>)
        -> Refinement
    {
        { value in
            guard case .string(let s) = value else { return .success(value) }
            return check(s).map { .string($0) }
        }
    }

    /// A `ws://` or `wss://` URL with a host.
    static let websocketURL: Refinement = string { s in
        let lower = s.lowercased()
        let rest: Substring? =
            lower.hasPrefix("wss://") ? lower.dropFirst(6) : lower.hasPrefix("ws://") ? lower.dropFirst(5) : nil
        guard let rest, !rest.isEmpty, !rest.hasPrefix("/"), !s.contains(where: \.isWhitespace) else {
            return .failure(SettingRejection(reason: "must be a ws:// or wss:// URL with a host"))
        }
        return .success(s)
    }

    /// A SHA-256 fingerprint, normalized to 64 lowercase hex digits (`sha256:` prefix, colons and
    /// whitespace removed; protocol.md §17.1).
    static let tlsFingerprint: Refinement = string { s in
        var text = s.lowercased()
        for prefix in ["sha256:", "sha-256:"] where text.hasPrefix(prefix) {
            text.removeFirst(prefix.count)
        }
        text.removeAll { $0 == ":" || $0.isWhitespace }
        guard text.count == 64, text.allSatisfy(\.isHexDigit) else {
            return .failure(SettingRejection(reason: "must be a SHA-256 fingerprint: 64 hex digits, colons allowed"))
        }
        return .success(text)
    }

    /// One word: no whitespace.
    static let word: Refinement = string { s in
        s.contains(where: \.isWhitespace)
            ? .failure(SettingRejection(reason: "must not contain whitespace")) : .success(s)
    }

    /// A multiple of `step`.
    static func multiple(of step: Int) -> Refinement {
        { value in
            guard case .int(let i) = value, i % step != 0 else { return .success(value) }
            return .failure(SettingRejection(reason: "must be a multiple of \(step)"))
        }
    }

    /// An absolute path usable as a Unix socket address (at most 107 bytes).
    static let socketPath: Refinement = string { s in
        guard s.hasPrefix("/") else { return .failure(SettingRejection(reason: "must be an absolute path")) }
        guard s.utf8.count <= 107 else {
            return .failure(SettingRejection(reason: "is longer than the 107 bytes a Unix socket path may have"))
        }
        return .success(s)
    }

    /// An evdev key name (`KEY_…`/`BTN_…`) or a numeric key code.
    static let evdevKey: Refinement = string { s in
        if let code = Int(s), code >= 0, code <= 0x2FF { return .success(s) }
        let isName =
            (s.hasPrefix("KEY_") || s.hasPrefix("BTN_")) && s.count > 4
            && s.allSatisfy { ($0.isASCII && ($0.isUppercase || $0.isNumber)) || $0 == "_" }
        return isName
            ? .success(s) : .failure(SettingRejection(reason: "must be a KEY_…/BTN_… name or a key code 0...767"))
    }

    /// A BCP-47-like language tag (`en`, `en-US`, `zh_Hans`).
    static let languageTag: Refinement = string { s in
        let ok =
            s.first?.isLetter == true
            && s.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }
        return ok ? .success(s) : .failure(SettingRejection(reason: "must be a language tag such as en or en-US"))
    }

    /// A provider format name (`pcm_24000`, `mp3_44100_128`, `auto`).
    static let formatName: Refinement = string { s in
        let ok = s.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "_" || $0 == "-" }
        return ok
            ? .success(s) : .failure(SettingRejection(reason: "must be a format name such as pcm_24000 or auto"))
    }
}
