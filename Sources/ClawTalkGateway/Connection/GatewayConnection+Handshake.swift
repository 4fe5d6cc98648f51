import ClawTalkProtocol
import ClawTalkSupport
import Foundation

extension GatewayConnection {
    /// Handles one inbound message; returns an end when the socket must close.
    func receive(_ data: Data, socket: any GatewaySocket, epoch: Int) -> SocketEnd? {
        let frame: GatewayFrame
        do {
            frame = try GatewayFrame.decode(data)
        } catch {
            logger.throttled(key: "frame.malformed", every: .seconds(10))
                .error("gateway.frame.malformed", ["error": .string(error.description), "bytes": .int(data.count)])
            return nil
        }
        switch handshake {
        case .idle:
            return nil
        case .awaitingChallenge(let since):
            guard case .event(let event) = frame, event.name == .connectChallenge else {
                logger.debug("gateway.handshake.ignored", ["frame": .string(Self.kind(frame))])
                return nil
            }
            let challenge: ConnectChallenge
            do {
                challenge = try ConnectChallenge(json: event.payload)
            } catch {
                return .protocolViolation("malformed connect.challenge: \(error)")
            }
            return sendConnect(challenge, socket: socket, since: since)
        case .awaitingHello(let requestId, _):
            guard case .response(let response) = frame, response.id == requestId else {
                // A second challenge or anything else before hello-ok is ignored (protocol.md §7.1.3).
                return nil
            }
            guard response.ok else {
                let error = response.error ?? ErrorShape(code: "", message: "connect failed without an error")
                return .rejected(ConnectRejection(error))
            }
            let hello: HelloOk
            do {
                hello = try HelloOk(json: response.payload)
            } catch {
                return .protocolViolation("malformed hello-ok: \(error)")
            }
            becomeLive(hello, socket: socket, epoch: epoch)
            return nil
        case .live:
            receiveLive(frame, epoch: epoch)
            return nil
        }
    }

    /// Signs and sends `connect` for `challenge` (protocol.md §6, §7).
    private func sendConnect(_ challenge: ConnectChallenge, socket: any GatewaySocket, since: Duration) -> SocketEnd? {
        let role = configuration.role.gatewayRole
        let client = configuration.client
        let key = gatewayKey
        let credentials = AvailableCredentials(
            bootstrapToken: role == .node ? storeRead { try store.pendingBootstrapToken(for: key) } : nil,
            deviceToken: storeRead { try store.deviceToken(for: key, deviceId: identity.deviceId, role: role)?.token },
            sharedToken: configuration.sharedToken, password: configuration.password)
        let selected = CredentialSelector.select(from: credentials, preferDeviceToken: machine.prefersDeviceToken)
        var params: ConnectParams
        var clientPair: OperatorClientPair?
        switch configuration.role {
        case .node(let surface):
            params = .node(
                version: client.version, displayName: client.displayName, modelIdentifier: client.modelIdentifier,
                instanceId: client.instanceId, caps: surface.caps, commands: surface.commands,
                permissions: surface.permissions, auth: selected.auth, locale: client.locale)
        case .operator:
            clientPair = machine.clientPair
            params = .operator(
                version: client.version, displayName: client.displayName, modelIdentifier: client.modelIdentifier,
                instanceId: client.instanceId, clientPair: machine.clientPair, auth: selected.auth,
                locale: client.locale)
        }
        let signedAt = challenge.signedAtMs(now: Date())
        let version = machine.signatureVersion
        let payload = DeviceAuthPayload(
            version: version, deviceId: identity.deviceId, clientId: params.client.id.rawValue,
            clientMode: params.client.mode.rawValue, role: params.role.rawValue, scopes: params.scopes,
            signedAtMs: signedAt, token: selected.auth?.token, deviceToken: selected.auth?.deviceToken,
            bootstrapToken: selected.auth?.bootstrapToken, nonce: challenge.nonce, platform: params.client.platform,
            deviceFamily: params.client.deviceFamily)
        let requestId = WireID.make()
        let text: String
        do {
            let signature = try identity.sign(payload: payload.string)
            params.device = DeviceProof(
                id: identity.deviceId, publicKey: identity.publicKeyBase64URL, signature: signature, signedAt: signedAt,
                nonce: challenge.nonce)
            text = try params.encodedRequest(id: requestId)
        } catch {
            return .localFailure(
                PauseInfo(
                    code: "CONNECT_UNSENDABLE", message: "cannot build connect: \(error)",
                    nextStep: "shorten the display name or other metadata, then reconnect"))
        }
        let endpoint = configuration.endpoint
        let attempt = ConnectAttempt(
            credential: selected.kind, available: credentials.kinds, signatureVersion: version, clientPair: clientPair,
            endpointTrusted: endpoint.isTrusted(pinned: pinUsed != nil))
        perform(machine.handle(.attemptStarted(attempt)))
        do {
            try socket.send(text: text)
        } catch {
            return .failed("send connect failed: \(error)")
        }
        logger.debug(
            "gateway.connect.sent",
            ["credential": .string(selected.kind.rawValue), "signature": .string(version.rawValue)])
        handshake = .awaitingHello(requestId: requestId, since: since)
        return nil
    }

