import ClawTalkSupport

/// The speech-to-text and wake-word parts of a Wyoming server's `info` answer to `describe`.
public struct WyomingInfo: Sendable, Hashable {
    /// One ASR program the server offers (e.g. `faster-whisper`).
    public struct Program: Sendable, Hashable {
        /// Program name.
        public var name: String
        /// Program version, if given.
        public var version: String?
        /// Whether the server reports it installed (absent counts as installed).
        public var installed: Bool
        /// The program's models.
        public var models: [Model]

        /// Creates a program description.
        public init(name: String, version: String? = nil, installed: Bool = true, models: [Model] = []) {
            self.name = name
            self.version = version
            self.installed = installed
            self.models = models
        }
    }

    /// One model of a program.
    public struct Model: Sendable, Hashable {
        /// Model name as the server gives it (a name or a path).
        public var name: String
        /// Language codes the model accepts (`en`, `de`, …); empty when not listed.
        public var languages: [String]

        /// Creates a model description.
        public init(name: String, languages: [String] = []) {
            self.name = name
            self.languages = languages
        }

        /// A short name: the last path component without a `faster-whisper-`/`whisper-` prefix
        /// (`/…/models/whisper-base` → `base`).
        public var shortName: String {
            var short = name.split(separator: "/").last.map(String.init) ?? name
            for prefix in ["faster-whisper-", "whisper-"] where short.hasPrefix(prefix) && short.count > prefix.count {
                short.removeFirst(prefix.count)
                break
            }
            return short
        }
    }

    /// The ASR programs, in the server's order.
    public var asr: [Program]
    /// The wake-word programs (`clawtalk-wake`, `openwakeword`, …), in the server's order.
    public var wake: [Program]

    /// Creates an info value.
    public init(asr: [Program], wake: [Program] = []) {
        self.asr = asr
        self.wake = wake
    }

    /// Reads the `asr` list of an `info` event; throws when the event is not `info`.
    public init(event: WyomingEvent) throws(SpeechError) {
        guard event.type == "info" else {
            throw .wyomingProtocol("expected 'info' in answer to 'describe', got '\(event.type)'")
        }
        asr = try Self.programs(event.data["asr"], kind: "asr")
        wake = try Self.programs(event.data["wake"], kind: "wake")
    }

    private static func programs(_ list: JSONValue?, kind: String) throws(SpeechError) -> [Program] {
        var programs: [Program] = []
        for item in list?.arrayValue ?? [] {
            guard let object = item.objectValue, let name = object["name"]?.stringValue else {
                throw .wyomingProtocol("an '\(kind)' entry of 'info' has no name")
            }
            let models = (object["models"]?.arrayValue ?? []).compactMap { model -> Model? in
                guard let object = model.objectValue, let name = object["name"]?.stringValue else { return nil }
                let languages = (object["languages"]?.arrayValue ?? []).compactMap(\.stringValue)
                return Model(name: name, languages: languages)
            }
            programs.append(
                Program(
                    name: name, version: object["version"]?.stringValue,
                    installed: object["installed"]?.boolValue ?? true, models: models))
        }
        return programs
    }

    /// The first installed program with a model: what a plain `transcribe` request uses.
    public var primary: (program: Program, model: Model)? {
        for program in asr where program.installed {
            if let model = program.models.first { return (program, model) }
        }
        return nil
    }

    /// `faster-whisper base`: the primary program and model, or the first program's name.
    public var summary: String? {
        if let (program, model) = primary { return "\(program.name) \(model.shortName)" }
        if let program = wake.first {
            return program.models.first.map { "\(program.name) \($0.shortName)" } ?? program.name
        }
        return asr.first?.name
    }

    /// Whether the primary model accepts `languageCode` (true when the server lists none).
    public func supports(languageCode: String) -> Bool {
        guard let model = primary?.model, !model.languages.isEmpty else { return true }
        return model.languages.contains { $0.lowercased() == languageCode.lowercased() }
    }
}
