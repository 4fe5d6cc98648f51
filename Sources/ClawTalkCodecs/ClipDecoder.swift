public import ClawTalkAudio
public import Foundation

/// Decodes a whole gateway TTS clip to PCM at its own rate, choosing the decoder with
/// ``ClipFormat/detect(data:outputFormat:mimeType:fileExtension:)``.
///
/// CPU-bound and synchronous: call it from a blocking lane, not the cooperative pool. Unplayable
/// formats throw ``CodecError/unsupportedFormat(_:)`` (the caller's cue to fall back to another
/// voice); damaged clips throw the decoder's error or come back with ``DecodedClip/isTruncated``.
public enum ClipDecoder {
    /// Detects the format and decodes; see ``decodeClip(data:outputFormat:mimeType:fileExtension:)`` for details.
    public static func decode(
        data: Data, outputFormat: String? = nil, mimeType: String? = nil, fileExtension: String? = nil
    ) throws -> PCMBuffer {
        try decodeClip(data: data, outputFormat: outputFormat, mimeType: mimeType, fileExtension: fileExtension).pcm
    }

    /// Detects the format and decodes, reporting truncation and other remarks.
    public static func decodeClip(
        data: Data, outputFormat: String? = nil, mimeType: String? = nil, fileExtension: String? = nil
    ) throws -> DecodedClip {
        guard !data.isEmpty else { throw CodecError.invalidClip("no audio bytes") }
        let format = ClipFormat.detect(
            data: data, outputFormat: outputFormat, mimeType: mimeType, fileExtension: fileExtension)
        return try decode(data: data, as: format)
    }

    /// Decodes `data` as the given format.
    public static func decode(data: Data, as format: ClipFormat) throws -> DecodedClip {
        guard !data.isEmpty else { throw CodecError.invalidClip("no audio bytes") }
        switch format {
        case .pcm(let rate), .muLaw(let rate), .aLaw(let rate):
            guard rate > 0 else { throw CodecError.invalidClip("sample rate \(rate) Hz") }
        default:
            break
        }
        switch format {
        case .pcm(let rate):
            return decodeRawPCM(data, rate: rate)
        case .muLaw(let rate):
            return DecodedClip(
                pcm: PCMBuffer(format: AudioFormat(sampleRate: rate), samples: G711.decodeMuLaw(data)), format: format)
        case .aLaw(let rate):
            return DecodedClip(
                pcm: PCMBuffer(format: AudioFormat(sampleRate: rate), samples: G711.decodeALaw(data)), format: format)
        case .wav:
            let file: WAVFile
            do {
                file = try WAVFile(data: data)
            } catch {
                throw CodecError.wav(error)
            }
            return DecodedClip(
                pcm: file.pcm, format: format, isTruncated: file.isTruncated,
                notes: file.isTruncated ? ["wav data chunk shorter than declared"] : [])
        case .mp3:
            let decoder = try MP3Decoder()
            let pcm = try decoder.decodeAll(data)
            return DecodedClip(
                pcm: pcm, format: format, isTruncated: decoder.isTruncated,
                notes: decoder.isTruncated ? ["mp3 ended before the length its info frame announced"] : [])
        case .oggOpus:
            let decoder = try OggOpusDecoder(data: data)
            let pcm = try decoder.decodeAll()
            var notes: [String] = []
            if decoder.isTruncated { notes.append("ogg stream ends before its last page is complete") }
            if decoder.holes > 0 { notes.append("ogg stream had \(decoder.holes) gap(s)") }
            return DecodedClip(pcm: pcm, format: format, isTruncated: decoder.isTruncated, notes: notes)
        case .unsupported(let what):
            throw CodecError.unsupportedFormat(what)
        }
    }

    /// s16le mono; an odd final byte (half a sample) is dropped and noted.
    private static func decodeRawPCM(_ data: Data, rate: Int) -> DecodedClip {
        let count = data.count / 2
        let samples = [Int16](unsafeUninitializedCapacity: count) { buffer, initialized in
            data.withUnsafeBytes { raw in
                for index in 0..<count {
                    buffer[index] = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))
                }
            }
            initialized = count
        }
        let odd = data.count % 2 == 1
        return DecodedClip(
            pcm: PCMBuffer(format: AudioFormat(sampleRate: rate), samples: samples), format: .pcm(rate: rate),
            isTruncated: odd, notes: odd ? ["dropped 1 trailing byte (odd pcm length)"] : [])
    }
}
