import ClawTalkDevices
import ClawTalkSupport
import Testing

@testable import ClawTalkNode

@Suite("The service's microphone log (MicrophoneWatch)")
struct MicrophoneWatchTests {
    private func stats(_ state: CaptureState, reopens: Int = 0, readErrors: Int = 0) -> CaptureStats {
        CaptureStats(readErrors: readErrors, reopenCount: reopens, state: state)
    }

    @Test func aSourceThatGoesAndComesBackIsLoggedOnceEachWayWithItsDowntime() {
        var watch = MicrophoneWatch()
        #expect(watch.observe(stats(.idle), at: 0).isEmpty)
        #expect(watch.observe(stats(.capturing(device: "vmic")), at: 1).map(\.name) == ["mic.opened"])
        #expect(watch.observe(stats(.capturing(device: "vmic")), at: 2).isEmpty)
        let lost = watch.observe(stats(.unavailable(reason: "server gone"), readErrors: 1), at: 3)
        #expect(lost.map(\.name) == ["mic.lost"])
        #expect(lost.first?.level == .warning)
        #expect(lost.first?.fields["reason"] == .string("server gone"))
        // Still down: nothing more.
        #expect(watch.observe(stats(.unavailable(reason: "server gone"), readErrors: 3), at: 4).isEmpty)
        let back = watch.observe(stats(.capturing(device: "vmic"), reopens: 1, readErrors: 3), at: 5.5)
        #expect(back.map(\.name) == ["mic.restored"])
        #expect(back.first?.level == .notice)
        #expect(back.first?.fields["downMs"] == .int(2500))
        #expect(watch.observe(stats(.capturing(device: "vmic"), reopens: 1, readErrors: 3), at: 6).isEmpty)
    }

    @Test func aFallbackThenNothingThenTheSourceAgain() {
        var watch = MicrophoneWatch()
        _ = watch.observe(stats(.capturing(device: "vmic")), at: 0)
        #expect(watch.observe(stats(.fallback(reason: "vmic gone"), reopens: 1), at: 1).map(\.name) == ["mic.fallback"])
        #expect(watch.observe(stats(.unavailable(reason: "no source"), reopens: 1), at: 2).map(\.name) == ["mic.lost"])
        let back = watch.observe(stats(.capturing(device: "vmic"), reopens: 2), at: 4)
        #expect(back.map(\.name) == ["mic.restored"])
        #expect(back.first?.fields["downMs"] == .int(3000))
    }

    @Test func aReopenBetweenTwoLooksStillCountsAsRestored() {
        // A sound server that restarted within one look: the engine reopened, the watch never
        // saw it down.
        var watch = MicrophoneWatch()
        _ = watch.observe(stats(.capturing(device: nil)), at: 0)
        let back = watch.observe(stats(.capturing(device: nil), reopens: 1, readErrors: 1), at: 1)
        #expect(back.map(\.name) == ["mic.restored"])
        #expect(back.first?.fields["downMs"] == nil)
        #expect(back.first?.fields["device"] == .string("(default)"))
    }

    @Test func stoppingIsNotALoss() {
        var watch = MicrophoneWatch()
        _ = watch.observe(stats(.capturing(device: nil)), at: 0)
        #expect(watch.observe(stats(.stopped), at: 1).isEmpty)
    }
}
