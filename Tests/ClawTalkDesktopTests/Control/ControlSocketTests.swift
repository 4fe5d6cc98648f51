import ClawTalkProtocol
import ClawTalkSupport
import Foundation
import Synchronization
import Testing

@testable import ClawTalkDesktop

@Suite("Control socket", .serialized, .timeLimit(.minutes(1)))
struct ControlSocketTests {
    /// A private temporary directory with a socket path inside a `clawtalk` subdirectory.
    final class Place: Sendable {
        let root = "/tmp/ct-ctl-\(UUID().uuidString.prefix(8))"
        var directory: String { root + "/clawtalk" }
        var socket: String { directory + "/control.sock" }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }

    @Test func requestAndResponseRoundTripWithOwnerOnlyModes() async throws {
        let place = Place()
        let seen = Mutex<[ControlRequest.Command]>([])
        let server = try ControlSocketServer(path: place.socket) { request in
            seen.locked { $0.append(request.command) }
            switch request.command {
            case .start: return .started("c-1")
            default:
                return ControlResponse(ok: true, captureId: "c-1", status: "idle", transcript: nil, hasTranscript: true)
            }
        }
        server.start()
        defer { server.stop() }
        #expect(Self.mode(place.directory) == 0o700)
        #expect(Self.mode(place.socket) == 0o600)
        let start = try await ControlSocketClient.send(.start, to: place.socket)
        #expect(start == .started("c-1"))
        #expect(
            String(decoding: start.line(), as: UTF8.self) == #"{"captureId":"c-1","ok":true,"status":"started"}"# + "\n"
        )
        let stop = try await ControlSocketClient.send(.stop, to: place.socket)
        #expect(stop.status == "idle")
        #expect(stop.hasTranscript && stop.transcript == nil)
        #expect(String(decoding: stop.line(), as: UTF8.self).contains(#""transcript":null"#))
        #expect(seen.locked { $0 } == [.start, .stop])
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: place.socket), "stop removes the socket file")
        await #expect(throws: ControlSocketError.notRunning(place.socket)) {
            try await ControlSocketClient.send(.start, to: place.socket)
        }
    }

    @Test func talkCommandsTravelWithTheirPhase() async throws {
        let place = Place()
        let server = try ControlSocketServer(path: place.socket) { request in
            request.command.isTalk ? .talk(enabled: request.command != .talkOff, phase: "listening") : .failure("x")
        }
        server.start()
        defer { server.stop() }
        let on = try await ControlSocketClient.send(.talkOn, to: place.socket)
        #expect(
            String(decoding: on.line(), as: UTF8.self) == #"{"enabled":true,"ok":true,"status":"listening"}"# + "\n")
        let off = try await ControlSocketClient.send(.talkOff, to: place.socket)
        #expect(off.enabled == false)
        #expect(ControlRequest.parse(Data(#"{"command":"talk.toggle"}"#.utf8))?.command == .talkToggle)
        #expect(!ControlRequest.Command.start.isTalk)
    }

    @Test func aLooseClawtalkDirectoryIsTightened() throws {
        let place = Place()
        try FileManager.default.createDirectory(
            atPath: place.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let server = try ControlSocketServer(path: place.socket) { _ in .failure("x") }
        defer { server.stop() }
        #expect(Self.mode(place.directory) == 0o700)
    }

    @Test func aStaleSocketIsReplacedButALiveOneIsNot() async throws {
        let place = Place()
        let first = try ControlSocketServer(path: place.socket) { _ in .started("first") }
        first.start()
        #expect(throws: ControlSocketError.alreadyServing(place.socket)) {
            _ = try ControlSocketServer(path: place.socket) { _ in .started("second") }
        }
        #expect(try await ControlSocketClient.send(.start, to: place.socket) == .started("first"))
        // A crashed service leaves its socket file behind: simulate with a bound, closed socket.
        first.stop()
        let fd = try UnixSocket.make()
        _ = try UnixSocket.withAddress(place.socket) { bind(fd, $0, $1) }
        close(fd)
        #expect(FileManager.default.fileExists(atPath: place.socket))
        let second = try ControlSocketServer(path: place.socket) { _ in .started("second") }
        second.start()
        defer { second.stop() }
        #expect(try await ControlSocketClient.send(.start, to: place.socket) == .started("second"))
    }

    @Test func somethingElseAtThePathIsNotRemoved() throws {
        let place = Place()
        try FileManager.default.createDirectory(atPath: place.directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: place.socket, contents: Data("keep".utf8))
        #expect(throws: ControlSocketError.notASocket(place.socket)) {
            _ = try ControlSocketServer(path: place.socket) { _ in .failure("x") }
        }
        #expect(FileManager.default.contents(atPath: place.socket) == Data("keep".utf8))
    }

    @Test func tooLongPathsAreRefused() {
        let path = "/tmp/" + String(repeating: "x", count: 120) + "/control.sock"
        #expect(throws: ControlSocketError.pathTooLong(path)) {
            _ = try ControlSocketServer(path: path) { _ in .failure("x") }
        }
    }

    @Test func garbageGetsAnInvalidRequestAnswer() async throws {
        let place = Place()
        let server = try ControlSocketServer(path: place.socket) { _ in .started("never") }
        server.start()
        defer { server.stop() }
        let fd = try UnixSocket.make()
        defer { close(fd) }
        #expect(try UnixSocket.withAddress(place.socket) { connect(fd, $0, $1) } == 0)
        #expect(UnixSocket.writeAll(fd, Data("{\"command\":\"ptt.explode\"}\n".utf8)))
        UnixSocket.setTimeout(fd, option: SO_RCVTIMEO, .seconds(30))
        let (line, complete) = UnixSocket.readLine(fd)
        #expect(complete)
        let response = try #require(ControlResponse.parse(line))
        #expect(!response.ok)
        #expect(response.error?.hasPrefix("INVALID_REQUEST:") == true)
    }

    static let peers: [(peer: UInt32?, owner: UInt32, allowed: Bool)] = [
        (1000, 1000, true), (1001, 1000, false), (0, 1000, false), (nil, 1000, false), (0, 0, true),
        (1000, 0, false),
    ]

    @Test(arguments: peers)
    func onlyTheOwnerMayConnect(peer: UInt32?, owner: UInt32, allowed: Bool) {
        #expect(ControlPeerPolicy.allows(peerUID: peer, ownerUID: owner) == allowed)
    }

    @Test func theServerChecksThePeersUid() async throws {
        // The test runs as one user, so a foreign peer is simulated by a server owned by another uid.
        let place = Place()
        let foreignOwner = UInt32(getuid()) &+ 4242
        let server = try ControlSocketServer(path: place.socket, ownerUID: foreignOwner) { _ in .started("leak") }
        server.start()
        defer { server.stop() }
        let response = try await ControlSocketClient.send(.start, to: place.socket)
        #expect(!response.ok)
        #expect(response.error == ControlPeerPolicy.refusal(ownerUID: foreignOwner))
        #expect(UnixSocket.peerUID(-1) == nil)
    }
}
