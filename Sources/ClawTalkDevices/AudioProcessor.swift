internal import CAudioProcessing
public import ClawTalkAudio
import ClawTalkSupport

/// Owner of one WebRTC audio-processing instance (echo cancellation, noise suppression, gain
/// control, high-pass filter, voice detection) from webrtc-audio-processing 0.3.
///
/// Library rules:
/// - Frames are mono 16-bit and exactly 10 ms long (``frameSamples`` samples, 160 at 16 kHz);
///   any other length is rejected with ``AudioDeviceError/processing(_:)``. Chop 20 ms capture
///   frames in two.
/// - Render (what the node plays, the far end) and capture (the microphone) run at the same
///   ``AudioProcessingSettings/sampleRate``; resample playback before ``processRender(_:)``.
/// - Feed every far-end frame with ``processRender(_:)`` as it is handed to the speaker and every
///   microphone frame with ``processCapture(_:delayMs:)``; `delayMs` is how long a rendered
///   frame takes to come back through the microphone (playback latency plus capture latency).
/// - Not thread-safe: create, use and release it on one thread or in one task. It does not
///   allocate per frame.
public final class AudioProcessor {
    /// The settings the processor was created with.
    public let settings: AudioProcessingSettings
    /// Samples in one 10 ms mono frame at the processing rate.
    public let frameSamples: Int
    /// The format of render and capture frames (mono at the processing rate).
    public var format: AudioFormat { AudioFormat(sampleRate: settings.sampleRate, channels: 1) }

    private let handle: OpaquePointer

    /// Creates a processor; throws ``AudioDeviceError/format(_:)`` for an unsupported rate and
    /// ``AudioDeviceError/processing(_:)`` when the library rejects a setting.
    public init(settings: AudioProcessingSettings = AudioProcessingSettings()) throws {
        guard AudioProcessingSettings.supportedSampleRates.contains(settings.sampleRate) else {
            guard settings.sampleRate > 0 else {
                throw AudioDeviceError.processing("sample rate \(settings.sampleRate) is not positive")
            }
            throw AudioDeviceError.format(AudioFormat(sampleRate: settings.sampleRate))
        }
        guard (0...31).contains(settings.targetLevelDBFS) else {
            throw AudioDeviceError.processing(
                "gain control target level \(settings.targetLevelDBFS) dBFS is outside 0...31")
        }
        if settings.stages.echoCancellation == .aecm && settings.sampleRate > 16000 {
            throw AudioDeviceError.processing(
                "the mobile echo canceller supports 8 and 16 kHz only, not \(settings.sampleRate) Hz")
        }
        var config = Self.cConfig(settings)
        var code: Int32 = 0
        guard let handle = capm_create(&config, &code) else {
            throw AudioDeviceError.processing("cannot create the audio processor: \(Self.message(code))")
        }
        self.handle = handle
        self.settings = settings
        self.frameSamples = Int(capm_frame_samples(handle))
    }

    deinit {
        capm_destroy(handle)
    }

    /// Analyses one 10 ms far-end frame: audio the node is about to play.
    public func processRender(_ frame: UnsafeBufferPointer<Int16>) throws {
        try checkLength(frame.count)
        try check(capm_analyze_render(handle, frame.baseAddress))
    }

    /// Processes one 10 ms microphone frame in place and returns the voice detector's decision
    /// (always false when ``AudioProcessingSettings/voiceDetection`` is off). `delayMs` is clamped
    /// by the library to 0...500.
    public func processCapture(_ frame: UnsafeMutableBufferPointer<Int16>, delayMs: Int) throws -> Bool {
        try checkLength(frame.count)
        var voice: Int32 = 0
        let delay = Int32(clamping: delayMs)
        try check(capm_process_capture(handle, frame.baseAddress, delay, &voice))
        return voice != 0
    }

    /// Array form of ``processRender(_:)``.
    public func processRender(_ frame: [Int16]) throws {
        try frame.withUnsafeBufferPointer { try processRender($0) }
    }

    /// Array form of ``processCapture(_:delayMs:)``.
    public func processCapture(_ frame: inout [Int16], delayMs: Int) throws -> Bool {
        try frame.withUnsafeMutableBufferPointer { try processCapture($0, delayMs: delayMs) }
    }

    private func checkLength(_ count: Int) throws {
        guard count == frameSamples else {
            throw AudioDeviceError.processing(
                "frame has \(count) samples; exactly \(frameSamples) (10 ms at \(settings.sampleRate) Hz) are required")
        }
    }

    private func check(_ code: Int32) throws {
        guard code == 0 else { throw AudioDeviceError.processing(Self.message(code)) }
    }

    private static func message(_ code: Int32) -> String {
        "\(String(cString: capm_error_string(code))) (\(code))"
    }

    private static func cConfig(_ s: AudioProcessingSettings) -> capm_config {
        var c = capm_config()
        c.sample_rate = Int32(s.sampleRate)
        switch s.stages.echoCancellation {
        case .off: c.echo_cancellation = 0
        case .aec: c.echo_cancellation = 1
        case .aecm: c.echo_cancellation = 2
        }
        switch s.stages.aecSuppression {
        case .low: c.aec_suppression = 0
        case .moderate: c.aec_suppression = 1
        case .high: c.aec_suppression = 2
        }
        c.extended_filter = s.extendedFilter ? 1 : 0
        c.delay_agnostic = s.delayAgnostic ? 1 : 0
        switch s.stages.noiseSuppression {
        case .off: c.noise_suppression = 0
        case .low: c.noise_suppression = 1
        case .moderate: c.noise_suppression = 2
        case .high: c.noise_suppression = 3
        case .veryhigh: c.noise_suppression = 4
        }
        switch s.stages.gainControl {
        case .off: c.gain_control = 0
        case .adaptive: c.gain_control = 1
        case .fixed: c.gain_control = 2
        }
        c.target_level_dbfs = Int32(s.targetLevelDBFS)
        c.high_pass_filter = s.stages.highPassFilter ? 1 : 0
        c.voice_detection = s.voiceDetection ? 1 : 0
        switch s.voiceLikelihood {
        case .veryLow: c.vad_likelihood = 0
        case .low: c.vad_likelihood = 1
        case .moderate: c.vad_likelihood = 2
        case .high: c.vad_likelihood = 3
        }
        return c
    }
}

/// One thread or task owns a processor; it is not safe to share.
@available(*, unavailable)
extension AudioProcessor: Sendable {}
