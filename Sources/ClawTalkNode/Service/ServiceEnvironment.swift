public import ClawTalkGateway
public import ClawTalkSupport
import Foundation

/// What every long-running command starts from: the effective settings, a logger configured by
/// them, the private state directory and the device identity. The only place that touches the
/// user's real files and environment (tests point `environment` at temporary XDG directories).
public struct ServiceEnvironment: Sendable {
    /// Settings after flags, environment, file and defaults were merged.
    public var effective: EffectiveSettings
    /// The root logger (category `clawtalk`).
    public var logger: Logger
    /// `$XDG_STATE_HOME/clawtalk`, mode 0700.
    public var state: StateDirectory
    /// The node's Ed25519 identity (created on first start, mode 0600).
    public var identity: DeviceIdentity

    /// Loads settings (`flags` are dotted keys or option names), then the logger (its lines go to
    /// `writeError`), the state directory and the identity. Throws
    /// ``NodeServiceError/invalidConfiguration(_:)`` for settings that cannot be read.
    public static func load(
        flags: [String: String], configPath: String?, environment: [String: String],
        writeError: @escaping @Sendable (String) -> Void
    ) throws -> ServiceEnvironment {
        let effective: EffectiveSettings
        do {
            effective = try ConfigLoader(environment: environment, flags: flags, configPath: configPath).load()
        } catch {
            throw NodeServiceError.invalidConfiguration("configuration: \(error)")
        }
        let logger = Logger(
            settings: effective.settings.log, category: "clawtalk", output: LogOutput(writeError))
        for warning in effective.warnings { logger.warning("config.warning", ["message": .string(warning)]) }
        let paths = XDGPaths(environment: environment)
        let state = try StateDirectory.standard(paths: paths, logger: logger.child(category: "state"))
        let identity = try IdentityStore.loadOrCreate(at: URL(fileURLWithPath: state.filePath("identity.json")))
        return ServiceEnvironment(effective: effective, logger: logger, state: state, identity: identity)
    }
}
