public import ClawTalkCommand
import ClawTalkDevices
import ClawTalkGateway
import ClawTalkNode
import ClawTalkSpeech
import ClawTalkSupport
import Foundation

/// `clawtalk doctor`: checks the setup and prints the effective settings with their sources.
public struct DoctorCommand: Command {
    /// The command name.
    public static let name = "doctor"
    /// One line for OVERVIEW.
    public static let abstract = "Check the setup and print the effective settings and where each came from."
    /// What is checked.
    public static let discussion = """
        Checks the configuration, the sound server and its default devices, the microphone's \
        signal level (one second of capture), the speech models against Models/MANIFEST, the \
        per-user speech pieces of 'clawtalk setup', the wake-word runtime, the state directory, \
        the speech-to-text server, the gateway's reachability and TLS certificate, and pairing \
        with the declared commands; every failed check prints a concrete fix. Then it prints \
        every setting with its source. Tokens and passwords are redacted. --offline skips the \
        checks that capture audio or connect to a server. Exits 1 when a check fails.
        """
    /// Config file and output format.
    public static let options: [OptionSpec] = [
        .option(
            "config", valueName: "path", help: "Configuration file to read.",
            default: "~/.config/clawtalk/config.json5"),
        .flag("json", help: "Print machine-readable JSON."),
        .flag("offline", help: "Skip the microphone, speech-to-text and gateway checks."),
    ]

