import ClawTalkSupport
import Foundation

/// `clawtalk say`: speaks text through the node's speaker.
public struct SayCommand: Command {
    /// The command name.
    public static let name = "say"
    /// One line for OVERVIEW.
    public static let abstract = "Speak text through the node's speaker."
    /// Which synthesizer is used.
    public static let discussion = """
        The gateway synthesizes the speech with its configured voice; --local uses espeak-ng on \
        this machine instead, which also works without a gateway.
        """
    /// Text source and voice.
    public static let options: [OptionSpec] = [
        .flag("local", help: "Synthesize with espeak-ng on this machine instead of the gateway."),
        .option("file", valueName: "path", help: "Play an audio clip (WAV, MP3, Ogg Opus) instead of text."),
        .flag("last", help: "Speak the last reply again."),
        .option(
            "voice", valueName: "name", help: "Voice to use (a gateway voice, or an espeak-ng voice with --local)."),
        .option("snd-device", valueName: "name", help: "Sound server sink to play to (see 'clawtalk devices')."),
        .positional("text", arity: .optional, help: "The text to speak."),
    ]

    /// The text given on the command line.
    public var text: String?
    /// `--local`.
    public var local: Bool
    /// `--file`.
    public var file: String?
    /// `--last`.
    public var last: Bool
    /// `--voice`.
    public var voice: String?
    /// `--snd-device`.
    public var sndDevice: String?

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        text = parsed.string("text")
        local = parsed.flag("local")
        file = parsed.string("file")
        last = parsed.flag("last")
        voice = parsed.string("voice")
        sndDevice = parsed.string("snd-device")
    }

    /// At most one source of text.
    public func validate() throws {
        let sources = [text != nil, file != nil, last].filter { $0 }.count
        if sources > 1 {
            throw CLIError.validationFailed("Give only one of <text>, --file and --last.")
        }
    }

    /// Plays a clip (`--file`) or speaks text with espeak-ng (`--local`); the gateway path comes with issue 6.
    public func run(context: CommandContext) async throws -> Int32 {
        let settings: Settings
        do {
            settings = try ConfigLoader(environment: context.environment).load().settings
        } catch {
            throw CLIError.validationFailed("configuration: \(error)")
        }
        let sink = sndDevice ?? settings.speaker.device
        if let file {
            return try await LocalPlayback.playClip(path: file, sink: sink)
        }
        guard local, !last else { throw CLIError.notAvailableYet(command: context.commandLine, issue: 6) }
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw CLIError.validationFailed("Give the text to speak, e.g. clawtalk say --local \"hello\".")
        }
        return try await LocalPlayback.speak(
            text: text, voice: voice ?? settings.tts.espeakVoice, rateWPM: settings.tts.espeakRateWPM, sink: sink)
    }
}
