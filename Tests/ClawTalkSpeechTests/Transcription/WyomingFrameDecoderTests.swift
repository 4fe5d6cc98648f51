import ClawTalkSpeech
import ClawTalkSupport
import Foundation
import Testing

@Suite struct WyomingFrameDecoderTests {
    static let events: [WyomingEvent] = [
        .describe,
        .transcribe(language: "en", names: ["openclaw", "claude"]),
        .audioStart(.speech),
        .audioChunk(.speech, samples: [1, -2, 0x1234]),
        .audioStop,
        WyomingEvent(type: "transcript", data: ["text": "Ünïcode \"quoted\"\n"]),
    ]

    @Test func eventsSurviveAByteByByteStream() throws {
        var decoder = WyomingFrameDecoder()
        var decoded: [WyomingEvent] = []
        for byte in Self.events.flatMap({ $0.encoded() }) {
            decoder.append([byte])
            while let event = try decoder.next() { decoded.append(event) }
        }
        #expect(decoded == Self.events)
        #expect(decoder.isAtEventBoundary)
    }

    @Test func audioPayloadIsLittleEndianS16() {
        let chunk = WyomingEvent.audioChunk(.speech, samples: [1, -2, 0x1234])
        #expect(chunk.payload == [0x01, 0x00, 0xFE, 0xFF, 0x34, 0x12])
        #expect(chunk.data["rate"] == .int(16000))
        #expect(chunk.data["width"] == .int(2))
        #expect(chunk.data["channels"] == .int(1))
    }

    /// What Python's `json` (the reference peer) must be able to read: a strict-JSON header with
    /// the lengths, then a strict-JSON data block, then the payload.
    @Test func encodingIsStrictJSONWithLengths() throws {
        let event = WyomingEvent.audioChunk(.speech, samples: [7, 8])
        let bytes = event.encoded()
        let newline = try #require(bytes.firstIndex(of: 0x0A))
        let header = try #require(
            try JSONSerialization.jsonObject(with: Data(bytes[..<newline])) as? [String: Any])
        #expect(header["type"] as? String == "audio-chunk")
        let dataLength = try #require(header["data_length"] as? Int)
        #expect(header["payload_length"] as? Int == 4)
        let block = Data(bytes[(newline + 1)..<(newline + 1 + dataLength)])
        let data = try #require(try JSONSerialization.jsonObject(with: block) as? [String: Int])
        #expect(data == ["rate": 16000, "width": 2, "channels": 1])
        #expect(bytes.count == newline + 1 + dataLength + 4)
        // An event without data or payload is just its header line.
        #expect(WyomingEvent.audioStop.encoded() == Array("{\"type\":\"audio-stop\"}\n".utf8))
    }

    @Test func inlineDataIsMergedWithTheDataBlock() throws {
        let text =
            "{\"type\": \"transcript\", \"data\": {\"text\": \"inline\", \"language\": \"en\"}, \"data_length\": 15}\n"
        var decoder = WyomingFrameDecoder()
        decoder.append(Array(text.utf8) + Array("{\"text\": \"blk\"}".utf8))
        #expect(decoder.bufferedByteCount > 0)
        let event = try #require(try decoder.next())
        #expect(event.transcriptText == "blk")
        #expect(event.data["language"] == .string("en"))
        #expect(try decoder.next() == nil)
    }

    @Test func partialEventsWaitForTheirBytes() throws {
        let bytes = WyomingEvent.audioChunk(.speech, samples: [1, 2, 3]).encoded()
        var decoder = WyomingFrameDecoder()
        decoder.append(bytes.dropLast())
        #expect(try decoder.next() == nil)
        #expect(!decoder.isAtEventBoundary)
        decoder.append(bytes.suffix(1))
        #expect(try decoder.next()?.payload.count == 6)
    }

    @Test(arguments: [
        "not json\n",
        "[1, 2]\n",
        "{\"data\": {}}\n",
        "{\"type\": \"\"}\n",
        "{\"type\": 5}\n",
        "{\"type\": \"x\", \"data\": [1]}\n",
        "{\"type\": \"x\", \"data_length\": -1}\n",
        "{\"type\": \"x\", \"payload_length\": 1.5}\n",
        "{\"type\": \"x\", \"payload_length\": \"4\"}\n",
        "{\"type\": \"x\", \"payload_length\": 999999999}\n",
        "{\"type\": \"x\", \"data_length\": 3}\n[1]",
        "{\"type\": \"x\", \"data_length\": 2}\n\u{FF}\u{FE}",
    ])
    func malformedFramesAreRejected(text: String) {
        var decoder = WyomingFrameDecoder()
        decoder.append(Array(text.utf8))
        #expect(throws: SpeechError.self) { try decoder.next() }
    }

    @Test func anEndlessHeaderLineIsRejected() {
        var decoder = WyomingFrameDecoder()
        decoder.append([UInt8](repeating: 0x20, count: WyomingFrameDecoder.maximumHeaderLength + 1))
        #expect(throws: SpeechError.self) { try decoder.next() }
    }

    @Test func infoNamesTheProgramModelAndLanguages() throws {
        let event = WyomingEvent(
            type: "info",
            data: [
                "asr": [
                    [
                        "name": "faster-whisper", "version": "3.8.1", "installed": true,
                        "models": [
                            ["name": "/home/u/.local/share/clawtalk/models/whisper-base", "languages": ["de", "en"]]
                        ],
                    ]
                ]
            ])
        let info = try WyomingInfo(event: event)
        #expect(info.summary == "faster-whisper base")
        #expect(info.asr.first?.version == "3.8.1")
        #expect(info.supports(languageCode: "en"))
        #expect(!info.supports(languageCode: "xx"))
        #expect(throws: SpeechError.self) { try WyomingInfo(event: .audioStop) }
        #expect(WyomingInfo.Model(name: "rhasspy/faster-whisper-tiny-int8").shortName == "tiny-int8")
    }
}
