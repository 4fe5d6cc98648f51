import ClawTalkAudio
import ClawTalkDevices
import Foundation
import Testing

@Suite("Device resolution and errors (no server needed)")
struct DeviceResolutionTests {
    let devices = [
        AudioDevice(kind: .sink, name: "alsa_output.usb", description: "USB Speaker", sampleRate: 48000, channels: 2),
        AudioDevice(
            kind: .source, name: "alsa_output.usb.monitor", description: "Monitor of USB Speaker", isMonitor: true,
            sampleRate: 48000, channels: 2),
        AudioDevice(
            kind: .source, name: "alsa_input.usb", description: "USB Mic", isDefault: true, sampleRate: 16000,
            channels: 1),
        AudioDevice(kind: .source, name: "USB Mic", description: "Other", sampleRate: 16000, channels: 1),
    ]

    @Test("an exact name wins over a description")
    func exactNameFirst() throws {
        #expect(try PulseDeviceCatalog.resolve("USB Mic", kind: .source, in: devices).description == "Other")
    }

    @Test("descriptions match case-insensitively, within the requested kind")
    func descriptionMatch() throws {
        #expect(try PulseDeviceCatalog.resolve("usb speaker", kind: .sink, in: devices).name == "alsa_output.usb")
        #expect(
            try PulseDeviceCatalog.resolve("MONITOR OF USB SPEAKER", kind: .source, in: devices).isMonitor)
        #expect(throws: AudioDeviceError.self) {
            try PulseDeviceCatalog.resolve("USB Speaker", kind: .source, in: devices)
        }
    }

    @Test("no match lists the available names of that kind")
    func notFound() {
        #expect(
            throws: AudioDeviceError.notFound(
                name: "usb", available: ["alsa_output.usb.monitor", "alsa_input.usb", "USB Mic"])
        ) {
            try PulseDeviceCatalog.resolve("usb", kind: .source, in: devices)
        }
        let text = "\(AudioDeviceError.notFound(name: "x", available: ["a", "b"]))"
        #expect(text == "no audio device named 'x' (available: a, b)")
    }

    @Test("no server at the given address is reported as .serverUnavailable, quickly")
    func serverUnavailable() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ct-no-pulse-\(getpid())")
        let catalog = PulseDeviceCatalog(server: "unix:\(dir.path)/native", timeout: .seconds(3))
        let start = ContinuousClock.now
        #expect {
            try catalog.devices()
        } throws: { error in
            guard case AudioDeviceError.serverUnavailable(let message) = error else { return false }
            print("no server: \(error)")
            return message.contains(dir.path)
        }
        #expect(ContinuousClock.now - start < .seconds(3))
    }

    @Test("error descriptions are one line and name the device")
    func descriptions() {
        let errors: [AudioDeviceError] = [
            .serverUnavailable("default server: Connection refused"),
            .open(device: "vmic", message: "No such entity"),
            .open(device: nil, message: "Access denied"),
            .io("Connection terminated"),
            .processing("bad data length (-8)"),
            .format(AudioFormat(sampleRate: 44100)),
        ]
        for error in errors {
            #expect(!"\(error)".contains("\n"))
        }
        #expect("\(AudioDeviceError.open(device: "vmic", message: "No such entity"))".contains("'vmic'"))
        #expect("\(AudioDeviceError.open(device: nil, message: "x"))".contains("(default)"))
    }
}