    /// `--config`.
    public var configPath: String?
    /// `--json`.
    public var json: Bool
    /// `--offline`.
    public var offline: Bool

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        configPath = parsed.string("config")
        json = parsed.flag("json")
        offline = parsed.flag("offline")
    }

    /// Runs every check, prints checks then settings; exit 1 if any check failed.
    public func run(context: CommandContext) async throws -> Int32 {
        var checks: [DoctorCheck] = []
        var effective: EffectiveSettings?
        do {
            let loaded = try ConfigLoader(environment: context.environment, configPath: configPath).load()
            effective = loaded
            let file = loaded.configFileLoaded ? loaded.configFile : "\(loaded.configFile) (absent, defaults used)"
            checks.append(DoctorCheck(name: "configuration", status: .ok, detail: file))
            for warning in loaded.warnings {
                checks.append(DoctorCheck(name: "configuration", status: .warn, detail: warning))
            }
        } catch {
            checks.append(
                DoctorCheck(
                    name: "configuration", status: .fail, detail: "\(error)",
                    fix: "correct the setting named above (see config/clawtalk.json5 for every key)"))
        }
        let settings = effective?.settings ?? .defaults
        let sound = Self.checkSoundServer()
        checks.append(sound)
        if !offline, sound.status != .fail {
            checks.append(Self.checkMicrophone(device: settings.mic.device))
        }
        let paths = XDGPaths(environment: context.environment)
        checks.append(Self.checkModels())
        checks.append(Self.checkSpeechPieces(paths: paths))
        checks.append(Self.checkTFLite(environment: context.environment))
        checks.append(Self.checkState(paths: paths))
        if !offline {
            let service = StatusFile(environment: context.environment).runningService()
            checks.append(
                await Self.checkSTT(
                    settings.stt, service: service, paths: paths,
                    server: SpeechServerSupervisor.installedServer(paths: paths, model: settings.stt.model)))
            checks.append(
                await Self.checkWakeScorer(
                    settings.wake, service: service, paths: paths,
                    server: SpeechServerSupervisor.installedWakeScorer(paths: paths)))
            let store = (try? StateDirectory(path: paths.stateDirectory)).map { GatewayStore(directory: $0) }
            checks.append(await Self.checkGateway(settings: settings, store: store))
            checks.append(Self.checkPairing(service: service, settings: settings, store: store))
        }

        context.io.writeOutput(json ? Self.renderJSON(checks, effective) : Self.renderText(checks, effective))
        return checks.contains { $0.status == .fail } ? ExitCode.failure.rawValue : ExitCode.success.rawValue
    }

    static func checkSoundServer() -> DoctorCheck {
        do {
            let devices = try PulseDeviceCatalog().devices()
            let source = devices.first { $0.kind == .source && $0.isDefault }
            let sink = devices.first { $0.kind == .sink && $0.isDefault }
            let detail =
                "default source \(source?.name ?? "none"), default sink \(sink?.name ?? "none"); "
                + "\(devices.count) devices"
            if source == nil || sink == nil {
                return DoctorCheck(
                    name: "sound server", status: .warn, detail: detail,
                    fix: "choose devices with --mic-device/--snd-device (see 'clawtalk devices')")
            }
            return DoctorCheck(name: "sound server", status: .ok, detail: detail)
        } catch {
            return DoctorCheck(
                name: "sound server", status: .fail, detail: "\(error)",
                fix: "start PulseAudio or PipeWire (pipewire-pulse) for this user session")
        }
    }

    static func checkModels() -> DoctorCheck {
        do {
            let directory = try ModelDirectory.locate()
            let results = try ModelManifest(directory: directory).verify()
            let bad = results.filter { if case .ok = $0 { false } else { true } }
            guard bad.isEmpty else {
                return DoctorCheck(
                    name: "models", status: .fail,
                    detail: "\(bad.count) of \(results.count) files differ from MANIFEST: \(bad.map { "\($0)" })",
                    fix: SpeechSetup.command() == "clawtalk setup"
                        ? "reinstall the package: sudo apt-get install --reinstall clawtalk"
                        : "restore Models/ from the repository (git checkout -- Models)")
            }
            return DoctorCheck(
                name: "models", status: .ok, detail: "\(results.count) files match MANIFEST in \(directory.path)")
        } catch {
            return DoctorCheck(
                name: "models", status: .fail, detail: "\(error)",
                fix: "reinstall the package (sudo apt-get install --reinstall clawtalk), run clawtalk from its source "
                    + "tree, or set CLAWTALK_MODELS_DIR to the Models directory")
        }
    }

    static func checkTFLite(environment: [String: String]) -> DoctorCheck {
        do {
            let runtime = try TFLiteRuntime(searching: TFLiteRuntime.defaultSearchPaths(environment: environment))
            return DoctorCheck(
                name: "wake-word runtime", status: .ok,
                detail: "TFLite \(runtime.version) (\(runtime.libraryPath))")
        } catch {
            return DoctorCheck(
                name: "wake-word runtime", status: .fail, detail: "\(error)",
                fix: "run \(SpeechSetup.command()), or set CLAWTALK_TFLITE_LIB to libtensorflowlite_c.so")
        }
    }

    static func checkState(paths: XDGPaths) -> DoctorCheck {
        let identityPath = paths.stateDirectory + "/identity.json"
        guard FileManager.default.fileExists(atPath: identityPath) else {
            return DoctorCheck(
                name: "identity", status: .warn, detail: "none yet in \(paths.stateDirectory)",
                fix: "'clawtalk run' creates it on first start")
        }
        do {
            let identity = try IdentityStore(fileURL: URL(fileURLWithPath: identityPath)).load()
            return DoctorCheck(name: "identity", status: .ok, detail: "device \(identity.deviceId)")
        } catch {
            return DoctorCheck(
                name: "identity", status: .fail, detail: "\(error)",
                fix: "fix the file's permissions (chmod 600), or move it away to create a new device identity")
        }
    }

    static func renderText(_ checks: [DoctorCheck], _ effective: EffectiveSettings?) -> String {
        var out = "CHECKS:\n"
        for check in checks {
            out += "  \(check.status.rawValue.uppercased().padding(toLength: 5, withPad: " ", startingAt: 0))"
            out += "\(check.name): \(check.detail)\n"
            if let fix = check.fix, check.status != .ok { out += "        fix: \(fix)\n" }
        }
        if let effective {
            out += "\nSETTINGS (value and where it came from):\n"
            out += SettingsReport.lines(effective).map { "  " + $0 }.joined(separator: "\n") + "\n"
        }
        return out
    }

    static func renderJSON(_ checks: [DoctorCheck], _ effective: EffectiveSettings?) -> String {
        var object: [String: Any] = [
            "checks": checks.map { check -> [String: Any] in
                var entry: [String: Any] = [
                    "name": check.name, "status": check.status.rawValue, "detail": check.detail,
                ]
                if let fix = check.fix { entry["fix"] = fix }
                return entry
            }
        ]
        if let effective {
            object["settings"] = SettingsReport.rows(effective).map {
                ["key": $0.key, "value": $0.value, "source": $0.source]
            }
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
