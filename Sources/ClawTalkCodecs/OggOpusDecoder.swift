internal import COpusFile
public import ClawTalkAudio
public import Foundation

/// Owner of one libopusfile `OggOpusFile` reading an in-memory Ogg Opus clip; decodes to 48 kHz
/// s16 (Opus always decodes at 48 kHz; the header's "input rate" is informational only).
///
/// The clip is opened as an **unseekable** stream through `op_open_callbacks` over the decoder's
/// own copy of the bytes, rather than with `op_open_memory`: a seekable open scans the end of
/// the file and rejects a clip cut short (`OP_EBADTIMESTAMP`), while streaming decodes every
/// complete page that is there. Mono streams stay mono; everything else is read with
/// `op_read_stereo` (libopusfile's own downmix), which also copes with chained links that change
/// channel count. A hole in the page sequence (`OP_HOLE`, lost or corrupt pages) is skipped and
/// counted in ``holes``. Not thread-safe: one thread or lane at a time.
public final class OggOpusDecoder {
    /// Read position over the owned bytes, handed to libopusfile's read callback.
    private struct Source {
        var base: UnsafeRawPointer
        var count: Int
        var position: Int
    }

    private let file: OpaquePointer
    private let bytes: UnsafeMutableRawBufferPointer
    private let source: UnsafeMutablePointer<Source>
    private let scratch: UnsafeMutableBufferPointer<Int16>
    /// The PCM format ``read()`` produces: 48 kHz, mono for mono streams, else stereo.
    public let format: AudioFormat
    /// Gaps (`OP_HOLE`) met while reading: data was missing or corrupt there.
    public private(set) var holes = 0
    /// True when the bytes stop inside an Ogg page or before the end-of-stream page.
    public let isTruncated: Bool

    /// Opens an Ogg Opus stream held in memory (the bytes are copied).
    public init(data: Data) throws {
        guard !data.isEmpty else { throw CodecError.oggOpus(message: "empty input") }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 1)
        bytes.copyBytes(from: data)
        let source = UnsafeMutablePointer<Source>.allocate(capacity: 1)
        source.initialize(to: Source(base: UnsafeRawPointer(bytes.baseAddress!), count: bytes.count, position: 0))
        var callbacks = OpusFileCallbacks(
            read: { stream, buffer, wanted in
                guard let stream, let buffer, wanted > 0 else { return 0 }
                let source = stream.assumingMemoryBound(to: Source.self)
                let count = min(Int(wanted), source.pointee.count - source.pointee.position)
                buffer.update(
                    from: (source.pointee.base + source.pointee.position).assumingMemoryBound(to: UInt8.self),
                    count: count)
                source.pointee.position += count
                return Int32(count)
            },
            seek: nil, tell: nil, close: nil)
        var rc: Int32 = 0
        guard let file = op_open_callbacks(source, &callbacks, nil, 0, &rc) else {
            source.deallocate()
            bytes.deallocate()
            throw CodecError.oggOpus(message: Self.message(rc))
        }
        self.file = file
        self.bytes = bytes
        self.source = source
        format = AudioFormat(sampleRate: 48000, channels: op_channel_count(file, -1) == 1 ? 1 : 2)
        isTruncated = !Self.endsWithCompleteLastPage(UnsafeRawBufferPointer(bytes))
        // 120 ms of stereo at 48 kHz is the most one op_read_stereo call returns.
        scratch = .allocate(capacity: 5760 * 2)
    }

    deinit {
        op_free(file)
        source.deallocate()
        bytes.deallocate()
        scratch.deallocate()
    }

    /// Decodes the next packet's worth of PCM; nil at the end of the stream.
    public func read() throws -> [Int16]? {
        while true {
            let frames = op_read_stereo(file, scratch.baseAddress, Int32(scratch.count))
            if frames == OP_HOLE {
                holes += 1
                continue
            }
            guard frames >= 0 else { throw CodecError.oggOpus(message: Self.message(frames)) }
            guard frames > 0 else { return nil }
            let stereo = scratch[0..<(Int(frames) * 2)]
            guard format.channels == 1 else { return Array(stereo) }
            // A mono link comes back duplicated, so averaging restores it exactly.
            return (0..<Int(frames)).map { Int16((Int32(scratch[2 * $0]) + Int32(scratch[2 * $0 + 1])) / 2) }
        }
    }

    /// Decodes everything left in the stream.
    public func decodeAll() throws -> PCMBuffer {
        var pcm = PCMBuffer(format: format)
        while let block = try read() {
            pcm.append(contentsOf: block)
        }
        return pcm
    }

    /// Decodes a whole Ogg Opus clip held in memory.
    public static func decode(_ data: Data) throws -> PCMBuffer {
        try OggOpusDecoder(data: data).decodeAll()
    }

    /// Walks the Ogg page headers: true when the last page is complete, flagged end-of-stream and
    /// followed by nothing. Stops (false) at the first place that is not a page boundary.
    static func endsWithCompleteLastPage(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        var lastFlags: UInt8 = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 27, bytes[offset] == 0x4F, bytes[offset + 1] == 0x67,
                bytes[offset + 2] == 0x67, bytes[offset + 3] == 0x53
            else { return false }
            let segments = Int(bytes[offset + 26])
            guard bytes.count - offset >= 27 + segments else { return false }
            let body = (0..<segments).reduce(0) { $0 + Int(bytes[offset + 27 + $1]) }
            lastFlags = bytes[offset + 5]
            offset += 27 + segments + body
        }
        return offset == bytes.count && lastFlags & 0x04 != 0
    }

    /// Readable text for libopusfile's `OP_*` codes.
    static func message(_ code: Int32) -> String {
        switch code {
        case OP_FALSE: "request did not succeed (OP_FALSE)"
        case OP_EOF: "unexpected end of file (OP_EOF)"
        case OP_HOLE: "gap in the stream, data missing or corrupt (OP_HOLE)"
        case OP_EREAD: "read error (OP_EREAD)"
        case OP_EFAULT: "internal error or out of memory (OP_EFAULT)"
        case OP_EIMPL: "stream uses an unimplemented feature (OP_EIMPL)"
        case OP_EINVAL: "invalid argument (OP_EINVAL)"
        case OP_ENOTFORMAT: "not an Ogg Opus stream (OP_ENOTFORMAT)"
        case OP_EBADHEADER: "malformed Opus header (OP_EBADHEADER)"
        case OP_EVERSION: "unsupported Opus header version (OP_EVERSION)"
        case OP_ENOTAUDIO: "stream is not audio (OP_ENOTAUDIO)"
        case OP_EBADPACKET: "undecodable Opus packet (OP_EBADPACKET)"
        case OP_EBADLINK: "corrupt link between chained streams (OP_EBADLINK)"
        case OP_ENOSEEK: "stream is not seekable (OP_ENOSEEK)"
        case OP_EBADTIMESTAMP: "invalid granule position (OP_EBADTIMESTAMP)"
        default: "opusfile error \(code)"
        }
    }
}

/// Explicitly not Sendable: an OggOpusFile must stay on one thread at a time.
@available(*, unavailable)
extension OggOpusDecoder: Sendable {}
