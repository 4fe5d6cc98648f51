extension ConfigLoader {
    /// Applies a config file's text to `settings`, recording `.file(path)` as the source of
    /// every key it sets. A text with only whitespace and comments sets nothing.
    public static func apply(
        fileText: String, path: String, to settings: inout Settings, sources: inout [String: SettingSource]
    ) throws(ConfigError) {
        let document: JSON5Document
        do {
            document = try JSON5Parser.parseDocument(fileText, emptyDocument: .object([:]))
        } catch {
            throw .syntax(path: path, line: error.line, column: error.column, message: error.message)
        }
        guard case .object(let root) = document.value else {
            throw .wrongType(
                key: "(top level)", expected: "object", found: document.value.typeName, source: .file(path), line: 1)
        }
        try apply(object: root, prefix: [], document: document, path: path, to: &settings, sources: &sources)
    }

    /// Parses a config file's text on top of the defaults (for tests and `clawtalk doctor --file`).
    public static func settings(fromFileText text: String, path: String) throws(ConfigError) -> Settings {
        var settings = Settings.defaults
        var sources: [String: SettingSource] = [:]
        try apply(fileText: text, path: path, to: &settings, sources: &sources)
        return settings
    }

    private static func apply(
        object: JSONObject, prefix: [String], document: JSON5Document, path: String, to settings: inout Settings,
        sources: inout [String: SettingSource]
    ) throws(ConfigError) {
        for member in object.members {
            let keyPath = prefix + [member.key]
            let key = keyPath.joined(separator: ".")
            let line = document.position(ofKey: keyPath)?.line
            if let descriptor = SettingDescriptor.byKey[key] {
                let value: SettingValue
                do {
                    value = try descriptor.decode(json: member.value)
                } catch {
                    throw ConfigLoader.error(error, descriptor: descriptor, source: .file(path), line: line)
                }
                descriptor.write(&settings, value)
                sources[key] = .file(path)
            } else if SettingDescriptor.sectionKeys.contains(key) {
                guard case .object(let section) = member.value else {
                    throw .wrongType(
                        key: key, expected: "object (a settings section)", found: member.value.typeName,
                        source: .file(path), line: line)
                }
                try apply(
                    object: section, prefix: keyPath, document: document, path: path, to: &settings,
                    sources: &sources)
            } else {
                let candidates = SettingDescriptor.all.map(\.key) + SettingDescriptor.sectionKeys
                throw .unknownKey(
                    key: key, file: path, line: line,
                    suggestion: EditDistance.suggestion(for: key, among: candidates))
            }
        }
    }
}
