import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkDesktop
@testable import ClawTalkNode

/// The control commands on a real (private) session bus: `clawtalk run`'s push-to-talk service
/// owns `ai.openclaw.ClawTalk` and answers like the control socket.
@Suite("D-Bus control", .serialized, .timeLimit(.minutes(1)))
struct DBusControlServiceTests {
    /// A client link used off the cooperative pool (libdbus calls block).
    final class Client: @unchecked Sendable {
        let link: DBusLink
        private let queue = DispatchQueue(label: "dbus-client")
        init(address: String) throws { link = try DBusLink(address: address) }

        func call(_ member: String, _ arguments: [DBusArgument] = [], interface: String = DBusControlService.interface)
            async throws -> [DBusArgument]
        {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(
                        with: Result {
                            try self.link.call(
                                destination: DBusControlService.busName, path: DBusControlService.objectPath,
                                interface: interface, member: member, arguments: arguments, timeoutMs: 30_000)
                        })
                }
            }
        }

        func answer(_ member: String, _ arguments: [DBusArgument] = []) async throws -> ControlResponse {
            let reply = try await call(member, arguments)
            let line = try #require(reply.first?.stringValue)
            return try #require(ControlResponse.parse(Data(line.utf8)), "\(line)")
        }

        func owned() -> Bool { queue.sync { link.hasOwner(DBusControlService.busName) } }
    }

    @Test func methodNamesFollowTheControlCommands() {
        #expect(DBusControlService.member(for: .start) == "PttStart")
        #expect(DBusControlService.member(for: .talkStatus) == "TalkStatus")
        #expect(DBusControlService.command(member: "PttToggle", arguments: []) == .toggle)
        #expect(DBusControlService.command(member: "Command", arguments: [.string("talk.on")]) == .talkOn)
        #expect(DBusControlService.command(member: "Command", arguments: [.string("ptt.explode")]) == nil)
        #expect(DBusControlService.command(member: "PttStart", arguments: [.string("x")]) == nil)
        #expect(DBusControlService.command(member: "Quit", arguments: []) == nil)
        for command in ControlRequest.Command.allCases {
            #expect(
                DBusControlService.introspection.contains(
                    "<method name=\"\(DBusControlService.member(for: command))\">"))
        }
    }

    @Test func runAnswersPushToTalkAndTalkOnTheSessionBus() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let bus = try PrivateSessionBus()
        var environment = home.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let delivery = NodeTranscriptDelivery(sessionKey: "main", logger: .discarding)
        let controller = PTTController(
            capturing: PushToTalkServiceTests.OneUtterance(), transcriber: PushToTalkServiceTests.FixedTranscriber(),
            delivery: delivery, speech: PushToTalkServiceTests.Silent())
        let talk = TalkModeServiceTests.service(home)
        let service = PushToTalkService(
            settings: Settings(), environment: environment, logger: .discarding, controller: controller,
            delivery: delivery, talk: talk)
        let running = Task { await service.run() }
        let client = try Client(address: bus.address)
        #expect(await eventually { client.owned() })

        let started = try await client.answer("PttStart")
        #expect(started.ok)
        #expect(started.captureId != nil)
        try await Task.sleep(for: .milliseconds(300))
        let stopped = try await client.answer("PttStop")
        #expect(stopped.status == "offline", "no gateway: kept for later")
        #expect(stopped.transcript == "turn on the lights")
        #expect(try await client.answer("TalkOn").enabled == true)
        let status = try await client.answer("Command", [.string("talk.status")])
        #expect(status.enabled == true)
        #expect(try await client.answer("TalkOff").enabled == false)

        let xml = try await client.call("Introspect", interface: "org.freedesktop.DBus.Introspectable")
        #expect(xml.first?.stringValue?.contains("ai.openclaw.ClawTalk1") == true)
        await #expect(throws: DBusClientError.self) { _ = try await client.call("Explode") }

        running.cancel()
        await running.value
        #expect(await eventually { !client.owned() }, "the name goes with the service")
        await talk.controller.shutdown()
    }
}
