import ClawTalkTesting
import Foundation
import Testing

/// Issue 35's per-user servers, with the built binary and the fake installed server: under the
/// default settings `clawtalk run` starts its speech server on a Unix socket in its own
/// `XDG_RUNTIME_DIR` (directory 0700, socket 0600), opens no TCP port for it, and two nodes with
/// different runtime directories run side by side, each only ever reaching its own server.
@Suite("Per-user speech servers", .serialized, .timeLimit(.minutes(3)))
struct PerUserSpeechServerTests {
    /// A private home with the fake server installed and no speech address configured; the
    /// server records its pid and the pid of every process that connects to it.
    struct Node {
        var home: TemporaryHome
        let pidFile: String
        let peerLog: String
        var environment: [String: String]

        init() throws {
            home = try TemporaryHome()
            home.sttPort = nil
            home.wakeScorerPort = nil
            try FakeWhisperInstall.install(dataDirectory: home.data)
            pidFile = home.root + "/whisper-pids"
            peerLog = home.root + "/whisper-peers"
            environment = home.environment
            environment["FAKE_WHISPER_PIDFILE"] = pidFile
            environment["FAKE_WHISPER_PEERLOG"] = peerLog
            environment["CLAWTALK_WAKE_ENABLED"] = "false"
        }

        var serverPids: [Int32] { Self.numbers(in: pidFile) }
        /// Every process that connected to this node's server.
        var peers: [Int32] { Self.numbers(in: peerLog) }

        static func numbers(in file: String) -> [Int32] {
            ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                Int32($0)
            }
        }
    }

    @Test func twoNodesWithTheirOwnRuntimeDirectoriesEachUseOnlyTheirOwnServer() async throws {
        let nodes = [try Node(), try Node()]
        defer { for node in nodes { node.home.remove() } }
        let runs = try nodes.map { try RunningBinary(["run"], environment: $0.environment) }
        defer { for run in runs { run.kill() } }
        for run in runs {
            #expect(await run.waitForOutput("stt.server.ready", timeout: .seconds(60)), "\(run.stderr)")
        }
        var servers: [Int32] = []
        for (node, run) in zip(nodes, runs) {
            let server = try #require(node.serverPids.first, "\(run.stderr)")
            servers.append(server)
            #expect(node.serverPids == [server], "one server per node")
            // Its own socket, in its own runtime directory, only this user's.
            #expect(
                await run.waitUntil {
                    let status = EndToEnd.status(node.home)?["speechServer"] as? [String: Any]
                    return status?["address"] as? String == node.home.speechSocket && status?["ready"] as? Bool == true
                }, "\(String(describing: EndToEnd.status(node.home)))")
            #expect(try Self.mode(node.home.runtime + "/clawtalk") == 0o700)
            #expect(try Self.mode(node.home.speechSocket) & 0o077 == 0)
            let status = try await ClawTalkBinary.run(["status"], environment: node.environment)
            #expect(
                status.output.split(separator: "\n").contains {
                    $0.hasPrefix("stt server:") && $0.hasSuffix("ready (pid \(server)) at \(node.home.speechSocket)")
                }, "\(status.output)")
            // No TCP port: neither the server nor the node listens on one (what `ss -ltnp` shows).
            #expect(TCPListeners.ports(of: server).isEmpty, "the server listens on TCP")
            #expect(TCPListeners.ports(of: run.pid).isEmpty, "the node listens on TCP")
        }
        #expect(servers[0] != servers[1])
        // Each server was reached (the node's readiness check at least), and only by its own node.
        for (node, run) in zip(nodes, runs) {
            #expect(!node.peers.isEmpty, "the node never reached its server")
            #expect(Set(node.peers) == [run.pid], "connections from \(node.peers), node \(run.pid)")
        }
        for run in runs {
            run.send(SIGTERM)
            #expect(await run.waitForExit() == 0, "\(run.stderr)")
        }
        for server in servers {
            #expect(await SpeechServerSupervisionTests.gone(server), "a supervised server outlived its node")
        }
    }

    /// Permission bits of `path` (not following a final symlink).
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int) ?? -1
    }
}

/// The TCP ports a process listens on, from `/proc`: its socket descriptors' inodes matched
/// against the listening entries of `/proc/<pid>/net/tcp` and `tcp6` (what `ss -ltnp` prints).
enum TCPListeners {
    static func ports(of pid: Int32) -> [Int] {
        let fdDirectory = "/proc/\(pid)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: fdDirectory)) ?? []
        var inodes = Set<String>()
        for descriptor in descriptors {
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(descriptor)"),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
        }
        var ports: [Int] = []
        for table in ["tcp", "tcp6"] {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/net/\(table)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])) else { continue }
                if let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }) {
                    ports.append(port)
                }
            }
        }
        return ports
    }
}
