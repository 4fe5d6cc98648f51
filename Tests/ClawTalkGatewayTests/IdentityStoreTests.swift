import ClawTalkGateway
import Foundation
import Glibc
import Testing

@Suite("Identity store")
struct IdentityStoreTests {
    /// A fresh directory under the system temp dir, removed after `body`.
    private func withTemporaryDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("clawtalk-identity-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    private func mode(of url: URL) throws -> UInt32 {
        var info = stat()
        try #require(stat(url.path(percentEncoded: false), &info) == 0)
        return info.st_mode & 0o7777
    }

    private func writeJSON(_ object: [String: Any], to url: URL, mode: mode_t = 0o600) throws {
        let data = try JSONSerialization.data(withJSONObject: object)
        try data.write(to: url)
        try #require(chmod(url.path(percentEncoded: false), mode) == 0)
    }

    private func storedJSON(_ url: URL) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test func createThenReloadIsEqual() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("identity.json")
            let created = try IdentityStore.loadOrCreate(at: url)
            let reloaded = try IdentityStore.loadOrCreate(at: url)
            #expect(reloaded == created)
            #expect(try IdentityStore(fileURL: url).load() == created)

            let json = try storedJSON(url)
            #expect(json["algorithm"] as? String == "Ed25519")
            #expect(json["seed"] as? String == Base64URL.encode(created.seed))
            #expect(json["publicKey"] as? String == created.publicKeyBase64URL)
            #expect(json["deviceId"] as? String == created.deviceId)
            #expect((json["createdAtMs"] as? NSNumber)?.int64Value == created.createdAtMs)
            #expect(Set(json.keys) == ["algorithm", "seed", "publicKey", "deviceId", "createdAtMs"])
        }
    }

    @Test func savedFileHasMode0600AndMissingDirectoryIs0700() throws {
        try withTemporaryDirectory { directory in
            let nested = directory.appendingPathComponent("state/clawtalk", isDirectory: true)
            let url = nested.appendingPathComponent("identity.json")
            _ = try IdentityStore.loadOrCreate(at: url)
            #expect(try mode(of: url) == 0o600)
            #expect(try mode(of: nested) == 0o700)
        }
    }

    @Test(
        arguments: [
            (0o644, true), (0o640, true), (0o604, true), (0o660, true), (0o602, true), (0o400, false), (0o600, false),
        ] as [(mode_t, Bool)])
    func permissionCheck(_ fileMode: mode_t, _ refused: Bool) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("identity.json")
            let store = IdentityStore(fileURL: url)
            let identity = try DeviceIdentity.generate()
            try store.save(identity)
            try #require(chmod(url.path(percentEncoded: false), fileMode) == 0)
            if refused {
                #expect(
                    throws: IdentityError.insecurePermissions(
                        path: url.path(percentEncoded: false), mode: UInt32(fileMode))
                ) {
                    try store.load()
                }
                // loadOrCreate must refuse too, and must not replace the file.
                let before = try Data(contentsOf: url)
                #expect(throws: IdentityError.self) { try store.loadOrCreate() }
                #expect(try Data(contentsOf: url) == before)
            } else {
                #expect(try store.load() == identity)
            }
        }
    }

    @Test(arguments: ["deviceId", "publicKey"])
    func refusesTamperedField(_ field: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("identity.json")
            let store = IdentityStore(fileURL: url)
            try store.save(try DeviceIdentity.generate())
            let other = try DeviceIdentity.generate()
            var json = try storedJSON(url)
            json[field] = field == "deviceId" ? other.deviceId : other.publicKeyBase64URL
            try writeJSON(json, to: url)
            #expect(throws: IdentityError.mismatch(path: url.path(percentEncoded: false), field: field)) {
                try store.load()
            }
        }
    }

    @Test func refusesUppercaseDeviceId() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("identity.json")
            let store = IdentityStore(fileURL: url)
            let identity = try DeviceIdentity.generate()
            try store.save(identity)
            var json = try storedJSON(url)
            json["deviceId"] = identity.deviceId.uppercased()
            try writeJSON(json, to: url)
            #expect(throws: IdentityError.mismatch(path: url.path(percentEncoded: false), field: "deviceId")) {
                try store.load()
            }
        }
    }

    @Test func refusesWrongAlgorithmAndMalformedSeed() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("identity.json")
            let path = url.path(percentEncoded: false)
            let store = IdentityStore(fileURL: url)
            try store.save(try DeviceIdentity.generate())
            let original = try storedJSON(url)

            var json = original
            json["algorithm"] = "P-256"
            try writeJSON(json, to: url)
            #expect(throws: IdentityError.unsupportedAlgorithm(path: path, algorithm: "P-256")) { try store.load() }

            json = original
            json["seed"] = Base64URL.encode([UInt8](repeating: 7, count: 31))
            try writeJSON(json, to: url)
            #expect(throws: IdentityError.self) { try store.load() }

            json = original
            json["seed"] = "not*base64"
            try writeJSON(json, to: url)
            #expect(throws: IdentityError.self) { try store.load() }

            json = original
            json.removeValue(forKey: "createdAtMs")
            try writeJSON(json, to: url)
            #expect(throws: IdentityError.malformed(path: path, reason: "missing field createdAtMs")) {
                try store.load()
            }
        }
    }

    @Test func missingFileIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("identity.json")
            #expect(throws: IdentityError.notFound(path: url.path(percentEncoded: false))) {
                try IdentityStore(fileURL: url).load()
            }
        }
    }

    @Test func atomicWriteLeavesNoTemporaryFiles() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("identity.json")
            let store = IdentityStore(fileURL: url)
            _ = try store.loadOrCreate()
            let replacement = try DeviceIdentity.generate()
            try store.save(replacement)
            #expect(try store.load() == replacement)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false)) == [
                    "identity.json"
                ])
        }
    }

    @Test func failedWriteRemovesItsTemporaryFile() throws {
        try withTemporaryDirectory { directory in
            // The target is a non-empty directory, so the final rename fails.
            let url = directory.appendingPathComponent("identity.json", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            try Data("x".utf8).write(to: url.appendingPathComponent("keep"))
            let store = IdentityStore(fileURL: directory.appendingPathComponent("identity.json"))
            #expect(throws: IdentityError.self) { try store.save(try DeviceIdentity.generate()) }
            #expect(throws: IdentityError.notRegularFile(path: store.fileURL.path(percentEncoded: false))) {
                try store.load()
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false)) == [
                    "identity.json"
                ])
        }
    }
}
