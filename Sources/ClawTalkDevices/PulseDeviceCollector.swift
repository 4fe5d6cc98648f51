internal import CPulse

/// Callback state for ``PulseContext/listDevices()``: filled on the main-loop thread only.
final class PulseDeviceCollector {
    var defaultSource: String?
    var defaultSink: String?
    var sources: [AudioDevice] = []
    var sinks: [AudioDevice] = []
    var failure: Int32?

    /// Sources then sinks, with the defaults marked.
    func devices() -> [AudioDevice] {
        (sources + sinks).map { device in
            var device = device
            device.isDefault = device.name == (device.kind == .source ? defaultSource : defaultSink)
            return device
        }
    }

    private static func collector(_ userdata: UnsafeMutableRawPointer?) -> PulseDeviceCollector? {
        guard let userdata else { return nil }
        return Unmanaged<PulseDeviceCollector>.fromOpaque(userdata).takeUnretainedValue()
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    static let serverInfo: pa_server_info_cb_t = { _, info, userdata in
        guard let collector = collector(userdata), let info else { return }
        collector.defaultSource = info.pointee.default_source_name.map { String(cString: $0) }
        collector.defaultSink = info.pointee.default_sink_name.map { String(cString: $0) }
    }

    static let sourceInfo: pa_source_info_cb_t = { context, info, eol, userdata in
        guard let collector = collector(userdata) else { return }
        if eol < 0 { collector.failure = pa_context_errno(context) }
        guard eol == 0, let info else { return }
        collector.sources.append(
            AudioDevice(
                kind: .source, name: string(info.pointee.name), description: string(info.pointee.description),
                isMonitor: info.pointee.monitor_of_sink != UInt32.max,
                sampleRate: Int(info.pointee.sample_spec.rate), channels: Int(info.pointee.sample_spec.channels)))
    }

    static let sinkInfo: pa_sink_info_cb_t = { context, info, eol, userdata in
        guard let collector = collector(userdata) else { return }
        if eol < 0 { collector.failure = pa_context_errno(context) }
        guard eol == 0, let info else { return }
        collector.sinks.append(
            AudioDevice(
                kind: .sink, name: string(info.pointee.name), description: string(info.pointee.description),
                sampleRate: Int(info.pointee.sample_spec.rate), channels: Int(info.pointee.sample_spec.channels)))
    }
}
