public import ClawTalkProtocol
internal import ClawTalkSupport

/// The invoke rules of protocol.md §10.2–§10.4 as a pure value: which requests run,
/// which are answered at once (unsupported, bad params, busy, repeated idempotency key),
/// which wait for an identical run, how cancels apply, and the one place where handler errors
/// become wire ``NodeError``s. ``NodeSession`` performs what it decides. Time is passed in.
public struct InvokeRouter: Sendable {
    /// The limits (spec values by default).
    public struct Limits: Sendable, Hashable {
        /// Concurrent handlers; beyond → `UNAVAILABLE: node busy, retry` (8).
        public var maxConcurrent: Int
        /// Idempotency keys kept (256).
        public var idempotencyCapacity: Int
        /// How long an idempotent outcome is kept (10 min).
        public var idempotencyLifetime: Duration
        /// How long a cancel for an unknown invoke is kept (30 s).
        public var earlyCancelLifetime: Duration

        /// Limits with the spec values.
        public init(
            maxConcurrent: Int = 8, idempotencyCapacity: Int = 256, idempotencyLifetime: Duration = .seconds(600),
            earlyCancelLifetime: Duration = .seconds(30)
        ) {
            self.maxConcurrent = maxConcurrent
            self.idempotencyCapacity = idempotencyCapacity
            self.idempotencyLifetime = idempotencyLifetime
            self.earlyCancelLifetime = earlyCancelLifetime
        }
    }

    /// What to do with an arriving request.
    public enum Admission: Sendable, Hashable {
        /// Answer now with this result (never runs a handler).
        case reply(NodeInvokeResult)
        /// Run the handler.
        case run(Ticket)
        /// The same idempotency key is running: this request is answered when it finishes.
        case attached
    }

    /// A request admitted to run.
    public struct Ticket: Sendable, Hashable {
        /// The request.
        public var request: NodeInvokeRequest
        /// Parsed params.
        public var params: [String: WireJSON]
        /// The socket epoch it arrived on.
        public var epoch: Int
        /// Local deadline: `timeoutMs`, or 30 s when 0/absent.
        public var timeout: Duration
        /// A `node.invoke.cancel` arrived first: cancel the handler at once.
        public var cancelledEarly: Bool
    }

    /// A result to send, with the epoch of the socket its request came on.
    public struct Delivery: Sendable, Hashable {
        /// The closed result params.
        public var result: NodeInvokeResult
        /// Send only if the live socket still has this epoch.
        public var epoch: Int
    }

    private struct Running: Sendable, Hashable {
        var idempotencyKey: String?
        var epoch: Int
    }

    private struct Attached: Sendable, Hashable {
        var id: String
        var epoch: Int
    }

    /// This node's id (= deviceId), put into every result.
    public let nodeId: String
    /// The limits.
    public let limits: Limits
    private var running: [String: Running] = [:]
    private var attached: [String: [Attached]] = [:]
    private var cache: IdempotencyCache
    private var earlyCancels: [String: Duration] = [:]

    /// A router for node `nodeId`.
    public init(nodeId: String, limits: Limits = Limits()) {
        self.nodeId = nodeId
        self.limits = limits
        self.cache = IdempotencyCache(capacity: limits.idempotencyCapacity, lifetime: limits.idempotencyLifetime)
    }

    /// Handlers running now.
    public var runningCount: Int { running.count }

    /// Decides on an arriving request. `supported`: declared in `connect.commands` and has a handler.
    public mutating func admit(_ request: NodeInvokeRequest, epoch: Int, supported: Bool, now: Duration) -> Admission {
        earlyCancels = earlyCancels.filter { now - $0.value < limits.earlyCancelLifetime }
        guard supported else { return .reply(reply(request, .failure(.unsupportedCommand(request.command)))) }
        let params: [String: WireJSON]
        do {
            params = try request.params()
        } catch {
            return .reply(reply(request, .failure(error)))
        }
        if let key = request.idempotencyKey, !key.isEmpty {
            if let outcome = cache.outcome(for: key, now: now) { return .reply(reply(request, outcome)) }
            if running.values.contains(where: { $0.idempotencyKey == key }) {
                attached[key, default: []].append(Attached(id: request.id, epoch: epoch))
                return .attached
            }
        }
        guard running.count < limits.maxConcurrent, running[request.id] == nil else {
            return .reply(reply(request, .failure(.busy)))
        }
        let key = request.idempotencyKey.flatMap { $0.isEmpty ? nil : $0 }
        running[request.id] = Running(idempotencyKey: key, epoch: epoch)
        let cancelled = earlyCancels.removeValue(forKey: request.id) != nil
        return .run(
            Ticket(
                request: request, params: params, epoch: epoch, timeout: .milliseconds(request.effectiveTimeoutMs),
                cancelledEarly: cancelled))
    }

    /// Records the end of a running invoke; returns the results to send (the request itself and
    /// any attached repeats, each under its own id). Empty when it already ended (first wins).
    public mutating func complete(_ invokeId: String, with outcome: InvokeOutcome, now: Duration) -> [Delivery] {
        guard let entry = running.removeValue(forKey: invokeId) else { return [] }
        var deliveries = [Delivery(result: outcome.result(id: invokeId, nodeId: nodeId), epoch: entry.epoch)]
        if let key = entry.idempotencyKey {
            if outcome.isCacheable { cache.store(outcome, for: key, now: now) }
            for repeat_ in attached.removeValue(forKey: key) ?? [] {
                deliveries.append(
                    Delivery(result: outcome.result(id: repeat_.id, nodeId: nodeId), epoch: repeat_.epoch))
            }
        }
        return deliveries
    }

    /// A `node.invoke.cancel` (protocol.md §10.4): true when `invokeId` is running (cancel its handler);
    /// otherwise it is kept for 30 s and applied if the request arrives.
    public mutating func cancel(_ invokeId: String, now: Duration) -> Bool {
        if running[invokeId] != nil { return true }
        earlyCancels[invokeId] = now
        return false
    }

    /// The one mapping from handler errors to the wire: a ``NodeError`` as is; cancellation →
    /// `UNAVAILABLE` "CANCELLED: …"; a timeout → "UNAVAILABLE: node invoke timed out";
    /// anything else → `UNAVAILABLE` with the error's one-line description.
    public static func wireError(for error: any Error) -> NodeError {
        switch error {
        case let error as NodeError:
            return error
        case is CancellationError:
            return NodeError(.unavailable, message: "CANCELLED: node invoke cancelled")
        case is TimeoutError:
            return .timedOut
        default:
            let text = String(describing: error)
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "command failed"
            return NodeError(
                .unavailable, message: "UNAVAILABLE: \(line.count > 200 ? String(line.prefix(200)) : line)")
        }
    }

    private func reply(_ request: NodeInvokeRequest, _ outcome: InvokeOutcome) -> NodeInvokeResult {
        outcome.result(id: request.id, nodeId: nodeId)
    }
}
