import ClawTalkGateway
import ClawTalkProtocol
import Foundation

/// Which device-auth payload layouts the gateway accepts (protocol.md §6.2).
public enum TestSignaturePolicy: Sendable, Equatable {
    /// Current gateways: try v3, then v2.
    case v3ThenV2
    /// An older gateway that only knows v2: a v3 signature fails (exercises the fallback).
    case v2Only
}

/// A device-proof failure of protocol.md §7.6, in the gateway's order, with its `details.reason`.
enum DeviceProofFailure: String, Error, CaseIterable {
    case deviceIdMismatch = "device-id-mismatch"
    case stale = "device-signature-stale"
    case nonceMissing = "device-nonce-missing"
    case nonceMismatch = "device-nonce-mismatch"
    case signature = "device-signature"
    case publicKey = "device-public-key"

    /// The error message (and close reason).
    var message: String {
        switch self {
        case .deviceIdMismatch: "device identity mismatch"
        case .stale: "device signature expired"
        case .nonceMissing: "device nonce required"
        case .nonceMismatch: "device nonce mismatch"
        case .signature: "device signature invalid"
        case .publicKey: "device public key invalid"
        }
    }

    /// `details.code`.
    var detailCode: ConnectDetailCode {
        switch self {
        case .deviceIdMismatch: .deviceAuthDeviceIdMismatch
        case .stale: .deviceAuthSignatureExpired
        case .nonceMissing: .deviceAuthNonceRequired
        case .nonceMismatch: .deviceAuthNonceMismatch
        case .signature: .deviceAuthSignatureInvalid
        case .publicKey: .deviceAuthPublicKeyInvalid
        }
    }
}

/// A device whose proof verified.
struct VerifiedDevice: Sendable, Equatable {
    /// `device.id`.
    let deviceId: String
    /// The raw key re-encoded as unpadded base64url (the gateway's normalized form).
    let publicKey: String
    /// The payload layout the signature matched.
    let signatureVersion: DeviceAuthVersion
}

/// The device-proof check of protocol.md §7.6, in upstream order: (1) id = SHA-256 of the
/// raw key, (2) `|now − signedAt| ≤ 120000`, (3) nonce non-empty after trim, (4) nonce equals
/// the challenge, (5) signature verifies as v3, else v2, (6) the key normalizes.
enum DeviceProofVerifier {
    /// `DEVICE_SIGNATURE_SKEW_MS`.
    static let skewMs: Int64 = 120_000
    /// DER prefix of an Ed25519 SubjectPublicKeyInfo.
    static let spkiPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]

    static func verify(
        _ connect: ParsedConnect, device: WireObject, challengeNonce: String, nowMs: Int64,
        policy: TestSignaturePolicy
    ) -> Result<VerifiedDevice, DeviceProofFailure> {
        let deviceId = device["id"]?.stringValue ?? ""
        let publicKeyText = device["publicKey"]?.stringValue ?? ""
        let raw = rawPublicKey(publicKeyText)
        guard let raw, DeviceIdentity.deviceId(forPublicKey: raw) == deviceId else {
            return .failure(.deviceIdMismatch)
        }
        guard let signedAt = device["signedAt"]?.int64Value, abs(nowMs - signedAt) <= skewMs else {
            return .failure(.stale)
        }
        let nonce = jsTrim(device["nonce"]?.stringValue ?? "")
        guard !nonce.isEmpty else { return .failure(.nonceMissing) }
        guard nonce == challengeNonce else { return .failure(.nonceMismatch) }
        let signature = decodeSignature(device["signature"]?.stringValue ?? "")
        let versions: [DeviceAuthVersion] = policy == .v2Only ? [.v2] : [.v3, .v2]
        let matched = versions.first { version in
            let payload = DeviceAuthPayload(
                version: version, deviceId: deviceId, clientId: connect.clientId, clientMode: connect.clientMode,
                role: connect.role, scopes: connect.scopes, signedAtMs: signedAt, token: connect.token,
                deviceToken: connect.deviceToken, bootstrapToken: connect.bootstrapToken, nonce: nonce,
                platform: connect.platform, deviceFamily: connect.deviceFamily)
            guard let signature, let key = try? Ed25519PublicKey(rawRepresentation: raw) else { return false }
            return key.isValidSignature(signature, for: Array(payload.string.utf8))
        }
        guard let matched else { return .failure(.signature) }
        guard raw.count == Ed25519PublicKey.byteCount else { return .failure(.publicKey) }
        return .success(VerifiedDevice(deviceId: deviceId, publicKey: Base64URL.encode(raw), signatureVersion: matched))
    }

    /// The raw key bytes of base64url, standard base64 or PEM (SPKI prefix stripped); nil when
    /// undecodable.
    static func rawPublicKey(_ text: String) -> [UInt8]? {
        let trimmed = jsTrim(text)
        var bytes: [UInt8]?
        if trimmed.hasPrefix("-----BEGIN") {
            let body = trimmed.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
            bytes = Data(base64Encoded: body).map { Array($0) }
        } else {
            bytes = (try? Base64URL.decode(trimmed)) ?? decodeStandardBase64(trimmed)
        }
        guard var key = bytes else { return nil }
        if key.count == spkiPrefix.count + 32, Array(key.prefix(spkiPrefix.count)) == spkiPrefix {
            key.removeFirst(spkiPrefix.count)
        }
        return key
    }

    /// A 64-byte signature from base64url or standard base64; nil otherwise.
    static func decodeSignature(_ text: String) -> [UInt8]? {
        let bytes = (try? Base64URL.decode(text)) ?? decodeStandardBase64(text)
        return bytes?.count == 64 ? bytes : nil
    }

    private static func decodeStandardBase64(_ text: String) -> [UInt8]? {
        var padded = text
        while padded.utf8.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map { Array($0) }
    }

    /// JavaScript `String.prototype.trim`.
    static func jsTrim(_ text: String) -> String {
        let isSpace: (Unicode.Scalar) -> Bool = { scalar in
            switch scalar.value {
            case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
                true
            default:
                false
            }
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
