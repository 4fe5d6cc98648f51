import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import Testing

@Suite("Invoke router (protocol.md §10.2–§10.4)")
struct InvokeRouterTests {
    static let node = "node-1"

    private func request(
        _ id: String, command: String = "talk.ptt.start", params: String? = nil, timeoutMs: Int? = nil,
        key: String? = nil
    ) -> NodeInvokeRequest {
        NodeInvokeRequest(
            id: id, nodeId: Self.node, command: command, paramsJSON: params, timeoutMs: timeoutMs, idempotencyKey: key)
    }

    private func ticket(_ admission: InvokeRouter.Admission) -> InvokeRouter.Ticket? {
        if case .run(let ticket) = admission { return ticket }
        return nil
    }

    private func reply(_ admission: InvokeRouter.Admission) -> NodeInvokeResult? {
        if case .reply(let result) = admission { return result }
        return nil
    }

    @Test("undeclared command → INVALID_REQUEST unsupported command")
    func unsupported() throws {
        var router = InvokeRouter(nodeId: Self.node)
        let result = try #require(
            reply(router.admit(request("a", command: "camera.snap"), epoch: 1, supported: false, now: .zero)))
        #expect(
            result
                == NodeInvokeResult(
                    id: "a", nodeId: Self.node, ok: false,
                    error: .init(code: "INVALID_REQUEST", message: "INVALID_REQUEST: unsupported command camera.snap")))
        #expect(router.runningCount == 0)
    }

    @Test(
        "params: null/absent/empty mean {}, non-objects and bad JSON are INVALID_REQUEST",
        arguments: [
            (String?.none, true), ("", true), ("null", true), ("{\"a\":1,\"extra\":true}", true), ("[1]", false),
            ("{oops", false), ("\"text\"", false),
        ])
    func params(paramsJSON: String?, accepted: Bool) {
        var router = InvokeRouter(nodeId: Self.node)
        let admission = router.admit(request("a", params: paramsJSON), epoch: 1, supported: true, now: .zero)
        if accepted {
            #expect(ticket(admission) != nil)
        } else {
            #expect(reply(admission)?.error?.code == "INVALID_REQUEST")
        }
    }

    @Test(
        "timeoutMs: given value, 30 s when 0 or absent", arguments: [(Int?.none, 30_000), (0, 30_000), (1_500, 1_500)])
    func timeouts(timeoutMs: Int?, expected: Int) throws {
        var router = InvokeRouter(nodeId: Self.node)
        let admitted = try #require(
            ticket(router.admit(request("a", timeoutMs: timeoutMs), epoch: 3, supported: true, now: .zero)))
        #expect(admitted.timeout == .milliseconds(expected))
        #expect(admitted.epoch == 3)
    }

    @Test("at most 8 run at once; the 9th is UNAVAILABLE node busy")
    func busy() throws {
        var router = InvokeRouter(nodeId: Self.node)
        for index in 0..<8 {
            let step1 = router.admit(request("r\(index)"), epoch: 1, supported: true, now: .zero)
            #expect(ticket(step1) != nil)
        }
        let refused = try #require(reply(router.admit(request("r8"), epoch: 1, supported: true, now: .zero)))
        #expect(refused.error == .init(code: "UNAVAILABLE", message: "UNAVAILABLE: node busy, retry"))
        _ = router.complete("r0", with: .success(payloadJSON: nil), now: .zero)
        let step2 = router.admit(request("r9"), epoch: 1, supported: true, now: .zero)
        #expect(ticket(step2) != nil)
    }

    @Test("completion is first-wins and carries the request's epoch")
    func firstWins() {
        var router = InvokeRouter(nodeId: Self.node)
        _ = router.admit(request("a"), epoch: 4, supported: true, now: .zero)
        let deliveries = router.complete("a", with: .failure(.timedOut), now: .zero)
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.epoch == 4)
        #expect(deliveries.first?.result.error?.message == "UNAVAILABLE: node invoke timed out")
        let step3 = router.complete("a", with: .success(payloadJSON: "{}"), now: .zero)
        #expect(step3.isEmpty)
    }

    @Test("idempotency: a repeat gets the stored result under its own id without running")
    func idempotencyCache() throws {
        var router = InvokeRouter(nodeId: Self.node)
        _ = router.admit(request("a", key: "k"), epoch: 1, supported: true, now: .zero)
        _ = router.complete("a", with: .success(payloadJSON: "{\"captureId\":\"c1\"}"), now: .seconds(1))
        let repeated = try #require(
            reply(router.admit(request("b", key: "k"), epoch: 2, supported: true, now: .seconds(2))))
        #expect(
            repeated == NodeInvokeResult(id: "b", nodeId: Self.node, ok: true, payloadJSON: "{\"captureId\":\"c1\"}"))
        #expect(router.runningCount == 0)
        let step4 = router.admit(request("c", key: "k"), epoch: 2, supported: true, now: .seconds(602))
        #expect(ticket(step4) != nil)
    }

    @Test("idempotency: a repeat while the first runs is answered with it")
    func idempotencyAttached() {
        var router = InvokeRouter(nodeId: Self.node)
        _ = router.admit(request("a", key: "k"), epoch: 1, supported: true, now: .zero)
        let step5 = router.admit(request("b", key: "k"), epoch: 2, supported: true, now: .zero)
        #expect(step5 == .attached)
        let deliveries = router.complete("a", with: .success(payloadJSON: "1"), now: .zero)
        #expect(deliveries.map(\.result.id) == ["a", "b"])
        #expect(deliveries.map(\.epoch) == [1, 2])
        #expect(deliveries.allSatisfy { $0.result.payloadJSON == "1" })
    }

    @Test("idempotency: transient failures are not reused, others are")
    func idempotencyFailures() {
        var router = InvokeRouter(nodeId: Self.node)
        _ = router.admit(request("a", key: "k"), epoch: 1, supported: true, now: .zero)
        _ = router.complete("a", with: .failure(.micBusy()), now: .zero)
        let step6 = router.admit(request("b", key: "k"), epoch: 1, supported: true, now: .zero)
        #expect(ticket(step6) != nil)
        _ = router.complete("b", with: .failure(.invalidRequest("no")), now: .zero)
        let step7 = router.admit(request("c", key: "k"), epoch: 1, supported: true, now: .zero)
        #expect(reply(step7)?.error?.code == "INVALID_REQUEST")
    }

    @Test("idempotency keeps at most 256 keys")
    func idempotencyCapacity() {
        var router = InvokeRouter(nodeId: Self.node)
        for index in 0..<257 {
            _ = router.admit(request("r\(index)", key: "k\(index)"), epoch: 1, supported: true, now: .zero)
            _ = router.complete("r\(index)", with: .success(payloadJSON: nil), now: .zero)
        }
        let step8 = router.admit(request("x", key: "k0"), epoch: 1, supported: true, now: .zero)
        #expect(ticket(step8) != nil)
        let step9 = router.admit(request("y", key: "k256"), epoch: 1, supported: true, now: .zero)
        #expect(reply(step9) != nil)
    }

    @Test("cancel: running → cancel the handler; unknown → applied if the request arrives within 30 s")
    func cancel() throws {
        var router = InvokeRouter(nodeId: Self.node)
        _ = router.admit(request("a"), epoch: 1, supported: true, now: .zero)
        let step10 = router.cancel("a", now: .zero)
        #expect(step10)
        let step11 = router.cancel("early", now: .seconds(1))
        #expect(!step11)
        let early = try #require(ticket(router.admit(request("early"), epoch: 1, supported: true, now: .seconds(20))))
        #expect(early.cancelledEarly)
        let step12 = router.cancel("late", now: .seconds(1))
        #expect(!step12)
        let late = try #require(ticket(router.admit(request("late"), epoch: 1, supported: true, now: .seconds(40))))
        #expect(!late.cancelledEarly)
    }

    @Test("one mapping from handler errors to wire errors")
    func wireErrors() {
        #expect(InvokeRouter.wireError(for: NodeError.micBusy()) == .micBusy())
        #expect(InvokeRouter.wireError(for: CancellationError()).code == "UNAVAILABLE")
        #expect(InvokeRouter.wireError(for: CancellationError()).message.hasPrefix("CANCELLED:"))
        #expect(InvokeRouter.wireError(for: TimeoutError(limit: "1s")) == .timedOut)
        let other = InvokeRouter.wireError(for: GatewayError.notConnected)
        #expect(other == NodeError(.unavailable, message: "UNAVAILABLE: not connected to the gateway"))
    }

    @Test("results have the closed shape: payloadJSON only on success, {code, message} on failure")
    func closedShape() throws {
        let success = try WireJSON(encoding: InvokeOutcome.success(payloadJSON: "{}").result(id: "a", nodeId: "n"))
        #expect(Set(try #require(success.objectValue).keys) == ["id", "nodeId", "ok", "payloadJSON"])
        let empty = try WireJSON(encoding: InvokeOutcome.success(payloadJSON: nil).result(id: "a", nodeId: "n"))
        #expect(Set(try #require(empty.objectValue).keys) == ["id", "nodeId", "ok"])
        let failure = try WireJSON(encoding: InvokeOutcome.failure(.busy).result(id: "a", nodeId: "n"))
        #expect(Set(try #require(failure.objectValue).keys) == ["id", "nodeId", "ok", "error"])
        #expect(Set(try #require(failure["error"]?.objectValue).keys) == ["code", "message"])
    }
}
