import ClawTalkDesktop
import ClawTalkProtocol
import ClawTalkTalk
import ClawTalkTesting
import Testing

@testable import ClawTalkCLI
@testable import ClawTalkNode

/// `clawtalk ptt`'s own part: which failures exit 69, how answers read, where the socket is.
@Suite struct PTTCommandTests {
    @Test(arguments: [
        ("MICROPHONE_PERMISSION_REQUIRED: no source", true), ("MIC_BUSY: held", true), ("STT_UNAVAILABLE: x", true),
        ("NODE_NOT_READY: audio engine starting", true), ("PTT_CANCELLED: push-to-talk start was cancelled", false),
        ("PERMISSION_DENIED: the control socket belongs to uid 1", false),
    ])
    func failuresThatMeanUnavailableExit69(message: String, unavailable: Bool) {
        #expect(PTTCommand.isUnavailable(message) == unavailable)
    }

    @Test func answersAreRenderedForPeople() {
        #expect(PTTCommand.render(.started("c-1")) == "started c-1\n")
        let stop = ControlResponse(.finished(TalkPTTResult(captureId: "c-2", transcript: "hi there", status: .queued)))
        #expect(PTTCommand.render(stop) == "queued c-2\nhi there\n")
        let idle = ControlResponse(.finished(TalkPTTResult(captureId: "c-3", transcript: nil, status: .idle)))
        #expect(PTTCommand.render(idle) == "idle c-3\n")
    }

    @Test func theSocketPathComesFromTheConfiguration() throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        #expect(try PTTCommand.socketPath(environment: home.environment) == home.runtime + "/clawtalk/control.sock")
        try home.writeConfig("{ ptt: { controlSocket: \"\(home.root)/ptt.sock\" } }")
        #expect(try PTTCommand.socketPath(environment: home.environment) == home.root + "/ptt.sock")
    }
}
