public import ClawTalkDesktop
import ClawTalkSupport
import Foundation
import Synchronization

/// A freedesktop notification server on a private bus, written with the same ``DBusLink``: owns
/// `org.freedesktop.Notifications`, records every `Notify` call and answers with increasing ids
/// (or the `replaces_id` it was given). Runs on its own thread until deinit.
public final class NotificationServerPeer: Sendable {
    /// One recorded call.
    public struct Call: Sendable {
        /// Method name.
        public var member: String
        /// Its arguments.
        public var arguments: [DBusArgument]
    }

    private final class Shared: Sendable {
        let state = Mutex<(calls: [Call], stop: Bool)>(([], false))
    }

    private let shared = Shared()
    private let done = DispatchSemaphore(value: 0)

    /// Connects to `address`, owns the name and starts serving.
    public init(address: String) throws {
        let link = try DBusLink(address: address)
        try link.requestName(DesktopNotifier.service)
        let box = UncheckedLink(link: link)
        Thread.detachNewThread { [shared, done] in

            var nextId: UInt32 = 0
            while !shared.state.locked({ $0.stop }) {
                guard let call = box.link.nextMethodCall(timeoutMs: 50) else { continue }
                shared.state.locked { $0.calls.append(Call(member: call.member, arguments: call.arguments)) }
                if call.member == "Notify" {
                    let replaces = call.arguments.count > 1 ? call.arguments[1].uint32Value ?? 0 : 0
                    nextId += 1
                    try? box.link.reply(to: call, with: [.uint32(replaces != 0 ? replaces : nextId)])
                } else {
                    try? box.link.replyError(
                        to: call, name: "org.freedesktop.DBus.Error.UnknownMethod", message: call.member)
                }
            }
            done.signal()
        }
    }

    /// The calls so far.
    public var calls: [Call] { shared.state.locked { $0.calls } }

    deinit {
        shared.state.locked { $0.stop = true }
        done.wait()
    }
}

/// Hands the link to the serving thread (only that thread uses it afterwards).
private struct UncheckedLink: @unchecked Sendable {
    let link: DBusLink
}
