public import ClawTalkProtocol

extension GatewayStore {
    /// The signature version remembered for `key` (protocol.md §6.2).
    public func rememberedSignature(for key: String) throws -> RememberedSignature? {
        try record(key).signature
    }

    /// Stores (or with nil deletes) the remembered signature version of `key`.
    public func setRememberedSignature(_ signature: RememberedSignature?, for key: String) throws {
        try update(key) { $0.signature = signature }
    }

    /// The operator client pair remembered for `key` (protocol.md §14).
    public func operatorClientPair(for key: String) throws -> OperatorClientPair? {
        try record(key).operatorClientPair
    }

    /// Stores the operator client pair that worked for `key`.
    public func setOperatorClientPair(_ pair: OperatorClientPair?, for key: String) throws {
        try update(key) { $0.operatorClientPair = pair }
    }

    /// The last `voicewake` trigger list received from `key` (talk.md §6.1).
    public func voiceWakeTriggers(for key: String) throws -> [String]? {
        try record(key).voiceWakeTriggers
    }

    /// Stores the last trigger list of `key`.
    public func setVoiceWakeTriggers(_ triggers: [String], for key: String) throws {
        try update(key) { $0.voiceWakeTriggers = triggers }
    }
}
