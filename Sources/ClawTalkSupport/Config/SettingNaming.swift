/// How a setting's dotted key maps to its environment variable and command-line option.
///
/// Each key component is split into words at camelCase boundaries (an uppercase run is one
/// word, so `espeakRateWPM` is `espeak rate WPM`). The environment name is `CLAWTALK_` plus all
/// words upper-cased and joined by `_`; the option is `--` plus all words lower-cased and
/// joined by `-`:
///
/// | key | environment | option |
/// |---|---|---|
/// | `talk.silenceTimeoutMs` | `CLAWTALK_TALK_SILENCE_TIMEOUT_MS` | `--talk-silence-timeout-ms` |
/// | `gateway.operator.enabled` | `CLAWTALK_GATEWAY_OPERATOR_ENABLED` | `--gateway-operator-enabled` |
/// | `tts.espeakRateWPM` | `CLAWTALK_TTS_ESPEAK_RATE_WPM` | `--tts-espeak-rate-wpm` |
public enum SettingNaming {
    /// Prefix of every clawtalk environment variable.
    public static let environmentPrefix = "CLAWTALK_"

    /// The environment variable for a dotted key.
    public static func environmentName(forKey key: String) -> String {
        environmentPrefix + words(ofKey: key).map { $0.uppercased() }.joined(separator: "_")
    }

    /// The default command-line option for a dotted key.
    public static func flagName(forKey key: String) -> String {
        "--" + words(ofKey: key).map { $0.lowercased() }.joined(separator: "-")
    }

    /// All words of a dotted key, in order.
    public static func words(ofKey key: String) -> [String] {
        key.split(separator: ".").flatMap { words(of: String($0)) }
    }

    /// The camelCase words of one key component (`silenceTimeoutMs` → `silence`, `Timeout`, `Ms`).
    public static func words(of component: String) -> [String] {
        let chars = Array(component)
        var words: [String] = []
        var current = ""
        for (i, c) in chars.enumerated() {
            if c == "-" || c == "_" {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            if !current.isEmpty, c.isUppercase {
                let previous = chars[i - 1]
                let nextIsLower = i + 1 < chars.count && chars[i + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    words.append(current)
                    current = ""
                }
            }
            current.append(c)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
