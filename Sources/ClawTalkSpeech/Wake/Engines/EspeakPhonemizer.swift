import Foundation

/// Phonemes for any English text from the `espeak-ng` command-line program
/// (`espeak-ng -q --ipa --sep=_ -v <voice>`), for words the pronunciation dictionary lacks.
///
/// It runs the program rather than calling libespeak-ng because espeak-ng's state is
/// process-global and owned by ``EspeakEngine`` (one per process, used for speech output): a
/// short-lived child process cannot disturb a synthesis in progress. Each call takes a few
/// milliseconds and happens only when the trigger list changes. `Sendable`: it holds only paths.
public struct EspeakPhonemizer: Sendable, Hashable {
    /// The program, looked up in `PATH` when it has no slash.
    public var executable: String
    /// espeak-ng voice whose rules spell the words (`en-us` matches the en-us acoustic model).
    public var voice: String

    /// A phonemizer running `executable` with `voice`.
    public init(executable: String = "espeak-ng", voice: String = "en-us") {
        self.executable = executable
        self.voice = voice
    }

    /// espeak-ng's IPA for `text`: phonemes separated by `_`, words by spaces, with stress marks.
    public func ipa(_ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : "/usr/bin/env")
        process.arguments = (executable.contains("/") ? [] : [executable]) + ["-q", "--ipa", "--sep=_", "-v", voice]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw WakeError.phonemizer(message: "cannot run \(executable): \(error.localizedDescription)")
        }
        // The text goes in on stdin, so nothing in it can be taken for an option.
        input.fileHandleForWriting.write(Data((text + "\n").utf8))
        try? input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw WakeError.phonemizer(message: "\(executable) exited with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// ARPAbet phones for `text` (see ``ARPAbet/fromIPA(_:)``); throws when espeak-ng gives
    /// nothing usable.
    public func arpabet(_ text: String) throws -> [String] {
        let ipa = try ipa(text)
        let (phones, _) = ARPAbet.fromIPA(ipa)
        guard !phones.isEmpty else {
            throw WakeError.phonemizer(message: "no phonemes for '\(text)' (espeak-ng wrote '\(ipa)')")
        }
        return phones
    }
}
