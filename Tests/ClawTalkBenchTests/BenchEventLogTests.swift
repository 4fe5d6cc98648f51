import ClawTalkDevices
import ClawTalkSupport
import Foundation
import Testing

@testable import ClawTalkBench

@Suite struct BenchEventLogTests {
    @Test func linesAreTimeOrderedJSONOnTheMonotonicClock() throws {
        let log = BenchEventLog()
        let now = ContinuousClock.now
        let monotonic = Int64(MonotonicTime.nanoseconds())
        log.record("eou.detected", at: now, clip: "eou")
        log.record("truth.speechEnd", at: now - .milliseconds(720), clip: "eou", data: ["note": "x"])
        let lines = log.jsonLines.split(separator: "\n")
        #expect(lines.count == 2 && log.count == 2)
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["event"] as? String } == ["truth.speechEnd", "eou.detected"])
        #expect(objects[0]["clip"] as? String == "eou")
        #expect((objects[0]["data"] as? [String: String]) == ["note": "x"])
        let first = try #require(objects[0]["t_ns"] as? Int64)
        let second = try #require(objects[1]["t_ns"] as? Int64)
        #expect(abs(second - first - 720_000_000) < 1_000_000)
        #expect(abs(second - monotonic) < 50_000_000)
    }
}
