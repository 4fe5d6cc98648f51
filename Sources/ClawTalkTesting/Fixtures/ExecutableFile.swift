import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Executables a test writes and then runs (a fake server, a copy of the binary).
///
/// Foundation's writes and copies open the file without close-on-exec. A child that another test
/// spawned while the file was open for writing inherits that descriptor, and every exec of the
/// file then fails with ETXTBSY ("Text file busy") for as long as the child lives: a node's fake
/// speech server never started, and a copy of the binary could not be run, in parallel runs of
/// 2026-12-07. Written here, through a close-on-exec descriptor, no child can hold it.
public enum ExecutableFile {
    /// Writes `contents` to `path` (created or truncated) with mode `mode`.
    public static func write(_ contents: [UInt8], to path: String, mode: UInt32 = 0o755) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { throw failure(path) }
        defer { close(descriptor) }
        var written = 0
        while written < contents.count {
            let count = contents[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw failure(path) }
            written += count
        }
        guard fchmod(descriptor, mode_t(mode)) == 0 else { throw failure(path) }
    }

    /// Copies the file at `source` to `path` as an executable.
    public static func copy(_ source: String, to path: String) throws {
        guard let contents = FileManager.default.contents(atPath: source) else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: source])
        }
        try write([UInt8](contents), to: path)
    }

    private static func failure(_ path: String) -> any Error {
        let code = POSIXErrorCode(rawValue: errno) ?? .EIO
        return CocoaError(
            .fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(code)])
    }
}
