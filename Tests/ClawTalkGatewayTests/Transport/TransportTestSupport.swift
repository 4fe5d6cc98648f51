import ClawTalkGateway
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

/// Something that did not happen within the time a test allows.
struct TimedOutWaiting: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Consumes an event stream on a task and keeps every event, so tests can wait for conditions.
final class EventRecorder<Event: Sendable>: Sendable {
    private final class Storage: Sendable {
        let state = Mutex<(events: [Event], finished: Bool)>(([], false))
    }

    private let storage = Storage()
    private let consumer: Task<Void, Never>

    init(_ stream: AsyncStream<Event>, onEvent: (@Sendable (Event) -> Void)? = nil) {
        let storage = self.storage
        consumer = Task {
            for await event in stream {
                storage.state.locked { $0.events.append(event) }
                onEvent?(event)
            }
            storage.state.locked { $0.finished = true }
        }
    }

    deinit {
        consumer.cancel()
    }

    var events: [Event] { storage.state.locked { $0.events } }
    var isFinished: Bool { storage.state.locked { $0.finished } }

    /// Polls until `condition` holds for the events so far (and the finished flag).
    func wait(
        for what: String, timeout: Duration = .seconds(30),
        until condition: ([Event], Bool) -> Bool
    ) async throws {
        let held = await eventually(within: timeout) { storage.state.locked { condition($0.events, $0.finished) } }
        guard held else { throw TimedOutWaiting(what: what) }
    }

    /// Waits for the `n`-th (1-based) event matching `pick` and returns what it extracts.
    func first<T>(
        _ what: String, _ n: Int = 1, timeout: Duration = .seconds(30), _ pick: (Event) -> T?
    ) async throws -> T {
        var found: T?
        try await wait(for: what, timeout: timeout) { events, _ in
            let matches = events.compactMap(pick)
            found = matches.count >= n ? matches[n - 1] : nil
            return found != nil
        }
        return found!
    }

    /// Waits until the stream has ended.
    func waitUntilFinished(timeout: Duration = .seconds(30)) async throws {
        try await wait(for: "the stream to end", timeout: timeout) { _, finished in finished }
    }
}

/// A loopback server that records everything and optionally echoes each message back.
final class LoopbackServer: Sendable {
    let server: WebSocketServer
    let recorder: EventRecorder<WebSocketServerEvent>

    init(
        echo: Bool = false, maxMessageBytes: Int = WebSocketConfiguration.defaultMaxMessageBytes,
        tls: (certificatePath: String, keyPath: String)? = nil
    ) throws {
        let server = WebSocketServer(maxMessageBytes: maxMessageBytes)
        try server.start(port: 0, tls: tls)
        self.server = server
        self.recorder = EventRecorder(server.events) { event in
            guard echo, case .message(let id, let data, let isBinary) = event else { return }
            if isBinary {
                try? server.send(binary: data, to: id)
            } else {
                try? server.send(text: String(decoding: data, as: UTF8.self), to: id, singleFrame: true)
            }
        }
    }

    var port: Int { server.port }

    func url(_ path: String = "/", secure: Bool = false) -> String {
        "\(secure ? "wss" : "ws")://127.0.0.1:\(port)\(path)"
    }

    /// The id of the n-th (1-based) opened connection.
    func opened(_ n: Int = 1) async throws -> WebSocketServer.ConnectionID {
        try await recorder.first("connection \(n) to open", n) { event in
            guard case .opened(let id, _) = event else { return nil }
            return id
        }
    }

    /// Waits for the close event of `id` and returns its code and reason.
    func closed(_ id: WebSocketServer.ConnectionID) async throws -> (code: Int?, reason: String) {
        try await recorder.first("connection \(id) to close") { event in
            guard case .closed(id, let code, let reason) = event else { return nil }
            return (code, reason)
        }
    }
}

/// A client plus a recorder of its events.
struct ConnectedClient {
    let client: WebSocketClient
    let recorder: EventRecorder<WebSocketEvent>

    init(_ configuration: WebSocketConfiguration) throws {
        client = try WebSocketClient(configuration: configuration)
        recorder = EventRecorder(client.events)
    }

    func connect(timeout: Duration = .seconds(30)) async throws {
        try await client.connect(timeout: timeout)
    }

    /// The payloads of the messages received so far.
    var messages: [(Data, Bool)] {
        recorder.events.compactMap { event in
            guard case .message(let data, let isBinary) = event else { return nil }
            return (data, isBinary)
        }
    }

    /// Waits for the n-th (1-based) message.
    func message(_ n: Int = 1, timeout: Duration = .seconds(30)) async throws -> (data: Data, isBinary: Bool) {
        try await recorder.first("message \(n)", n, timeout: timeout) { event in
            guard case .message(let data, let isBinary) = event else { return nil }
            return (data, isBinary)
        }
    }

    /// Waits for `.closed` and returns its code and reason.
    func closed(timeout: Duration = .seconds(30)) async throws -> (code: Int?, reason: String) {
        try await recorder.first("the client to close", timeout: timeout) { event in
            guard case .closed(let code, let reason) = event else { return nil }
            return (code, reason)
        }
    }
}

/// A deterministic, position-dependent ASCII payload of `count` bytes.
func patternText(count: Int, seed: Int = 7) -> String {
    var bytes = [UInt8](repeating: 0, count: count)
    var x = UInt32(truncatingIfNeeded: seed) &* 2_654_435_761
    for i in 0..<count {
        x = x &* 1_103_515_245 &+ 12345
        bytes[i] = 0x21 + UInt8((x >> 16) % 94)  // printable, no quotes issue
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A self-signed P-256 certificate for CN=localhost in a fresh temporary directory.
struct SelfSignedCertificate {
    let directory: URL
    let certificatePath: String
    let keyPath: String
    /// SHA-256 of the DER certificate, computed by `openssl` and `sha256sum`, not by our code.
    let sha256: String

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("clawtalk-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificatePath = directory.appendingPathComponent("c.pem").path
        keyPath = directory.appendingPathComponent("k.pem").path
        try toolOutput(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-subj", "/CN=localhost", "-days", "1", "-keyout", keyPath, "-out", certificatePath,
            ])
        let digest = try shellOutput("openssl x509 -in c.pem -outform DER | sha256sum", in: directory)
        sha256 = String(digest.prefix(64))
        try #require(sha256.count == 64)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
