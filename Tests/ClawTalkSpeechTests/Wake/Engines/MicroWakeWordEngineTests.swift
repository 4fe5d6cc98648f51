import ClawTalkSpeech
import Testing

@Suite struct MicroWakeWordEngineTests {
    @Test(arguments: [
        ("okay nabu", "okay_nabu"), ("Okay Nabu!", "okay_nabu"), ("hey_jarvis", "hey_jarvis"),
        ("Hey Jarvis", "hey_jarvis"), ("alexa", "alexa"), ("hey mycroft", "hey_mycroft"),
    ])
    func triggersMapToModels(trigger: String, model: String) throws {
        #expect(MicroWakeWordEngine.model(for: trigger, in: try WakeTestSupport.models())?.id == model)
    }

    @Test(arguments: ["computer", "jarvis", "nabu", ""])
    func triggersWithoutModelDoNotMap(trigger: String) throws {
        #expect(MicroWakeWordEngine.model(for: trigger, in: try WakeTestSupport.models()) == nil)
    }

    @Test func detectsOkayNabuUnderTheConfiguredTrigger() throws {
        let engine = try MicroWakeWordEngine(
            triggers: ["Okay Nabu"], models: WakeTestSupport.models(), runtime: .shared())
        let hits = try WakeTestSupport.run(engine, WakeTestSupport.fixture("okay-nabu"))
        let hit = try #require(hits.first)
        #expect(hits.count == 1)
        #expect(hit.trigger == "Okay Nabu")
        #expect(hit.engine == "microwakeword")
        #expect(hit.score > 0.85)
        // The reference wrapper detects at inference 62 (about 1.9 s).
        #expect(abs(hit.atSeconds - 1.9) < 0.1, "at \(hit.atSeconds)")
        #expect(engine.cutoff(for: "okay nabu") == 0.85)
    }

    @Test func staysQuietOnNoise() throws {
        let engine = try MicroWakeWordEngine(
            triggers: ["okay nabu", "hey jarvis", "alexa"], models: WakeTestSupport.models(), runtime: .shared())
        #expect(try WakeTestSupport.run(engine, WakeTestSupport.fixture("pink-noise")).isEmpty)
    }

    @Test func cutoffOverridesByTriggerOrModelID() throws {
        let engine = try MicroWakeWordEngine(
            triggers: ["okay nabu", "alexa"], models: WakeTestSupport.models(), runtime: .shared(),
            cutoffs: ["okay_nabu": 0.99, "Alexa": 0.5])
        #expect(engine.cutoff(for: "okay nabu") == 0.99)
        #expect(engine.cutoff(for: "alexa") == 0.5)
        let hits = try WakeTestSupport.run(engine, WakeTestSupport.fixture("okay-nabu"))
        #expect(hits.allSatisfy { $0.score > 0.99 })
    }

    @Test func triggerWithoutModelIsRejected() throws {
        #expect(throws: WakeError.unsupportedTrigger(trigger: "computer", engine: "microwakeword")) {
            try MicroWakeWordEngine(triggers: ["computer"], models: WakeTestSupport.models(), runtime: .shared())
        }
    }

    @Test func setTriggersKeepsTheTimeBase() throws {
        let engine = try MicroWakeWordEngine(triggers: ["alexa"], models: WakeTestSupport.models(), runtime: .shared())
        let clip = try WakeTestSupport.fixture("okay-nabu")
        #expect(try WakeTestSupport.run(engine, clip).isEmpty)
        try engine.setTriggers(["okay nabu"])
        let hit = try #require(try WakeTestSupport.run(engine, clip).first)
        let first = Double(clip.count) / 16000
        #expect(abs(hit.atSeconds - (first + 1.9)) < 0.15, "at \(hit.atSeconds)")
    }
}
