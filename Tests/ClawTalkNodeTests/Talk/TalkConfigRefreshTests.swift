import ClawTalkDesktop
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkNode

/// `talk.config` is read after each operator `hello-ok` and again on entering Talk mode
/// (talk.md §5.7), through `run`'s reply services and Talk service against the test gateway.
@Suite("talk.config on entering Talk", .serialized, .timeLimit(.minutes(1)))
struct TalkConfigRefreshTests {
    static func talkConfigCalls(_ gateway: TestGateway) async -> Int {
        await gateway.observedEvents.filter { event in
            if case .operatorCall(_, "talk.config", _) = event { return true }
            return false
        }.count
    }

    static func wait(_ what: String, _ condition: @Sendable () async -> Bool) async throws {
        if !(await eventually { await condition() }) { Issue.record("timed out waiting for \(what)") }
    }

    @Test func enteringTalkReadsTheConfigAgain() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let gateway = SayFlowTests.gateway()
        let stack = try RunReplyStack(gateway: gateway, home: home)
        let (replies, service) = (stack.replies, stack.service)
        let talk = TalkModeServiceTests.service(home)
        let serviceTask = Task { await service.run() }
        let talkTask = Task { await talk.run(replies: replies) }

        try await Self.wait("talk.config after hello-ok") { await Self.talkConfigCalls(gateway) == 1 }
        _ = await talk.handle(.talkOn)
        try await Self.wait("talk.config on entering Talk") { await Self.talkConfigCalls(gateway) == 2 }
        _ = await talk.handle(.talkOff)
        // A marker: entering again reads once more; a read on leaving would have come before it.
        _ = await talk.handle(.talkOn)
        try await Self.wait("talk.config on entering Talk again") { await Self.talkConfigCalls(gateway) >= 3 }
        #expect(await Self.talkConfigCalls(gateway) == 3, "leaving Talk reads nothing")
        _ = await talk.handle(.talkOff)

        talkTask.cancel()
        serviceTask.cancel()
        await serviceTask.value
        // run() has returned, and with it the entry watcher (a child of its task group).
        await talkTask.value
        _ = await talk.handle(.talkOn)
        #expect(await Self.talkConfigCalls(gateway) == 3, "once run() has ended, entering Talk reads nothing")
        await talk.controller.shutdown()
    }
}
