public import Foundation

/// clawtalk's private state directory (`$XDG_STATE_HOME/clawtalk`): device identity, tokens,
/// TLS pins, last trigger list.
///
/// Opening it creates it with mode 0700 (and missing parents, also 0700), tightens a looser
/// mode with a warning, and refuses a directory owned by another user. Secret files are
/// written atomically with mode 0600 and refused on read when group or others can access them.
public struct StateDirectory: Sendable {
    /// Absolute path of the directory.
    public let path: String
    /// The uid that must own the directory and its files.
    public let owner: UInt32

    /// Opens (creating if needed) the directory at `path`.
    /// - Parameters:
    ///   - owner: uid that must own it; default the current user (tests pass another to check refusal).
    ///   - logger: receives `state.permissions.fixed` when a loose mode is tightened.
    public init(path: String, owner: UInt32? = nil, logger: Logger = .discarding) throws(StateDirectoryError) {
        self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        self.owner = owner ?? POSIXFile.currentUser
        try prepare(logger: logger)
    }

    /// Opens the standard location, `$XDG_STATE_HOME/clawtalk`.
    public static func standard(paths: XDGPaths = XDGPaths(), logger: Logger = .discarding) throws(StateDirectoryError)
        -> StateDirectory
    {
        try StateDirectory(path: paths.stateDirectory, logger: logger)
    }

    /// Absolute path of the file `name` in this directory.
    public func filePath(_ name: String) -> String { "\(path)/\(name)" }

    /// Replaces file `name` with `data` atomically (temp file in this directory, mode 0600 before
    /// writing, fsync, rename, directory fsync).
    public func writeSecretFile(_ name: String, _ data: Data) throws(StateDirectoryError) {
        try Self.validate(name)
        let target = filePath(name)
        do {
            try POSIXFile.writeAtomically(Array(data), to: target, directory: path, mode: 0o600)
        } catch {
            throw .io(path: target, operation: "write", message: error.message)
        }
    }

    /// Contents of file `name`, or nil when it does not exist. Refuses files owned by another
    /// user or accessible by group or others.
    public func readSecretFile(_ name: String) throws(StateDirectoryError) -> Data? {
        try Self.validate(name)
        let target = filePath(name)
        let result: (bytes: [UInt8], owner: UInt32, mode: UInt32)?
        do {
            result = try POSIXFile.read(target, followSymlinks: false)
        } catch {
            throw .io(path: target, operation: "read", message: error.message)
        }
        guard let result else { return nil }
        guard result.owner == owner else { throw .foreignOwner(path: target, owner: result.owner, expected: owner) }
        guard result.mode & 0o077 == 0 else { throw .insecureFile(path: target, mode: result.mode) }
        return Data(result.bytes)
    }

    /// Deletes file `name`; a missing file is fine.
    public func removeFile(_ name: String) throws(StateDirectoryError) {
        try Self.validate(name)
        do {
            try POSIXFile.remove(filePath(name))
        } catch {
            throw .io(path: filePath(name), operation: "remove", message: error.message)
        }
    }

    private static func validate(_ name: String) throws(StateDirectoryError) {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            throw .invalidName(name)
        }
    }

    private func prepare(logger: Logger) throws(StateDirectoryError) {
        guard path.hasPrefix("/") else {
            throw .io(path: path, operation: "open state directory", message: "path is not absolute")
        }
        do {
            var prefix = ""
            for component in path.split(separator: "/") {
                prefix += "/\(component)"
                if try POSIXFile.status(prefix) == nil { try POSIXFile.makeDirectory(prefix, mode: 0o700) }
            }
            guard let status = try POSIXFile.status(path) else {
                throw StateDirectoryError.io(
                    path: path, operation: "prepare state directory", message: "disappeared while being created")
            }
            guard status.isDirectory else { throw StateDirectoryError.notADirectory(path: path) }
            guard status.owner == owner else {
                throw StateDirectoryError.foreignOwner(path: path, owner: status.owner, expected: owner)
            }
            if status.mode & 0o077 != 0 {
                try POSIXFile.changeMode(path, 0o700)
                logger.warning(
                    "state.permissions.fixed",
                    ["path": .string(path), "mode": .string(StateDirectoryError.octal(status.mode)), "now": "0700"])
            }
        } catch let error as StateDirectoryError {
            throw error
        } catch let error as POSIXFile.Failure {
            throw .io(path: path, operation: "prepare state directory", message: error.message)
        } catch {
            throw .io(path: path, operation: "prepare state directory", message: "\(error)")
        }
    }
}
