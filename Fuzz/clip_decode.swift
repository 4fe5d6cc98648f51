// libFuzzer harness for TTS clip decoding: ClipDecoder.decode(data:as:) and
// ClipDecoder.decodeClip (Sources/ClawTalkCodecs/ClipDecoder.swift) with format detection
// (ClipFormat.swift), WAVFile (Sources/ClawTalkAudio/WAVFile+Parsing.swift), MP3Decoder
// (MP3Decoder.swift, libmpg123) and OggOpusDecoder (OggOpusDecoder.swift, libopusfile): the
// bytes of a gateway's talk.speak reply.
//
// Input: one option byte, then the clip. Option bits 0-2 choose the format: detected from the
// bytes, WAV, MP3, Ogg Opus, s16le 24 kHz, mu-law 8 kHz, a-law 8 kHz, or detected with the
// `audio/mpeg` MIME type; bit 3 feeds an MP3 in pieces of (bits 4-7) * 97 + 1 bytes. Checks
// besides traps and sanitizer findings: failures are CodecError; a decoded clip's sample count
// is whole frames of its channel count, its rate and channels are sane and its duration is what
// the sample count says; the headerless formats give exactly one sample per byte (two for
// s16le); a decoded WAV's PCM encoded as WAV reads back the same; an MP3 fed in pieces gives the
// same samples, or the same verdict, as fed whole.
import ClawTalkAudio
import ClawTalkCodecs
import Foundation

/// libFuzzer's entry point: runs one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let options = data[0]
    let clip = Data(bytes: data + 1, count: size - 1)
    let formats: [ClipFormat?] = [
        nil, .wav, .mp3, .oggOpus, .pcm(rate: 24000), .muLaw(rate: 8000), .aLaw(rate: 8000), nil,
    ]
    let choice = Int(options & 7)

    let chosen = formats[choice] ?? ClipFormat.detect(data: clip, mimeType: choice == 7 ? "audio/mpeg" : nil)
    let piecewise = options & 8 != 0 && chosen == .mp3
    let decoded: DecodedClip
    do {
        if let format = formats[choice] {
            decoded = try ClipDecoder.decode(data: clip, as: format)
        } else {
            decoded = try ClipDecoder.decodeClip(data: clip, mimeType: choice == 7 ? "audio/mpeg" : nil)
        }
    } catch let error as CodecError {
        _ = error.description
        if piecewise { checkPieces(clip, options: options, whole: nil) }
        return 0
    } catch {
        fatalError("failed with \(error), not a CodecError")
    }

    let pcm = decoded.pcm
    precondition((1...8).contains(pcm.format.channels), "channels \(pcm.format.channels)")
    precondition(pcm.format.sampleRate > 0, "sample rate \(pcm.format.sampleRate)")
    precondition(pcm.samples.count % pcm.format.channels == 0, "samples are not whole frames")
    precondition(
        abs(pcm.duration * Double(pcm.format.sampleRate) - Double(pcm.frameCount)) < 1e-6,
        "duration disagrees with the sample count")
    switch decoded.format {
    case .pcm:
        precondition(pcm.samples.count == clip.count / 2, "s16le sample count")
        precondition(decoded.isTruncated == (clip.count % 2 == 1), "s16le truncation flag")
    case .muLaw, .aLaw:
        precondition(pcm.samples.count == clip.count, "G.711 sample count")
    case .wav:
        precondition(pcm.samples.count <= clip.count, "more WAV samples than bytes")
        let again: WAVFile
        do {
            again = try WAVFile(data: WAVFile.encode(pcm))
        } catch {
            fatalError("decoded WAV written back is rejected: \(error)")
        }
        precondition(again.pcm == pcm && !again.isTruncated, "WAV round trip changed the audio")
    case .mp3:
        // An MPEG frame is tens of bytes and decodes to at most 1152 samples per channel.
        precondition(pcm.frameCount <= (clip.count / 16 + 2) * 1152, "more MP3 audio than frames")
        if piecewise { checkPieces(clip, options: options, whole: pcm) }
    case .oggOpus:
        precondition(pcm.format.sampleRate == 48000, "Opus decodes at 48 kHz")
    case .unsupported:
        fatalError("decoded an unsupported format")
    }
    return 0
}

/// Feeds the clip to MP3Decoder in pieces; the result must match decoding it whole.
private func checkPieces(_ clip: Data, options: UInt8, whole: PCMBuffer?) {
    let piece = Int(options >> 4) * 97 + 1
    var samples: [Int16] = []
    var format: AudioFormat?
    do {
        let decoder = try MP3Decoder()
        var offset = 0
        while offset < clip.count {
            let end = min(clip.count, offset + piece)
            if let block = try decoder.feed(clip[offset..<end]) {
                samples += block.samples
                format = block.format
            }
            offset = end
        }
        try decoder.finish()
    } catch {
        precondition(whole == nil, "pieces fail (\(error)) where the whole clip decodes")
        return
    }
    guard let whole else { fatalError("pieces decode where the whole clip fails") }
    precondition(samples == whole.samples, "pieces decode to other samples")
    precondition(format == nil || format == whole.format, "pieces decode to another format")
}
