import ClawTalkGateway
import Foundation
import Testing

/// protocol.md §6.4: the normative signature fixtures from seed 0x00…0x1f.
@Suite("Device identity signature vectors (protocol.md §6.4)")
struct SignatureVectorTests {
    static let seed = (0..<32).map { UInt8($0) }
    static let deviceId = "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"
    static let nonce = "3f7b2c1e-9a4d-4c8e-b1f2-0d5e6a7b8c9d"
    static let token = "dtok_example_0123456789"

    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var version: DeviceAuthVersion
        var token: String?
        var payload: String
        var signature: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(
            name: "v3", version: .v3, token: token,
            payload:
                "v3|56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c|node-host|node|node||1754640000000|dtok_example_0123456789|3f7b2c1e-9a4d-4c8e-b1f2-0d5e6a7b8c9d|linux|linux",
            signature: "8R3ijlauUVuOyKxe_-_E4JrCy1FNbLz8JQES3snC7-Zt9ci9BqkiV2sOHH1IDMWAhwwOtElUAS639R20VA17AA"),
        Vector(
            name: "v2", version: .v2, token: token,
            payload:
                "v2|56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c|node-host|node|node||1754640000000|dtok_example_0123456789|3f7b2c1e-9a4d-4c8e-b1f2-0d5e6a7b8c9d",
            signature: "H9yCsz9kbD668tKs-4IopW-MxwuZG1sK8jscyGBRkMTyuFXANigtoEGa0aBtJrD36cN2Tri6V8qlM9Omkq0bDg"),
        Vector(
            name: "v2, no token", version: .v2, token: nil,
            payload:
                "v2|56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c|node-host|node|node||1754640000000||3f7b2c1e-9a4d-4c8e-b1f2-0d5e6a7b8c9d",
            signature: "LoKceMqvDCg0NQTMtXgzXOEt-ILtnqz1xG69MRjTNCDO2-gN1WrwEnSs2TDZxwmnjUb1BKdF3y2OkALPkxEXBw"),
        Vector(
            name: "v3, no token", version: .v3, token: nil,
            payload:
                "v3|56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c|node-host|node|node||1754640000000||3f7b2c1e-9a4d-4c8e-b1f2-0d5e6a7b8c9d|linux|linux",
            signature: "8ZbNlyVaxGwrtrjDSSA9vbVIvR2qhaCflqzfzuNN-CY1cFqiAsmv9viG2hC7NH8iUzEIBCvkiWXDkPqwZyrCCQ"),
    ]

    @Test func publicKeyAndDeviceIdFromSeed() throws {
        let identity = try DeviceIdentity(seed: Self.seed, createdAtMs: 0)
        #expect(identity.publicKey.count == 32)
        #expect(Data(identity.publicKey).base64EncodedString() == "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=")
        #expect(identity.publicKeyBase64URL == "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg")
        #expect(!identity.publicKeyBase64URL.contains("="))
        #expect(identity.deviceId == Self.deviceId)
        #expect(DeviceIdentity.deviceId(forPublicKey: identity.publicKey) == Self.deviceId)
    }

    @Test(arguments: vectors)
    func payloadAndSignature(_ vector: Vector) throws {
        let identity = try DeviceIdentity(seed: Self.seed, createdAtMs: 0)
        let payload = DeviceAuthPayload(
            version: vector.version, deviceId: identity.deviceId, clientId: "node-host",
            clientMode: "node", role: "node", scopes: [], signedAtMs: 1_754_640_000_000,
            deviceToken: vector.token, nonce: Self.nonce, platform: "linux", deviceFamily: "Linux")
        #expect(payload.string == vector.payload)

        let signature = try identity.sign(payload: payload.string)
        #expect(signature == vector.signature)
        #expect(!signature.contains("="))

        let raw = try Base64URL.decode(signature)
        #expect(raw.count == 64)
        #expect(identity.privateKey.publicKey.isValidSignature(raw, for: Array(vector.payload.utf8)))
    }
}
