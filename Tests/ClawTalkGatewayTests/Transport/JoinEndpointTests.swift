import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// The test gateway's `/j/<code>` endpoint (upstream's response shape), fetched with the real
/// ``HTTPGetClient`` over loopback HTTP and HTTPS.
@Suite("Join endpoint", .serialized, .timeLimit(.minutes(2)))
struct JoinEndpointTests {
    static func request(_ joinURL: String, pin: String? = nil) throws -> HTTPGetClient.Request {
        let url = try JoinURL.parse(joinURL)
        return HTTPGetClient.Request(
            useTLS: url.isSecure, host: url.host, port: url.port, path: url.path, pin: pin.flatMap(TLSFingerprint.init),
            timeout: .seconds(20))
    }

    @Test func aCodeIsServedOnceAsTheSetupPayloadThenNotFound() async throws {
        let gateway = TestGateway()
        let wsURL = try await gateway.listen()
        defer { Task { await gateway.stopListening() } }
        let joinURL = await gateway.mintJoinURL()
        #expect(joinURL.hasPrefix(wsURL.replacingOccurrences(of: "ws://", with: "http://") + "/j/"))

        let first = try await HTTPGetClient.get(Self.request(joinURL))
        #expect(first.status == 200)
        #expect(first.header("content-type")?.hasPrefix("application/json") == true)
        #expect(first.header("cache-control") == "no-store")
        let code = try JoinRedemption.setupCode(
            status: first.status, contentType: first.header("content-type"), body: first.body, now: Date())
        #expect(code.endpoint == (try GatewayEndpoint.parse(wsURL)))
        let token = try #require(code.bootstrapToken)
        #expect(await gateway.bootstrapTokenIsLive(token))

        let second = try await HTTPGetClient.get(Self.request(joinURL))
        #expect(second.status == 404)
        #expect(String(decoding: second.body, as: UTF8.self) == #"{"error":"not_found"}"#)
        #expect(gateway.joinCodes.redeemedCount == 1)
    }

    @Test func anExpiredOrUnknownCodeOrAQueryIsNotFound() async throws {
        let clock = ManualGatewayClock(startMs: Int64(Date().timeIntervalSince1970 * 1000))
        let gateway = TestGateway(clock: clock)
        try await gateway.listen()
        defer { Task { await gateway.stopListening() } }
        let expiring = await gateway.mintJoinURL(lifetimeMs: 60_000)
        let other = await gateway.mintJoinURL()
        clock.advance(byMs: 60_001)
        #expect(try await HTTPGetClient.get(Self.request(expiring)).status == 404)

        let unknown = String(other.dropLast(22)) + "AAAAAAAAAAAAAAAAAAAAAA"
        #expect(try await HTTPGetClient.get(Self.request(unknown)).status == 404)
        var withQuery = try Self.request(other)
        withQuery.path += "?x=1"
        #expect(try await HTTPGetClient.get(withQuery).status == 404)
        #expect(gateway.joinCodes.redeemedCount == 0, "a query does not burn the code")
        #expect(try await HTTPGetClient.get(Self.request(other)).status == 200)
    }

    @Test func overTLSAPinnedFetchWorksAndAnUntrustedOneFailsBeforeTheRequest() async throws {
        let certificate = try SelfSignedCertificate()
        defer { certificate.remove() }
        let gateway = TestGateway()
        try await gateway.listen(tls: (certificate.certificatePath, certificate.keyPath))
        defer { Task { await gateway.stopListening() } }
        let joinURL = await gateway.mintJoinURL()
        #expect(joinURL.hasPrefix("https://127.0.0.1:"))

        do {
            _ = try await HTTPGetClient.get(Self.request(joinURL))
            Issue.record("fetched from a self-signed server without a pin")
        } catch HTTPGetClient.Failure.tlsUntrusted(let why) {
            #expect(!why.isEmpty)
        }
        do {
            _ = try await HTTPGetClient.get(Self.request(joinURL, pin: String(repeating: "ab", count: 32)))
            Issue.record("fetched with the wrong pin")
        } catch HTTPGetClient.Failure.pinMismatch(let why) {
            #expect(why.contains(certificate.sha256))
        }
        #expect(gateway.joinCodes.redeemedCount == 0)
        let response = try await HTTPGetClient.get(Self.request(joinURL, pin: certificate.sha256))
        #expect(response.status == 200)
    }

