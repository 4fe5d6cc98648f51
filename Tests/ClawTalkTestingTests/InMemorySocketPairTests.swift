import ClawTalkGateway
import Foundation
import Testing

@testable import ClawTalkTesting

@Suite struct InMemorySocketPairTests {
    @Test func messagesFlowBothWaysInOrderAndCloseReachesBothEnds() async throws {
        let (client, server) = InMemorySocketPair.make()
        try client.send(text: "a")
        try client.send(text: "b")
        server.send(text: "x")
        client.close(code: 4000, reason: "watchdog")
        var serverSaw: [GatewaySocketEvent] = []
        for await event in server.inbound { serverSaw.append(event) }
        #expect(
            serverSaw == [.message(Data("a".utf8)), .message(Data("b".utf8)), .closed(code: 4000, reason: "watchdog")])
        var clientSaw: [GatewaySocketEvent] = []
        for await event in client.inbound { clientSaw.append(event) }
        #expect(clientSaw == [.message(Data("x".utf8)), .closed(code: 4000, reason: "watchdog")])
        #expect(throws: InMemorySocketError.closed) { try client.send(text: "late") }
    }

    @Test func aResetIsAFailureForTheClient() async {
        let (client, server) = InMemorySocketPair.make()
        server.reset()
        var events: [GatewaySocketEvent] = []
        for await event in client.inbound { events.append(event) }
        #expect(events == [.failed("connection reset")])
    }
}
