public import ClawTalkSupport

/// One event of the Wyoming protocol (https://github.com/OHF-Voice/wyoming): a type, a JSON
/// object of data and an optional binary payload (audio for `audio-chunk`).
///
/// On the wire an event is a header line of JSON, `{"type": …, "data": {…}?, "data_length": N?,
/// "payload_length": M?}` and `\n`, followed by N bytes of UTF-8 JSON (an object merged over
/// `data`) and M bytes of payload. ``encoded()`` writes data as the N-byte block, as the
/// reference implementation does; ``WyomingFrameDecoder`` accepts either placement.
public struct WyomingEvent: Sendable, Equatable {
    /// The event type, e.g. `transcribe`, `audio-chunk`, `transcript`.
    public var type: String
    /// The event's data (empty for none).
    public var data: JSONObject
    /// Binary payload (empty for none).
    public var payload: [UInt8]

    /// Creates an event.
    public init(type: String, data: JSONObject = [:], payload: [UInt8] = []) {
        self.type = type
        self.data = data
        self.payload = payload
    }

    /// The event's wire bytes: header line, data block, payload.
    public func encoded() -> [UInt8] {
        var header: JSONObject = ["type": .string(type)]
        let dataBytes = data.count == 0 ? [] : Array(WyomingJSON.text(.object(data)).utf8)
        if !dataBytes.isEmpty { header["data_length"] = .int(Int64(dataBytes.count)) }
        if !payload.isEmpty { header["payload_length"] = .int(Int64(payload.count)) }
        var bytes = Array(WyomingJSON.text(.object(header)).utf8)
        bytes.reserveCapacity(bytes.count + 1 + dataBytes.count + payload.count)
        bytes.append(0x0A)
        bytes += dataBytes
        bytes += payload
        return bytes
    }
}

extension WyomingEvent {
    /// `describe`: asks a server for its `info`.
    public static let describe = WyomingEvent(type: "describe")

    /// `transcribe`: starts a transcription; `language` (e.g. `en`), `name` (model) and
    /// `names` (phrases to bias toward, protocol field `transcript_names`) are optional.
    /// `detectTurn` adds `"turn": true`, clawtalk-speech's request for an end-of-turn verdict in
    /// the `transcript` (`turn_complete`); other servers ignore the field.
    public static func transcribe(
        language: String?, name: String? = nil, names: [String] = [], detectTurn: Bool = false
    ) -> WyomingEvent {
        var data: JSONObject = [:]
        if detectTurn { data["turn"] = .bool(true) }
        if let language { data["language"] = .string(language) }
        if let name { data["name"] = .string(name) }
        if !names.isEmpty { data["transcript_names"] = .array(names.map { .string($0) }) }
        return WyomingEvent(type: "transcribe", data: data)
    }

    /// `audio-start` for s16le audio in `format`.
    public static func audioStart(_ format: WyomingAudioFormat) -> WyomingEvent {
        WyomingEvent(type: "audio-start", data: format.json)
    }

    /// `audio-chunk` carrying `samples` (s16le) in `format`.
    public static func audioChunk(_ format: WyomingAudioFormat, samples: ArraySlice<Int16>) -> WyomingEvent {
        var payload = [UInt8]()
        payload.reserveCapacity(samples.count * 2)
        for sample in samples {
            let bits = UInt16(bitPattern: sample.littleEndian)
            payload.append(UInt8(truncatingIfNeeded: bits))
            payload.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        return WyomingEvent(type: "audio-chunk", data: format.json, payload: payload)
    }

    /// `audio-stop`: the end of the audio.
    public static let audioStop = WyomingEvent(type: "audio-stop")

    /// `text` of a `transcript` event, nil for other events.
    public var transcriptText: String? {
        type == "transcript" ? (data["text"]?.stringValue ?? "") : nil
    }

    /// A `transcript` event as a ``WyomingTranscriptReply``, nil for other events.
    public var transcriptReply: WyomingTranscriptReply? {
        guard let text = transcriptText else { return nil }
        return WyomingTranscriptReply(
            text: text, turnComplete: data["turn_complete"]?.doubleValue, silent: data["silent"]?.boolValue ?? false)
    }
}

/// Sample rate, width and channels of Wyoming audio events.
public struct WyomingAudioFormat: Sendable, Hashable {
    /// Samples per second.
    public var rate: Int
    /// Bytes per sample (2 for s16le).
    public var width: Int
    /// Interleaved channels.
    public var channels: Int

    /// Creates a format.
    public init(rate: Int, width: Int = 2, channels: Int = 1) {
        self.rate = rate
        self.width = width
        self.channels = channels
    }

    /// 16 kHz, 16-bit, mono: what Whisper and PocketSphinx consume.
    public static let speech = WyomingAudioFormat(rate: 16000)

    /// The `rate`/`width`/`channels` data object.
    var json: JSONObject {
        ["rate": .int(Int64(rate)), "width": .int(Int64(width)), "channels": .int(Int64(channels))]
    }
}
