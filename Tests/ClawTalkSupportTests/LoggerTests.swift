import Foundation
import Synchronization
import Testing

@testable import ClawTalkSupport

@Suite("Logger")
struct LoggerTests {
    /// 2026-11-29T10:00:00.123Z
    static let fixedDate = Date(timeIntervalSince1970: 1_795_946_400.123)

    func makeLogger(
        sink: any LogSink, level: LogLevel = .trace, sensitive: Bool = false, throttle: LogThrottle = LogThrottle()
    ) -> Logger {
        Logger(
            category: "gateway", minimumLevel: level, sink: sink, logSensitive: sensitive, throttle: throttle,
            now: { Self.fixedDate })
    }

    @Test func textLineFormat() {
        let lines = LineCollector()
        let logger = makeLogger(sink: TextLogSink(output: lines.output))
        logger.info("gateway.connected", ["role": "node", "protocol": 4])
        #expect(lines.lines == ["2026-11-29T10:00:00.123Z info gateway gateway.connected protocol=4 role=node"])
    }

    @Test func textQuotesValuesWithSpacesAndSpecials() {
        let lines = LineCollector()
        let logger = makeLogger(sink: TextLogSink(output: lines.output))
        logger.warning(
            "device.open.failed",
            ["device": "USB Mic", "empty": "", "eq": "a=b", "nl": "x\ny", "ok": true, "ratio": 0.5, "plain": "pulse"])
        #expect(
            lines.lines == [
                #"2026-11-29T10:00:00.123Z warning gateway device.open.failed device="USB Mic" empty="" eq="a=b" nl="x\ny" ok=true plain=pulse ratio=0.5"#
            ])
    }

    @Test func syslogPrefixCarriesPriority() {
        let lines = LineCollector()
        let logger = makeLogger(sink: TextLogSink(output: lines.output, syslogPrefix: true))
        logger.trace("a")
        logger.debug("b")
        logger.info("c")
        logger.notice("d")
        logger.warning("e")
        logger.error("f")
        #expect(lines.lines.map { String($0.prefix(3)) } == ["<7>", "<7>", "<6>", "<5>", "<4>", "<3>"])
        #expect(lines.lines[2] == "<6>2026-11-29T10:00:00.123Z info gateway c")
    }

    @Test func jsonLinesFormat() throws {
        let lines = LineCollector()
        let logger = makeLogger(sink: JSONLinesLogSink(output: lines.output))
        logger.notice("talk.turn", ["ms": 830, "ok": false, "rms": 0.25, "note": "say \"hi\"", "level": "shadow"])
        let line = try #require(lines.lines.first)
        #expect(
            line
                == #"{"ts":"2026-11-29T10:00:00.123Z","level":"notice","category":"gateway","event":"talk.turn","field.level":"shadow","ms":830,"note":"say \"hi\"","ok":false,"rms":0.25}"#
        )
        // It is real JSON.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "talk.turn")
        #expect(object["ms"] as? Int == 830)
    }

    @Test func jsonLinesWithSyslogPrefixAndNonFiniteNumbers() {
        let lines = LineCollector()
        let logger = makeLogger(sink: JSONLinesLogSink(output: lines.output, syslogPrefix: true))
        logger.error("x", ["v": .double(.nan)])
        #expect(
            lines.lines == [
                #"<3>{"ts":"2026-11-29T10:00:00.123Z","level":"error","category":"gateway","event":"x","v":"nan"}"#
            ])
    }

    @Test func levelsBelowMinimumAreDroppedWithoutEvaluatingFields() {
        let sink = RecordingLogSink()
        let logger = makeLogger(sink: sink, level: .notice)
        let evaluated = Mutex(0)
        func fields() -> [String: LogValue] {
            evaluated.locked { $0 += 1 }
            return ["n": 1]
        }
        logger.debug("hidden", fields())
        logger.info("hidden", fields())
        logger.notice("shown", fields())
        logger.error("shown.too")
        #expect(sink.events == ["shown", "shown.too"])
        #expect(evaluated.locked { $0 } == 1)
    }

    @Test func childCategoriesAreDotted() {
        let sink = RecordingLogSink()
        let logger = makeLogger(sink: sink)
        logger.child(category: "session").info("a")
        logger.child(category: "session").child(category: "router").info("b")
        #expect(sink.records.map(\.category) == ["gateway.session", "gateway.session.router"])
    }

    @Test(
        "sensitive fields are redacted by default",
        arguments: [
            "transcript", "text", "utterance", "token", "password", "signature", "bootstrapToken", "deviceToken",
            "audioBase64", "TEXT", "authToken", "auth_token", "gatewayPassword", "rawSignature",
        ])
    func redactsSensitiveFields(_ name: String) {
        let sink = RecordingLogSink()
        makeLogger(sink: sink).info("e", [name: "secret value", "other": "keep"])
        #expect(sink.records.first?.fields[name] == .redacted(length: 12))
        #expect(sink.records.first?.fields["other"] == "keep")
    }

    @Test("similar names are not redacted", arguments: ["context", "tokens", "textual", "passwordless", "pretext"])
    func keepsNonSensitiveFields(_ name: String) {
        let sink = RecordingLogSink()
        makeLogger(sink: sink).info("e", [name: "visible"])
        #expect(sink.records.first?.fields[name] == "visible")
    }

    @Test func redactionRendersLengthInBothFormats() {
        let text = LineCollector()
        let json = LineCollector()
        makeLogger(sink: TextLogSink(output: text.output)).info("stt.final", ["transcript": "turn on the lights"])
        makeLogger(sink: JSONLinesLogSink(output: json.output)).info("stt.final", ["transcript": "turn on the lights"])
        #expect(text.lines == ["2026-11-29T10:00:00.123Z info gateway stt.final transcript=<redacted len=18>"])
        #expect(json.lines.first?.hasSuffix(#""transcript":"<redacted len=18>"}"#) == true)
        #expect(text.lines.joined().contains("lights") == false)
    }

    @Test func logSensitiveKeepsValues() {
        let sink = RecordingLogSink()
        makeLogger(sink: sink, sensitive: true).info("e", ["transcript": "hello there", "n": 3])
        #expect(sink.records.first?.fields == ["transcript": "hello there", "n": 3])
    }

    @Test func settingsChooseSinkAndLevel() {
        var settings = LogSettings()
        settings.format = .json
        settings.level = .warning
        settings.syslogPrefix = true
        let lines = LineCollector()
        let logger = Logger(settings: settings, category: "talk", output: lines.output)
        logger.info("dropped")
        logger.warning("kept", ["text": "abc"])
        #expect(lines.lines.count == 1)
        #expect(lines.lines.first?.hasPrefix(#"<4>{"ts":"#) == true)
        #expect(lines.lines.first?.hasSuffix(#""event":"kept","text":"<redacted len=3>"}"#) == true)
    }

    @Test func concurrentWritesNeverInterleave() async {
        let chunks = Mutex<[String]>([])
        let output = LogOutput { text in chunks.locked { $0.append(text) } }
        let logger = makeLogger(sink: TextLogSink(output: output))
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for i in 0..<50 { logger.info("tick", ["task": .int(task), "i": .int(i)]) }
                }
            }
        }
        let all = chunks.locked { $0 }
        #expect(all.count == 400)
        #expect(all.allSatisfy { $0.hasSuffix("\n") && $0.dropLast().contains("\n") == false })
        #expect(Set(all).count == 400)
    }

    @Test(
        "timestamps",
        arguments: [
            (0.0, "1970-01-01T00:00:00.000Z"),
            (951_782_400.5, "2000-02-29T00:00:00.500Z"),
            (1_795_946_400.123, "2026-11-29T10:00:00.123Z"),
            (-1.0, "1969-12-31T23:59:59.000Z"),
            (4_107_542_399.999, "2100-02-28T23:59:59.999Z"),
        ])
    func timestamps(_ seconds: Double, _ expected: String) {
        #expect(LogTimestamp.format(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test func levelOrderAndPriorities() {
        #expect(LogLevel.allCases.sorted() == [.trace, .debug, .info, .notice, .warning, .error])
        #expect(LogLevel.allCases.map(\.syslogPriority) == [7, 7, 6, 5, 4, 3])
    }
}
