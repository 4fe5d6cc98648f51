public import ClawTalkSupport

/// Builds the speech-to-text engine chain for the `stt.*` settings.
///
/// | `stt.engine` | chain |
/// |---|---|
/// | `wyoming` | Wyoming server at ``STTSettings/address(paths:)``, falling back to PocketSphinx |
/// | `pocketsphinx` | PocketSphinx only |
/// | `gateway` | the gateway relay (contract talk.md §9.1, given by the caller), then the `wyoming` chain |
///
/// With `strict`, the named engine is used alone: its unavailability is an error, not a fallback
/// (what `clawtalk transcribe --engine` wants).
public enum TranscriberSelector {
    /// Why the `gateway` engine cannot be used when the caller has no operator connection to relay through.
    public static let gatewayRelayReason = "the gateway transcription relay needs the service's operator connection"

    /// The transcriber for `settings`, with `engine` overriding `settings.engine`.
    /// `pocketSphinx` lets callers share one (slow to load) PocketSphinx engine; `gateway` is the
    /// relay client (it lives where the operator connection is), unavailable when nil; `paths`
    /// locate the node's own server socket.
    public static func transcriber(
        for settings: STTSettings, engine: STTEngine? = nil, strict: Bool = false, paths: XDGPaths = XDGPaths(),
        logger: Logger = .discarding,
        pocketSphinx: PocketSphinxTranscriber? = nil,
        wyoming: WyomingTranscriber.Configuration? = nil, gateway relay: (any Transcriber)? = nil
    ) -> any Transcriber {
        let wyomingConfiguration =
            wyoming ?? WyomingTranscriber.Configuration(address: settings.address(paths: paths))
        let sphinx: PocketSphinxTranscriber = pocketSphinx ?? PocketSphinxTranscriber()
        let server = WyomingTranscriber(configuration: wyomingConfiguration)
        let gateway = relay ?? UnavailableTranscriber(name: STTEngine.gateway.rawValue, reason: gatewayRelayReason)
        switch (engine ?? settings.engine, strict) {
        case (.pocketsphinx, _):
            return sphinx
        case (.wyoming, true):
            return server
        case (.wyoming, false):
            return FallbackTranscriber(primary: server, fallback: sphinx, logger: logger)
        case (.gateway, true):
            return gateway
        case (.gateway, false):
            let local = FallbackTranscriber(primary: server, fallback: sphinx, logger: logger)
            return FallbackTranscriber(primary: gateway, fallback: local, logger: logger)
        }
    }
}
