import Foundation

/// The systemd user units clawtalk ships (`config/clawtalk.service`,
/// `config/clawtalk-stt.service`): the text of each, with the `ExecStart` binary substituted on
/// install. The files in `config/` are this text verbatim (a test fails on drift).
public enum UserServiceUnits {
    /// The node unit's file name.
    public static let nodeUnitName = "clawtalk.service"
    /// The speech-to-text unit's file name.
    public static let sttUnitName = "clawtalk-stt.service"
    /// The `ExecStart` binary in the shipped node unit.
    public static let defaultBinary = "%h/.local/bin/clawtalk"

    /// The line that makes the node use the `clawtalk-stt` unit's server instead of its own.
    public static let externalSTTLine = "Environment=CLAWTALK_STT_SERVER=external"

    /// The node unit, running `binary` (default: the shipped `%h/.local/bin/clawtalk`). With
    /// `externalSTT` the node never starts a Whisper server of its own (`stt.server: external`):
    /// it uses the `clawtalk-stt` unit's, which it then wants.
    public static func nodeUnit(binary: String = defaultBinary, externalSTT: Bool = false) -> String {
        var text = node.replacingOccurrences(
            of: "ExecStart=\(defaultBinary) run", with: "ExecStart=\(escapeExec(binary)) run")
        if externalSTT {
            text = text.replacingOccurrences(
                of: "Environment=CLAWTALK_LOG_SYSLOG_PREFIX=true\n",
                with: "Environment=CLAWTALK_LOG_SYSLOG_PREFIX=true\n\(externalSTTLine)\n")
            text = text.replacingOccurrences(
                of: "After=pipewire-pulse.service pulseaudio.service clawtalk-stt.service\n",
                with:
                    "After=pipewire-pulse.service pulseaudio.service clawtalk-stt.service\nWants=clawtalk-stt.service\n"
            )
        }
        return text
    }

    /// The speech-to-text unit.
    public static var sttUnit: String { stt }

    /// Quotes a path for `ExecStart` when it contains spaces; `%` is doubled (systemd specifier).
    static func escapeExec(_ path: String) -> String {
        guard path != defaultBinary else { return path }
        let escaped = path.replacingOccurrences(of: "%", with: "%%")
        return escaped.contains(" ") ? "\"\(escaped)\"" : escaped
    }

    private static let node = """
        # clawtalk voice node as a systemd user service. 'clawtalk service install' writes this unit
        # to ~/.config/systemd/user with ExecStart pointing at the installed binary; it is generated
        # from Sources/ClawTalkDesktop/Service/UserServiceUnits.swift (a test fails on drift).
        # 'clawtalk run' starts and supervises the Whisper server itself (stt.server: auto); with
        # --with-stt the separate clawtalk-stt.service is installed instead and this unit gets
        # Environment=CLAWTALK_STT_SERVER=external and Wants=clawtalk-stt.service.
        #
        #   clawtalk service install --enable   # writes the unit, daemon-reload, enable --now
        #   loginctl enable-linger "$USER"      # optional: run without a login session
        #   journalctl --user -u clawtalk -f    # logs, with levels (journalctl -p warning ...)
        #   systemctl --user reload clawtalk    # SIGHUP: resume a paused connection, switch gateways
        #
        # Logs go to standard error with <N> syslog prefixes, so the journal keeps each line's level.
        # SIGTERM stops capture, cancels pending push-to-talk work, closes the gateway sockets with 1000,
        # stops the supervised Whisper server and exits 0 at once; Restart=on-failure restarts it only
        # after a crash or error.
        [Unit]
        Description=clawtalk voice node for OpenClaw
        After=pipewire-pulse.service pulseaudio.service clawtalk-stt.service

        [Service]
        Type=exec
        ExecStart=%h/.local/bin/clawtalk run
        ExecReload=/bin/kill -HUP $MAINPID
        Environment=CLAWTALK_LOG_SYSLOG_PREFIX=true
        SyslogIdentifier=clawtalk
        KillSignal=SIGTERM
        TimeoutStopSec=10
        Restart=on-failure
        RestartSec=3
        NoNewPrivileges=yes

        [Install]
        WantedBy=default.target

        """

    private static let stt = """
        # clawtalk speech-to-text server: wyoming-faster-whisper with the Whisper base model, listening
        # on 127.0.0.1:10300 (where stt.server external looks unless stt.wyomingHost/Port say otherwise).
        #
        # Optional: 'clawtalk run' starts this same server itself on a private Unix socket
        # (stt.server: auto). Use this unit to run it on its own instead: 'clawtalk service install
        # --with-stt' writes it and sets the node to stt.server external. A loopback port is open
        # to every user of the machine: on a shared machine, prefer auto. By hand (scripts/setup creates the venv, scripts/fetch-whisper-model the model):
        #   mkdir -p ~/.config/systemd/user
        #   cp config/clawtalk-stt.service ~/.config/systemd/user/
        #   systemctl --user daemon-reload
        #   systemctl --user enable --now clawtalk-stt
        #   loginctl enable-linger "$USER"    # optional: keep it running without a login session
        #
        # Paths assume the default XDG_DATA_HOME (~/.local/share); with another one, change them in a
        # drop-in (systemctl --user edit clawtalk-stt). Whisper's initial prompt biases recognition
        # toward OpenClaw's default wake triggers; on noise Whisper may echo it, and clawtalk discards
        # such echoes. Change it with WYO_WHISPER_INITIAL_PROMPT in a drop-in (and keep clawtalk's
        # idea of it in step). No --language: clawtalk names the language in each request; without
        # one Whisper detects it. The server never downloads (--local-files-only, HF_HUB_OFFLINE=1).
        [Unit]
        Description=clawtalk speech-to-text (Wyoming faster-whisper, Whisper base)
        Documentation=file://%h/.local/share/clawtalk/models/whisper-base/LICENSE
        After=network.target
        ConditionPathExists=%h/.local/share/clawtalk/models/whisper-base/model.bin

        [Service]
        Type=exec
        Environment=HF_HUB_OFFLINE=1
        Environment="WYO_WHISPER_INITIAL_PROMPT=OpenClaw, Claude, computer."
        ExecStart=%h/.local/share/clawtalk/venv/bin/wyoming-faster-whisper \\
            --uri tcp://127.0.0.1:10300 \\
            --model %h/.local/share/clawtalk/models/whisper-base \\
            --data-dir %h/.local/share/clawtalk/models \\
            --stt-library faster-whisper \\
            --local-files-only \\
            --device cpu \\
            --compute-type int8 \\
            --cpu-threads 2
        Restart=on-failure
        RestartSec=5
        # Whisper base needs ~300 MB; keep it from starving the audio path.
        Nice=5
        MemoryMax=1G
        NoNewPrivileges=yes
        PrivateTmp=yes

        [Install]
        WantedBy=default.target

        """
}
