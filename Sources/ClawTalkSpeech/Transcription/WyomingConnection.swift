import ClawTalkSupport

/// One blocking Wyoming conversation over a ``SocketStream``: send events, read events until one
/// matches. Runs on the ``SerialLane`` of its ``WyomingClient``; socket failures become
/// ``SpeechError`` cases naming the server.
final class WyomingConnection {
    private let stream: SocketStream
    private var decoder = WyomingFrameDecoder()
    private let address: WyomingAddress

    /// Connects to `address` before `deadline`; refusals and timeouts are
    /// ``SpeechError/sttServerUnreachable(address:reason:)``.
    init(
        address: WyomingAddress, deadline: ContinuousClock.Instant, timeout: Duration,
        cancellation: SocketCancellation
    ) throws {
        self.address = address
        do {
            stream = try SocketStream(address: address, deadline: deadline, cancellation: cancellation)
        } catch let failure as SocketStream.Failure {
            throw SpeechError.sttServerUnreachable(address: "\(address)", reason: failure.message)
        } catch is SocketStream.DeadlineExceeded {
            throw SpeechError.sttServerUnreachable(
                address: "\(address)", reason: "no answer within \(SpeechError.secondsText(timeout.inSeconds))")
        } catch is SocketStream.Cancelled {
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
                    "server at \(address) closed the connection\(state) before answering \(operation)")
            }
            decoder.append(bytes)
        }
    }

    private func translating<T>(operation: String, timeout: Duration, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch is SocketStream.DeadlineExceeded {
            throw SpeechError.sttTimedOut(operation: "\(operation) at \(address)", seconds: timeout.inSeconds)
        } catch is SocketStream.Cancelled {
            throw CancellationError()
        } catch let failure as SocketStream.Failure {
            throw SpeechError.wyomingProtocol("connection to \(address) lost during \(operation): \(failure)")
        }
    }
}
