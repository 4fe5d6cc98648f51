import Foundation

/// A stand-in for the `wyoming-faster-whisper` that `scripts/setup` installs, for tests of
/// `clawtalk run`'s supervision: a small Python program that takes the real server's arguments,
/// listens on the `--uri` (`tcp://HOST:PORT` or `unix:///PATH`) and speaks the Wyoming protocol (`describe` → `info`; `transcribe`,
/// `audio-*` → `transcript`), logging in the `--log-format` the node asks for. It is a protocol
/// peer, not Whisper: its transcript is the text of `FAKE_WHISPER_TEXT` (default
/// ``defaultText``). `FAKE_WHISPER_EXIT_AFTER` (seconds) makes it crash with status 3 after
/// that long; `FAKE_WHISPER_PIDFILE` names a file it appends its pid to, so tests can find
/// every process that ever ran; `FAKE_WHISPER_PEERLOG` names a file it appends, for each
/// connection on a Unix socket, the process id of the peer (`SO_PEERCRED`): who connected.
public enum FakeWhisperInstall {
    /// The transcript it answers with by default.
    public static let defaultText = "fake whisper heard you"

    /// Writes `<dataDirectory>/clawtalk/venv/bin/wyoming-faster-whisper` (executable) and
    /// `<dataDirectory>/clawtalk/models/whisper-base/model.bin` (empty) where the node looks for
    /// the installed server; returns the executable's path.
    @discardableResult
    public static func install(dataDirectory: String) throws -> String {
        let bin = dataDirectory + "/clawtalk/venv/bin"
        let model = dataDirectory + "/clawtalk/models/whisper-base"
        for directory in [bin, model] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try Data().write(to: URL(fileURLWithPath: model + "/model.bin"))
        let executable = bin + "/wyoming-faster-whisper"
        try ExecutableFile.write(Array(script.utf8), to: executable)
        return executable
    }

    /// The program.
    public static let script = #"""
        #!/usr/bin/env python3
        # Fake wyoming-faster-whisper for clawtalk's tests (a Wyoming protocol peer).
        import json, os, socket, struct, sys, threading, time

        args = sys.argv[1:]
        def arg(name, default=None):
            return args[args.index(name) + 1] if name in args else default

        fmt = arg("--log-format", "%(levelname)s:%(name)s:%(message)s")
        def log(level, name, message):
            print(fmt.replace("%(levelname)s", level).replace("%(name)s", name).replace("%(message)s", message),
                  flush=True)

        pidfile = os.environ.get("FAKE_WHISPER_PIDFILE")
        if pidfile:
            with open(pidfile, "a") as f:
                f.write(f"{os.getpid()}\n")
        uri = arg("--uri")
        peerlog = os.environ.get("FAKE_WHISPER_PEERLOG")
        text = os.environ.get("FAKE_WHISPER_TEXT", "fake whisper heard you")
        exit_after = float(os.environ.get("FAKE_WHISPER_EXIT_AFTER", "0"))
        log("INFO", "fake_whisper", "loading model " + arg("--model", "?"))
        if uri.startswith("unix://"):
            path = uri[len("unix://"):]
            if os.path.exists(path):
                os.unlink(path)
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            old = os.umask(0o177)
            server.bind(path)
            os.umask(old)
            server.listen(16)
        else:
            host, port = uri[len("tcp://"):].rsplit(":", 1)
            server = socket.create_server((host, int(port)))
        log("INFO", "wyoming_faster_whisper.__main__", "Ready")
        if exit_after > 0:
            def crash():
                time.sleep(exit_after)
                log("ERROR", "fake_whisper", "crashing as told")
                os._exit(3)
            threading.Thread(target=crash, daemon=True).start()

        INFO = {"asr": [{"name": "faster-whisper", "version": "3.8.1", "installed": True, "attribution": {},
                         "models": [{"name": "fake-base", "languages": ["en", "de"], "installed": True,
                                     "attribution": {}}]}]}

        def send(conn, kind, data):
            block = json.dumps(data).encode() if data else b""
            header = {"type": kind, "version": "1.10.2"}
            if block:
                header["data_length"] = len(block)
            conn.sendall(json.dumps(header).encode() + b"\n" + block)

        def serve(conn):
            reader = conn.makefile("rb")
            with conn:
                while True:
                    line = reader.readline()
                    if not line:
                        return
                    header = json.loads(line)
                    data = header.get("data") or {}
                    if header.get("data_length"):
                        data.update(json.loads(reader.read(header["data_length"])))
                    if header.get("payload_length"):
                        reader.read(header["payload_length"])
                    kind = header.get("type")
                    if kind == "describe":
                        send(conn, "info", INFO)
                    elif kind == "audio-stop":
                        log("INFO", "wyoming_faster_whisper.dispatch_handler", text)
                        send(conn, "transcript", {"text": text})
                        return

        while True:
            conn, _ = server.accept()
            if peerlog and conn.family == socket.AF_UNIX:
                pid, _, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
                with open(peerlog, "a") as f:
                    f.write(f"{pid}\n")
            threading.Thread(target=serve, args=(conn,), daemon=True).start()
        """#
}
