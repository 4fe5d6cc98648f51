import Testing

@testable import ClawTalkSupport

@Suite("Setting names")
struct SettingNamingTests {
    @Test(
        "environment and option names",
        arguments: [
            ("talk.silenceTimeoutMs", "CLAWTALK_TALK_SILENCE_TIMEOUT_MS", "--talk-silence-timeout-ms"),
            ("gateway.url", "CLAWTALK_GATEWAY_URL", "--gateway-url"),
            ("gateway.operator.enabled", "CLAWTALK_GATEWAY_OPERATOR_ENABLED", "--gateway-operator-enabled"),
            ("tts.espeakRateWPM", "CLAWTALK_TTS_ESPEAK_RATE_WPM", "--tts-espeak-rate-wpm"),
            ("tts.outputFormat", "CLAWTALK_TTS_OUTPUT_FORMAT", "--tts-output-format"),
            ("talk.idleTimeoutS", "CLAWTALK_TALK_IDLE_TIMEOUT_S", "--talk-idle-timeout-s"),
            ("gateway.tlsFingerprint", "CLAWTALK_GATEWAY_TLS_FINGERPRINT", "--gateway-tls-fingerprint"),
            ("stt.wyomingHost", "CLAWTALK_STT_WYOMING_HOST", "--stt-wyoming-host"),
            ("x.HTTPServerURL", "CLAWTALK_X_HTTP_SERVER_URL", "--x-http-server-url"),
            ("x.mp3Bitrate", "CLAWTALK_X_MP3_BITRATE", "--x-mp3-bitrate"),
        ])
    func names(_ key: String, _ env: String, _ flag: String) {
        #expect(SettingNaming.environmentName(forKey: key) == env)
        #expect(SettingNaming.flagName(forKey: key) == flag)
    }

    @Test func everySettingHasUniqueNames() {
        let all = SettingDescriptor.all
        #expect(Set(all.map(\.key)).count == all.count)
        #expect(Set(all.map(\.environmentName)).count == all.count)
        #expect(Set(all.map(\.flagName)).count == all.count)
    }

    @Test func everyDefaultPassesItsOwnValidation() throws {
        for descriptor in SettingDescriptor.all {
            let value = descriptor.defaultValue
            #expect(value.isNull == false || descriptor.isOptional, "\(descriptor.key)")
            let validated = try descriptor.validate(value)
            #expect(validated == value, "\(descriptor.key)")
        }
    }

    @Test func tableReadsAndWritesTheRightField() throws {
        // Writing a non-default value through each descriptor must change exactly that key.
        for descriptor in SettingDescriptor.all {
            var settings = Settings.defaults
            let changed: SettingValue =
                switch (descriptor.kind, descriptor.defaultValue) {
                case (.bool, .bool(let b)): .bool(!b)
                case (.integer(let r), _):
                    .int(descriptor.defaultValue == .int(r.upperBound) ? r.lowerBound : r.upperBound)
                case (.choice(let allowed), let current): .string(allowed.first { .string($0) != current }!)
                case (.numberMap, _): .numberMap(["m": 0.5])
                case (.textListMap, _): .textListMap(["m": ["M m"]])
                case (.string, _): .string(descriptor.defaultValue == .string("none") ? "builtin" : "none")
                default: .null
                }
            descriptor.write(&settings, changed)
            #expect(descriptor.value(in: settings) == changed, "\(descriptor.key)")
            for other in SettingDescriptor.all where other.key != descriptor.key {
                #expect(other.value(in: settings) == other.defaultValue, "\(descriptor.key) also changed \(other.key)")
            }
        }
    }
}
