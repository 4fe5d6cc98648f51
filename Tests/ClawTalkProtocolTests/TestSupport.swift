import Foundation
import Testing

@testable import ClawTalkProtocol

/// Loads golden frames from `Fixtures/frames`.
enum Fixture {
    static func data(_ name: String) throws -> Data {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures/frames"),
            "missing fixture \(name).json")
        return try Data(contentsOf: url)
    }

    static func json(_ name: String) throws -> WireJSON {
        try WireJSON(parsing: data(name))
    }
}

extension WireJSON {
    /// Replaces string members named `payloadJSON`/`paramsJSON` by their parsed JSON, so
    /// embedded JSON compares semantically.
    func expandingEmbeddedJSON() -> WireJSON {
        switch self {
        case .object(let object):
            var out = WireObject()
            for member in object.members {
                if ["payloadJSON", "paramsJSON"].contains(member.key), let text = member.value.stringValue,
                    let parsed = try? WireJSON(parsing: text)
                {
                    out[member.key] = parsed.expandingEmbeddedJSON()
                } else {
                    out[member.key] = member.value.expandingEmbeddedJSON()
                }
            }
            return .object(out)
        case .array(let elements):
            return .array(elements.map { $0.expandingEmbeddedJSON() })
        default:
            return self
        }
    }

    /// Every object key path in the value, e.g. `params.client.id` (array elements use `[]`).
    func keyPaths(prefix: String = "") -> Set<String> {
        switch self {
        case .object(let object):
            var paths: Set<String> = []
            for member in object.members {
                let path = prefix.isEmpty ? member.key : "\(prefix).\(member.key)"
                paths.insert(path)
                paths.formUnion(member.value.keyPaths(prefix: path))
            }
            return paths
        case .array(let elements):
            return elements.reduce(into: Set<String>()) { $0.formUnion($1.keyPaths(prefix: prefix + "[]")) }
        default:
            return []
        }
    }

    /// True when a `null` appears anywhere in the value.
    var containsNull: Bool {
        switch self {
        case .null: true
        case .object(let object): object.members.contains { $0.value.containsNull }
        case .array(let elements): elements.contains { $0.containsNull }
        default: false
        }
    }
}

/// Builds a base64url (no padding) string from text, independently of the code under test.
func base64URL(_ text: String) -> String {
    Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

/// The protocol.md §6.4 identity and signature used by the golden connect.
enum Vector {
    static let deviceId = "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"
    static let publicKey = "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"
    static let signatureV3 = "8R3ijlauUVuOyKxe_-_E4JrCy1FNbLz8JQES3snC7-Zt9ci9BqkiV2sOHH1IDMWAhwwOtElUAS639R20VA17AA"
    static let nonce = "3f7b2c1e-9a4d-4c8e-b1f2-0d5e6a7b8c9d"
    static let signedAt: Int64 = 1_754_640_000_000
    static let deviceToken = "dtok_example_0123456789"
}
