import ClawTalkGateway
import Foundation
import Testing

@Suite("Ed25519, SHA-256 and randomness")
struct CryptoPrimitiveTests {
    private static func bytes(hex: String) -> [UInt8] {
        var out = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    @Test func sha256KnownAnswers() {
        #expect(
            Hex.lowercase(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Hex.lowercase(SHA256.hash("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// RFC 8032 §7.1 test 1 (empty message) and test 2 (one byte).
    @Test func rfc8032Vectors() throws {
        let key1 = try Ed25519PrivateKey(
            rawRepresentation: Self.bytes(hex: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        #expect(
            Hex.lowercase(key1.publicKey.rawRepresentation)
                == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        #expect(
            Hex.lowercase(try key1.signature(for: []))
                == "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        )

        let key2 = try Ed25519PrivateKey(
            rawRepresentation: Self.bytes(hex: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"))
        #expect(
            Hex.lowercase(key2.publicKey.rawRepresentation)
                == "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
        #expect(
            Hex.lowercase(try key2.signature(for: [0x72]))
                == "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        )
    }

    @Test func signVerifyRoundTripAndTamperDetection() throws {
        let key = try Ed25519PrivateKey.generate()
        let message = Array("hello clawtalk".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: message))

        for bit in [0, 7, 255, 511] {
            var flipped = signature
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!key.publicKey.isValidSignature(flipped, for: message), "signature bit \(bit)")
        }
        var otherMessage = message
        otherMessage[0] ^= 0x01
        #expect(!key.publicKey.isValidSignature(signature, for: otherMessage))

        let otherKey = try Ed25519PrivateKey.generate()
        #expect(!otherKey.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(Array(signature.dropLast()), for: message))
    }

    @Test func invalidKeyLengthsThrow() {
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 31)) {
            try Ed25519PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 31))
        }
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 33)) {
            try Ed25519PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 33))
        }
    }

    @Test func randomBytesHaveRequestedLengthAndDiffer() throws {
        #expect(try SecureRandom.bytes(0).isEmpty)
        let first = try SecureRandom.bytes(32)
        let second = try SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(try DeviceIdentity.generate().deviceId != DeviceIdentity.generate().deviceId)
    }

    @Test func descriptionsDoNotRevealTheSeed() throws {
        let seed = [UInt8](repeating: 0xAB, count: 32)
        let identity = try DeviceIdentity(seed: seed, createdAtMs: 1)
        let seedText = Base64URL.encode(seed)
        var dumped = ""
        dump(identity, to: &dumped)
        for text in [identity.description, String(reflecting: identity), "\(identity.privateKey)", dumped] {
            #expect(!text.contains(seedText))
            #expect(!text.contains("171, 171"))
        }
        #expect(identity.description.contains(identity.deviceId))
    }
}