    /// `hello-ok`: the socket is live.
    private func becomeLive(_ hello: HelloOk, socket: any GatewaySocket, epoch: Int) {
        link = LiveLink(socket: socket, epoch: epoch, hello: hello)
        handshake = .live
        pairingRequest = nil
        lastMaxPayload = hello.policy.maxPayload
        if configuration.endpoint.isSecure, pinUsed == nil, let observed = socket.observedCertificateSHA256,
            let fingerprint = TLSFingerprint(observed)
        {
            // No pin was used, so the dial passed system trust: trust on first use (protocol.md §17.1.3).
            if storeRead({ try store.recordTrustOnFirstUse(fingerprint, for: gatewayKey) }) == true {
                logger.notice("gateway.tls.pinned", ["fingerprint": .string(fingerprint.hex)])
            }
        }
        perform(machine.handle(.helloOk(hello)))
        logger.info(
            "gateway.connected",
            [
                "epoch": .int(epoch), "protocol": .int(hello.protocolVersion), "server": .string(hello.server.version),
                "connId": .string(hello.server.connId), "tickIntervalMs": .int(hello.policy.tickIntervalMs),
            ])
        broadcast(.connected(epoch: epoch, hello: hello))
    }

    /// Frames on a live socket: responses to pending requests, events to subscribers.
    private func receiveLive(_ frame: GatewayFrame, epoch: Int) {
        switch frame {
        case .response(let response):
            guard let promise = pending.removeValue(forKey: response.id) else {
                logger.debug("gateway.response.unmatched", ["id": .string(response.id)])
                return
            }
            if response.ok {
                promise.resolve(.success(response.payload ?? .null))
            } else {
                let error = response.error ?? ErrorShape(code: "", message: "request failed without an error")
                promise.resolve(.failure(GatewayError.response(method: promise.method, error: error)))
            }
        case .event(let event):
            switch event.name {
            case .connectChallenge, .tick:
                return
            case .shutdown:
                let notice = event.payload.flatMap { try? ShutdownEvent(json: $0) }
                logger.notice("gateway.shutdown", ["restartExpectedMs": .int(notice?.restartExpectedMs ?? -1)])
                perform(machine.handle(.shutdownAnnounced(restartExpectedMs: notice?.restartExpectedMs)))
            case .nodePairResolved where isOwnApproval(event.payload):
                // protocol.md §8.4: reconnect once so the approved command surface takes effect (whether the
                // live connection is updated differs by gateway version).
                logger.info("gateway.capabilities.approved")
                broadcast(.event(epoch: epoch, event))
                link?.socket.close(code: 1000, reason: "reconnect after capability approval")
                return
            default:
                break
            }
            broadcast(.event(epoch: epoch, event))
        case .request, .unknown:
            logger.debug("gateway.frame.ignored", ["frame": .string(Self.kind(frame))])
        }
    }

    /// `node.pair.resolved {decision:"approved"}` naming this device.
    private func isOwnApproval(_ payload: WireJSON?) -> Bool {
        guard let payload, payload["decision"]?.stringValue == "approved" else { return false }
        return payload["nodeId"]?.stringValue == identity.deviceId
            || payload["deviceId"]?.stringValue == identity.deviceId
    }

    /// A store read, logging a failure and returning nil.
    private func storeRead<T>(_ body: () throws -> T?) -> T? {
        do {
            return try body()
        } catch {
            logger.error("gateway.store.failed", ["operation": "read", "error": .string("\(error)")])
            return nil
        }
    }

    private static func kind(_ frame: GatewayFrame) -> String {
        switch frame {
        case .request(let request): "req \(request.method)"
        case .response: "res"
        case .event(let event): "event \(event.event)"
        case .unknown(let type): type
        }
    }
}
