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
///
/// Two child tasks: the frame loop (onset detector, resampling, chunking) and the sender. The
/// frame loop never waits for the gateway: when appends went unanswered it waited with them, the
/// microphone's frames queued behind it, and the barge-in rules judged them late. In a bench run
/// (2026-12-07, 31 min of the node reading alone) the frames reached the onset detector 5 s late,
/// the reply's own echo among them, and cancelled it. Chunks wait for the sender in order, up to
/// ``backlogChunks``.
struct RealtimeMicPump: Sendable {
    let owner: RealtimeTalkSession
    let session: OperatorSession
    let configuration: RealtimeTalkConfiguration

    /// Chunks waiting for the sender (10 s): more than the 8 s an unanswered append may take
    /// before it fails the session.
    static let backlogChunks = 500

    /// One chunk claimed for the current session, waiting to be sent.
    private struct Chunk: Sendable {
        var sessionId: String
        var samples: [Int16]
        var timestamp: Int64
        var generation: Int
    }

    func run(_ frames: AsyncStream<RealtimeMicFrame>) async {
        let (chunks, continuation) = AsyncStream.makeStream(
            of: Chunk.self, bufferingPolicy: .bufferingOldest(Self.backlogChunks))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await send(chunks)
            }
            await cut(frames, into: continuation)
            continuation.finish()
            group.cancelAll()
        }
    }

    /// The frame loop: judges every frame at once and hands the live session's chunks on.
    private func cut(_ frames: AsyncStream<RealtimeMicFrame>, into chunks: AsyncStream<Chunk>.Continuation) async {
        var converter: (from: Int, to: Int, resampler: Resampler?)?
        var pending: [Int16] = []
        /// The converter's first output: its filter delay is padded to a whole chunk.
        var aligned = false
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
                let result = chunks.yield(
                    Chunk(
                        sessionId: target.sessionId, samples: piece, timestamp: target.timestamp,
                        generation: target.generation))
                if case .dropped = result {
                    // The provider's timeline skips the lost audio (its timestamps stay true).
                    owner.appendDropped()
                }
            }
        }
    }

    /// The sender: the chunks in order, at most ``RealtimeTalkConfiguration/maxInFlight`` unanswered.
    private func send(_ chunks: AsyncStream<Chunk>) async {
        await withTaskGroup(of: Void.self) { appends in
            var inFlight = 0
            for await chunk in chunks {
                // Chunks of a session replaced or closed while they waited go nowhere.
                guard await owner.isLive(generation: chunk.generation) else { continue }
                if inFlight >= max(configuration.maxInFlight, 1) {
                    await appends.next()
                    inFlight -= 1
                }
                let params = TalkSessionAppendAudioParams(
                    sessionId: chunk.sessionId, audioBase64: Self.base64(chunk.samples), timestamp: chunk.timestamp)
                let owner = owner
                let generation = chunk.generation
                do {
                    let pendingAnswer = try await session.start(
                        OperatorMethod.talkSessionAppendAudio.rawValue, params: try WireJSON(encoding: params),
                        timeout: configuration.appendTimeout)
                    appends.addTask {
                        do {
                            _ = try await pendingAnswer.response()
                        } catch {
                            await owner.yield(.appendFailed(generation: generation, "\(error)"))
                        }
                    }
                    inFlight += 1
                } catch {
                    await owner.yield(.appendFailed(generation: generation, "\(error)"))
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
