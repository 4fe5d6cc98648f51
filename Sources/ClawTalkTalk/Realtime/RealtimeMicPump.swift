import ClawTalkCodecs
import ClawTalkGateway
import ClawTalkProtocol
import Foundation

/// Realtime Talk's microphone path (talk.md §9.2 item 2): each frame of the echo-cancelled front
/// end goes through the onset detector; while the session is live it is resampled (soxr) to the
/// session's input rate and cut into 20 ms chunks, each sent as `talk.session.appendAudio` with the
/// chunk's start as whole milliseconds since the session began, in order, at most
/// ``RealtimeTalkConfiguration/maxInFlight`` unanswered at once (8 s each). A failed append is
/// reported to the session (a relay failure); audio outside a live session is dropped.
struct RealtimeMicPump: Sendable {
    let owner: RealtimeTalkSession
    let session: OperatorSession
    let configuration: RealtimeTalkConfiguration

    func run(_ frames: AsyncStream<RealtimeMicFrame>) async {
        var converter: (from: Int, to: Int, resampler: Resampler?)?
        var pending: [Int16] = []
        /// The converter's first output: its filter delay is padded to a whole chunk.
        var aligned = false
        await withTaskGroup(of: Void.self) { appends in
            var inFlight = 0
            for await frame in frames {
                guard let rate = await owner.microphoneFrame(frame) else {
                    pending = []
                    continue
                }
                if converter?.from != frame.sampleRate || converter?.to != rate {
                    converter = (
                        frame.sampleRate, rate,
                        frame.sampleRate == rate
                            ? nil : try? Resampler(from: frame.sampleRate, to: rate, quality: Self.quality)
                    )
                    pending = []
                    aligned = false
                }
                let samples: [Int16]
                if let resampler = converter?.resampler {
                    samples = (try? resampler.process(frame.samples)) ?? []
                } else {
                    samples = frame.samples
                }
                pending.append(contentsOf: samples)
                let chunk = rate / 50
                if !aligned, !pending.isEmpty {
                    // The resampler's first block comes short by its filter delay. Silence in
                    // front of it makes the chunks end where the microphone's frames end: else
                    // every chunk waited for the next frame to be filled (≈ 20 ms).
                    aligned = true
                    let short = (chunk - pending.count % chunk) % chunk
                    pending.insert(contentsOf: repeatElement(0, count: short), at: 0)
                }
                while pending.count >= chunk {
                    let piece = Array(pending.prefix(chunk))
                    pending.removeFirst(chunk)
                    guard let target = await owner.claimAppend(count: chunk) else {
                        pending = []
                        break
                    }
                    if inFlight >= max(configuration.maxInFlight, 1) {
                        await appends.next()
                        inFlight -= 1
                    }
                    let params = TalkSessionAppendAudioParams(
                        sessionId: target.sessionId, audioBase64: Self.base64(piece), timestamp: target.timestamp)
                    let owner = owner
                    let generationOfChunk = target.generation
                    do {
                        let pendingAnswer = try await session.start(
                            OperatorMethod.talkSessionAppendAudio.rawValue, params: try WireJSON(encoding: params),
                            timeout: configuration.appendTimeout)
                        appends.addTask {
                            do {
                                _ = try await pendingAnswer.response()
                            } catch {
                                await owner.yield(.appendFailed(generation: generationOfChunk, "\(error)"))
                            }
                        }
                        inFlight += 1
                    } catch {
                        await owner.yield(.appendFailed(generation: generationOfChunk, "\(error)"))
                    }
                }
            }
            appends.cancelAll()
        }
    }

    /// soxr's cubic interpolation: from 16 kHz every 20 ms frame yields its 20 ms at once (the
    /// first 3 samples short at 24 kHz). The default (medium) quality delivered 788 samples every
    /// 1.6 frames at 24 kHz, so a chunk waited up to a frame for its end (`realtime.append` p95
    /// 60 ms, bench 2026-12-06). The front end's speech ends below 8 kHz; what cubic upsampling
    /// leaves above it is weak images of it, no content.
    static let quality = Resampler.Quality.quick

    /// pcm16 little-endian, base64.
    static func base64(_ samples: [Int16]) -> String {
        var data = Data(capacity: samples.count * 2)
        for sample in samples {
            let value = UInt16(bitPattern: sample.littleEndian)
            data.append(UInt8(value & 0xFF))
            data.append(UInt8(value >> 8))
        }
        return data.base64EncodedString()
    }
}
