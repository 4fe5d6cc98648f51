import ClawTalkTestTraits
import Foundation
import Testing

@Suite("clawtalk devices", .serialized, .audioRig)
struct DevicesCommandTests {
    @Test func aMissingSoundServerIsExit69WithAHint() async throws {
        let result = try await ClawTalkBinary.run(
            ["devices"], environment: ["PULSE_SERVER": "unix:/nonexistent/native"])
        #expect(result.status == 69)
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix("Error: no sound server:"))
        #expect(result.error.contains("PulseAudio or pipewire-pulse"))
    }

    @Test(.needsAudioRig)
    func listsTheRigDevicesWithDefaultsMarked() async throws {
        let result = try await ClawTalkBinary.run(["devices"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "SOURCES (capture, --mic-device):")
        #expect(lines.contains("  * vmic"))
        #expect(lines.contains("    vspk.monitor"))
        #expect(lines.contains("  * vspk"))
        #expect(result.output.contains("TestMic — 16000 Hz mono"))
    }

    @Test(.needsAudioRig)
    func jsonListsEveryDeviceWithItsFields() async throws {
        let result = try await ClawTalkBinary.run(["devices", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let parsed = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]
        let devices = try #require(parsed)
        let mic = try #require(devices.first { $0["name"] as? String == "vmic" })
        #expect(mic["kind"] as? String == "source")
        #expect(mic["isDefault"] as? Bool == true)
        #expect(mic["sampleRate"] as? Int == 16000)
        let sink = try #require(devices.first { $0["name"] as? String == "vspk" })
        #expect(sink["kind"] as? String == "sink")
        #expect(devices.contains { $0["name"] as? String == "vspk.monitor" && $0["isMonitor"] as? Bool == true })
    }
}
