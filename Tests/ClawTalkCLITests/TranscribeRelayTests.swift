import ClawTalkAudio
import ClawTalkGateway
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

/// `clawtalk transcribe --engine gateway` as a child process against the test gateway's relay in
/// upstream's current form (talk.md §9.1): G.711 μ-law at 8 kHz, finals after the close.
@Suite("clawtalk transcribe --engine gateway", .serialized)
struct TranscribeRelayTests {
    @Test("prints the relay's transcript; the gateway decoded μ-law audio as long as the file")
    func transcribesThroughTheCurrentRelay() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway { configuration in
            configuration.auth = .token("s3cret")
            configuration.autoApproveLoopback = true
        }
        await gateway.updateScript { $0.relayTranscript = "what time is it" }
        // 1.5 s: a 440 Hz tone between two stretches of silence.
        let rate = 16_000.0
        let samples = (0..<Int(1.5 * rate)).map { index -> Int16 in
            let time = Double(index) / rate
            return time < 0.3 || time > 1.2 ? 0 : Int16(8_000 * sin(2 * Double.pi * 440 * time))
        }
        let file = URL(fileURLWithPath: home.root).appendingPathComponent("question.wav")
        try WAVFile.encode(PCMBuffer(format: .speech, samples: samples)).write(to: file)
        // The node's identity, as `run` or `pair` would have created it.
        try FileManager.default.createDirectory(atPath: home.state + "/clawtalk", withIntermediateDirectories: true)
        _ = try IdentityStore.loadOrCreate(at: URL(fileURLWithPath: home.state + "/clawtalk/identity.json"))
        var environment = home.environment
        environment["CLAWTALK_GATEWAY_URL"] = url
        environment["CLAWTALK_GATEWAY_TOKEN"] = "s3cret"

        let process = try ClawTalkBinary.process(
            ["transcribe", "--engine", "gateway", file.path], environment: environment)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        _ = await eventually(within: .seconds(90)) { !process.isRunning }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        print("transcribe --engine gateway: \(stdout.trimmingCharacters(in: .whitespacesAndNewlines)) | \(stderr)")
        #expect(process.terminationStatus == 0)
        #expect(stdout.contains("what time is it"))
        #expect(stderr.contains("engine: gateway"))
        let session = try #require(await gateway.recordedRelaySessions().first)
        #expect(session.form == .current && session.sampleRate == 8_000)
        #expect(session.bytes == session.audio.count, "one byte per sample: μ-law")
        // The file's 1.5 s plus the client's 0.6 s of trailing silence, within 10 %.
        let seconds = Double(session.audio.count) / 8_000
        #expect(abs(seconds - 2.1) <= 0.21, "\(seconds) s decoded at the gateway")
        #expect(session.closed)
    }
}
