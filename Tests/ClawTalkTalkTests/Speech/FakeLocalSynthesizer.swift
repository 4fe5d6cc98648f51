import ClawTalkAudio
import ClawTalkSupport
import ClawTalkTalk
import Foundation
import Synchronization

/// A ``LocalSynthesizer`` that records each request and renders 100 ms of a 22050 Hz tone.
final class FakeLocalSynthesizer: LocalSynthesizer {
    /// One request.
    struct Request: Sendable, Equatable {
        var text: String
        var voice: String
        var rateWPM: Int
    }

    private let log = Mutex<[Request]>([])
    private let cancels = Mutex(0)
    let failure: String?

    init(failure: String? = nil) {
        self.failure = failure
    }

    var requests: [Request] { log.locked { $0 } }
    var texts: [String] { requests.map(\.text) }
    var cancelCount: Int { cancels.locked { $0 } }

    func synthesize(_ text: String, voice: String, rateWPM: Int) async throws -> PCMBuffer {
        log.locked { $0.append(Request(text: text, voice: voice, rateWPM: rateWPM)) }
        if let failure { throw FakeSynthesisError(message: failure) }
        let samples = (0..<2205).map { Int16(8000 * sin(Double($0) * 0.1)) }
        return PCMBuffer(format: AudioFormat(sampleRate: 22050), samples: samples)
    }

    func cancel() {
        cancels.locked { $0 += 1 }
    }
}

struct FakeSynthesisError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
