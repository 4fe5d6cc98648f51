public import ClawTalkCommand
import ClawTalkDesktop
import ClawTalkSupport
import Foundation

/// `clawtalk talk`: Talk mode (continuous conversation) on the running node.
public struct TalkCommand: Command {
    /// The command name.
    public static let name = "talk"
    /// One line for OVERVIEW.
    public static let abstract = "Turn Talk mode (hands-free conversation) on or off on the running node."
    /// What Talk mode does.
    public static let discussion = """
        In Talk mode the running 'clawtalk run' service listens, sends what you say when you \
        pause (talk.silenceTimeoutMs), speaks the reply and listens again, until it is turned \
        off, the gateway turns it off (the WebChat Talk toggle), or nobody speaks for \
        talk.idleTimeoutS seconds (off unless set). While a reply plays, speaking interrupts it \
        (talk.interruptOnSpeech) when echo cancellation is active; the next message then says \
        after how many seconds the reply was interrupted. Without echo cancellation the \
        microphone is ignored while the node speaks. Push-to-talk pauses Talk mode. Each command \
        prints 'on <phase>' (listening, thinking or speaking) or 'off'.
        """
    /// The four Talk actions.
    public static let subcommands: [any Command.Type] = [On.self, Off.self, Toggle.self, Status.self]

    /// The group takes no arguments of its own.
    public init(parsed: ParsedArguments) {}

    /// `--json` of every action.
    static let actionOptions: [OptionSpec] = [.flag("json", help: "Print the service's answer as one JSON line.")]

    /// `clawtalk talk on`.
    public struct On: Command {
        /// The command name.
        public static let name = "on"
        /// One line for OVERVIEW.
        public static let abstract = "Turn Talk mode on (voice wake pauses while it is on)."
        /// `--json`.
        public static let options = TalkCommand.actionOptions
        /// `--json`.
        public var json: Bool
        /// Reads `--json`.
        public init(parsed: ParsedArguments) { json = parsed.flag("json") }
        /// Sends `talk.on`.
        public func run(context: CommandContext) async throws -> Int32 {
            try await TalkCommand.send(.talkOn, json: json, context: context)
        }
    }

    /// `clawtalk talk off`.
    public struct Off: Command {
        /// The command name.
        public static let name = "off"
        /// One line for OVERVIEW.
        public static let abstract = "Turn Talk mode off (stops a reply being spoken; voice wake resumes)."
        /// `--json`.
        public static let options = TalkCommand.actionOptions
        /// `--json`.
        public var json: Bool
        /// Reads `--json`.
        public init(parsed: ParsedArguments) { json = parsed.flag("json") }
        /// Sends `talk.off`.
        public func run(context: CommandContext) async throws -> Int32 {
            try await TalkCommand.send(.talkOff, json: json, context: context)
        }
    }

    /// `clawtalk talk toggle`.
    public struct Toggle: Command {
        /// The command name.
        public static let name = "toggle"
        /// One line for OVERVIEW.
        public static let abstract = "Turn Talk mode on when it is off, else off (for a keybinding)."
        /// `--json`.
        public static let options = TalkCommand.actionOptions
        /// `--json`.
        public var json: Bool
        /// Reads `--json`.
        public init(parsed: ParsedArguments) { json = parsed.flag("json") }
        /// Sends `talk.toggle`.
        public func run(context: CommandContext) async throws -> Int32 {
            try await TalkCommand.send(.talkToggle, json: json, context: context)
        }
    }

    /// `clawtalk talk status`.
    public struct Status: Command {
        /// The command name.
        public static let name = "status"
        /// One line for OVERVIEW.
        public static let abstract = "Show whether Talk mode is on and its phase."
        /// `--json`.
        public static let options = TalkCommand.actionOptions
        /// `--json`.
        public var json: Bool
        /// Reads `--json`.
        public init(parsed: ParsedArguments) { json = parsed.flag("json") }
        /// Sends `talk.status`.
        public func run(context: CommandContext) async throws -> Int32 {
            try await TalkCommand.send(.talkStatus, json: json, context: context)
        }
    }

    /// Sends `command` to the running service and prints `on <phase>` or `off` (`--json`: the
    /// answer line), through the push-to-talk sender. Exit 0 on an answer, 69 when no service
    /// runs (or the microphone is unavailable), 1 when it refused.
    static func send(_ command: ControlRequest.Command, json: Bool, context: CommandContext) async throws -> Int32 {
        try await PTTCommand.send(command, json: json, context: context, render: render)
    }

    /// `on <phase>` or `off`.
    static func render(_ response: ControlResponse) -> String {
        response.enabled == true ? "on \(response.status ?? "listening")\n" : "off\n"
    }
}
