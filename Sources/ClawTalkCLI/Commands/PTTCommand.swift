public import ClawTalkCommand
import ClawTalkDesktop
import ClawTalkSupport

/// `clawtalk ptt`: push-to-talk control of the running node, for desktop keybindings.
public struct PTTCommand: Command {
    /// The command name.
    public static let name = "ptt"
    /// One line for OVERVIEW.
    public static let abstract = "Control push-to-talk on the running node (for desktop keybindings)."
    /// How to bind keys.
    public static let discussion = """
        These are the commands a desktop keybinding calls. Bind a key press to 'clawtalk ptt \
        start' and its release to 'clawtalk ptt stop' to hold-to-talk, or bind one key to \
        'clawtalk ptt toggle' where the desktop reports only presses. 'clawtalk ptt once' \
        captures one utterance and ends it on silence. The running 'clawtalk run' service does \
        the capture; these commands talk to it over its control socket (ptt.controlSocket, \
        default $XDG_RUNTIME_DIR/clawtalk/control.sock, usable by the same user only). start \
        and cancel answer at once; stop and once answer with the transcript when it has been \
        sent. Set ptt.evdevKey (for example KEY_RIGHTCTRL) for hold-to-talk without a desktop \
        binding; reading the keyboard needs membership of the 'input' group.
        """
    /// The five push-to-talk actions.
    public static let subcommands: [any Command.Type] = [
        Start.self, Stop.self, Toggle.self, Cancel.self, Once.self,
    ]

    /// The group takes no arguments of its own.
    public init(parsed: ParsedArguments) {}

    /// `--json` of every action.
    static let actionOptions: [OptionSpec] = [.flag("json", help: "Print the service's answer as one JSON line.")]

    /// `clawtalk ptt start`: key pressed.
    public struct Start: Command {
        /// The command name.
        public static let name = "start"
        /// One line for OVERVIEW.
        public static let abstract = "Start capturing speech (bind to the key press)."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to the press of your push-to-talk key and 'clawtalk ptt stop' to its release; \
            the running service captures until then (at most 120 s, ptt.maxCaptureS). Prints \
            'started <capture id>'; starting while a capture runs returns the same id.
            """
        /// `--json`.
        public static let options = PTTCommand.actionOptions
        /// `--json`.
        public var json: Bool
        /// Reads `--json`.
        public init(parsed: ParsedArguments) { json = parsed.flag("json") }
        /// Sends `ptt.start`.
        public func run(context: CommandContext) async throws -> Int32 {
            try await PTTCommand.send(.start, json: json, context: context)
        }
    }

    /// `clawtalk ptt stop`: key released.
    public struct Stop: Command {
        /// The command name.
        public static let name = "stop"
        /// One line for OVERVIEW.
        public static let abstract = "Stop capturing and send the transcript (bind to the key release)."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to the release of the key whose press runs 'clawtalk ptt start'. The \
            service transcribes the capture and sends it unless it is empty, then prints the \
            status (queued, empty, offline, or idle when nothing was capturing), the capture id \
            and the transcript.
            """
        /// `--json`.
        public static let options = PTTCommand.actionOptions
        /// `--json`.
        public var json: Bool
        /// Reads `--json`.
        public init(parsed: ParsedArguments) { json = parsed.flag("json") }
        /// Sends `ptt.stop`.
        public func run(context: CommandContext) async throws -> Int32 {
            try await PTTCommand.send(.stop, json: json, context: context)
        }
    }

    /// `clawtalk ptt toggle`: one key for start and stop.
    public struct Toggle: Command {
        /// The command name.
        public static let name = "toggle"
        /// One line for OVERVIEW.
        public static let abstract = "Start capturing, or stop and send if a capture is running."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to one key where the desktop reports only key presses (for example a global \
            shortcut portal).
            """
        /// `--json`.
        public static let options = PTTCommand.actionOptions
        /// `--json`.
        public var json: Bool
        /// Reads `--json`.
        public init(parsed: ParsedArguments) { json = parsed.flag("json") }
        /// Sends `ptt.toggle`.
        public func run(context: CommandContext) async throws -> Int32 {
            try await PTTCommand.send(.toggle, json: json, context: context)
        }
    }

    /// `clawtalk ptt cancel`: discard the capture.
    public struct Cancel: Command {
        /// The command name.
        public static let name = "cancel"
        /// One line for OVERVIEW.
        public static let abstract = "Stop capturing and discard the transcript."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to a key (for example Escape while capturing) to abandon a capture without \
            sending anything.
            """
        /// `--json`.
        public static let options = PTTCommand.actionOptions
        /// `--json`.
        public var json: Bool
        /// Reads `--json`.
        public init(parsed: ParsedArguments) { json = parsed.flag("json") }
        /// Sends `ptt.cancel`.
        public func run(context: CommandContext) async throws -> Int32 {
            try await PTTCommand.send(.cancel, json: json, context: context)
        }
    }

    /// `clawtalk ptt once`: one utterance, ended by silence.
    public struct Once: Command {
        /// The command name.
        public static let name = "once"
        /// One line for OVERVIEW.
        public static let abstract = "Capture one utterance, end it on silence and send it."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to one key for hands-free turns: capture starts at once and ends after a short \
            silence (talk.silenceTimeoutMs, at most 12 s); the command returns when the \
            transcript has been sent.
            """
        /// `--json`.
        public static let options = PTTCommand.actionOptions
        /// `--json`.
        public var json: Bool
        /// Reads `--json`.
        public init(parsed: ParsedArguments) { json = parsed.flag("json") }
        /// Sends `ptt.once`.
        public func run(context: CommandContext) async throws -> Int32 {
            try await PTTCommand.send(.once, json: json, context: context)
        }
    }
}
