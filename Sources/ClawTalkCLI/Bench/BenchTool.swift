import Foundation

/// Runs a helper program (`pactl`, `git`) and returns its standard output.
enum BenchTool {
    /// Why a helper failed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `tool` (looked up on PATH) with `arguments`; throws on a non-zero exit.
    static func run(_ tool: String, _ arguments: [String], directory: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errorData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")): \(message)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `git rev-parse HEAD` in the working directory, or nil outside a repository.
    static func commit() -> String? {
        guard var commit = try? run("git", ["rev-parse", "HEAD"]) else { return nil }
        if let status = try? run("git", ["status", "--porcelain", "--untracked-files=no"]), !status.isEmpty {
            commit += "+dirty"
        }
        return commit
    }
}
