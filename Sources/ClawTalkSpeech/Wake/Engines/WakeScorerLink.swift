import ClawTalkSupport

/// The Wyoming connection of a ``WhisperKeywordEngine`` to `clawtalk-wake`: one persistent socket
/// stream, written and polled from the engine's own thread without waiting (loopback writes of
/// 20 ms chunks; reads only of what has arrived), except for ``drain(timeout:)``.
///
/// Not thread-safe: the engine is its only user.
final class WakeScorerLink {
    /// A `detection` the server sent.
    struct Detection: Equatable {
        /// The trigger, as sent in `detect`.
        var name: String
        /// End of the scored audio on the engine's clock, milliseconds.
        var timestampMilliseconds: Int
        /// The keyword score (0 for a text match below the threshold).
        var score: Double
        /// `keyword` or `text`.
        var method: String
        /// How long the server took to score the window, milliseconds.
        var computeMilliseconds: Int
    }

    private let stream: SocketStream
    private var decoder = WyomingFrameDecoder()
    private let address: String
    private var received: [Detection] = []
    private static let format = WyomingAudioFormat.speech

    /// Connects within `timeout`. Throws ``SpeechError/wyomingProtocol(_:)`` naming the address.
    init(address: WyomingAddress, timeout: Duration) throws {
        self.address = "\(address)"
        do {
            stream = try SocketStream(address: address, deadline: .now + timeout, cancellation: SocketCancellation())
        } catch let failure as SocketStream.Failure {
            throw SpeechError.wyomingProtocol("no keyword scorer answers at \(address) (\(failure.message))")
        } catch {
            throw SpeechError.wyomingProtocol("no keyword scorer answers at \(address) within \(timeout)")
        }
    }

    deinit { stream.close() }

    /// `detect` with the triggers, their thresholds and their extra spellings, and
    /// `"acoustic": false` when the scorer's acoustic heads may not wake them.
    func detect(
        _ triggers: [String], thresholds: [String: Double], aliases: [String: [String]], acousticHeads: Bool = true
    ) throws {
        var data: JSONObject = ["names": .array(triggers.map { .string($0) })]
        var limits = JSONObject()
        var spellings = JSONObject()
        for trigger in triggers {
            let key = TriggerText.key(trigger)
            if let value = thresholds.first(where: { TriggerText.key($0.key) == key })?.value {
                limits[trigger] = .double(value)
            }
            if let extra = aliases.first(where: { TriggerText.key($0.key) == key })?.value, !extra.isEmpty {
                spellings[trigger] = .array(extra.map { .string($0) })
            }
        }
        if !limits.members.isEmpty { data["thresholds"] = .object(limits) }
        if !spellings.members.isEmpty { data["aliases"] = .object(spellings) }
        if !acousticHeads { data["acoustic"] = .bool(false) }
        try send(WyomingEvent(type: "detect", data: data))
    }

    /// `audio-start` stamped with the segment's start on the engine's clock.
    func start(atMilliseconds timestamp: Int) throws {
        var data = Self.format.json
        data["timestamp"] = .int(Int64(timestamp))
        try send(WyomingEvent(type: "audio-start", data: data))
    }

    /// One `audio-chunk`.
    func send(_ samples: ArraySlice<Int16>) throws {
        try send(.audioChunk(Self.format, samples: samples))
    }

    /// `audio-stop`.
    func stop() throws {
        try send(.audioStop)
    }

    /// The detections that have arrived, oldest first.
    func poll() throws -> [Detection] {
        while let bytes = try read() {
            guard !bytes.isEmpty else { throw SpeechError.wyomingProtocol("\(address) closed the connection") }
            decoder.append(bytes)
        }
        try decodeAll()
        defer { received.removeAll() }
        return received
    }

    /// Waits until the server has answered everything sent so far (a `describe` barrier: the
    /// server handles one connection's events in order), then returns the detections.
    func drain(timeout: Duration) throws -> [Detection] {
        try send(.describe)
        let deadline = ContinuousClock.now + timeout
        while true {
            if try decodeAll(untilInfo: true) { break }
            let bytes: [UInt8]
            do {
                bytes = try stream.read(deadline: deadline)
            } catch is SocketStream.DeadlineExceeded {
                throw SpeechError.sttTimedOut(operation: "wake scoring at \(address)", seconds: timeout.inSeconds)
            } catch let failure as SocketStream.Failure {
                throw SpeechError.wyomingProtocol("connection to \(address) lost: \(failure)")
            }
            guard !bytes.isEmpty else { throw SpeechError.wyomingProtocol("\(address) closed the connection") }
            decoder.append(bytes)
        }
        defer { received.removeAll() }
        return received
    }

    // MARK: - Private

    private func send(_ event: WyomingEvent) throws {
        do {
            try stream.write(event.encoded(), deadline: .now + .seconds(2))
        } catch let failure as SocketStream.Failure {
            throw SpeechError.wyomingProtocol("connection to \(address) lost: \(failure)")
        } catch is SocketStream.DeadlineExceeded {
            throw SpeechError.sttTimedOut(operation: "sending audio to \(address)", seconds: 2)
        }
    }

    private func read() throws -> [UInt8]? {
        do {
            return try stream.readIfAvailable()
        } catch let failure as SocketStream.Failure {
            throw SpeechError.wyomingProtocol("connection to \(address) lost: \(failure)")
        }
    }

    /// Decodes the buffered events into ``received``; true when an `info` was among them (and
    /// `untilInfo` stopped there).
    @discardableResult
    private func decodeAll(untilInfo: Bool = false) throws -> Bool {
        while let event = try decoder.next() {
            switch event.type {
            case "detection":
                guard let name = event.data["name"]?.stringValue else { continue }
                received.append(
                    Detection(
                        name: name, timestampMilliseconds: Int(event.data["timestamp"]?.integerValue ?? 0),
                        score: event.data["score"]?.doubleValue ?? 0,
                        method: event.data["method"]?.stringValue ?? "keyword",
                        computeMilliseconds: Int(event.data["compute_ms"]?.integerValue ?? 0)))
            case "info" where untilInfo:
                return true
            case "error":
                let text = event.data["text"]?.stringValue ?? "no text"
                throw SpeechError.wyomingProtocol("\(address) reported an error: \(text)")
            default:
                continue
            }
        }
        return false
    }
}
