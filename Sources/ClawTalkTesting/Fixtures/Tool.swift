public import Foundation

/// A command-line tool exited non-zero.
public struct ToolError: Error, CustomStringConvertible {
    /// The command, its status and its stderr.
    public var description: String
}

/// Runs a command-line tool and returns its standard output: the one "run a tool, read its
/// output" of the tests (pactl, openssl, sox, espeak-ng, paplay …). `tool` is found on PATH, or
/// is a path; `directory` is its working directory (the caller's when nil). Throws ``ToolError``,
/// with the tool's stderr, when it exits non-zero.
///
/// Both outputs go to files, not Pipes: reading a Pipe while the child exits can hit EINTR,
/// which Foundation's FileHandle turns into a trap.
@discardableResult
public func toolOutput(_ tool: String, _ arguments: [String], in directory: URL? = nil) throws -> String {
    let files = FileManager.default.temporaryDirectory.appendingPathComponent("clawtalk-tool-\(UUID().uuidString)")
    let stdout = files.appendingPathExtension("out")
    let stderr = files.appendingPathExtension("err")
    for file in [stdout, stderr] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
    defer { for file in [stdout, stderr] { try? FileManager.default.removeItem(at: file) } }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    if let directory { process.currentDirectoryURL = directory }
    process.standardOutput = try FileHandle(forWritingTo: stdout)
    process.standardError = try FileHandle(forWritingTo: stderr)
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        let message = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        throw ToolError(
            description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(message)")
    }
    return String(decoding: try Data(contentsOf: stdout), as: UTF8.self)
}

/// Runs a command-line tool for its effect (see ``toolOutput(_:_:in:)``); throws ``ToolError``
/// when it exits non-zero.
public func runTool(_ tool: String, _ arguments: [String]) throws {
    try toolOutput(tool, arguments)
}

/// Runs `command` with `/bin/sh -c` (for pipes, as in `openssl x509 … | sha256sum`) and returns
/// its standard output (see ``toolOutput(_:_:in:)``).
@discardableResult
public func shellOutput(_ command: String, in directory: URL? = nil) throws -> String {
    try toolOutput("/bin/sh", ["-c", command], in: directory)
}
