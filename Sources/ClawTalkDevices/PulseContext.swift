internal import CPulse

/// Owner of one pa_mainloop and its pa_context: a blocking, short-lived connection for queries.
///
/// Library rules: a pa_mainloop is single-threaded and everything happens inside
/// pa_mainloop_dispatch on the calling thread, so callbacks are plain C functions that find their
/// state through the userdata pointer (an unretained ``PulseDeviceCollector``, kept alive by the
/// caller while the loop runs). Used from one thread, for one call, then released.
final class PulseContext {
    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private let deadline: ContinuousClock.Instant
    private let serverDescription: String

    /// Connects (without autospawn) and waits until the context is ready or `timeout` passes.
    init(server: String?, timeout: Duration) throws {
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
        try iterate(waitingFor: "connecting") {
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

    /// Server info, then the source list, then the sink list.
    func listDevices() throws -> [AudioDevice] {
        let collector = PulseDeviceCollector()
        let userdata = Unmanaged.passUnretained(collector).toOpaque()
        try withExtendedLifetime(collector) {
            try run("server info", pa_context_get_server_info(context, PulseDeviceCollector.serverInfo, userdata))
            try run("source list", pa_context_get_source_info_list(context, PulseDeviceCollector.sourceInfo, userdata))
            try run("sink list", pa_context_get_sink_info_list(context, PulseDeviceCollector.sinkInfo, userdata))
        }
        if let failure = collector.failure {
            throw AudioDeviceError.io("listing devices failed: \(PulseSimple.message(failure))")
        }
        return collector.devices()
    }

    /// Runs the loop until `operation` completes.
    private func run(_ what: String, _ operation: OpaquePointer?) throws {
        guard let operation else {
            throw AudioDeviceError.io("\(what) request failed: \(PulseSimple.message(pa_context_errno(context)))")
        }
        defer { pa_operation_unref(operation) }
        try iterate(waitingFor: what) {
            if pa_context_get_state(context) != PA_CONTEXT_READY {
                throw unavailable(pa_context_errno(context))
            }
            return pa_operation_get_state(operation) != PA_OPERATION_RUNNING
        }
    }

    /// Dispatches events until `done` returns true, failing at the deadline.
    private func iterate(waitingFor what: String, until done: () throws -> Bool) throws {
        while try !done() {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                throw AudioDeviceError.serverUnavailable(
                    "\(serverDescription) did not answer in time (\(what))")
            }
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

    private func unavailable(_ code: Int32) -> AudioDeviceError {
        .serverUnavailable("\(serverDescription): \(PulseSimple.message(code))")
    }
}
