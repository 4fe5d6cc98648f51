import ClawTalkDesktop
import ClawTalkProtocol
import ClawTalkTalk

extension ControlResponse {
    /// The answer for a controller response.
    init(_ response: PTTResponse) {
        switch response {
        case .started(let captureId):
            self = .started(captureId)
        case .finished(let result):
            self.init(
                ok: true, captureId: result.captureId, status: result.status.rawValue, transcript: result.transcript,
                hasTranscript: true)
        case .failed(let failure):
            self = .failure(failure.description)
        }
    }
}
