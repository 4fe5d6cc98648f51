import ClawTalkSupport
import Synchronization

/// Collects the lines a ``LogOutput`` writes, for format assertions.
final class LineCollector: Sendable {
    private let storage = Mutex<[String]>([])

    /// An output appending each written line (newline stripped) here.
    var output: LogOutput {
        LogOutput { text in self.append(text) }
    }

    private func append(_ text: String) {
        storage.locked { $0.append(String(text.dropLast())) }
    }

    /// Lines written so far, without their newline.
    var lines: [String] { storage.locked { $0 } }
}
