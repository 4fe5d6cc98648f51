public import ClawTalkSupport
public import Foundation

/// The per-user speech pieces that `clawtalk setup` (`python/clawtalk_setup.py`) installs into
/// `$XDG_DATA_HOME/clawtalk`: what the node looks for, which of them are missing, and the command
/// that installs them, which depends on how clawtalk was installed: `scripts/setup` for a binary
/// built in a clone (`<repo>/.build/…`), `clawtalk setup` for the Debian package (or any other
/// installed binary).
public enum SpeechSetup {
    /// One installed piece, known by the file that stands for it.
    public struct Piece: Sendable, Equatable, CustomStringConvertible {
        /// The file, relative to the data directory (`models/whisper-base/model.bin`).
        public var path: String
        /// What it is, for people (`Whisper base model`).
        public var what: String

        /// `what (path)`.
        public var description: String { "\(what) (\(path))" }
    }

    /// Every piece `clawtalk setup` installs, in its order.
    public static let pieces: [Piece] = [
        Piece(path: "lib/libtensorflowlite_c.so", what: "wake-word runtime"),
        Piece(path: "models/whisper-base/model.bin", what: "Whisper base model"),
        Piece(path: "models/whisper-tiny-en/model.bin", what: "Whisper tiny.en keyword-scorer model"),
        Piece(path: "models/smart-turn-v3.2/smart-turn-v3.2-cpu.onnx", what: "Smart Turn end-of-turn model"),
        Piece(path: "venv/bin/clawtalk-speech", what: "speech server"),
        Piece(path: "venv/bin/clawtalk-wake", what: "keyword scorer"),
    ]

    /// The pieces whose file is absent under `paths.dataDirectory` (a launcher must be executable).
    public static func missing(paths: XDGPaths) -> [Piece] {
        pieces.filter { piece in
            let path = paths.dataDirectory + "/" + piece.path
            return piece.path.hasPrefix("venv/bin/")
                ? !FileManager.default.isExecutableFile(atPath: path) : !FileManager.default.fileExists(atPath: path)
        }
    }

    /// The command that installs the pieces: `clawtalk setup`, or `inSourceTree` when this binary
    /// was built in a clone (there `scripts/setup` does that and the rest).
    public static func command(inSourceTree: String = "scripts/setup", executable: URL? = nil) -> String {
        sourceTree(executable: executable ?? runningExecutable) == nil ? "clawtalk setup" : inSourceTree
    }

    /// The repository a binary at `executable` was built in (`<repo>/.build/<config>/clawtalk` or
    /// `<repo>/.build/<triple>/<config>/clawtalk`), nil for an installed binary.
    public static func sourceTree(executable: URL) -> URL? {
        var dir = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            if dir.lastPathComponent == ".build" { return dir.deletingLastPathComponent() }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// Where `clawtalk setup` looks for the installer, in order: the clone's `python/`, then
    /// `share/clawtalk/python/` beside the binary's `bin/` (`/usr/share/…` for `/usr/bin/clawtalk`),
    /// then `/usr/share/clawtalk/python/`.
    public static func installerCandidates(executable: URL? = nil) -> [String] {
        let executable = executable ?? runningExecutable
        var result: [String] = []
        if let repo = sourceTree(executable: executable) {
            result.append(repo.appendingPathComponent("python/clawtalk_setup.py").path)
        }
        let prefix = executable.deletingLastPathComponent().deletingLastPathComponent()
        result.append(prefix.appendingPathComponent("share/clawtalk/python/clawtalk_setup.py").path)
        result.append("/usr/share/clawtalk/python/clawtalk_setup.py")
        var seen = Set<String>()
        return result.filter { seen.insert($0).inserted }
    }

    /// The running binary, symlinks resolved (`/proc/self/exe`).
    static var runningExecutable: URL {
        let path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "clawtalk"
        return URL(fileURLWithPath: path.hasSuffix(" (deleted)") ? String(path.dropLast(10)) : path)
    }
}
