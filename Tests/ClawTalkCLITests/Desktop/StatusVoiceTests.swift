import ClawTalkDesktop
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkCLI
@testable import ClawTalkNode

@Suite("status --watch voice fields and pairing notifications")
struct StatusVoiceTests {
    @Test func phaseLevelAndTranscriptReachTheStatusFileAndTheReport() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let state = try StateDirectory(path: home.state + "/clawtalk")
        let factory = GatewayConnectionFactory(
            settings: Settings(), identity: try DeviceIdentity.generate(), store: GatewayStore(directory: state),
            logger: .discarding, surface: NodeSurface(caps: [.talk], commands: []))
        let file = StatusFile(paths: XDGPaths(environment: home.environment))
        let service = GatewayService(factory: factory, statusFile: file, logger: .discarding, reloadSignals: [])
        let task = Task { await service.run() }
        defer { task.cancel() }
        _ = await eventually { (try? file.read()) != nil }
        #expect(try file.read()?.voice?.phase == .idle)

        await service.setPhase(.listening)
        let firstLevel = ContinuousClock.now
        await service.setInputLevel(dbfs: -23.44)
        await service.setLastTranscript("turn on the lights")
        await service.setLastReply("The lights are on.")
        await service.setRealtimeRelay(true)
        let written = try #require(try file.read()?.voice)
        #expect(written.phase == .listening)
        #expect(written.levelDBFS == -23.4)
        #expect(written.lastTranscript == "turn on the lights")
        #expect(written.lastTranscriptAt != nil)

        // A second level within 200 ms is kept in memory but not written yet; the next change writes it.
        // The throttle runs on the wall clock: only checked when both levels came within 200 ms here
        // (a busy machine may take longer between them, and then the second is written at once).
        await service.setInputLevel(dbfs: -50)
        if ContinuousClock.now - firstLevel < .milliseconds(200) {
            #expect(try file.read()?.voice?.levelDBFS == -23.4)
        }
        await service.setPhase(.thinking)
        #expect(try file.read()?.voice?.levelDBFS == -50)
        // Drift below 3 dB (room noise) is written at most every 2 s: the idle service does not
        // rewrite its status file five times a second.
        let drift = ContinuousClock.now
        await service.setInputLevel(dbfs: -51)
        await service.setInputLevel(dbfs: -52)
        if ContinuousClock.now - drift < .seconds(2) {
            #expect(try file.read()?.voice?.levelDBFS == -50)
        }
        await service.setPhase(.thinking)

        let report = StatusReport.gather(
            service: try file.read(), deviceId: nil, configuredURL: nil, store: nil)
        let lines = report.text.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("phase:") && $0.contains("thinking") }, "\(report.text)")
        #expect(lines.contains { $0.hasPrefix("level:") && $0.contains("[###.................]  -50.0 dBFS") })
        #expect(lines.contains { $0.hasPrefix("heard:") && $0.contains("\"turn on the lights\"") })
        // Realtime Talk: the provider's reply and the privacy note.
        #expect(lines.contains { $0.hasPrefix("replied:") && $0.contains("\"The lights are on.\"") })
        #expect(lines.contains { $0.hasPrefix("realtime:") && $0.contains("microphone audio goes to the gateway") })
        await service.setRealtimeRelay(false)
        #expect(try file.read()?.voice?.realtimeRelay == false)
        #expect(
            !StatusReport.gather(service: try file.read(), deviceId: nil, configuredURL: nil, store: nil).text
                .contains("realtime:"))
        task.cancel()
        await task.value
    }

    @Test func meterCoversSilenceToFullScale() {
        #expect(VoiceActivity.meter(nil).hasSuffix("no signal"))
        #expect(VoiceActivity.meter(-120) == "[....................]  -120.0 dBFS")
        #expect(VoiceActivity.meter(0) == "[####################]  0.0 dBFS")
        #expect(VoiceActivity.meter(-30).hasPrefix("[##########.........."))
    }

    @Test func aPairingRequestRaisesADesktopNotification() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let bus = try PrivateSessionBus()
        let peer = try NotificationServerPeer(address: bus.address)
        let (gateway, url) = try await EndToEnd.gateway { $0.auth = .token("s3cret") }
        defer { Task { await gateway.stopListening() } }
        var settings = Settings()
        settings.gateway.url = url
        settings.gateway.token = "s3cret"
        let state = try StateDirectory(path: home.state + "/clawtalk")
        let factory = GatewayConnectionFactory(
            settings: settings, identity: try DeviceIdentity.generate(), store: GatewayStore(directory: state),
            logger: .discarding, surface: NodeSurface(caps: [.talk], commands: []))
        let notifier = DesktopNotifier(enabled: true, environment: [:], busAddress: bus.address, logger: .discarding)
        let service = GatewayService(
            factory: factory, statusFile: nil, logger: .discarding, reloadSignals: [], notifier: notifier)
        let task = Task { await service.run() }
        var calls: [NotificationServerPeer.Call] = []
        _ = await eventually {
            calls = peer.calls
            return !calls.isEmpty
        }
        task.cancel()
        await task.value
        let request = try #require(await gateway.pendingPairingRequests.first)
        let call = try #require(calls.first)
        #expect(call.member == "Notify")
        #expect(call.arguments[3].stringValue?.contains(request.requestId) == true, "\(call.arguments)")
        #expect(call.arguments[4].stringValue?.contains("openclaw devices approve \(request.requestId)") == true)
    }
}

@Suite("Voice status tap")
struct VoiceStatusTapTests {
    @Test func levelsAndTranscriptsAreTakenOnce() async {
        let tap = VoiceStatusTap()
        #expect(tap.takeLevel() == nil)
        tap.record(rms: 0.5)
        tap.record(rms: 0.1)
        let level = tap.takeLevel()
        #expect(level.map { abs($0 - -20) < 0.01 } == true, "the latest frame counts: \(String(describing: level))")
        #expect(tap.takeLevel() == nil)
        tap.record(rms: 0)
        #expect(tap.takeLevel() == -120)

        // The noting delivery passes the transcript on to the real node delivery (offline here).
        let delivery = StatusNotingDelivery(
            inner: NodeTranscriptDelivery(sessionKey: "main", logger: .discarding), tap: tap)
        let receipt = await delivery.deliver("what time is it", source: .pushToTalk)
        #expect(receipt.outcome == .failed("gateway not connected; nothing was sent"))
        #expect(tap.takeTranscript() == "what time is it")
        #expect(tap.takeTranscript() == nil)

        // Realtime Talk's reply transcript and whether the relay runs, each taken once.
        tap.note(reply: "It is noon.")
        tap.note(realtimeRelay: true)
        #expect(tap.takeReply() == "It is noon.")
        #expect(tap.takeReply() == nil)
        #expect(tap.takeRealtimeRelay() == true)
        #expect(tap.takeRealtimeRelay() == nil)
    }
}
