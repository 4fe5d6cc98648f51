package import ClawTalkGateway
import ClawTalkSupport
import Foundation

/// A shared gateway secret given to `clawtalk pair --token/--password` (or carried by a legacy
/// setup code). Deliberately not `CustomStringConvertible`: it holds a secret.
package struct GatewaySecret: Sendable, Equatable, Codable {
    /// Shared token.
    package var token: String?
    /// Shared password.
    package var password: String?

    /// True when neither is set.
    package var isEmpty: Bool { (token ?? "").isEmpty && (password ?? "").isEmpty }

    /// A secret of `token` and `password`.
    package init(token: String? = nil, password: String? = nil) {
        self.token = token
        self.password = password
    }
}

/// Keeps one ``GatewaySecret`` per gateway key in `gateway-<key>.secret` next to the key's
/// record (mode 0600, written atomically by ``StateDirectory``), so `GatewayStore.forget`
/// deletes it together with the tokens and the pin.
package struct GatewaySecretStore: Sendable {
    /// The gateway store whose directory and file names are used.
    let store: GatewayStore

    /// The secrets kept beside `store`'s records.
    package init(store: GatewayStore) {
        self.store = store
    }

    /// File suffix of the secret files.
    static let suffix = "secret"

    /// The stored secret of `key`, if any.
    func secret(for key: String) throws -> GatewaySecret? {
        let name = try store.dataFileName(for: key, suffix: Self.suffix)
        guard let data = try store.directory.readSecretFile(name) else { return nil }
        do {
            return try JSONDecoder().decode(GatewaySecret.self, from: data)
        } catch {
            throw GatewayStoreError.malformed(file: name, reason: "not a gateway secret")
        }
    }

    /// Stores `secret` for `key` (an empty secret removes the file).
    package func save(_ secret: GatewaySecret, for key: String) throws {
        guard !secret.isEmpty else { return try remove(for: key) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let name = try store.dataFileName(for: key, suffix: Self.suffix)
        try store.directory.writeSecretFile(name, try encoder.encode(secret))
    }

    /// Deletes the secret of `key`.
    func remove(for key: String) throws {
        try store.directory.removeFile(try store.dataFileName(for: key, suffix: Self.suffix))
    }
}
