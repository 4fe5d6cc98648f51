import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation

/// What the hand-rolled client reads.
enum Inbound: Equatable {
    case frame(WireJSON)
    case closed(code: Int?, reason: String)
    case failed(String)
}

/// Buffers socket events so reads can time out.
actor Inbox {
    private var buffer: [GatewaySocketEvent] = []
    private var finished = false
    private var waiter: (token: Int, continuation: CheckedContinuation<GatewaySocketEvent?, Never>)?
    private var nextToken = 0

    func push(_ event: GatewaySocketEvent) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: event)
        } else {
            buffer.append(event)
        }
    }

    func finish() {
        finished = true
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: nil)
        }
    }

    func next(timeout: Duration) async -> GatewaySocketEvent? {
        if !buffer.isEmpty { return buffer.removeFirst() }
        if finished { return nil }
        nextToken += 1
        let token = nextToken
        return await withCheckedContinuation { continuation in
            waiter = (token, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(token)
            }
        }
    }

    private func expire(_ token: Int) {
        guard let waiter, waiter.token == token else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}

struct ClientError: Error, CustomStringConvertible {
    let description: String
}

/// A minimal protocol client over an in-memory socket, built only from ClawTalkProtocol types.
final class WireClient {
    let socket: InMemorySocket
    let connection: Int
    private let inbox = Inbox()

    init(_ socket: InMemorySocket, connection: Int) {
        self.socket = socket
        self.connection = connection
        let stream = socket.inbound
        let inbox = inbox
        Task {
            for await event in stream { await inbox.push(event) }
            await inbox.finish()
        }
    }

    static func open(_ gateway: TestGateway) async -> WireClient {
        let (socket, connection) = await gateway.openInMemory()
        return WireClient(socket, connection: connection)
    }

    /// The next frame, close or failure; throws after `timeout`.
    func next(timeout: Duration = .seconds(30)) async throws -> Inbound {
        guard let event = await inbox.next(timeout: timeout) else { throw ClientError(description: "no inbound event") }
        switch event {
        case .message(let data): return .frame(try WireJSON(parsing: data))
        case .closed(let code, let reason): return .closed(code: code, reason: reason)
        case .failed(let reason): return .failed(reason)
        }
    }

    /// Nil when nothing arrives within `timeout`.
    func nextIfAny(timeout: Duration) async throws -> Inbound? {
        guard let event = await inbox.next(timeout: timeout) else { return nil }
        switch event {
        case .message(let data): return .frame(try WireJSON(parsing: data))
        case .closed(let code, let reason): return .closed(code: code, reason: reason)
        case .failed(let reason): return .failed(reason)
        }
    }

    func nextFrame(timeout: Duration = .seconds(30)) async throws -> WireJSON {
        let inbound = try await next(timeout: timeout)
        guard case .frame(let json) = inbound else {
            throw ClientError(description: "expected a frame, got \(inbound)")
        }
        return json
    }

    /// The `connect.challenge` payload.
    func challenge() async throws -> (nonce: String, ts: Int64) {
        let frame = try await nextFrame()
        guard frame["event"]?.stringValue == "connect.challenge", let nonce = frame["payload"]?["nonce"]?.stringValue,
            let ts = frame["payload"]?["ts"]?.int64Value
        else { throw ClientError(description: "expected connect.challenge, got \(frame.encodedString())") }
        return (nonce, ts)
    }

    func send(_ json: WireJSON) throws {
        try socket.send(text: json.encodedString())
    }

    /// Sends a request and returns its id.
    @discardableResult
    func request(_ method: String, _ params: WireJSON?, id: String = WireID.make()) throws -> String {
        try send(RequestFrame(id: id, method: method, params: params).wireJSON)
        return id
    }

    /// The response with `id`, skipping events.
    func response(_ id: String, timeout: Duration = .seconds(30)) async throws -> WireJSON {
        while true {
            let inbound = try await next(timeout: timeout)
            guard case .frame(let frame) = inbound else {
                throw ClientError(description: "closed before response: \(inbound)")
            }
            if frame["type"]?.stringValue == "res", frame["id"]?.stringValue == id { return frame }
        }
    }

    /// Sends a request and waits for its response.
    func call(_ method: String, _ params: WireJSON?) async throws -> WireJSON {
        try await response(try request(method, params))
    }

    /// The next event named `name`, skipping other frames.
    func event(_ name: String, timeout: Duration = .seconds(30)) async throws -> WireJSON {
        while true {
            let frame = try await nextFrame(timeout: timeout)
            if frame["type"]?.stringValue == "event", frame["event"]?.stringValue == name { return frame }
        }
    }

    /// The close, skipping frames.
    func close(timeout: Duration = .seconds(30)) async throws -> (code: Int?, reason: String) {
        while true {
            let inbound = try await next(timeout: timeout)
            if case .closed(let code, let reason) = inbound { return (code, reason) }
            if case .failed(let reason) = inbound { return (nil, reason) }
        }
    }
}
