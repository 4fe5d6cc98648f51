import Testing

@testable import ClawTalkProtocol

@Suite("Talk directive")
struct TalkDirectiveTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var reply: String
        var directive: TalkDirective?
        var text: String
        var testDescription: String { reply.debugDescription }
    }

    @Test(
        "first non-empty line JSON object is the directive",
        arguments: [
            Case(reply: "Hello there.", directive: nil, text: "Hello there."),
            Case(
                reply: "{\"voice\":\"21m00Tcm4TlvDq8ikWAM\",\"once\":true}\nHello.",
                directive: TalkDirective(voice: "21m00Tcm4TlvDq8ikWAM", once: true), text: "Hello."),
            Case(
                reply: "\n  \n{\"speed\":1.2}\n\nLine one.\nLine two.", directive: TalkDirective(speed: 1.2),
                text: "Line one.\nLine two."),
            Case(reply: "{\"speed\":1.2}\r\n\r\nHi.", directive: TalkDirective(speed: 1.2), text: "Hi."),
            Case(reply: "  {\"lang\":\"de\"}  \nHallo.", directive: TalkDirective(language: "de"), text: "Hallo."),
            Case(reply: "{not json}\nHello.", directive: nil, text: "{not json}\nHello."),
            Case(reply: "[1,2]\nHello.", directive: nil, text: "[1,2]\nHello."),
            Case(reply: "Hello.\n{\"speed\":1.2}", directive: nil, text: "Hello.\n{\"speed\":1.2}"),
            Case(reply: "{\"speed\":1.2} trailing\nHello.", directive: nil, text: "{\"speed\":1.2} trailing\nHello."),
            Case(reply: "{}\nHello.", directive: TalkDirective(), text: "Hello."),
            Case(reply: "{\"speed\":1.2}", directive: TalkDirective(speed: 1.2), text: ""),
            Case(reply: "", directive: nil, text: ""),
            Case(reply: "   \n ", directive: nil, text: "   \n "),
        ])
    func parse(testCase: Case) {
        let (directive, text) = TalkDirective.parse(reply: testCase.reply)
        #expect(directive == testCase.directive)
        #expect(text == testCase.text)
    }

    @Test(
        "key aliases",
        arguments: [
            ("{\"voice_id\":\"v\"}", TalkDirective(voice: "v")),
            ("{\"voiceId\":\"v\"}", TalkDirective(voice: "v")),
            ("{\"voice\":\"a\",\"voiceId\":\"b\"}", TalkDirective(voice: "a")),
            ("{\"model\":\"m\"}", TalkDirective(modelId: "m")),
            ("{\"model_id\":\"m\"}", TalkDirective(modelId: "m")),
            ("{\"modelId\":\"m\"}", TalkDirective(modelId: "m")),
            ("{\"rate\":200}", TalkDirective(rateWpm: 200)),
            ("{\"output_format\":\"mp3_44100_128\"}", TalkDirective(outputFormat: "mp3_44100_128")),
            ("{\"latency_tier\":3}", TalkDirective(latencyTier: 3)),
            (
                "{\"speakerBoost\":true,\"seed\":7,\"normalize\":\"off\"}",
                TalkDirective(speakerBoost: true, seed: 7, normalize: "off")
            ),
            (
                "{\"stability\":0.2,\"similarity\":0.8,\"style\":1}",
                TalkDirective(stability: 0.2, similarity: 0.8, style: 1)
            ),
            ("{\"once\":false,\"lang\":\"fr\"}", TalkDirective(language: "fr", once: false)),
            ("{\"speed\":\"1.5\",\"once\":\"true\"}", TalkDirective(speed: 1.5, once: true)),
        ])
    func aliases(line: String, expected: TalkDirective) {
        #expect(TalkDirective.parse(reply: line + "\nx").directive == expected)
    }

    @Test(
        "out-of-range values are dropped, never sent",
        arguments: [
            ("speed", "0.49", false), ("speed", "0.5", true), ("speed", "2", true), ("speed", "2.01", false),
            ("rate", "87", false), ("rate", "88", true), ("rate", "349", true), ("rate", "350", false),
            ("rate", "175.5", false),
            ("stability", "-0.1", false), ("stability", "0", true), ("stability", "1", true),
            ("stability", "1.1", false),
            ("similarity", "1.5", false), ("style", "-1", false),
            ("latency_tier", "0", true), ("latency_tier", "4", true), ("latency_tier", "5", false),
            ("latency_tier", "-1", false),
            ("seed", "-1", false), ("seed", "0", true),
            ("speed", "\"fast\"", false), ("voice", "5", false), ("voice", "\"  \"", false),
            ("speakerBoost", "\"maybe\"", false),
        ])
    func ranges(key: String, value: String, kept: Bool) throws {
        let directive = try #require(TalkDirective.parse(reply: "{\"\(key)\":\(value)}\nx").directive)
        #expect(directive.droppedKeys == (kept ? [] : [key]))
        let params = directive.speakParams(text: "x", outputFormat: nil)
        let wire = try WireJSON(encoding: params)
        // Only `text` remains when the value was dropped.
        #expect((wire.objectValue?.count ?? 0 > 1) == kept, "\(wire.encodedString())")
    }

    @Test("unknown keys are ignored and reported")
    func unknownKeys() throws {
        let directive = try #require(
            TalkDirective.parse(reply: "{\"zeta\":1,\"speed\":1.1,\"alpha\":true}\nHi").directive)
        #expect(directive.unknownKeys == ["alpha", "zeta"])
        #expect(directive.speed == 1.1)
    }

    @Test(
        "voice resolution: alias, case-insensitive alias, raw id, unknown short alias",
        arguments: [
            ("nova", "21m00Tcm4TlvDq8ikWAM"), ("NOVA", "21m00Tcm4TlvDq8ikWAM"),
            ("EXAVITQu4vr4xnSDxMaL", "EXAVITQu4vr4xnSDxMaL"),
            ("shorty", nil), ("has space voice id", nil), ("0123456789", "0123456789"), ("012345678", nil),
        ] as [(String, String?)])
    func voiceResolution(voice: String, expected: String?) {
        let directive = TalkDirective(voice: voice)
        #expect(directive.resolveVoiceId(aliases: ["nova": "21m00Tcm4TlvDq8ikWAM"]) == expected)
    }

    @Test("speak params: directive values, resolved voice, output format precedence")
    func speakParams() throws {
        let (directive, text) = TalkDirective.parse(reply: "{\"voice\":\"nova\",\"rate\":200,\"lang\":\"en\"}\nHello.")
        let params = try #require(directive).speakParams(
            text: text, voiceAliases: ["nova": "voice-nova-id"], outputFormat: "pcm_24000")
        #expect(
            params
                == TalkSpeakParams(
                    text: "Hello.", voiceId: "voice-nova-id", outputFormat: "pcm_24000", rateWpm: 200, language: "en"))
        let withFormat = TalkDirective(outputFormat: "mp3_44100_128").speakParams(text: "x", outputFormat: "pcm_24000")
        #expect(withFormat.outputFormat == "mp3_44100_128")
    }

    @Test("session defaults fill unset values")
    func filling() {
        let base = TalkDirective(voice: "base", speed: 1.5, language: "de")
        let reply = TalkDirective(speed: 0.8, once: true)
        let merged = reply.filling(from: base)
        #expect(merged.voice == "base")
        #expect(merged.speed == 0.8)
        #expect(merged.language == "de")
        #expect(merged.once)
        #expect(reply.filling(from: nil) == reply)
    }
}
