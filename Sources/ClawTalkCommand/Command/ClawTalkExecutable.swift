import Foundation

/// Where the running executable is, and the programs installed beside it (`clawtalk-bench`;
/// the bench's `clawtalk run`).
public enum ClawTalkExecutable {
    /// The running binary (`/proc/self/exe`; a binary replaced since it started keeps its path).
    public static func current() throws -> String {
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return path.hasSuffix(" (deleted)") ? String(path.dropLast(10)) : path
    }

    /// `name` in the running binary's folder (not checked to exist).
    public static func sibling(_ name: String) throws -> String {
        URL(fileURLWithPath: try current()).deletingLastPathComponent().appendingPathComponent(name).path
    }
}
