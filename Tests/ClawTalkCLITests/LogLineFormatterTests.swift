import ClawTalkCLI
import Foundation
import Testing

@Suite("Service log lines")
struct LogLineFormatterTests {
    static let date = Date(timeIntervalSince1970: 1_754_640_000.25)

    @Test func formatsText() {
        let formatter = LogLineFormatter(format: .text, minimumLevel: .info)
        let line = formatter.line(
            .info, event: "service.started", fields: ["pid": "42", "note": "a b"], date: Self.date)
        #expect(line == "2025-08-08T08:00:00.250Z info service.started pid=42 note=\"a b\"\n")
    }

    @Test func formatsJSONThatParses() throws {
        let formatter = LogLineFormatter(format: .json, minimumLevel: .debug)
        let line = try #require(
            formatter.line(.warning, event: "service.stopping", fields: ["error": "bad \"quote\"\n"], date: Self.date))
        #expect(line.hasSuffix("}\n"))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        #expect(
            object == [
                "ts": "2025-08-08T08:00:00.250Z", "level": "warning", "event": "service.stopping",
                "error": "bad \"quote\"\n",
            ])
    }

    static let levels: [(LogLineFormatter.Level, LogLineFormatter.Level, Bool)] = [
        (.info, .info, true), (.debug, .info, false), (.error, .info, true), (.trace, .trace, true),
        (.notice, .warning, false), (.warning, .notice, true),
    ]

    @Test(arguments: levels)
    func dropsLinesBelowTheMinimum(level: LogLineFormatter.Level, minimum: LogLineFormatter.Level, written: Bool) {
        let formatter = LogLineFormatter(format: .text, minimumLevel: minimum)
        #expect((formatter.line(level, event: "e", date: Self.date) != nil) == written)
    }
}
