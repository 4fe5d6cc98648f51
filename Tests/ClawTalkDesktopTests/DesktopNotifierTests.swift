import ClawTalkDesktop
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@Suite("Desktop notifications over a private D-Bus session bus")
struct DesktopNotifierTests {
    /// Waits until `peer` recorded `count` calls (or 30 s passed).
    private func calls(of peer: NotificationServerPeer, count: Int) async throws -> [NotificationServerPeer.Call] {
        _ = await eventually { peer.calls.count >= count }
        return peer.calls
    }

    @Test func pairingNotificationReachesTheServerWithItsHints() async throws {
        let bus = try PrivateSessionBus()
        let peer = try NotificationServerPeer(address: bus.address)
        let notifier = DesktopNotifier(enabled: true, environment: [:], busAddress: bus.address, logger: .discarding)
        let request = DesktopNotification.pairingRequired(
            requestId: "req-7", approvalCommand: "openclaw devices approve req-7")
        let id = try await notifier.send(request)
        #expect(id == 1)
        let recorded = try await calls(of: peer, count: 1)
        let call = try #require(recorded.first)
        #expect(call.member == "Notify")
        #expect(call.arguments.map(\.signature) == ["s", "u", "s", "s", "s", "as", "a{sv}", "i"])
        #expect(call.arguments[0] == .string("clawtalk"))
        #expect(call.arguments[1] == .uint32(0))
        #expect(call.arguments[3].stringValue?.contains("req-7") == true)
        #expect(call.arguments[4].stringValue?.contains("openclaw devices approve req-7") == true)
        guard case .dictionary(let hints) = call.arguments[6] else {
            Issue.record("hints are not a dictionary: \(call.arguments[6])")
            return
        }
        #expect(hints["urgency"] == .byte(2))
        #expect(call.arguments[7] == .int32(-1))
    }

    @Test func repeatedKindReplacesThePreviousNotification() async throws {
        let bus = try PrivateSessionBus()
        let peer = try NotificationServerPeer(address: bus.address)
        let notifier = DesktopNotifier(enabled: true, environment: [:], busAddress: bus.address, logger: .discarding)
        let first = try await notifier.send(.error("gateway unreachable"))
        _ = try await notifier.send(.wake(trigger: "computer"))
        _ = try await notifier.send(.error("still unreachable"))
        let recorded = try await calls(of: peer, count: 3)
        #expect(recorded.count == 3)
        #expect(recorded[1].arguments[1] == .uint32(0))
        #expect(recorded[2].arguments[1] == .uint32(first))
        #expect(recorded[2].arguments[4] == .string("still unreachable"))
    }

    @Test func disabledNotifierSendsNothing() async throws {
        let bus = try PrivateSessionBus()
        let peer = try NotificationServerPeer(address: bus.address)
        let notifier = DesktopNotifier(enabled: false, environment: [:], busAddress: bus.address, logger: .discarding)
        await notifier.notify(.error("boom"))
        let enabled = DesktopNotifier(enabled: true, environment: [:], busAddress: bus.address, logger: .discarding)
        await enabled.notify(.error("sent"))
        let recorded = try await calls(of: peer, count: 1)
        #expect(recorded.count == 1)
        #expect(recorded.first?.arguments[4] == .string("sent"))
    }

    @Test func missingNotificationServerIsAnErrorThatNotifySwallows() async throws {
        let bus = try PrivateSessionBus()
        let notifier = DesktopNotifier(enabled: true, environment: [:], busAddress: bus.address, logger: .discarding)
        await #expect(throws: DBusClientError.self) { try await notifier.send(.error("nobody listens")) }
        await notifier.notify(.error("nobody listens"))
        do {
            _ = try await notifier.send(.error("x"))
            Issue.record("Notify without a server succeeded")
        } catch {
            guard case .callFailed(let name, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(name == "org.freedesktop.DBus.Error.ServiceUnknown")
        }
    }

    @Test func sessionBusAddressFallsBackToTheRuntimeDirectorySocket() throws {
        #expect(DBusLink.sessionBusAddress(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]) == "unix:path=/x")
        let runtime = try TempDirectory(prefix: "runtime")
        #expect(DBusLink.sessionBusAddress(environment: ["XDG_RUNTIME_DIR": runtime.url.path]) == nil)
        _ = FileManager.default.createFile(atPath: runtime.path("bus"), contents: Data())
        #expect(
            DBusLink.sessionBusAddress(environment: ["XDG_RUNTIME_DIR": runtime.url.path])
                == "unix:path=\(runtime.url.path)/bus")
    }
}
