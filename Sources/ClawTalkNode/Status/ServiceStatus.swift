package import ClawTalkGateway
package import ClawTalkSpeech
package import Foundation

/// The snapshot `clawtalk run` writes to `status.json` on every change and `clawtalk status`
/// reads: gateway, both roles' states, device id, declared surface, last error. No secrets.
package struct ServiceStatus: Sendable, Equatable, Codable {
    /// The service's process id.
    package var pid: Int32
    /// clawtalk version of the service.
    package var version: String
    /// When the service started (ISO 8601).
    package var startedAt: String
    /// When this snapshot was written (ISO 8601).
    package var updatedAt: String
    /// This device's id.
    package var deviceId: String
    /// The gateway in use; nil when none is configured.
    package var gateway: Gateway?
    /// The node connection.
    package var node: Role
    /// The operator connection.
    package var `operator`: Role
    /// Declared caps.
    package var caps: [String]
    /// Declared (effective) commands.
    package var commands: [String]
    /// Declared permissions.
    package var permissions: [String: Bool]
    /// The last connection problem of either role, one line.
    package var lastError: String?
    /// When ``lastError`` happened (ISO 8601).
    package var lastErrorAt: String?
    /// Phase, microphone level and last transcript (absent in files of older services).
    package var voice: VoiceActivity?
    /// The Wyoming speech-to-text server in use (absent in files of older services).
    package var speechServer: SpeechServerStatus?
    /// The Wyoming wake-word keyword scorer in use (absent in files of older services).
    package var wakeScorer: SpeechServerStatus?

    /// The gateway in use.
    package struct Gateway: Sendable, Equatable, Codable {
        /// Its URL.
        package var url: String
        /// Its gateway key.
        package var key: String
        /// `config` (gateway.url) or `registry`.
        package var source: String
    }

    /// One connection's state.
    package struct Role: Sendable, Equatable, Codable {
        /// `unconfigured`, `disabled`, `waiting-for-node`, `disconnected`, `connecting`,
        /// `connected`, `waiting`, `paused` or `stopped`.
        package var state: String
        /// One line for humans.
        package var summary: String
        /// When the role entered this state (ISO 8601).
        package var since: String
        /// Connect attempt number while connecting.
        package var attempt: Int?
        /// `server.version` while connected.
        package var serverVersion: String?
        /// `hello-ok.protocol` while connected.
        package var protocolVersion: Int?
        /// `server.connId` while connected.
        package var connId: String?
        /// Delay until the next attempt while waiting, milliseconds.
        package var retryInMs: Int?
        /// Why the last socket ended, while waiting.
        package var cause: String?
        /// Why it is paused and what to do.
        package var pause: Pause?
        /// A pending device-pairing request.
        package var pairing: Pairing?

        package enum CodingKeys: String, CodingKey {
            case state, summary, since, attempt, serverVersion
            case protocolVersion = "protocol"
            case connId, retryInMs, cause, pause, pairing
        }
    }

    /// A pause.
    package struct Pause: Sendable, Equatable, Codable {
        /// The decisive code (e.g. `AUTH_DEVICE_TOKEN_MISMATCH`).
        package var code: String
        /// The message.
        package var message: String
        /// What the user should do.
        package var nextStep: String
    }

    /// A pending pairing request.
    package struct Pairing: Sendable, Equatable, Codable {
        /// The request id, when the gateway sent one.
        package var requestId: String?
        /// This device's id.
        package var deviceId: String
        /// `not-paired`, `role-upgrade`, …
        package var reason: String?
        /// The command to run on the gateway host.
        package var approvalCommand: String

        /// The request as reported by the connection.
        package init(_ request: PairingRequest) {
            requestId = request.requestId
            deviceId = request.deviceId
            reason = request.reason
            approvalCommand = request.approvalCommand
        }
    }

    /// The current time as ISO 8601.
    package static func timestamp(_ date: Date = Date()) -> String {
        date.formatted(.iso8601)
    }
}

extension ServiceStatus.Role {
    /// A role in a state that has no connection behind it.
    package static func idle(_ state: String, summary: String, at time: String) -> ServiceStatus.Role {
        ServiceStatus.Role(state: state, summary: summary, since: time)
    }

    /// The role for a connection `state` (with the pairing request the connection reported).
    package init(_ state: ConnectionState, pairing: PairingRequest?, since: String) {
        self.init(state: "disconnected", summary: state.description, since: since)
        switch state {
        case .disconnected:
            break
        case .connecting(let attempt):
            self.state = "connecting"
            self.attempt = attempt
        case .connected(let hello):
            self.state = "connected"
            serverVersion = hello.serverVersion
            protocolVersion = hello.protocolVersion
            connId = hello.connId
        case .waiting(let retryIn, let cause):
            self.state = "waiting"
            let (seconds, attoseconds) = retryIn.components
            retryInMs = Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
            self.cause = cause
        case .paused(let info):
            self.state = "paused"
            pause = ServiceStatus.Pause(code: info.code, message: info.message, nextStep: info.nextStep)
        case .stopped:
            self.state = "stopped"
        }
        if !state.isConnected, let request = state.pause?.pairing ?? pairing {
            self.pairing = ServiceStatus.Pairing(request)
        }
    }

    /// The problem to remember as the service's last error, if this state is one.
    package var problem: String? {
        switch state {
        case "waiting": cause
        case "paused": pause.map { "\($0.code): \($0.message)" }
        default: nil
        }
    }
}
