import ClawTalkGateway
import ClawTalkSupport
import Foundation

/// What every long-running command starts from: the effective settings, a logger configured by
/// them, the private state directory and the device identity. The only place that touches the
/// user's real files and environment (tests point `environment` at temporary XDG directories).
struct ServiceEnvironment: Sendable {
    /// Settings after flags, environment, file and defaults were merged.
    var effective: EffectiveSettings
    /// The root logger (category `clawtalk`).
    var logger: Logger
    /// `$XDG_STATE_HOME/clawtalk`, mode 0700.
    var state: StateDirectory
    /// The node's Ed25519 identity (created on first start, mode 0600).
    var identity: DeviceIdentity

    /// Loads settings (`flags` are dotted keys or option names), then the logger, state and identity.
    static func load(
        flags: [String: String], configPath: String?, environment: [String: String], io: CommandIO
    ) throws -> ServiceEnvironment {
        let effective: EffectiveSettings
        do {
            effective = try ConfigLoader(environment: environment, flags: flags, configPath: configPath).load()
        } catch {
            throw CLIError.validationFailed("configuration: \(error)")
        }
        let logger = Logger(
            settings: effective.settings.log, category: "clawtalk", output: LogOutput { io.writeError($0) })
        for warning in effective.warnings { logger.warning("config.warning", ["message": .string(warning)]) }
        let paths = XDGPaths(environment: environment)
        let state = try StateDirectory.standard(paths: paths, logger: logger.child(category: "state"))
        let identity = try IdentityStore.loadOrCreate(at: URL(fileURLWithPath: state.filePath("identity.json")))
        return ServiceEnvironment(effective: effective, logger: logger, state: state, identity: identity)
    }
}
