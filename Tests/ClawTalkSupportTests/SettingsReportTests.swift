import Foundation
import Testing

@testable import ClawTalkSupport

@Suite("Settings report")
struct SettingsReportTests {
    @Test func alignedLinesWithSourcesAndRedaction() throws {
        var settings = Settings.defaults
        settings.gateway.token = "super-secret-token"
        settings.gateway.url = "wss://gw.example:18789"
        settings.talk.silenceTimeoutMs = 900
        var sources = Dictionary(uniqueKeysWithValues: SettingDescriptor.all.map { ($0.key, SettingSource.default) })
        sources["gateway.token"] = .environment("CLAWTALK_GATEWAY_TOKEN")
        sources["gateway.url"] = .flag("--gateway-url")
        sources["talk.silenceTimeoutMs"] = .file("/home/u/.config/clawtalk/config.json5")
        let effective = EffectiveSettings(
            settings: settings, sources: sources, configFile: "/home/u/.config/clawtalk/config.json5",
            configFileLoaded: true)
        let lines = SettingsReport.lines(effective)
        #expect(lines.count == SettingDescriptor.all.count)
        let text = SettingsReport.render(effective)
        #expect(!text.contains("super-secret-token"))

        func line(_ key: String) throws -> String { try #require(lines.first { $0.hasPrefix(key + " ") }) }
        let token = try line("gateway.token")
        #expect(token.contains("= <set, redacted>"))
        #expect(token.hasSuffix("(env CLAWTALK_GATEWAY_TOKEN)"))
        #expect(try line("gateway.password").contains("= <unset>"))
        #expect(try line("gateway.url").contains(#"= "wss://gw.example:18789""#))
        #expect(try line("gateway.url").hasSuffix("(flag --gateway-url)"))
        #expect(try line("talk.silenceTimeoutMs").contains("= 900 ms"))
        #expect(try line("talk.silenceTimeoutMs").hasSuffix("(file /home/u/.config/clawtalk/config.json5)"))
        #expect(try line("processing.echoCancellation").contains(#"= "aec""#))

        // Columns: every "=" and every "(" of the source start at the same offsets.
        let equals = Set(lines.map { $0.distance(from: $0.startIndex, to: $0.firstIndex(of: "=")!) })
        #expect(equals.count == 1)
        let sourceColumns = Set(lines.map { $0.distance(from: $0.startIndex, to: $0.range(of: "   (")!.lowerBound) })
        #expect(sourceColumns.count == 1)
    }
}
