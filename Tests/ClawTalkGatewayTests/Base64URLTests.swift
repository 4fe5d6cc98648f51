import ClawTalkGateway
import Foundation
import Testing

@Suite("Base64url")
struct Base64URLTests {
    /// RFC 4648 §10 vectors, unpadded.
    static let rfcVectors: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
        ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: rfcVectors)
    func encodesWithoutPadding(_ plain: String, _ encoded: String) throws {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesURLAlphabet() throws {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0xFE]
        #expect(Data(bytes).base64EncodedString() == "+/+//g==")
        #expect(Base64URL.encode(bytes) == "-_-__g")
        #expect(try Base64URL.decode("-_-__g") == bytes)
    }

    @Test func acceptsPaddedInput() throws {
        #expect(try Base64URL.decode("Zg==") == Array("f".utf8))
        #expect(try Base64URL.decode("Zm8=") == Array("fo".utf8))
        #expect(try Base64URL.decode("-_-__g==") == [0xFB, 0xFF, 0xBF, 0xFE])
    }

    /// Every length 0…64 of every byte value round-trips and matches Foundation's standard
    /// base64 after the alphabet swap.
    @Test func agreesWithFoundation() throws {
        let bytes = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) } + Array(0...255)
        for length in [0, 1, 2, 3, 4, 5, 31, 32, 33, 64, bytes.count] {
            let slice = Array(bytes.prefix(length))
            let expected = Data(slice).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(slice) == expected)
            #expect(try Base64URL.decode(expected) == slice)
        }
    }

    static let invalidInputs: [(String, Base64URLError)] = [
        ("Zm9v+g", .invalidCharacter(offset: 4)),
        ("Zm9v/g", .invalidCharacter(offset: 4)),
        ("Zm 9v", .invalidCharacter(offset: 2)),
        ("Zm9v\n", .invalidCharacter(offset: 4)),
        ("Zg=g", .invalidCharacter(offset: 2)),
        ("Zg===", .invalidCharacter(offset: 2)),
        ("Zé", .invalidCharacter(offset: 1)),
        ("Z", .invalidLength(1)),
        ("Zm9vY", .invalidLength(5)),
        ("Zg=", .invalidPadding),
        ("Zm9v=", .invalidPadding),
        ("=", .invalidPadding),
        ("Zh", .nonCanonical),
        ("Zm9", .nonCanonical),
    ]

    @Test(arguments: invalidInputs)
    func rejectsInvalidInput(_ input: String, _ error: Base64URLError) {
        #expect(throws: error) { try Base64URL.decode(input) }
    }
}
