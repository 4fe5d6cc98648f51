internal import CPulse
import ClawTalkAudio

/// Shared helpers for the pa_simple stream owners.
enum PulseSimple {
    /// The application name every stream and context reports to the server.
    static let applicationName = "clawtalk"

    /// Opens a blocking pa_simple stream of s16le samples in `format`.
    static func open(
        record: Bool, format: AudioFormat, device: String?, streamName: String, attributes: pa_buffer_attr
    ) throws -> OpaquePointer {
        guard format.channels <= Int(PA_CHANNELS_MAX), format.sampleRate <= Int(PA_RATE_MAX) else {
            throw AudioDeviceError.format(format)
        }
        var spec = pa_sample_spec(
            format: PA_SAMPLE_S16LE, rate: UInt32(format.sampleRate), channels: UInt8(format.channels))
        var attr = attributes
        var code: Int32 = 0
        let stream = pa_simple_new(
            nil, applicationName, record ? PA_STREAM_RECORD : PA_STREAM_PLAYBACK, device, streamName,
            &spec, nil, &attr, &code)
        guard let stream else {
            if code == Int32(PA_ERR_CONNECTIONREFUSED.rawValue) || code == Int32(PA_ERR_INVALIDSERVER.rawValue) {
                throw AudioDeviceError.serverUnavailable("\(serverDescription()): \(message(code))")
            }
            throw AudioDeviceError.open(device: device, message: message(code))
        }
        return stream
    }

    /// The library's text for a pa error code.
    static func message(_ code: Int32) -> String {
        guard let text = pa_strerror(code) else { return "PulseAudio error \(code)" }
        return String(cString: text)
    }

    /// Which server a default connection goes to, for error messages.
    static func serverDescription(_ explicit: String? = nil) -> String {
        if let explicit { return "server \(explicit)" }
        if let env = getenv("PULSE_SERVER") { return "server \(String(cString: env))" }
        return "default server"
    }

    /// Bytes of s16le audio in `milliseconds` of `format`, at least one sample frame.
    static func bytes(_ format: AudioFormat, milliseconds: Int) -> UInt32 {
        UInt32(max(format.sampleCount(milliseconds: milliseconds), format.channels) * 2)
    }

    /// Buffer attributes with every field at the server default ((uint32_t)-1).
    static var defaultAttributes: pa_buffer_attr {
        pa_buffer_attr(maxlength: .max, tlength: .max, prebuf: .max, minreq: .max, fragsize: .max)
    }
}
