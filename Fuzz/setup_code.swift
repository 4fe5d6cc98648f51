// libFuzzer harness for pairing input: SetupCode.parse (Sources/ClawTalkProtocol/Pairing/
// SetupCode.swift: base64url codes, `oc-pair://` links, raw JSON, pasted messages), JoinURL.parse
// (JoinURL.swift) and GatewayEndpoint.parse (GatewayEndpoint.swift), which both of them use.
//
// Input: one option byte (bit 0: "now" is 2026 instead of 1970, for `expiresAtMs`), then the
// text the user pasted (not UTF-8: ignored, the CLI reads text). Checks besides traps and
// sanitizer findings: errors are the typed ones (typed throws); a parsed endpoint's urlString
// parses to the same endpoint; a parsed join URL written back parses to the same join URL; a
// parsed setup code written back as JSON, as a base64url code and as an `oc-pair://` link parses
// to the same setup code; a normalized TLS fingerprint normalizes to itself.
import ClawTalkProtocol
import Foundation

/// libFuzzer's entry point: runs one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let now = Date(timeIntervalSince1970: data[0] & 1 == 0 ? 0 : 1_780_000_000)
    guard let text = String(validating: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    else { return 0 }

    if let endpoint = try? GatewayEndpoint.parse(text) {
        checkEndpoint(endpoint)
    }

    if let join = try? JoinURL.parse(text) {
        let host = join.host.contains(":") ? "[\(join.host)]" : join.host
        let written = "\(join.isSecure ? "https" : "http")://\(host):\(join.port)\(join.path)"
        let again: JoinURL
        do {
            again = try JoinURL.parse(written)
        } catch {
            fatalError("join URL written back is rejected: \(error)")
        }
        precondition(again == join, "join URL round trip changed it")
        precondition(JoinURL.looksLikeJoinURL(text), "a join URL that does not look like one")
    }

    guard let code = try? SetupCode.parse(text, now: now) else { return 0 }
    precondition(!JoinURL.looksLikeJoinURL(text), "a join URL parsed as a setup code")
    precondition(code.fallbackEndpoints.count < SetupCode.maxEndpoints, "too many endpoints")
    precondition(!code.fallbackEndpoints.contains(code.endpoint), "primary repeated in the fallbacks")
    code.endpoints.forEach(checkEndpoint)
    if let fingerprint = code.tlsFingerprint {
        precondition(TLSFingerprint.normalize(fingerprint) == fingerprint, "fingerprint not normalized")
    }

    var object: WireObject = ["url": .string(code.endpoint.urlString)]
    if !code.fallbackEndpoints.isEmpty { object["urls"] = .array(code.fallbackEndpoints.map { .string($0.urlString) }) }
    if let value = code.bootstrapToken { object["bootstrapToken"] = .string(value) }
    if let value = code.expiresAtMs { object["expiresAtMs"] = .integer(value) }
    if let value = code.tlsFingerprint { object["tlsFingerprint"] = .string(value) }
    if let value = code.token { object["token"] = .string(value) }
    if let value = code.password { object["password"] = .string(value) }
    let json = WireJSON.object(object).encodedBytes()
    let base64 = Data(json).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
    var forms = ["oc-pair://" + base64]
    if json.count <= SetupCode.maxPayloadBytes { forms.append(String(decoding: json, as: UTF8.self)) }
    if base64.count <= SetupCode.maxCodeLength { forms.append(base64) }
    for form in forms {
        let again: SetupCode
        do {
            again = try SetupCode.parse(form, now: now)
        } catch {
            // Written back, the code may only grow past the code-length limit (a reordered or
            // re-escaped payload); anything else is a change of meaning.
            guard case .codeTooLong = error else { fatalError("setup code written back is rejected: \(error)") }
            continue
        }
        precondition(again == code, "setup code round trip changed it")
    }
    return 0
}

private func checkEndpoint(_ endpoint: GatewayEndpoint) {
    let again: GatewayEndpoint
    do {
        again = try GatewayEndpoint.parse(endpoint.urlString)
    } catch {
        fatalError("endpoint urlString is rejected: \(error)")
    }
    precondition(again == endpoint, "endpoint round trip changed it")
    precondition((1...65535).contains(endpoint.port), "port out of range")
}
