import Foundation
import Testing

@testable import ClawTalkSupport

/// The committed `config/clawtalk.json5` must be exactly what the descriptor table renders, and
/// must load to exactly the defaults. Refresh it with `UPDATE_GOLDEN=1 swift test --filter DefaultConfigFile`.
@Suite("Default config file")
struct DefaultConfigFileTests {
    static let committedPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config/clawtalk.json5").path

    @Test func committedFileMatchesRenderedOutput() throws {
        let rendered = SettingsDocumentation.renderDefaultFile()
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try Data(rendered.utf8).write(to: URL(fileURLWithPath: Self.committedPath))
        }
        let committed = try String(contentsOfFile: Self.committedPath, encoding: .utf8)
        #expect(
            committed == rendered,
            "config/clawtalk.json5 is stale: run UPDATE_GOLDEN=1 swift test --filter DefaultConfigFile")
    }

    @Test func renderedFileLoadsToExactlyTheDefaults() throws {
        let rendered = SettingsDocumentation.renderDefaultFile()
        var settings = Settings()
        settings.talk.silenceTimeoutMs = 1  // must be overwritten by the file
        var sources: [String: SettingSource] = [:]
        try ConfigLoader.apply(fileText: rendered, path: "clawtalk.json5", to: &settings, sources: &sources)
        #expect(settings == Settings.defaults)
        // Every setting with a non-null default is present (not commented out) in the file.
        let present = SettingDescriptor.all.filter { !$0.defaultValue.isNull }.map(\.key)
        #expect(Set(sources.keys) == Set(present))
    }

    @Test func everyKeyIsDocumented() {
        let rendered = SettingsDocumentation.renderDefaultFile()
        for descriptor in SettingDescriptor.all {
            #expect(rendered.contains("// \(descriptor.doc)"), "\(descriptor.key)")
            #expect(rendered.contains("Env: \(descriptor.environmentName)."), "\(descriptor.key)")
            #expect(rendered.contains("Default: \(descriptor.defaultText)."), "\(descriptor.key)")
        }
    }

    @Test func commentedOutExamplesAreValidValues() throws {
        // Uncommenting an example must give a file that loads (examples are real values).
        for descriptor in SettingDescriptor.all where descriptor.defaultValue.isNull {
            let example = try #require(descriptor.example, "\(descriptor.key) needs an example")
            let json = try JSON5Parser.parse(example)
            if descriptor.isSecret || example.contains("<") { continue }  // placeholders
            #expect(throws: Never.self, "\(descriptor.key)") { try descriptor.decode(json: json) }
        }
    }
}
