public import Foundation

/// The node's built-in earcons, generated in code (no third-party sounds), and the loader for a
/// custom chime WAV.
///
/// Each built-in chime is one or two sine notes. Every note starts at phase zero and has a 5 ms
/// raised-cosine fade in and out, so the chime starts and ends at zero and joins its notes without
/// clicks. Peaks sit at ``peakDBFS`` (−12 dBFS) and every chime lasts at most
/// ``maximumMilliseconds`` (150 ms): without echo cancellation the talk contract (talk.md §6.5) replaces
/// the chime's interval with silence before speech-to-text, which only works for short chimes.
///
/// Render chimes at the rate the speech output already uses (for example 24000 Hz) so the playback
/// stream does not have to be reopened for them.
public enum Chime: String, Sendable, Hashable, CaseIterable {
    /// Wake word or push-to-talk accepted: two rising notes (A5 → E6), 120 ms.
    case trigger
    /// Command sent: one short note (D6), 90 ms.
    case send
    /// Something failed: two low descending notes (A4 → E4), 145 ms.
    case error

    /// One sine tone of a built-in chime.
    public struct Note: Sendable, Hashable {
        /// Frequency in Hz.
        public var frequency: Double
        /// Length in milliseconds, fades included.
        public var milliseconds: Int

        /// Creates a note.
        public init(frequency: Double, milliseconds: Int) {
            self.frequency = frequency
            self.milliseconds = milliseconds
        }
    }

    /// Longest chime the talk contract allows when no echo canceller runs (talk.md §6.5).
    public static let maximumMilliseconds = 150
    /// Peak level of the built-in chimes in dBFS.
    public static let peakDBFS = -12.0
    /// Length of each note's fade in and fade out.
    public static let fadeMilliseconds = 5

    /// The notes this chime plays, in order.
    public var notes: [Note] {
        switch self {
        case .trigger: [Note(frequency: 880, milliseconds: 55), Note(frequency: 1318.5, milliseconds: 65)]
        case .send: [Note(frequency: 1174.7, milliseconds: 90)]
        case .error: [Note(frequency: 440, milliseconds: 65), Note(frequency: 329.6, milliseconds: 80)]
        }
    }

    /// Nominal length in milliseconds (the rendered length is this, rounded down to whole samples).
    public var milliseconds: Int { notes.reduce(0) { $0 + $1.milliseconds } }

    /// Renders the chime as mono s16 at `sampleRate` Hz (at least 8000, so every note is below
    /// the Nyquist frequency).
    public func render(sampleRate: Int) -> PCMBuffer {
        render(format: AudioFormat(sampleRate: sampleRate, channels: 1))
    }

    /// Renders the chime in `format`, the same signal on every channel.
    public func render(format: AudioFormat) -> PCMBuffer {
        precondition(format.sampleRate >= 8000, "chimes need a sample rate of at least 8000 Hz")
        let rate = Double(format.sampleRate)
        let amplitude = pow(10, Self.peakDBFS / 20) * 32767
        let fadeLength = format.sampleRate * Self.fadeMilliseconds / 1000
        var mono: [Int16] = []
        mono.reserveCapacity(format.sampleRate * milliseconds / 1000)
        for note in notes {
            let count = format.sampleRate * note.milliseconds / 1000
            let fade = max(1, min(fadeLength, count / 2))
            let step = 2 * Double.pi * note.frequency / rate
            for index in 0..<count {
                let edge = min(index, count - 1 - index)
                let envelope = edge >= fade ? 1 : 0.5 - 0.5 * cos(Double.pi * Double(edge) / Double(fade))
                mono.append(Int16((amplitude * envelope * sin(step * Double(index))).rounded()))
            }
        }
        guard format.channels > 1 else { return PCMBuffer(format: format, samples: mono) }
        var samples: [Int16] = []
        samples.reserveCapacity(mono.count * format.channels)
        for sample in mono {
            samples.append(contentsOf: repeatElement(sample, count: format.channels))
        }
        return PCMBuffer(format: format, samples: samples)
    }

    /// Loads a custom chime from a WAV file (any encoding ``WAVFile`` reads), keeping its own rate
    /// and channels.
    ///
    /// - Parameter maximumMilliseconds: reject longer files; pass ``Chime/maximumMilliseconds``
    ///   when no echo canceller runs, nil to accept any length.
    public static func load(file: URL, maximumMilliseconds: Int? = nil) throws(LoadError) -> PCMBuffer {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .unreadable(path: file.path, reason: Self.reason(error, path: file.path))
        }
        let pcm: PCMBuffer
        do {
            pcm = try WAVFile.decode(data)
        } catch {
            throw .invalid(path: file.path, error)
        }
        guard pcm.frameCount > 0 else { throw .empty(path: file.path) }
        let length = pcm.frameCount * 1000 / pcm.format.sampleRate
        if let maximumMilliseconds, pcm.frameCount * 1000 > maximumMilliseconds * pcm.format.sampleRate {
            throw .tooLong(path: file.path, milliseconds: length, maximum: maximumMilliseconds)
        }
        return pcm
    }

    /// Why ``Chime/load(file:maximumMilliseconds:)`` rejected a file.
    public enum LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The file could not be read (missing, a directory, no permission).
        case unreadable(path: String, reason: String)
        /// The file is not a WAV file this module can decode.
        case invalid(path: String, AudioError)
        /// The WAV file holds no samples.
        case empty(path: String)
        /// The chime is longer than allowed (`milliseconds` rounded down).
        case tooLong(path: String, milliseconds: Int, maximum: Int)

        /// One line for logs and error messages.
        public var description: String {
            switch self {
            case .unreadable(let path, let reason):
                "cannot read chime file \(path): \(reason)"
            case .invalid(let path, let error):
                "chime file \(path) is not a usable WAV file: \(error)"
            case .empty(let path):
                "chime file \(path) contains no audio"
            case .tooLong(let path, let milliseconds, let maximum):
                "chime file \(path) lasts \(milliseconds) ms; chimes may last at most \(maximum) ms"
            }
        }
    }

    /// A short reason for a failed read (Foundation's own messages are vague on Linux).
    private static func reason(_ error: any Error, path: String) -> String {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return "no such file" }
        if isDirectory.boolValue { return "is a directory" }
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if !FileManager.default.isReadableFile(atPath: path) { return "permission denied" }
        return nsError.localizedDescription
    }
}
