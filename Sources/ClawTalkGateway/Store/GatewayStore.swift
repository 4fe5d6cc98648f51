public import ClawTalkProtocol
public import ClawTalkSupport
import Foundation
import Synchronization

/// Per-gateway state in clawtalk's state directory (protocol.md §11, §17.1): one JSON
/// file per gateway key (`gateway-<escaped key>.json`, mode 0600, written atomically through
/// ``StateDirectory``) plus a registry `gateways.json` with the known keys and the current one.
///
/// Every read-modify-write runs under one lock, so the node and operator connections can share
/// a store. Blocking file I/O on small files: fine from actors, never from an audio thread.
public final class GatewayStore: Sendable {
    /// The directory holding the files.
    public let directory: StateDirectory
    private let lock = Mutex(())
    private let now: @Sendable () -> Int64

    /// Registry file name.
    static let registryFile = "gateways.json"

    /// A store in `directory`; `now` gives wall-clock milliseconds for timestamps.
    public init(directory: StateDirectory, now: @escaping @Sendable () -> Int64 = DeviceIdentity.currentTimeMs) {
        self.directory = directory
        self.now = now
    }

    // MARK: - Registry

    /// The known gateways, in registration order.
    public func list() throws -> [GatewaySummary] {
        try locked {
            let registry = try readRegistry()
            return try registry.keys.map { key in
                let record = try readRecord(key)
                return GatewaySummary(
                    key: key, url: record.url, isCurrent: registry.current == key,
                    tokenRoles: Array(Set(record.deviceTokens.map(\.role))).sorted(), pinSource: record.tlsPin?.source)
            }
        }
    }

    /// The gateway key in use, if any.
    public func current() throws -> String? {
        try locked { try readRegistry().current }
    }

    /// Makes the registered `key` the one in use.
    public func use(_ key: String) throws {
        try locked {
            var registry = try readRegistry()
            guard registry.keys.contains(key) else { throw GatewayStoreError.unknownGateway(key) }
            registry.current = key
            try writeRegistry(registry)
        }
    }

    /// Registers `endpoint` (its URL becomes the display URL) and returns its key.
    @discardableResult
    public func register(_ endpoint: GatewayEndpoint, makeCurrent: Bool = true) throws -> String {
        let key = endpoint.gatewayKey
        try update(key) { $0.url = endpoint.urlString }
        if makeCurrent { try use(key) }
        return key
    }

    /// Deletes everything stored for `key`: tokens, pin, remembered versions, triggers and any
    /// data files of the key (``dataFileName(for:suffix:)``); drops it from the registry.
    public func forget(_ key: String) throws {
        try locked {
            let stem = Self.fileStem(for: key)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names where name.hasPrefix(stem + ".") {
                do { try directory.removeFile(name) } catch { throw GatewayStoreError.stateDirectory("\(error)") }
            }
            var registry = try readRegistry()
            registry.keys.removeAll { $0 == key }
            if registry.current == key { registry.current = nil }
            try writeRegistry(registry)
        }
    }

    /// File name for other per-gateway data (e.g. a queue) that ``forget(_:)`` must delete:
    /// `gateway-<escaped key>.<suffix>`; `suffix` is `[a-z0-9.-]`, not `json`.
    public func dataFileName(for key: String, suffix: String) throws -> String {
        let allowed = suffix.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
        guard !suffix.isEmpty, allowed, suffix != "json", !suffix.hasPrefix(".") else {
            throw GatewayStoreError.invalidSuffix(suffix)
        }
        return "\(Self.fileStem(for: key)).\(suffix)"
    }

    /// The display URL registered for `key`.
    public func displayURL(for key: String) throws -> String? {
        try record(key).url
    }

    // MARK: - Record access (internal)

    /// The stored record of `key` (empty when none).
    func record(_ key: String) throws -> GatewayRecord {
        try locked { try readRecord(key) }
    }

    /// Read-modify-write of the record of `key`; also registers the key.
    func update<T>(_ key: String, _ body: (inout GatewayRecord) throws -> T) throws -> T {
        try locked {
            var record = try readRecord(key)
            let result = try body(&record)
            try write(record, named: Self.recordFile(for: key))
            var registry = try readRegistry()
            if !registry.keys.contains(key) {
                registry.keys.append(key)
                try writeRegistry(registry)
            }
            return result
        }
    }

    /// Wall-clock milliseconds.
    var nowMs: Int64 { now() }

    // MARK: - Files

    private func locked<T>(_ body: () throws -> T) throws -> T {
        try lock.locked { _ in try body() }
    }

    private func readRecord(_ key: String) throws -> GatewayRecord {
        guard let record = try read(GatewayRecord.self, named: Self.recordFile(for: key)) else {
            return GatewayRecord(gatewayKey: key)
        }
        return record
    }

    private func readRegistry() throws -> GatewayRegistryFile {
        try read(GatewayRegistryFile.self, named: Self.registryFile) ?? GatewayRegistryFile()
    }

    private func writeRegistry(_ registry: GatewayRegistryFile) throws {
        try write(registry, named: Self.registryFile)
    }

    private func read<T: Decodable>(_ type: T.Type, named name: String) throws -> T? {
        let data: Data?
        do {
            data = try directory.readSecretFile(name)
        } catch {
            throw GatewayStoreError(error)
        }
        guard let data else { return nil }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw GatewayStoreError.malformed(file: name, reason: Self.summary(error))
        }
    }

    private func write<T: Encodable>(_ value: T, named name: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        do {
            try directory.writeSecretFile(name, data)
        } catch {
            throw GatewayStoreError(error)
        }
    }

    private static func summary(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not valid JSON" }
        switch error {
        case .keyNotFound(let key, _): return "missing field \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong value for \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not valid JSON" : "invalid \(path)"
        @unknown default: return "not valid JSON"
        }
    }

    // MARK: - Names

    /// `gateway-<escaped key>`: `[a-z0-9._-]` kept, every other byte `%XX`; keys whose escaped
    /// form is too long for a file name use the SHA-256 of the key instead.
    static func fileStem(for key: String) -> String {
        var escaped = ""
        for byte in key.utf8 {
            let keep =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            if keep {
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                escaped += String(format: "%%%02X", byte)
            }
        }
        if escaped.isEmpty || escaped.hasPrefix(".") || escaped.utf8.count > 180 {
            return "gateway-sha256-" + Hex.lowercase(SHA256.hash(key))
        }
        return "gateway-" + escaped
    }

    /// The record file of `key`.
    static func recordFile(for key: String) -> String {
        fileStem(for: key) + ".json"
    }
}
