import ClawTalkGateway
import ClawTalkNode
import ClawTalkSpeech
import ClawTalkSupport
import Foundation

/// What `clawtalk status` prints: the running service's snapshot, or — with no service — the
/// device id and the paired gateways from the state directory.
struct StatusReport: Sendable, Equatable, Encodable {
    /// A paired gateway (no secrets).
    struct KnownGateway: Sendable, Equatable, Encodable {
        /// Gateway key.
        var key: String
        /// URL.
        var url: String?
        /// The registry's current gateway.
        var current: Bool
        /// Roles with a stored device token.
        var tokenRoles: [String]
    }

    /// True when a `clawtalk run` service is alive.
    var running: Bool
    /// The service's snapshot (when running).
    var service: ServiceStatus?
    /// This device's id, when an identity exists.
    var deviceId: String?
    /// `gateway.url` from the configuration, when set (it overrides the registry).
    var configuredURL: String?
    /// Paired gateways.
    var gateways: [KnownGateway]

    /// The report for `service` (nil: not running) and the state found on disk.
    static func gather(
        service: ServiceStatus?, deviceId: String?, configuredURL: String?, store: GatewayStore?
    ) -> StatusReport {
        let known = (try? store?.list()) ?? []
        return StatusReport(
            running: service != nil, service: service, deviceId: service?.deviceId ?? deviceId,
            configuredURL: configuredURL,
            gateways: known.map {
                KnownGateway(key: $0.key, url: $0.url, current: $0.isCurrent, tokenRoles: $0.tokenRoles)
            })
    }

    /// Pretty JSON (or one line with `compact`).
    func json(compact: Bool = false) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            compact
            ? [.sortedKeys, .withoutEscapingSlashes]
            : [
                .prettyPrinted, .sortedKeys, .withoutEscapingSlashes,
            ]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Text for people.
    var text: String {
        guard let status = service else { return offlineText }
        var lines: [(String, String)] = [
            ("service", "running (pid \(status.pid), clawtalk \(status.version), started \(status.startedAt))")
        ]
        if let gateway = status.gateway {
            let source = gateway.source == "config" ? "gateway.url" : "the paired gateways"
            lines.append(("gateway", "\(gateway.url) (key \(gateway.key), from \(source))"))
        } else {
            lines.append(("gateway", "none: pair with 'clawtalk pair <setup code>' or set gateway.url"))
        }
        lines.append(("device", status.deviceId))
        lines.append(("node", Self.describe(status.node)))
        lines.append(("operator", Self.describe(status.operator)))
        for (role, state) in [("node", status.node), ("operator", status.operator)] {
            guard let pairing = state.pairing else { continue }
            lines.append(
                (
                    "pairing",
                    "\(role) request \(pairing.requestId ?? "(no id)") pending; approve on the gateway host with: "
                        + pairing.approvalCommand
                ))
        }
        lines.append(("caps", status.caps.isEmpty ? "none" : status.caps.joined(separator: ", ")))
        lines.append(
            (
                "commands",
                status.commands.isEmpty
                    ? "none declared (the talk.ptt.* commands arrive with push-to-talk)"
                    : status.commands.joined(separator: ", ") + " (pending approval shows in 'openclaw nodes pending')"
            ))
        let permissions = status.permissions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value ? "yes" : "no")" }
        lines.append(("permissions", permissions.joined(separator: " ")))
        if let voice = status.voice {
            lines.append(("phase", "\(voice.phase.rawValue) (since \(voice.phaseSince))"))
            lines.append(("level", VoiceActivity.meter(voice.levelDBFS)))
            if let transcript = voice.lastTranscript {
                lines.append(("heard", "\"\(transcript)\"" + (voice.lastTranscriptAt.map { " (\($0))" } ?? "")))
            }
            if let reply = voice.lastReply {
                lines.append(("replied", "\"\(reply)\"" + (voice.lastReplyAt.map { " (\($0))" } ?? "")))
            }
            if voice.realtimeRelay == true {
                lines.append(
                    ("realtime", "Talk over the gateway relay: microphone audio goes to the gateway's provider"))
            }
        }
        if let server = status.speechServer {
            lines.append(("stt server", server.summary))
        }
        if let scorer = status.wakeScorer {
            lines.append(("wake scorer", scorer.summary))
        }
        if let error = status.lastError {
            lines.append(("last error", error + (status.lastErrorAt.map { " (\($0))" } ?? "")))
        }
        lines.append(("updated", status.updatedAt))
        return Self.table(lines)
    }

    private var offlineText: String {
        var text = "clawtalk is not running; start it with 'clawtalk run' (or 'systemctl --user start clawtalk').\n"
        var lines: [(String, String)] = [
            ("device", deviceId ?? "none yet ('clawtalk run' or 'clawtalk pair' creates it)")
        ]
        if let configuredURL { lines.append(("gateway.url", "\(configuredURL) (overrides the paired gateways)")) }
        if gateways.isEmpty {
            lines.append(("gateways", "none paired: run 'clawtalk pair <setup code>'"))
        }
        for gateway in gateways {
            let roles =
                gateway.tokenRoles.isEmpty ? "no token" : "tokens: " + gateway.tokenRoles.joined(separator: ", ")
            lines.append(
                (
                    gateway.current ? "current" : "paired",
                    "\(gateway.url ?? gateway.key) (\(roles))"
                ))
        }
        text += Self.table(lines)
        return text
    }

    /// `state: summary`, with `since` for lasting states.
    static func describe(_ role: ServiceStatus.Role) -> String {
        switch role.state {
        case "connected", "paused", "unconfigured", "disabled", "waiting-for-node":
            return "\(role.summary) (since \(role.since))"
        default:
            return role.summary
        }
    }

    /// Left-aligned `label: value` lines.
    static func table(_ lines: [(String, String)]) -> String {
        let width = (lines.map(\.0.count).max() ?? 0) + 2
        return lines.map { label, value in (label + ":").padding(toLength: width, withPad: " ", startingAt: 0) + value }
            .joined(separator: "\n") + "\n"
    }
}
