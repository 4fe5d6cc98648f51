public import ClawTalkSupport
import Foundation
import Synchronization

/// The control commands on the user's session bus, for desktop shortcuts and scripts that
/// prefer D-Bus to `clawtalk ptt …` (talk.md §10: "CLI and D-Bus"). The same requests as
/// the control socket, answered by the same handler:
///
/// - name `ai.openclaw.ClawTalk`, object `/ai/openclaw/ClawTalk`, interface
///   `ai.openclaw.ClawTalk1`;
/// - methods `PttStart`, `PttStop`, `PttToggle`, `PttCancel`, `PttOnce`, `TalkOn`, `TalkOff`,
///   `TalkToggle`, `TalkStatus` (no arguments) and `Command(s)` (`"ptt.start"`, …), each
///   answering one string: the control socket's JSON answer line;
/// - `org.freedesktop.DBus.Introspectable.Introspect`, so `gdbus introspect` and `busctl` show
///   the methods. Anything else gets `org.freedesktop.DBus.Error.UnknownMethod`.
///
/// A session bus is private to the user, so no further peer check is made. Threads: one thread
/// (`clawtalk.dbus`) owns the libdbus connection, waits for calls (200 ms slices, so ``stop()``
/// is prompt) and answers them one at a time; the handler runs as a task the thread waits for.
public final class DBusControlService: Sendable {
    /// Answers one request.
    public typealias Handler = @Sendable (ControlRequest) async -> ControlResponse

    /// The well-known bus name.
    public static let busName = "ai.openclaw.ClawTalk"
    /// The object path.
    public static let objectPath = "/ai/openclaw/ClawTalk"
    /// The interface.
    public static let interface = "ai.openclaw.ClawTalk1"

    private let address: String
    private let handler: Handler
    private let logger: Logger
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic(false)

    /// A service for the bus at `address` answering with `handler`.
    public init(address: String, logger: Logger, handler: @escaping Handler) {
        self.address = address
        self.handler = handler
        self.logger = logger
    }

    /// The method name of `command`: `ptt.start` → `PttStart`, `talk.status` → `TalkStatus`.
    public static func member(for command: ControlRequest.Command) -> String {
        command.rawValue.split(separator: ".").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The command a call asks for, if it is one of ours.
    public static func command(member: String, arguments: [DBusArgument]) -> ControlRequest.Command? {
        if member == "Command" {
            guard arguments.count == 1, let name = arguments[0].stringValue else { return nil }
            return ControlRequest.Command(rawValue: name)
        }
        guard arguments.isEmpty else { return nil }
        return ControlRequest.Command.allCases.first { self.member(for: $0) == member }
    }

    /// Connects, owns ``busName`` and serves on its own thread.
    /// - Throws: ``DBusClientError`` when the bus cannot be reached or the name is taken (another
    ///   clawtalk runs).
    public func start() throws(DBusClientError) {
        let link = try DBusLink(address: address)
        try link.requestName(Self.busName)
        guard started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let box = LinkBox(link: link)
        let thread = Thread { [self] in
            serve(box.link)
            finished.signal()
        }
        thread.name = "clawtalk.dbus"
        thread.start()
        logger.info("control.dbus.listening", ["name": .string(Self.busName), "path": .string(Self.objectPath)])
    }

    /// Stops serving and joins the thread (the name is released with the connection).
    public func stop() {
        guard started.load(ordering: .relaxed), !stopping.exchange(true, ordering: .relaxed) else { return }
        _ = finished.wait(timeout: .now() + .seconds(2))
    }

    // MARK: - Thread

    /// Hands the link to the serving thread (used only there afterwards).
    private final class LinkBox: @unchecked Sendable {
        let link: DBusLink
        init(link: DBusLink) { self.link = link }
    }

    private func serve(_ link: DBusLink) {
        while !stopping.load(ordering: .relaxed) {
            guard let call = link.nextMethodCall(timeoutMs: 200) else { continue }
            answer(call, on: link)
        }
    }

    private func answer(_ call: DBusIncomingCall, on link: DBusLink) {
        do {
            if call.interface == "org.freedesktop.DBus.Introspectable", call.member == "Introspect" {
                try link.reply(to: call, with: [.string(Self.introspection)])
                return
            }
            guard call.path == Self.objectPath, call.interface == Self.interface || call.interface.isEmpty,
                let command = Self.command(member: call.member, arguments: call.arguments)
            else {
                logger.warning("control.dbus.unknown", ["member": .string(call.member), "path": .string(call.path)])
                try link.replyError(
                    to: call, name: "org.freedesktop.DBus.Error.UnknownMethod",
                    message: "\(call.interface).\(call.member) is not a clawtalk method (see Introspect)")
                return
            }
            logger.debug("control.request", ["command": .string(command.rawValue), "via": "dbus"])
            let response = respond(ControlRequest(command: command))
            let line = String(decoding: response.line(), as: UTF8.self).trimmingCharacters(in: .newlines)
            try link.reply(to: call, with: [.string(line)])
        } catch {
            logger.warning("control.dbus.reply_failed", ["error": .string("\(error)")])
        }
    }

    /// Runs the handler and waits for it (this is the service's own thread, not the pool's).
    private func respond(_ request: ControlRequest) -> ControlResponse {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<ControlResponse?>(nil)
        let handler = handler
        // Unstructured on purpose: it bridges the service's own (blocking) thread into async code.
        Task {
            let response = await handler(request)
            result.locked { $0 = response }
            done.signal()
        }
        done.wait()
        return result.locked { $0 } ?? .failure("UNAVAILABLE: no answer")
    }

    /// `Introspect`'s answer.
    public static let introspection: String = {
        let methods = ControlRequest.Command.allCases.map { command in
            "    <method name=\"\(member(for: command))\"><arg name=\"answer\" type=\"s\" direction=\"out\"/></method>"
        }
        return """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>
              <interface name="\(interface)">
            \(methods.joined(separator: "\n"))
                <method name="Command"><arg name="command" type="s" direction="in"/><arg name="answer" type="s" direction="out"/></method>
              </interface>
              <interface name="org.freedesktop.DBus.Introspectable">
                <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
              </interface>
            </node>
            """
    }()
}
