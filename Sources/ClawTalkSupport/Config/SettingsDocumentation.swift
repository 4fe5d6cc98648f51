/// Renders the documented default configuration (`config/clawtalk.json5`) from the descriptor
/// table, so the shipped file, the loader and `doctor` cannot disagree.
public enum SettingsDocumentation {
    /// One-line titles of the sections, shown above each.
    static let sectionTitles: [String: String] = [
        "gateway": "Connection to the OpenClaw Gateway.",
        "gateway.operator": "The second, operator-role connection.",
        "mic": "Capture device.",
        "speaker": "Playback device.",
        "processing": "In-process audio processing (WebRTC APM).",
        "wake": "Voice wake.",
        "stt": "Speech-to-text.",
        "talk": "Talk mode.",
        "ptt": "Push-to-talk.",
        "tts": "Speech output.",
        "log": "Logging.",
        "notify": "Desktop notifications (freedesktop, over the session D-Bus).",
        "discovery": "Gateway discovery over DNS-SD (Avahi).",
    ]

    /// The header comment of the default file.
    static let header = """
        // clawtalk configuration: JSON5 (comments, unquoted keys and trailing commas allowed).
        //
        // Location: $XDG_CONFIG_HOME/clawtalk/config.json5 (default ~/.config/clawtalk/config.json5),
        // or the file named by --config PATH or $CLAWTALK_CONFIG.
        // Precedence: command-line options > CLAWTALK_* environment variables > this file > defaults.
        // Environment names: CLAWTALK_ + the key path in upper snake case (camelCase words split by _),
        // e.g. talk.silenceTimeoutMs -> CLAWTALK_TALK_SILENCE_TIMEOUT_MS. Unknown keys are errors.
        //
        // Every value below is the built-in default; commented-out keys are unset by default.
        // Generated from the settings table by SettingsDocumentation.renderDefaultFile().
        """

    /// The complete default file: every key with its default (commented out when unset), each
    /// preceded by its meaning, allowed values, unit, default and environment variable.
    public static func renderDefaultFile() -> String {
        var lines = header.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.append("{")
        render(section: [], depth: 1, into: &lines)
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Renders the members directly inside `section` (a key prefix), in table order.
    private static func render(section: [String], depth: Int, into lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        var emitted: Set<String> = []
        for descriptor in SettingDescriptor.all where descriptor.section.starts(with: section) {
            let rest = descriptor.section.dropFirst(section.count)
            if let child = rest.first {
                guard emitted.insert(child).inserted else { continue }
                let path = section + [child]
                if !lines.last!.hasSuffix("{") { lines.append("") }
                if let title = sectionTitles[path.joined(separator: ".")] { lines.append("\(indent)// \(title)") }
                lines.append("\(indent)\(JSONValue.keyText(child)): {")
                render(section: path, depth: depth + 1, into: &lines)
                lines.append("\(indent)},")
            } else {
                if !lines.last!.hasSuffix("{") { lines.append("") }
                lines.append(contentsOf: member(descriptor, indent: indent))
            }
        }
    }

    private static func member(_ descriptor: SettingDescriptor, indent: String) -> [String] {
        let key = JSONValue.keyText(descriptor.name)
        var lines = [
            "\(indent)// \(descriptor.doc)",
            "\(indent)// Values: \(descriptor.allowedValuesText). Default: \(descriptor.defaultText)."
                + " Env: \(descriptor.environmentName).",
        ]
        let value = descriptor.defaultValue
        if value.isNull {
            lines.append("\(indent)// \(key): \(descriptor.example ?? "null"),")
        } else {
            lines.append("\(indent)\(key): \(value.json5Text),")
        }
        return lines
    }
}
