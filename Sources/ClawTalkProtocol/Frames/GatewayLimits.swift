/// Size and timing constants of the wire contract (protocol.md §4). After `hello-ok`
/// the limits come from ``HelloOk/policy``, never from here.
public enum GatewayLimits {
    /// Largest frame the Gateway reads before `hello-ok` (`MAX_PREAUTH_PAYLOAD_BYTES`);
    /// the serialized `connect` must be strictly smaller.
    public static let preauthMaxPayloadBytes = 65_536
    /// Receive limit to use before `hello-ok` (25 MiB, the current `policy.maxPayload`).
    public static let receiveLimitBeforeHello = 26_214_400
    /// Tick interval assumed before `hello-ok` (watchdog = 2×).
    public static let tickIntervalMsBeforeHello = 15_000
    /// `node.invoke.request` deadline when `timeoutMs` is 0 or absent.
    public static let defaultInvokeTimeoutMs = 30_000
    /// Longest `voice.transcript` text, in UTF-16 code units.
    public static let maxTranscriptUTF16 = 20_000
}
