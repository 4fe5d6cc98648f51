import ClawTalkSupport

/// One blocking Wyoming conversation over a ``TCPStream``: send events, read events until one
/// matches. Runs on the ``SerialLane`` of its ``WyomingClient``; socket failures become
/// ``SpeechError`` cases naming the server.
final class WyomingConnection {
    private let stream: TCPStream
    private var decoder = WyomingFrameDecoder()
    private let host: String
    private let port: Int

    /// Connects to `host:port` before `deadline`; refusals and timeouts are
    /// ``SpeechError/sttServerUnreachable(host:port:reason:)``.
    init(
        host: String, port: Int, deadline: ContinuousClock.Instant, timeout: Duration,
        cancellation: SocketCancellation
    ) throws {
        self.host = host
        self.port = port
        do {
            stream = try TCPStream(host: host, port: port, deadline: deadline, cancellation: cancellation)
        } catch let failure as TCPStream.Failure {
            throw SpeechError.sttServerUnreachable(host: host, port: port, reason: failure.message)
        } catch is TCPStream.DeadlineExceeded {
            throw SpeechError.sttServerUnreachable(
                host: host, port: port, reason: "no answer within \(SpeechError.secondsText(timeout.inSeconds))")
        } catch is TCPStream.Cancelled {
            throw CancellationError()
        }
    }

    /// Closes the socket.
    func close() {
        stream.close()
    }

    /// Sends `event` before `deadline`.
    func send(_ event: WyomingEvent, deadline: ContinuousClock.Instant, operation: String, timeout: Duration) throws {
        try translating(operation: operation, timeout: timeout) {
            try stream.write(event.encoded(), deadline: deadline)
        }
    }

    /// Reads events until `accept` returns a value for one (other events are skipped); an
    /// `error` event from the server is thrown as ``SpeechError/wyomingProtocol(_:)``.
    func receive<T>(
        deadline: ContinuousClock.Instant, operation: String, timeout: Duration,
        accept: (WyomingEvent) throws -> T?
    ) throws -> T {
        while true {
            if let event = try decoder.next() {
                if event.type == "error" {
                    let text = event.data["text"]?.stringValue ?? "no text"
                    let code = event.data["code"]?.stringValue.map { " (\($0))" } ?? ""
                    throw SpeechError.wyomingProtocol("server reported an error during \(operation): \(text)\(code)")
                }
                if let value = try accept(event) { return value }
                continue
            }
            let bytes = try translating(operation: operation, timeout: timeout) {
                try stream.read(deadline: deadline)
            }
            if bytes.isEmpty {
                let state = decoder.isAtEventBoundary ? "" : " in the middle of an event"
                throw SpeechError.wyomingProtocol(
                    "server at \(host):\(port) closed the connection\(state) before answering \(operation)")
            }
            decoder.append(bytes)
        }
    }

    private func translating<T>(operation: String, timeout: Duration, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch is TCPStream.DeadlineExceeded {
            throw SpeechError.sttTimedOut(operation: "\(operation) at \(host):\(port)", seconds: timeout.inSeconds)
        } catch is TCPStream.Cancelled {
            throw CancellationError()
        } catch let failure as TCPStream.Failure {
            throw SpeechError.wyomingProtocol("connection to \(host):\(port) lost during \(operation): \(failure)")
        }
    }
}
