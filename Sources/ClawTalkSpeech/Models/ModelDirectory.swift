public import Foundation

/// Finds the directory that holds the node's speech models (`Models/` with its `MANIFEST`).
public enum ModelDirectory {
    /// Candidate directories, most specific first: `CLAWTALK_MODELS_DIR`; `Models/` of the source
    /// tree the executable was built in (`<repo>/.build/<config>/clawtalk`); the user's data
    /// directory; the system-wide location.
    public static func candidates(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL = URL(fileURLWithPath: CommandLine.arguments.first ?? "clawtalk")
    ) -> [URL] {
        var result: [URL] = []
        if let explicit = environment["CLAWTALK_MODELS_DIR"], !explicit.isEmpty {
            result.append(URL(fileURLWithPath: explicit))
        }
        // .build/release/clawtalk (or .build/x86_64-unknown-linux-gnu/release/clawtalk) -> repo.
        var dir = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            if dir.lastPathComponent == ".build" {
                result.append(dir.deletingLastPathComponent().appendingPathComponent("Models"))
                break
            }
            dir = dir.deletingLastPathComponent()
        }
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        result.append(URL(fileURLWithPath: dataHome).appendingPathComponent("clawtalk/Models"))
        result.append(URL(fileURLWithPath: "/usr/share/clawtalk/Models"))
        return result
    }

    /// The first candidate that contains a `MANIFEST`, or an error listing where it looked.
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL = URL(fileURLWithPath: CommandLine.arguments.first ?? "clawtalk")
    ) throws -> URL {
        let searched = candidates(environment: environment, executable: executable)
        for dir in searched
        where FileManager.default.fileExists(atPath: dir.appendingPathComponent("MANIFEST").path) {
            return dir
        }
        throw SpeechError.fileNotFound(
            path: "Models/MANIFEST (searched: \(searched.map(\.path).joined(separator: ", ")))")
    }
}
