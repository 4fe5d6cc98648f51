import Testing

@testable import ClawTalkProtocol

@Suite("Wake routing config (talk.md §6.2)")
struct VoiceWakeRoutingTests {
    static let payload: WireJSON = [
        "config": [
            "version": 1, "defaultTarget": ["mode": "current"],
            "routes": [
                ["trigger": "  Hey,  Computer! ", "target": ["sessionKey": "agent:research:main"]],
                ["trigger": "claude", "target": ["agentId": "writer"]],
                ["trigger": "openclaw", "target": ["mode": "current"]],
                ["trigger": "broken", "target": ["sessionKey": "a", "agentId": "b"]],
                ["trigger": "", "target": ["mode": "current"]],
                ["trigger": "other", "target": ["mode": "elsewhere"]],
                ["target": ["mode": "current"]],
            ],
            "updatedAtMs": 1_764_000_000_000,
        ]
    ]

    @Test func aConfigIsReadAndUnusableRoutesAreSkipped() throws {
        let routing = try VoiceWakeRouting(payload: Self.payload)
        #expect(routing.defaultTarget == .current)
        #expect(routing.updatedAtMs == 1_764_000_000_000)
        #expect(
            routing.routes == [
                .init(trigger: "hey computer", target: .session("agent:research:main")),
                .init(trigger: "claude", target: .agent("writer")),
                .init(trigger: "openclaw", target: .current),
            ])
    }

    @Test func theDetectedTriggerIsMatchedWithTheSameNormalization() throws {
        let routing = try VoiceWakeRouting(payload: Self.payload)
        #expect(routing.target(for: "hey computer") == .session("agent:research:main"))
        #expect(routing.target(for: "Hey Computer.") == .session("agent:research:main"))
        #expect(routing.target(for: "CLAUDE") == .agent("writer"))
        #expect(routing.target(for: "computer") == .current, "no route: the default target")
        #expect(VoiceWakeRouting.normalizeTrigger(" «Open,  Claw»! ") == "open claw")
        #expect(VoiceWakeRouting.normalizeTrigger("o'neil's") == "o'neil's", "inner punctuation stays")
    }

    @Test func theDefaultTargetCanBeASessionAndABadOneIsCurrent() throws {
        let session = try VoiceWakeRouting(config: ["version": 1, "defaultTarget": ["sessionKey": "kitchen"]])
        #expect(session.target(for: "computer") == .session("kitchen"))
        let bad = try VoiceWakeRouting(config: ["version": 1, "defaultTarget": ["mode": "current", "x": 1]])
        #expect(bad.defaultTarget == .current)
        #expect(try VoiceWakeRouting(config: [:]) == .default)
    }

    @Test func atMost32RoutesAreKept() throws {
        let routes: [WireJSON] = (0..<40).map {
            .object(["trigger": .string("word \($0)"), "target": ["mode": "current"]])
        }
        let routing = try VoiceWakeRouting(config: ["version": 1, "routes": .array(routes)])
        #expect(routing.routes.count == 32)
        #expect(routing.routes.last?.trigger == "word 31")
    }

    @Test func anotherVersionOrAMissingConfigIsRefused() {
        #expect(throws: ProtocolError.self) { try VoiceWakeRouting(config: ["version": 2, "routes": []]) }
        #expect(throws: ProtocolError.self) { try VoiceWakeRouting(payload: ["routes": []]) }
        #expect(throws: ProtocolError.self) { try VoiceWakeRouting(payload: nil) }
    }
}
