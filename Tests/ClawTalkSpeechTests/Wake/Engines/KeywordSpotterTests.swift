import ClawTalkSpeech
import Testing

@Suite struct KeywordSpotterTests {
    typealias Plan = KeywordSpotter.Plan

    static let triggers = ["openclaw", "claude", "computer", "Okay Nabu", "hey_jarvis", "computer!"]

    @Test(arguments: [
        (
            KeywordSpotter.Selection.auto, true,
            Plan(microWakeWord: ["Okay Nabu", "hey_jarvis"], pocketSphinx: ["openclaw", "claude", "computer"])
        ),
        (
            .microwakeword, true,
            Plan(microWakeWord: ["Okay Nabu", "hey_jarvis"], unsupported: ["openclaw", "claude", "computer"])
        ),
        (.pocketsphinx, true, Plan(pocketSphinx: ["openclaw", "claude", "computer", "Okay Nabu", "hey_jarvis"])),
        // Without the TF Lite runtime, auto falls back to PocketSphinx for everything.
        (.auto, false, Plan(pocketSphinx: ["openclaw", "claude", "computer", "Okay Nabu", "hey_jarvis"])),
    ])
    func plansTriggersPerEngine(selection: KeywordSpotter.Selection, runtime: Bool, expected: Plan) throws {
        let plan = KeywordSpotter.plan(
            triggers: Self.triggers, selection: selection, models: try WakeTestSupport.models(),
            microWakeWordAvailable: runtime)
        #expect(plan == expected)
    }

    static func spotter(_ triggers: [String]) throws -> KeywordSpotter {
        try KeywordSpotter(
            triggers: triggers,
            configuration: .init(
                models: WakeTestSupport.models(), runtime: .shared(), thresholds: ["computer": 1e-22],
                resolver: WakeTestSupport.resolver()))
    }

    @Test func autoSelectionRunsBothEnginesWithTheirThresholds() throws {
        let spotter = try Self.spotter(["computer", "okay nabu"])
        #expect(spotter.engines.map(\.name) == ["microwakeword", "pocketsphinx"])
        #expect(spotter.threshold(for: "okay nabu") == 0.85)
        #expect(spotter.threshold(for: "computer") == 1e-22)
        let hits = try WakeTestSupport.run(spotter, WakeTestSupport.fixture("okay-nabu"))
        #expect(hits.map(\.trigger) == ["okay nabu"])
        #expect(hits.map(\.engine) == ["microwakeword"])
    }

    @Test func liveUpdateAddsAndRemovesEnginesKeepingTime() throws {
        let spotter = try Self.spotter(["computer"])
        #expect(spotter.engines.map(\.name) == ["pocketsphinx"])
        let clip = try WakeTestSupport.fixture("okay-nabu")
        #expect(try WakeTestSupport.run(spotter, clip).isEmpty)
        try spotter.setTriggers(["computer", "okay nabu"])
        #expect(spotter.engines.map(\.name) == ["microwakeword", "pocketsphinx"])
        let hit = try #require(try WakeTestSupport.run(spotter, clip).first)
        #expect(hit.atSeconds > Double(clip.count) / 16000 + 1.5, "at \(hit.atSeconds)")
        try spotter.setTriggers(["okay nabu"])
        #expect(spotter.engines.map(\.name) == ["microwakeword"])
        #expect(spotter.plan.pocketSphinx.isEmpty)
        #expect(spotter.triggers == ["okay nabu"])
    }
}
