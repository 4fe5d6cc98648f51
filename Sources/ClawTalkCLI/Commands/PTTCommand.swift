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
        captures one utterance and ends it on silence. Each command returns at once; the \
        running 'clawtalk run' service does the capture.
        """
    /// The five push-to-talk actions.
    public static let subcommands: [any Command.Type] = [
        Start.self, Stop.self, Toggle.self, Cancel.self, Once.self,
    ]

    /// The group takes no arguments of its own.
    public init(parsed: ParsedArguments) {}

    /// `clawtalk ptt start`: key pressed.
    public struct Start: PendingCommand {
        /// The command name.
        public static let name = "start"
        /// One line for OVERVIEW.
        public static let abstract = "Start capturing speech (bind to the key press)."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to the press of your push-to-talk key and 'clawtalk ptt stop' to its release; \
            the running service captures until then (at most 120 s).
            """
        /// Tracked in issue 6.
        public static let trackingIssue: Int? = 6
        /// Takes no arguments.
        public init(parsed: ParsedArguments) {}
    }

    /// `clawtalk ptt stop`: key released.
    public struct Stop: PendingCommand {
        /// The command name.
        public static let name = "stop"
        /// One line for OVERVIEW.
        public static let abstract = "Stop capturing and send the transcript (bind to the key release)."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to the release of the key whose press runs 'clawtalk ptt start'. The \
            service waits up to 1.5 s for the final transcript and sends it unless it is empty.
            """
        /// Tracked in issue 6.
        public static let trackingIssue: Int? = 6
        /// Takes no arguments.
        public init(parsed: ParsedArguments) {}
    }

    /// `clawtalk ptt toggle`: one key for start and stop.
    public struct Toggle: PendingCommand {
        /// The command name.
        public static let name = "toggle"
        /// One line for OVERVIEW.
        public static let abstract = "Start capturing, or stop and send if a capture is running."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to one key where the desktop reports only key presses (for example a global \
            shortcut portal).
            """
        /// Tracked in issue 6.
        public static let trackingIssue: Int? = 6
        /// Takes no arguments.
        public init(parsed: ParsedArguments) {}
    }

    /// `clawtalk ptt cancel`: discard the capture.
    public struct Cancel: PendingCommand {
        /// The command name.
        public static let name = "cancel"
        /// One line for OVERVIEW.
        public static let abstract = "Stop capturing and discard the transcript."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to a key (for example Escape while capturing) to abandon a capture without \
            sending anything.
            """
        /// Tracked in issue 6.
        public static let trackingIssue: Int? = 6
        /// Takes no arguments.
        public init(parsed: ParsedArguments) {}
    }

    /// `clawtalk ptt once`: one utterance, ended by silence.
    public struct Once: PendingCommand {
        /// The command name.
        public static let name = "once"
        /// One line for OVERVIEW.
        public static let abstract = "Capture one utterance, end it on silence and send it."
        /// What the keybinding does.
        public static let discussion = """
            Bind this to one key for hands-free turns: capture starts at once and ends after a short \
            silence (at most 12 s).
            """
        /// Tracked in issue 6.
        public static let trackingIssue: Int? = 6
        /// Takes no arguments.
        public init(parsed: ParsedArguments) {}
    }
}
