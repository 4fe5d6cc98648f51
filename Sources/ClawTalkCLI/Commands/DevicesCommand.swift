public import ClawTalkCommand
import ClawTalkDevices
import Foundation

/// `clawtalk devices`: lists the sound server's capture sources and playback sinks.
public struct DevicesCommand: Command {
    /// The command name.
    public static let name = "devices"
    /// One line for OVERVIEW.
    public static let abstract = "List audio capture and playback devices."
    /// Where the names are used.
    public static let discussion = """
        Pass a listed name to 'clawtalk run --mic-device' or '--snd-device', or set it in the \
        config file.
        """
    /// Output format.
    public static let options: [OptionSpec] = [
        .flag("json", help: "Print machine-readable JSON.")
    ]

    /// `--json`.
    public var json: Bool

    /// Reads the flag.
    public init(parsed: ParsedArguments) {
        json = parsed.flag("json")
    }

    /// Lists sources then sinks, the defaults marked with `*`.
    public func run(context: CommandContext) async throws -> Int32 {
        let devices: [AudioDevice]
        do {
            devices = try PulseDeviceCatalog().devices()
        } catch AudioDeviceError.serverUnavailable(let reason) {
            throw CLIError.unavailable(
                "no sound server: \(reason) (is PulseAudio or pipewire-pulse running for this user?)")
        }
        context.io.writeOutput(json ? Self.renderJSON(devices) : Self.renderTable(devices))
        return ExitCode.success.rawValue
    }

    /// Two sections (sources, sinks); `*` marks the default; monitors are labelled.
    static func renderTable(_ devices: [AudioDevice]) -> String {
        var out = ""
        for kind in AudioDevice.Kind.allCases {
            let list = devices.filter { $0.kind == kind }
            out += kind == .source ? "SOURCES (capture, --mic-device):\n" : "SINKS (playback, --snd-device):\n"
            if list.isEmpty { out += "  (none)\n" }
            for device in list {
                let mark = device.isDefault ? "*" : " "
                let monitor = device.isMonitor ? "  [monitor of a sink]" : ""
                out += "  \(mark) \(device.name)\n      \(device.description) — \(device.format)\(monitor)\n"
            }
        }
        return out + "* = default device\n"
    }

    /// One JSON array of `{kind, name, description, isDefault, isMonitor, sampleRate, channels}`.
    static func renderJSON(_ devices: [AudioDevice]) -> String {
        let objects: [[String: Any]] = devices.map {
            [
                "kind": $0.kind.rawValue, "name": $0.name, "description": $0.description, "isDefault": $0.isDefault,
                "isMonitor": $0.isMonitor, "sampleRate": $0.sampleRate, "channels": $0.channels,
            ]
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return (String(data: data, encoding: .utf8) ?? "[]") + "\n"
    }
}
