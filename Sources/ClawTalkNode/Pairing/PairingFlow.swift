import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import Foundation
import Synchronization

/// `clawtalk pair` after validation: connects as the node (the service's own connection code),
/// and registers the gateway — URL, pin, shared secret, current — once the gateway admitted the
/// device or answered with a pairing request. A failure before that (pin mismatch, untrusted
/// certificate, unreachable, refused) leaves the state as it was: a gateway that was not known
/// before is forgotten again, otherwise only the bootstrap token written for the attempt is
/// removed. A running `clawtalk run` is told to reload (`SIGHUP`) after registering.
package struct PairingFlow: Sendable {
    /// The validated request.
    var plan: PairingPlan
    /// Builds the node connection.
    var factory: GatewayConnectionFactory
    /// How long to wait for the approval.
    var timeout: Duration
    /// Wait for the approval (`--no-wait` turns it off).
    var waitForApproval: Bool
    /// Where the result and progress go.
    var console: PairingConsole
    /// The status file of a running service (for `SIGHUP`).
    var statusFile: StatusFile?

    /// A flow for `plan`, connecting with `factory`.
    package init(
        plan: PairingPlan, factory: GatewayConnectionFactory, timeout: Duration, waitForApproval: Bool,
        console: PairingConsole, statusFile: StatusFile?
    ) {
        self.plan = plan
        self.factory = factory
        self.timeout = timeout
        self.waitForApproval = waitForApproval
        self.console = console
        self.statusFile = statusFile
    }

    /// Pairs and prints the result; throws a ``PairingError`` with the message to print (or the
    /// store's error when the state cannot be read).
    package func run() async throws {
        let store = factory.store
        var lastFailure: PairingOutcome?
        if let expiry = plan.expiryText(nowMs: Int64(Date().timeIntervalSince1970 * 1000)) {
            console.progress(expiry + "\n")
        }
        for index in plan.endpoints.indices {
            let target = plan.target(index)
            let key = target.key
            let wasKnown = try store.list().contains { $0.key == key }
            if let bootstrap = plan.bootstrapToken {
                try store.setPendingBootstrapToken(bootstrap, expiresAtMs: plan.expiresAtMs, for: key)
            }
            let registered = Mutex<(done: Bool, error: String?)>((false, nil))
            let register: @Sendable () -> Void = {
                registered.locked { state in
                    guard !state.done else { return }
                    state.done = true
                    do {
                        try self.register(target, pinned: index == 0)
                    } catch {
                        state.error = "\(error)"
                    }
                }
            }
            let console = self.console
            let probe = PairingProbe(
                connection: factory.nodeConnection(for: target), timeout: timeout, waitForApproval: waitForApproval,
                onPending: { request in
                    register()
                    console.output(Self.pendingText(request))
                },
                onProgress: { console.progress($0 + "\n") })
            if plan.endpoints.count > 1 { console.progress("connecting to \(target.endpoint.urlString)\n") }
            let outcome = await probe.run()
            if case .paired = outcome { register() }
            let state = registered.locked { $0 }
            if let error = state.error {
                throw PairingError.failed("paired, but the state could not be saved: \(error)")
            }
            if !state.done { rollback(key: key, wasKnown: wasKnown) }
            switch outcome {
            case .unreachable where index + 1 < plan.endpoints.count:
                lastFailure = outcome
                continue
            default:
                try finish(outcome, target: target)
                return
            }
        }
        try finish(lastFailure ?? .unreachable("no endpoint"), target: plan.target(0))
    }

    /// Registers `target` as the current gateway with its pin and secret.
    private func register(_ target: GatewayTarget, pinned: Bool) throws {
        let store = factory.store
        try store.register(target.endpoint, makeCurrent: true)
        if pinned, let pin = plan.pin {
            try store.setPin(pin, source: plan.pinSource, for: target.key)
        }
        if !plan.secret.isEmpty {
            try GatewaySecretStore(store: store).save(plan.secret, for: target.key)
        }
    }

    /// Undoes what the attempt wrote.
    private func rollback(key: String, wasKnown: Bool) {
        let store = factory.store
        if wasKnown {
            if plan.bootstrapToken != nil { try? store.clearPendingBootstrapToken(for: key) }
        } else if (try? store.list().contains { $0.key == key }) == true {
            try? store.forget(key)
        }
    }

    /// Prints the result, or throws the failure.
    private func finish(_ outcome: PairingOutcome, target: GatewayTarget) throws(PairingError) {
        let url = target.endpoint.urlString
        let deviceId = factory.identity.deviceId
        let pinHelp =
            "get the certificate's SHA-256 on the gateway host (openssl x509 -in <certificate> -outform DER "
            + "| sha256sum) and pass it with --tls-fingerprint"
        switch outcome {
        case .paired:
            var text = "paired with \(url) as device \(deviceId); token stored\n"
            text += "\(target.key) is now the current gateway\n"
            text += reloadService()
            console.output(text)
        case .pending:
            console.output(
                "not waiting (--no-wait): once the request is approved, 'clawtalk run' connects to \(url)\n"
                    + reloadService())
        case .pinMismatch(let cause):
            throw PairingError.failed(
                "refusing \(url): the TLS certificate does not match the pinned fingerprint (\(cause)); "
                    + "nothing was stored. If the gateway's certificate changed, \(pinHelp)")
        case .tlsUntrusted(let cause):
            throw PairingError.failed(
                "refusing \(url): \(cause); nothing was stored. For a self-signed certificate, \(pinHelp)")
        case .unreachable(let cause):
            throw PairingError.unavailable("cannot reach the gateway at \(url): \(cause); nothing was stored")
        case .refused(let info):
            throw PairingError.failed(
                "the gateway refused this device (\(info.code)): \(info.message); next: \(info.nextStep)")
        case .timedOut(let request?):
            throw PairingError.failed(
                "request \(request.requestId ?? "?") was not approved within \(timeout.components.seconds) s; "
                    + "approve it with '\(request.approvalCommand)' and 'clawtalk run' connects, "
                    + "or run 'clawtalk pair' again")
        case .timedOut(nil):
            throw PairingError.unavailable(
                "no answer from \(url) within \(timeout.components.seconds) s; nothing was stored")
        }
    }

    /// Tells a running service to reload; the line to print about it.
    private func reloadService() -> String {
        guard let pid = statusFile?.signalReload() else { return "" }
        return "told the running clawtalk service (pid \(pid)) to reload\n"
    }

    /// The approval instructions.
    static func pendingText(_ request: PairingRequest) -> String {
        var text = "pairing request \(request.requestId ?? "(no id)") for device \(request.deviceId)"
        if let reason = request.reason { text += " (\(reason))" }
        text += " is waiting for approval.\nApprove it on the gateway host with:\n  \(request.approvalCommand)\n"
        return text
    }
}