    @Test func aClosedPortIsUnreachable() async throws {
        let gateway = TestGateway()
        try await gateway.listen()
        let joinURL = await gateway.mintJoinURL()
        await gateway.stopListening()
        do {
            _ = try await HTTPGetClient.get(Self.request(joinURL))
            Issue.record("fetched from a stopped server")
        } catch HTTPGetClient.Failure.unreachable(let why) {
            #expect(why.contains("cannot connect"))
        }
    }
}

@Suite("HTTP response parser")
struct HTTPResponseParserTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func framingByLengthChunksAndEndOfStream() throws {
        let sized = Self.bytes("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        #expect(try HTTPResponseParser.parse(Array(sized.dropLast()), maxBodyBytes: 10, atEnd: false) == .incomplete)
        guard case .complete(let response) = try HTTPResponseParser.parse(sized, maxBodyBytes: 10, atEnd: false) else {
            Issue.record("incomplete")
            return
        }
        #expect(response.status == 200 && response.body == Self.bytes("{}"))
        #expect(response.header("CONTENT-TYPE") == "application/json")

        let chunked = Self.bytes(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{\"\r\n3;x=y\r\na\"}\r\n0\r\n\r\n")
        #expect(
            try HTTPResponseParser.parse(chunked, maxBodyBytes: 10, atEnd: false)
                == .complete(
                    HTTPResponse(
                        status: 200, headers: [HTTPHeader(name: "transfer-encoding", value: "chunked")],
                        body: Self.bytes("{\"a\"}"))))

        let unframed = Self.bytes("HTTP/1.0 404 Not Found\r\n\r\nnope")
        #expect(try HTTPResponseParser.parse(unframed, maxBodyBytes: 10, atEnd: false) == .incomplete)
        #expect(
            try HTTPResponseParser.parse(unframed, maxBodyBytes: 10, atEnd: true)
                == .complete(HTTPResponse(status: 404, body: Self.bytes("nope"))))
    }

    @Test func limitsAndBrokenResponses() {
        let big = Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n")
        #expect(throws: HTTPResponseError.bodyTooLarge(limit: 10)) {
            try HTTPResponseParser.parse(big, maxBodyBytes: 10, atEnd: false)
        }
        let bigChunk = Self.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n")
        #expect(throws: HTTPResponseError.bodyTooLarge(limit: 10)) {
            try HTTPResponseParser.parse(bigChunk, maxBodyBytes: 10, atEnd: false)
        }
        #expect(throws: HTTPResponseError.malformed("invalid status line")) {
            try HTTPResponseParser.parse(Self.bytes("SSH-2.0-OpenSSH\r\n\r\n"), maxBodyBytes: 10, atEnd: false)
        }
        #expect(throws: HTTPResponseError.malformed("truncated body")) {
            try HTTPResponseParser.parse(
                Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n{}"), maxBodyBytes: 10, atEnd: true)
        }
        #expect(throws: HTTPResponseError.malformed("empty response")) {
            try HTTPResponseParser.parse([], maxBodyBytes: 10, atEnd: true)
        }
        #expect(throws: HTTPResponseError.headersTooLarge) {
            try HTTPResponseParser.parse(
                Array(repeating: 0x41, count: HTTPResponseParser.maxHeaderBytes + 1), maxBodyBytes: 10, atEnd: false)
        }
    }

    /// Found by Fuzz/http_response.swift: a chunk size of "-4" trapped on a reversed range.
    @Test(arguments: ["-4", "+4", " 4x", "0x4", "-0"])
    func chunkSizeIsHexDigitsOnly(size: String) {
        let response = Self.bytes(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n{\"a\"\r\n0\r\n\r\n")
        #expect(throws: HTTPResponseError.malformed("invalid chunk size")) {
            try HTTPResponseParser.parse(response, maxBodyBytes: 10, atEnd: true)
        }
    }

    @Test(arguments: ["+2", "-0", "2 2", "0x2"])
    func contentLengthIsDecimalDigitsOnly(length: String) {
        let response = Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n{}")
        #expect(throws: HTTPResponseError.malformed("invalid Content-Length")) {
            try HTTPResponseParser.parse(response, maxBodyBytes: 10, atEnd: true)
        }
    }
}
