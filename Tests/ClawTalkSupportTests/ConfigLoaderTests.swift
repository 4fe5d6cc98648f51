import Foundation
import Testing

@testable import ClawTalkSupport

@Suite("Config loader")
struct ConfigLoaderTests {
    /// A loader whose XDG config home is `dir` and whose environment is `env` plus HOME.
    func loader(_ dir: TemporaryDirectory, env: [String: String] = [:], flags: [String: String] = [:]) -> ConfigLoader {
        var environment = ["HOME": dir.path, "XDG_CONFIG_HOME": dir.path + "/config"]
        environment.merge(env) { $1 }
        return ConfigLoader(environment: environment, flags: flags)
    }

    func expectError(_ loader: ConfigLoader, _ check: (ConfigError) -> Bool) {
        #expect {
            _ = try loader.load()
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return check(error)
        }
    }

    @Test func defaultsWhenNothingIsConfigured() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try loader(dir).load()
        #expect(result.settings == Settings.defaults)
        #expect(result.configFile == dir.path + "/config/clawtalk/config.json5")
        #expect(result.configFileLoaded == false)
        #expect(result.sources.count == SettingDescriptor.all.count)
        #expect(result.sources.values.allSatisfy { $0 == .default })
        #expect(result.warnings.isEmpty)
    }

    @Test func flagBeatsEnvironmentBeatsFileBeatsDefault() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.write(
            "config/clawtalk/config.json5",
            """
            {
              talk: { silenceTimeoutMs: 900, interruptOnSpeech: false },
              gateway: { url: 'ws://127.0.0.1:18789', requestTimeoutMs: 20000 },
              tts: { espeakVoice: "de" },
            }
            """)
        let env = [
            "CLAWTALK_TALK_SILENCE_TIMEOUT_MS": "1200",
            "CLAWTALK_GATEWAY_URL": "wss://env.example:443",
            "CLAWTALK_LOG_LEVEL": "debug",
        ]
        let flags = ["talk.silenceTimeoutMs": "1500", "--log-format": "json"]
        let result = try loader(dir, env: env, flags: flags).load()
        let s = result.settings
        #expect(s.talk.silenceTimeoutMs == 1500)
        #expect(result.source(of: "talk.silenceTimeoutMs") == .flag("--talk-silence-timeout-ms"))
        #expect(s.gateway.url == "wss://env.example:443")
        #expect(result.source(of: "gateway.url") == .environment("CLAWTALK_GATEWAY_URL"))
        #expect(s.talk.interruptOnSpeech == false)
        #expect(result.source(of: "talk.interruptOnSpeech") == .file(file))
        #expect(s.gateway.requestTimeoutMs == 20000)
        #expect(s.tts.espeakVoice == "de")
        #expect(s.log.level == .debug)
        #expect(s.log.format == .json)
        #expect(result.source(of: "log.format") == .flag("--log-format"))
        #expect(s.stt.wyomingPort == nil, "unset: the node's own server on its private socket")
        #expect(s.stt.configuredAddress == nil)
        #expect(result.source(of: "stt.wyomingPort") == .default)
        #expect(result.configFileLoaded)
    }

    @Test func explicitConfigPathAndEnvironmentConfigPath() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let a = try dir.write("a.json5", "{ mic: { preRollMs: 500 } }")
        let b = try dir.write("b.json5", "{ mic: { preRollMs: 600 } }")
        var viaEnv = loader(dir, env: ["CLAWTALK_CONFIG": b])
        #expect(try viaEnv.load().settings.mic.preRollMs == 600)
        viaEnv.configPath = a
        #expect(try viaEnv.load().settings.mic.preRollMs == 500)
        #expect(try viaEnv.load().warnings.isEmpty)
    }

    @Test func symlinkedConfigFileIsFollowed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let real = try dir.write("dotfiles/clawtalk.json5", "{ tts: { espeakRateWPM: 200 } }")
        try FileManager.default.createDirectory(
            atPath: dir.path + "/config/clawtalk", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: dir.path + "/config/clawtalk/config.json5", withDestinationPath: real)
        #expect(try loader(dir).load().settings.tts.espeakRateWPM == 200)
    }

    @Test func explicitMissingFileIsAnError() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var l = loader(dir)
        l.configPath = dir.path + "/missing.json5"
        expectError(l) { $0 == .unreadableFile(path: dir.path + "/missing.json5", reason: "no such file") }
    }

    @Test func unreadableFileNamesIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(
            atPath: dir.path + "/config/clawtalk/config.json5", withIntermediateDirectories: true)
        expectError(loader(dir)) {
            guard case .unreadableFile(let path, _) = $0 else { return false }
            return path == dir.path + "/config/clawtalk/config.json5"
        }
    }

    @Test func syntaxErrorNamesFileLineAndColumn() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.write("config/clawtalk/config.json5", "{\n  talk: {\n    silenceTimeoutMs 700\n  }\n}")
        expectError(loader(dir)) {
            $0 == .syntax(path: file, line: 3, column: 22, message: "expected ':' after key")
                && $0.description == "\(file): line 3, column 22: expected ':' after key"
        }
    }

    @Test func duplicateKeyIsAnError() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.write("config/clawtalk/config.json5", "{ tts: { fallback: 'always', fallback: 'never' } }")
        expectError(loader(dir)) { $0 == .syntax(path: file, line: 1, column: 30, message: "duplicate key 'fallback'") }
    }

    @Test(
        "unknown keys suggest the nearest setting",
        arguments: [
            ("{ talk: { silenceTimeout: 700 } }", "talk.silenceTimeout", "talk.silenceTimeoutMs"),
            ("{ talk: { silenceTimeoutMS: 700 } }", "talk.silenceTimeoutMS", "talk.silenceTimeoutMs"),
            ("{ mic: { silenceTimeoutMs: 700 } }", "mic.silenceTimeoutMs", "talk.silenceTimeoutMs"),
            ("{ gatway: {} }", "gatway", "gateway"),
            ("{ gateway: { operatr: { enabled: true } } }", "gateway.operatr", "gateway.operator"),
            ("{ zzz: 1 }", "zzz", nil),
        ] as [(String, String, String?)])
    func unknownKey(_ text: String, _ key: String, _ suggestion: String?) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.write("config/clawtalk/config.json5", "// header\n" + text)
        expectError(loader(dir)) { $0 == .unknownKey(key: key, file: file, line: 2, suggestion: suggestion) }
    }

    @Test func unknownKeyMessage() {
        let error = ConfigError.unknownKey(
            key: "talk.silenceTimeout", file: "/c.json5", line: 4, suggestion: "talk.silenceTimeoutMs")
        #expect(
            error.description
                == "/c.json5: line 4: unknown setting 'talk.silenceTimeout' (did you mean 'talk.silenceTimeoutMs'?)")
    }

    @Test(
        "wrong types in the file",
        arguments: [
            ("{ talk: { silenceTimeoutMs: '700' } }", "talk.silenceTimeoutMs", "integer", "string"),
            ("{ talk: { silenceTimeoutMs: 700.5 } }", "talk.silenceTimeoutMs", "integer", "number"),
            ("{ wake: { enabled: 'yes' } }", "wake.enabled", "boolean", "string"),
            ("{ gateway: { url: 42 } }", "gateway.url", "string or null", "integer"),
            ("{ stt: { wyomingPort: '10300' } }", "stt.wyomingPort", "integer or null", "string"),
            ("{ wake: { thresholds: [0.5] } }", "wake.thresholds", "object of numbers", "array"),
            ("{ wake: { aliases: ['Open Claw'] } }", "wake.aliases", "object of string lists", "array"),
            ("{ wake: { aliases: { openclaw: 5 } } }", "wake.aliases", "list of strings for 'openclaw'", "integer"),
            ("{ talk: 5 }", "talk", "object (a settings section)", "integer"),
        ])
    func wrongType(_ text: String, _ key: String, _ expected: String, _ found: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.write("config/clawtalk/config.json5", text)
        expectError(loader(dir)) {
            $0 == .wrongType(key: key, expected: expected, found: found, source: .file(file), line: 1)
        }
    }

    @Test func invalidChoiceListsAllowedValues() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.write(
            "config/clawtalk/config.json5", "{\n processing: {\n  echoCancellation: 'speex',\n },\n}")
        expectError(loader(dir)) {
            $0
                == .invalidChoice(
                    key: "processing.echoCancellation", value: "\"speex\"", allowed: ["off", "aec", "aecm"],
                    source: .file(file), line: 3)
                && $0.description
                    == "\(file): line 3: processing.echoCancellation: \"speex\" is not one of off, aec, aecm"
        }
    }

    @Test func outOfRangeShowsTheRange() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.write("config/clawtalk/config.json5", "{ talk: { silenceTimeoutMs: 50 } }")
        expectError(loader(dir)) {
            $0
                == .outOfRange(
                    key: "talk.silenceTimeoutMs", value: "50", range: "100...10000 ms", source: .file(file), line: 1)
                && $0.description.hasSuffix("talk.silenceTimeoutMs: 50 is outside the allowed range 100...10000 ms")
        }
    }

    @Test func environmentErrorsNameTheVariable() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        expectError(loader(dir, env: ["CLAWTALK_TALK_SILENCE_TIMEOUT_MS": "fast"])) {
            $0
                == .wrongType(
                    key: "talk.silenceTimeoutMs", expected: "integer", found: "\"fast\"",
                    source: .environment("CLAWTALK_TALK_SILENCE_TIMEOUT_MS"), line: nil)
                && $0.description.hasPrefix(
                    "environment variable CLAWTALK_TALK_SILENCE_TIMEOUT_MS (talk.silenceTimeoutMs)")
        }
        expectError(loader(dir, env: ["CLAWTALK_WAKE_ROUTE": "email"])) {
            guard case .invalidChoice(_, _, let allowed, .environment("CLAWTALK_WAKE_ROUTE"), _) = $0 else {
                return false
            }
            return allowed == ["voice-transcript", "chat-send", "agent"]
        }
    }

    @Test func unknownEnvironmentVariablesAreWarnings() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try loader(
            dir,
            env: ["CLAWTALK_TALK_SILENCE_TIMEOUT": "900", "CLAWTALK_DEVICE_TESTS": "1", "OTHER_THING": "x"]
        ).load()
        #expect(result.settings == .defaults)
        #expect(
            result.warnings == [
                "unknown environment variable CLAWTALK_TALK_SILENCE_TIMEOUT ignored (did you mean CLAWTALK_TALK_SILENCE_TIMEOUT_MS?)"
            ])
    }

    @Test func environmentValueForms() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("config/clawtalk/config.json5", "{ stt: { language: 'de-DE' }, talk: { idleTimeoutS: 30 } }")
        let result = try loader(
            dir,
            env: [
                "CLAWTALK_WAKE_ENABLED": "off",
                "CLAWTALK_LOG_SENSITIVE": "YES",
                "CLAWTALK_STT_LANGUAGE": "",
                "CLAWTALK_WAKE_THRESHOLDS": "okay_nabu=0.8, hey_jarvis=0.6",
                "CLAWTALK_WAKE_TRIGGER_CHIME": "~/sounds/ding.wav",
            ]
        ).load()
        #expect(result.settings.wake.enabled == false)
        #expect(result.settings.log.sensitive == true)
        #expect(result.settings.stt.language == nil)
        #expect(result.source(of: "stt.language") == .environment("CLAWTALK_STT_LANGUAGE"))
        #expect(result.settings.talk.idleTimeoutS == 30)
        #expect(result.settings.wake.thresholds == ["okay_nabu": 0.8, "hey_jarvis": 0.6])
        #expect(result.settings.wake.triggerChime == .file("~/sounds/ding.wav"))
        let json = try loader(dir, env: ["CLAWTALK_WAKE_THRESHOLDS": "{okay_nabu: 0.9}"]).load()
        #expect(json.settings.wake.thresholds == ["okay_nabu": 0.9])
    }

    @Test func wakeAliasesFromTheFileAndTheEnvironment() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write(
            "config/clawtalk/config.json5",
            "{ wake: { aliases: { openclaw: ['Open Claw', 'Open-Claw'], claude: 'Claud' } } }")
        let file = try loader(dir).load()
        #expect(file.settings.wake.aliases == ["openclaw": ["Open Claw", "Open-Claw"], "claude": ["Claud"]])
        let env = try loader(dir, env: ["CLAWTALK_WAKE_ALIASES": "openclaw=Open Claw|Opin Claw, claude=Clawed"]).load()
        #expect(env.settings.wake.aliases == ["openclaw": ["Open Claw", "Opin Claw"], "claude": ["Clawed"]])
        let json = try loader(dir, env: ["CLAWTALK_WAKE_ALIASES": "{computer: ['Compute her']}"]).load()
        #expect(json.settings.wake.aliases == ["computer": ["Compute her"]])
    }

    @Test func flagsRejectUnknownKeysWithSuggestion() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        expectError(loader(dir, flags: ["--gateway-ulr": "ws://127.0.0.1"])) {
            $0 == .unknownFlag(key: "--gateway-ulr", suggestion: "--gateway-url")
        }
        expectError(loader(dir, flags: ["gateway.ulr": "ws://127.0.0.1"])) {
            $0 == .unknownFlag(key: "gateway.ulr", suggestion: "gateway.url")
        }
        expectError(loader(dir, flags: ["--mic-frame-ms": "25"])) {
            $0
                == .invalidValue(
                    key: "mic.frameMs", value: "25", reason: "must be a multiple of 10",
                    source: .flag("--mic-frame-ms"),
                    line: nil)
        }
    }

    @Test func secretsNeverAppearInErrors() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("config/clawtalk/config.json5", "{ gateway: { token: '   ' } }")
        expectError(loader(dir)) { error in
            !error.description.contains("   '") && error.key == "gateway.token"
        }
        try FileManager.default.removeItem(atPath: dir.path + "/config/clawtalk/config.json5")
        expectError(loader(dir, env: ["CLAWTALK_GATEWAY_PASSWORD": "hunter2", "CLAWTALK_GATEWAY_URL": "http://x"])) {
            !$0.description.contains("hunter2") && $0.key == "gateway.url"
        }
    }

    @Test(
        "refined values",
        arguments: [
            (
                "gateway.tlsFingerprint", "sha256:AB:" + String(repeating: "cd", count: 31),
                "ab" + String(repeating: "cd", count: 31)
            ),
            ("gateway.url", "wss://gw.example:18789/path", "wss://gw.example:18789/path"),
            ("ptt.evdevKey", "KEY_RIGHTALT", "KEY_RIGHTALT"),
            ("ptt.evdevKey", "100", "100"),
            ("wake.sendChime", "none", "none"),
        ])
    func refinedValues(_ key: String, _ input: String, _ stored: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try loader(dir, flags: [key: input]).load()
        let descriptor = try #require(SettingDescriptor.named(key))
        #expect(descriptor.value(in: result.settings) == .string(stored))
    }

    @Test(
        "rejected values",
        arguments: [
            ("gateway.tlsFingerprint", "abc"),
            ("gateway.url", "https://gw.example"),
            ("gateway.url", "ws://"),
            ("ptt.evdevKey", "rightalt"),
            ("ptt.controlSocket", "relative.sock"),
            ("ptt.controlSocket", "/" + String(repeating: "x", count: 120)),
            ("wake.triggerChime", "ding.wav"),
            ("wake.thresholds", "a=1.5"),
            ("stt.wyomingPort", "70000"),
            ("stt.language", "en US"),
            ("tts.outputFormat", "PCM 24000"),
            ("tts.espeakVoice", ""),
        ])
    func rejectedValues(_ key: String, _ input: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        expectError(loader(dir, flags: [key: input])) { $0.key == key }
    }

    @Test func emptyOrCommentOnlyFileIsFine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write(
            "config/clawtalk/config.json5", "// everything commented out\n// talk: { silenceTimeoutMs: 900 },\n")
        let result = try loader(dir).load()
        #expect(result.settings == .defaults)
        #expect(result.configFileLoaded)
    }

    @Test func topLevelMustBeAnObject() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.write("config/clawtalk/config.json5", "[1]")
        expectError(loader(dir)) {
            $0 == .wrongType(key: "(top level)", expected: "object", found: "array", source: .file(file), line: 1)
        }
    }

    @Test func derivedProperties() {
        var s = Settings.defaults
        #expect(s.processing.needsEchoCancellation)
        #expect(s.bargeInEnabled)
        s.processing.echoCancellation = .off
        #expect(s.bargeInEnabled == false)
        s.speaker.acousticallyIsolated = true
        #expect(s.bargeInEnabled)
        #expect(s.talk.silenceTimeout(locale: "ja-JP") == .milliseconds(2000))
        #expect(s.talk.silenceTimeout(locale: "en_US") == .milliseconds(700))
        #expect(s.tts.requestedOutputFormat == "pcm_24000")
        s.tts.outputFormat = "auto"
        #expect(s.tts.requestedOutputFormat == nil)
        #expect(s.gateway.resolvedDisplayName(hostName: "pi") == "pi")
        let paths = XDGPaths(environment: ["HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(s.ptt.resolvedControlSocket(paths: paths) == "/run/user/1000/clawtalk/control.sock")
    }
}
