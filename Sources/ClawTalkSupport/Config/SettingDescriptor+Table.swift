extension SettingDescriptor {
    /// Every setting, in documentation order. Defaults come from the ``Settings`` structs; this
    /// table adds the key, type, range and doc that loading, the default file and `doctor` use.
    public static let all: [SettingDescriptor] = [
        // MARK: gateway
        .optionalText(
            "gateway.url", \.gateway.url, example: "\"wss://gateway.example.net:18789\"",
            "Gateway WebSocket URL; unset uses the gateway stored by pairing.",
            valuesHint: "ws:// or wss:// URL", refine: SettingRefinements.websocketURL),
        .optionalText(
            "gateway.token", \.gateway.token, secret: true, example: "\"<shared gateway token>\"",
            "Shared gateway token (a secret; prefer the environment variable)."),
        .optionalText(
            "gateway.password", \.gateway.password, secret: true, example: "\"<shared gateway password>\"",
            "Shared gateway password (a secret; prefer the environment variable)."),
        .optionalText(
            "gateway.tlsFingerprint", \.gateway.tlsFingerprint, example: "\"sha256:<64 hex digits>\"",
            "SHA-256 of the gateway's leaf TLS certificate to pin; unset uses system trust.",
            valuesHint: "64 hex digits, colons and a sha256: prefix allowed", refine: SettingRefinements.tlsFingerprint),
        .flag(
            "gateway.allowInsecureRemote", \.gateway.allowInsecureRemote,
            "Allow ws:// to hosts outside the local network (break-glass; warns on every connect)."),
        .optionalText(
            "gateway.displayName", \.gateway.displayName, example: "\"kitchen\"",
            "Name shown in the gateway's node list; unset uses the host name."),
        .integer(
            "gateway.challengeTimeoutMs", \.gateway.challengeTimeoutMs, unit: "ms", range: 1000...120_000,
            "How long to wait for the gateway's connect challenge."),
        .integer(
            "gateway.connectTimeoutMs", \.gateway.connectTimeoutMs, unit: "ms", range: 1000...300_000,
            "Limit for the whole connect handshake."),
        .integer(
            "gateway.requestTimeoutMs", \.gateway.requestTimeoutMs, unit: "ms", range: 1000...300_000,
            "Timeout of gateway requests without a method-specific one."),
        .flag(
            "gateway.operator.enabled", \.gateway.operator.enabled,
            "Open the operator connection (gateway speech, chat.send, wake word sync)."),

        // MARK: mic
        .optionalText(
            "mic.device", \.mic.device, example: "\"alsa_input.usb-Mic-00.mono-fallback\"",
            "Capture device (PulseAudio/PipeWire source name); unset uses the default source."),
        .integer(
            "mic.preRollMs", \.mic.preRollMs, unit: "ms", range: 0...2000,
            "Audio kept from before a wake word or push-to-talk start, so the first word is not lost."),
        .integer(
            "mic.frameMs", \.mic.frameMs, unit: "ms", range: 10...60,
            "Capture frame length (a multiple of 10).", refine: SettingRefinements.multiple(of: 10)),

        // MARK: speaker
        .optionalText(
            "speaker.device", \.speaker.device, example: "\"alsa_output.pci-0000_00_1f.3.analog-stereo\"",
            "Playback device (PulseAudio/PipeWire sink name); unset uses the default sink."),
        .flag(
            "speaker.acousticallyIsolated", \.speaker.acousticallyIsolated,
            "The output cannot reach the microphone (headphones): barge-in works without echo cancellation."),

        // MARK: processing
        .choice(
            "processing.echoCancellation", \.processing.echoCancellation,
            "Echo canceller: off, aec (WebRTC AEC), aecm (mobile echo control, cheaper)."),
        .choice(
            "processing.aecSuppression", \.processing.aecSuppression,
            "How strongly the echo canceller suppresses residual echo."),
        .choice(
            "processing.noiseSuppression", \.processing.noiseSuppression,
            "Noise suppression strength (low 6 dB … veryhigh 20 dB)."),
        .choice(
            "processing.gainControl", \.processing.gainControl, "Automatic gain control of the microphone signal."),
        .flag(
            "processing.highPassFilter", \.processing.highPassFilter, "Remove low-frequency rumble before processing."),

        // MARK: wake
        .flag("wake.enabled", \.wake.enabled, "Listen for wake words."),
        .choice(
            "wake.engine", \.wake.engine,
            "Wake word detector: auto uses microWakeWord where a model exists, else the Whisper keyword "
                + "scorer (PocketSphinx while it does not answer); pocketsphinx uses PocketSphinx only."),
        .choice(
            "wake.route", \.wake.route,
            "Where a wake command goes: voice-transcript (node event), chat-send or agent (operator)."),
        .flag("wake.startsTalk", \.wake.startsTalk, "A wake command starts Talk mode as its first turn."),
        .flag(
            "wake.promptHint", \.wake.promptHint,
            "On the agent route, start the prompt with a line saying it came by voice."),
        .chime("wake.triggerChime", \.wake.triggerChime, "Sound played after the wake word."),
        .chime("wake.sendChime", \.wake.sendChime, "Sound played when a command is sent."),
        .numberMap(
            "wake.thresholds", \.wake.thresholds, range: 0...1, example: "{ okay_nabu: 0.85 }",
            "Detection thresholds (probability) by trigger or wake model name: the keyword scorer's "
                + "(default 0.01) or a microWakeWord model's cutoff."),
        .textListMap(
            "wake.aliases", \.wake.aliases, example: "{ openclaw: [\"Open Claw\"] }",
            "More spellings of a trigger for the keyword scorer; case variants and splits are always tried."),
        .flag(
            "wake.acousticHeads", \.wake.acousticHeads,
            "Let the keyword scorer's acoustic heads wake openclaw and claude beside its transcript "
                + "(false: fewer near-miss wakes, more misses in noise)."),
        .choice(
            "wake.scorer", \.wake.scorer,
            "Who runs the Whisper keyword scorer: auto (run starts its own on a private socket, or uses "
                + "the address set here), external (only the address set here, default 127.0.0.1:10401) "
                + "or off (never start one; PocketSphinx spots)."),
        .optionalText(
            "wake.scorerHost", \.wake.scorerHost, example: "\"127.0.0.1\"",
            "Host of a Wyoming keyword scorer you run (clawtalk-wake); unset: run's own.",
            valuesHint: "host name or address", refine: SettingRefinements.word),
        .optionalInteger(
            "wake.scorerPort", \.wake.scorerPort, unit: nil, range: 1...65535, example: "10401",
            "TCP port of a Wyoming keyword scorer you run (clawtalk-wake); unset: run's own."),
        .optionalText(
            "wake.scorerSocket", \.wake.scorerSocket, example: "\"/run/user/1000/clawtalk-wake.sock\"",
            "Unix socket of a Wyoming keyword scorer you run; wins over host and port.",
            valuesHint: "absolute path", refine: SettingRefinements.socketPath),

        // MARK: stt
        .choice(
            "stt.engine", \.stt.engine,
            "Speech-to-text engine: wyoming (local server), pocketsphinx (built in) or gateway (relay)."),
        .optionalText(
            "stt.wyomingHost", \.stt.wyomingHost, example: "\"127.0.0.1\"",
            "Host of a Wyoming speech-to-text server you run; unset: run's own on a private socket.",
            valuesHint: "host name or address", refine: SettingRefinements.word),
        .optionalInteger(
            "stt.wyomingPort", \.stt.wyomingPort, unit: nil, range: 1...65535, example: "10300",
            "TCP port of a Wyoming speech-to-text server you run; unset: run's own on a private socket."),
        .optionalText(
            "stt.wyomingSocket", \.stt.wyomingSocket, example: "\"/run/user/1000/whisper.sock\"",
            "Unix socket of a Wyoming speech-to-text server you run; wins over host and port.",
            valuesHint: "absolute path", refine: SettingRefinements.socketPath),
        .choice(
            "stt.server", \.stt.server,
            "Who runs the Wyoming server: auto (run starts the installed one on a private socket, or uses "
                + "the address set here), external (only the address set here, default 127.0.0.1:10300) "
                + "or off (never start one)."),
        .optionalText(
            "stt.language", \.stt.language, example: "\"en-US\"",
            "Recognition language (BCP-47); unset follows the Talk or system locale.",
            valuesHint: "language tag such as en or en-US", refine: SettingRefinements.languageTag),
        .choice(
            "stt.model", \.stt.model,
            "Whisper model of run's own server: tiny.en (English; base loads for another language) "
                + "or base (more accurate on hard speech, about 130 MB more memory)."),

        // MARK: talk
        .integer(
            "talk.silenceTimeoutMs", \.talk.silenceTimeoutMs, unit: "ms", range: 100...10_000,
            "Silence that ends an utterance (at least 2000 is used for Korean, Japanese and Chinese)."),
        .flag(
            "talk.interruptOnSpeech", \.talk.interruptOnSpeech,
            "Speaking during a reply interrupts it (needs echo cancellation or an isolated output)."),
        .optionalInteger(
            "talk.idleTimeoutS", \.talk.idleTimeoutS, unit: "s", range: 1...86_400, example: "60",
            "Leave Talk mode after this long without user speech; unset never leaves."),
        .optionalText(
            "talk.sessionKey", \.talk.sessionKey, example: "\"main\"",
            "Chat session for transcripts; unset uses the gateway's main session."),
        .flag(
            "talk.realtimeRelay", \.talk.realtimeRelay,
            "Use realtime Talk over the gateway relay when the gateway configures it (microphone audio of Talk goes to the gateway's provider)."
        ),

        // MARK: ptt
        .integer(
            "ptt.maxCaptureS", \.ptt.maxCaptureS, unit: "s", range: 1...3600,
            "Safety cap on one push-to-talk capture; it is then finalized as if released."),
        .optionalText(
            "ptt.evdevKey", \.ptt.evdevKey, example: "\"KEY_RIGHTALT\"",
            "Key held for hold-to-talk via evdev (needs the input group); unset disables it.",
            valuesHint: "KEY_…/BTN_… name or key code", refine: SettingRefinements.evdevKey),
        .optionalText(
            "ptt.controlSocket", \.ptt.controlSocket, example: "\"/run/user/1000/clawtalk/control.sock\"",
            "Control socket for `clawtalk ptt …`; unset uses $XDG_RUNTIME_DIR/clawtalk/control.sock.",
            valuesHint: "absolute path", refine: SettingRefinements.socketPath),

        // MARK: tts
        .text(
            "tts.outputFormat", \.tts.outputFormat,
            "Audio format asked of gateway speech (pcm_<rate>, mp3_…, opus_…); auto lets the provider choose.",
            valuesHint: "format name such as pcm_24000, mp3_44100_128 or auto", refine: SettingRefinements.formatName),
        .choice(
            "tts.fallback", \.tts.fallback,
            "When to fall back to local espeak-ng: eligible (gateway says so), always, or never."),
        .text(
            "tts.espeakVoice", \.tts.espeakVoice, "espeak-ng voice for local speech.",
            valuesHint: "espeak-ng voice name",
            refine: SettingRefinements.word),
        .integer(
            "tts.espeakRateWPM", \.tts.espeakRateWPM, unit: "WPM", range: 80...450, "espeak-ng speaking rate."),

        // MARK: log
        .choice("log.level", \.log.level, "Lowest log level written."),
        .choice("log.format", \.log.format, "Log line format: text (human) or json (one object per line)."),
        .flag("log.syslogPrefix", \.log.syslogPrefix, "Prefix log lines with <N> syslog priorities (for journald)."),
        .flag("log.sensitive", \.log.sensitive, "Log transcripts and credentials unredacted (debugging only)."),

        // MARK: notify
        .flag(
            "notify.enabled", \.notify.enabled,
            "Show desktop notifications (pairing requests, wake, errors) over D-Bus."),

        // MARK: discovery
        .optionalText(
            "discovery.wideAreaDomain", \.discovery.wideAreaDomain, example: "\"openclaw.internal.\"",
            "Wide-area DNS-SD domain browsed for gateways besides local. (e.g. a tailnet's); unset: local. only.",
            valuesHint: "DNS domain name"),
    ]
}
