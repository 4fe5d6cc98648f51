internal import CPulse

/// Owner of one pa_mainloop and its pa_context, driven by the thread that uses it: short-lived
/// for device queries (``listDevices()``), long-lived under a ``PulseCaptureStream``.
///
/// Library rules: a pa_mainloop is single-threaded and everything happens inside
/// pa_mainloop_dispatch on the calling thread, so callbacks are plain C functions that find their
/// state through the userdata pointer (an unretained ``PulseDeviceCollector``, kept alive by the
/// caller while the loop runs). Used from one thread at a time, never concurrently. No thread of
/// its own: nothing runs, and nothing wakes, between the owner's calls.
final class PulseContext {
    let mainloop: OpaquePointer
    let context: OpaquePointer
    /// Which server, for error messages.
    let serverDescription: String
    /// The deadline of the connection and of ``listDevices()``.
    private let deadline: ContinuousClock.Instant

    /// Connects (without autospawn) and waits until the context is ready or `timeout` passes, or
    /// `interrupted` says to give up (checked at least every ``interruptSlice``).
    init(server: String?, timeout: Duration, interrupted: (() -> Bool)? = nil) throws {
        deadline = ContinuousClock.now + timeout
        serverDescription = PulseSimple.serverDescription(server)
        guard let mainloop = pa_mainloop_new() else {
            throw AudioDeviceError.serverUnavailable("cannot create a PulseAudio main loop")
        }
        guard let context = pa_context_new(pa_mainloop_get_api(mainloop), PulseSimple.applicationName) else {
            pa_mainloop_free(mainloop)
            throw AudioDeviceError.serverUnavailable("cannot create a PulseAudio context")
        }
        self.mainloop = mainloop
        self.context = context
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw unavailable(pa_context_errno(context))
        }
        try iterate(waitingFor: "connecting", deadline: deadline, interrupted: interrupted) {
            switch pa_context_get_state(context) {
            case PA_CONTEXT_READY: return true
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: throw unavailable(pa_context_errno(context))
            default: return false
            }
        }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    /// Server info, then the source list, then the sink list, by `deadline` (default: the
    /// connection's own).
    func listDevices(deadline: ContinuousClock.Instant? = nil) throws -> [AudioDevice] {
        let collector = PulseDeviceCollector()
        let userdata = Unmanaged.passUnretained(collector).toOpaque()
        let deadline = deadline ?? self.deadline
        try withExtendedLifetime(collector) {
            try dispatchPending()
            try run(
                "server info", pa_context_get_server_info(context, PulseDeviceCollector.serverInfo, userdata),
                deadline: deadline)
            try run(
                "source list",
                pa_context_get_source_info_list(context, PulseDeviceCollector.sourceInfo, userdata),
                deadline: deadline)
            try run(
                "sink list", pa_context_get_sink_info_list(context, PulseDeviceCollector.sinkInfo, userdata),
                deadline: deadline)
        }
        if let failure = collector.failure {
            throw AudioDeviceError.io("listing devices failed: \(PulseSimple.message(failure))")
        }
        return collector.devices()
    }

    /// Runs the loop until `operation` completes.
    private func run(_ what: String, _ operation: OpaquePointer?, deadline: ContinuousClock.Instant) throws {
        guard let operation else {
            throw AudioDeviceError.io("\(what) request failed: \(PulseSimple.message(pa_context_errno(context)))")
        }
        defer { pa_operation_unref(operation) }
        try iterate(waitingFor: what, deadline: deadline) {
            if pa_context_get_state(context) != PA_CONTEXT_READY {
                throw unavailable(pa_context_errno(context))
            }
            return pa_operation_get_state(operation) != PA_OPERATION_RUNNING
        }
    }

    /// The longest a wait with an `interrupted` check blocks between checks.
    static let interruptSlice: Duration = .milliseconds(50)

    /// Dispatches events until `done` returns true, failing at `deadline`, or with
    /// ``AudioDeviceError/interrupted`` as soon as `interrupted` returns true (checked at least
    /// every ``interruptSlice``).
    func iterate(
        waitingFor what: String, deadline: ContinuousClock.Instant, interrupted: (() -> Bool)? = nil,
        until done: () throws -> Bool
    ) throws {
        while try !done() {
            if let interrupted, interrupted() { throw AudioDeviceError.interrupted }
            var remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                throw AudioDeviceError.serverUnavailable(
                    "\(serverDescription) did not answer in time (\(what))")
            }
            if interrupted != nil { remaining = min(remaining, Self.interruptSlice) }
            let (seconds, attoseconds) = remaining.components
            let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000 + 1
            guard pa_mainloop_prepare(mainloop, Int32(clamping: micros)) >= 0,
                pa_mainloop_poll(mainloop) >= 0,
                pa_mainloop_dispatch(mainloop) >= 0
            else {
                throw AudioDeviceError.serverUnavailable("\(serverDescription): main loop failed (\(what))")
            }
        }
    }

    /// Dispatches every event that is already due, without waiting. Throws when the loop fails.
    func dispatchPending() throws {
        while true {
            let dispatched = pa_mainloop_iterate(mainloop, 0, nil)
            guard dispatched >= 0 else {
                throw AudioDeviceError.io("\(serverDescription): main loop failed")
            }
            if dispatched == 0 { return }
        }
    }

    /// Waits up to `microseconds` for events and dispatches them.
    func waitForEvents(microseconds: Int32) throws {
        guard pa_mainloop_prepare(mainloop, microseconds) >= 0,
            pa_mainloop_poll(mainloop) >= 0,
            pa_mainloop_dispatch(mainloop) >= 0
        else {
            throw AudioDeviceError.io("\(serverDescription): main loop failed")
        }
    }

    /// The context's last error as text.
    var lastError: String { PulseSimple.message(pa_context_errno(context)) }

    func unavailable(_ code: Int32) -> AudioDeviceError {
        .serverUnavailable("\(serverDescription): \(PulseSimple.message(code))")
    }
}
