public import ClawTalkAudio
public import ClawTalkSupport

/// A client for a Wyoming speech-to-text server (e.g. `wyoming-faster-whisper`) over a Unix
/// socket or TCP.
///
/// Every request opens its own connection (servers close it after answering a transcription).
/// The blocking socket work runs on one serial lane per client, so requests from one client are
/// served in order; cancelling the calling task shuts the socket down at once.
///
/// Timeouts: connecting gets ``connectTimeout``; the whole exchange after that gets the
/// request's own limit (``describe(timeout:)``, ``responseTimeout`` for transcriptions), which
/// must cover the server's decoding time (faster-whisper base: ~1 s per short utterance on 2 cores).
public struct WyomingClient: Sendable {
    /// Where the server listens.
    public var address: WyomingAddress
    /// Limit for establishing the connection.
    public var connectTimeout: Duration
    /// Limit for a transcription, from the first byte sent to the `transcript` event.
    public var responseTimeout: Duration
    /// Audio per `audio-chunk` event, in milliseconds.
    public var chunkMilliseconds: Int

    private let lane: SerialLane

    /// A client for the server at `address`.
    public init(
        address: WyomingAddress, connectTimeout: Duration = .seconds(1), responseTimeout: Duration = .seconds(30),
        chunkMilliseconds: Int = 100
    ) {
        self.address = address
        self.connectTimeout = connectTimeout
        self.responseTimeout = responseTimeout
        self.chunkMilliseconds = max(10, chunkMilliseconds)
        lane = SerialLane(label: "clawtalk.wyoming.\(address)")
    }

    /// A client for the TCP server at `host:port`.
    public init(
        host: String = "127.0.0.1", port: Int, connectTimeout: Duration = .seconds(1),
        responseTimeout: Duration = .seconds(30), chunkMilliseconds: Int = 100
    ) {
        self.init(
            address: .tcp(host: host, port: port), connectTimeout: connectTimeout, responseTimeout: responseTimeout,
            chunkMilliseconds: chunkMilliseconds)
    }

    /// Sends `describe` and returns the server's speech-to-text `info`; `timeout` bounds the
    /// whole exchange (connecting included).
    public func describe(timeout: Duration = .seconds(2)) async throws -> WyomingInfo {
        let event = try await exchange(
            [.describe], operation: "describe", timeout: timeout, connectTimeout: min(connectTimeout, timeout)
        ) { $0.type == "info" ? $0 : nil }
        return try WyomingInfo(event: event)
    }

    /// Streams `audio` (any rate, s16le) as `transcribe`, `audio-start`, ``chunkMilliseconds``-long
    /// `audio-chunk`s and `audio-stop`, and returns the `text` of the server's `transcript`
    /// as given (untrimmed). `names` are sent as `transcript_names`, the protocol's way to bias
    /// recognition (servers that ignore it, such as wyoming-faster-whisper 3.8.1, still work).
    public func transcribe(
        _ audio: PCMBuffer, language: String? = nil, model: String? = nil, names: [String] = []
    ) async throws -> String {
        try await transcription(audio, language: language, model: model, names: names).text
    }

    /// As ``transcribe(_:language:model:names:)``, with the whole reply; `detectTurn` asks
    /// clawtalk-speech for its end-of-turn verdict (``WyomingTranscriptReply/turnComplete``).
    public func transcription(
        _ audio: PCMBuffer, language: String? = nil, model: String? = nil, names: [String] = [],
        detectTurn: Bool = false
    ) async throws -> WyomingTranscriptReply {
        let format = WyomingAudioFormat(rate: audio.format.sampleRate, channels: audio.format.channels)
        let request = WyomingEvent.transcribe(language: language, name: model, names: names, detectTurn: detectTurn)
        var events: [WyomingEvent] = [request, .audioStart(format)]
        let chunk = max(audio.format.channels, audio.format.sampleCount(milliseconds: chunkMilliseconds))
        var offset = 0
        while offset < audio.samples.count {
            let end = min(offset + chunk, audio.samples.count)
            events.append(.audioChunk(format, samples: audio.samples[offset..<end]))
            offset = end
        }
        events.append(.audioStop)
        return try await exchange(
            events, operation: "transcription", timeout: responseTimeout, connectTimeout: connectTimeout
        ) { $0.transcriptReply }
    }

    /// Sends `events` on a fresh connection and reads until `accept` returns a value (skipping
    /// other events), within `timeout` after connecting.
    public func exchange<T: Sendable>(
        _ events: [WyomingEvent], operation: String, timeout: Duration, connectTimeout: Duration? = nil,
        accept: @escaping @Sendable (WyomingEvent) throws -> T?
    ) async throws -> T {
        let cancellation = SocketCancellation()
        let address = address
        let connectLimit = connectTimeout ?? self.connectTimeout
        return try await withTaskCancellationHandler {
            try Task.checkCancellation()
            return try await lane.run {
                let start = ContinuousClock.now
                let connection = try WyomingConnection(
                    address: address, deadline: start + connectLimit, timeout: connectLimit,
                    cancellation: cancellation)
                defer { connection.close() }
                let deadline = ContinuousClock.now + timeout
                for event in events {
                    try connection.send(event, deadline: deadline, operation: operation, timeout: timeout)
                }
                return try connection.receive(
                    deadline: deadline, operation: operation, timeout: timeout, accept: accept)
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}
