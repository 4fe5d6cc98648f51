public import ClawTalkProtocol

extension GatewayStore {
    /// The TLS pin stored for `key`.
    public func pin(for key: String) throws -> StoredPin? {
        try record(key).tlsPin
    }

    /// Stores or replaces the pin from an explicit source (setup code, CLI, config, user
    /// confirmation) (protocol.md §17.1.4).
    public func setPin(_ fingerprint: TLSFingerprint, source: ExplicitPinSource, for key: String) throws {
        try update(key) { record in
            record.tlsPin = StoredPin(fingerprint: fingerprint, source: source.pinSource, savedAtMs: nowMs)
        }
    }

    /// Trust on first use (protocol.md §17.1.3): stores `fingerprint`, observed on a connection that passed
    /// system trust without a pin, only when no pin is stored. Returns whether it was stored.
    @discardableResult
    public func recordTrustOnFirstUse(_ fingerprint: TLSFingerprint, for key: String) throws -> Bool {
        try update(key) { record in
            guard record.tlsPin == nil else { return false }
            record.tlsPin = StoredPin(fingerprint: fingerprint, source: .trustOnFirstUse, savedAtMs: nowMs)
            return true
        }
    }

    /// Compares a DNS-SD TXT `gatewayTlsSha256` with the stored pin without changing anything:
    /// a TXT value never replaces a stored pin (protocol.md §17.1.4).
    public func checkDiscoveredFingerprint(_ fingerprint: TLSFingerprint, for key: String) throws -> DiscoveredPinCheck
    {
        guard let stored = try record(key).tlsPin else { return .noStoredPin }
        return stored.fingerprint == fingerprint ? .matchesStoredPin : .conflictsWithStoredPin
    }

    /// Deletes the pin of `key` (the user re-pairs with a different certificate).
    public func removePin(for key: String) throws {
        try update(key) { $0.tlsPin = nil }
    }
}
