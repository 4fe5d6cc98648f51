/// Typed constructors for the table in `SettingDescriptor+Table.swift`: each binds a key to a
/// key path of the matching Swift type, so a row cannot read or write the wrong field type.
extension SettingDescriptor {
    /// A key path into ``Settings`` that may be captured by `@Sendable` accessors.
    typealias SettingsPath<Value> = any WritableKeyPath<Settings, Value> & Sendable

    typealias Refinement = @Sendable (SettingValue) -> Result<SettingValue, SettingRejection>

    static func flag(_ key: String, _ path: SettingsPath<Bool>, _ doc: String)
        -> SettingDescriptor
    {
        SettingDescriptor(
            key: key, kind: .bool, doc: doc, unit: nil, isSecret: false, isOptional: false, example: nil,
            valuesHint: nil,
            read: { .bool($0[keyPath: path]) },
            write: { settings, value in if case .bool(let b) = value { settings[keyPath: path] = b } },
            refine: nil)
    }

    static func integer(
        _ key: String, _ path: SettingsPath<Int>, unit: String?, range: ClosedRange<Int>,
        _ doc: String, refine: Refinement? = nil
    ) -> SettingDescriptor {
        SettingDescriptor(
            key: key, kind: .integer(range), doc: doc, unit: unit, isSecret: false, isOptional: false, example: nil,
            valuesHint: nil,
            read: { .int($0[keyPath: path]) },
            write: { settings, value in if case .int(let i) = value { settings[keyPath: path] = i } },
            refine: refine)
    }

    static func optionalInteger(
        _ key: String, _ path: SettingsPath<Int?>, unit: String?, range: ClosedRange<Int>,
        example: String, _ doc: String
    ) -> SettingDescriptor {
        SettingDescriptor(
            key: key, kind: .integer(range), doc: doc, unit: unit, isSecret: false, isOptional: true, example: example,
            valuesHint: nil,
            read: { $0[keyPath: path].map { .int($0) } ?? .null },
            write: { settings, value in
                if case .int(let i) = value { settings[keyPath: path] = i } else { settings[keyPath: path] = nil }
            },
            refine: nil)
    }

    static func text(
        _ key: String, _ path: SettingsPath<String>, _ doc: String,
        valuesHint: String? = nil, refine: Refinement? = nil
    ) -> SettingDescriptor {
        SettingDescriptor(
            key: key, kind: .string, doc: doc, unit: nil, isSecret: false, isOptional: false, example: nil,
            valuesHint: valuesHint,
            read: { .string($0[keyPath: path]) },
            write: { settings, value in if case .string(let s) = value { settings[keyPath: path] = s } },
            refine: refine)
    }

    static func optionalText(
        _ key: String, _ path: SettingsPath<String?>, secret: Bool = false,
        example: String, _ doc: String, valuesHint: String? = nil, refine: Refinement? = nil
    ) -> SettingDescriptor {
        SettingDescriptor(
            key: key, kind: .string, doc: doc, unit: nil, isSecret: secret, isOptional: true, example: example,
            valuesHint: valuesHint,
            read: { $0[keyPath: path].map { .string($0) } ?? .null },
            write: { settings, value in
                if case .string(let s) = value { settings[keyPath: path] = s } else { settings[keyPath: path] = nil }
            },
            refine: refine)
    }

    static func choice<E: RawRepresentable & CaseIterable & Sendable>(
        _ key: String, _ path: SettingsPath<E>, _ doc: String
    ) -> SettingDescriptor where E.RawValue == String {
        SettingDescriptor(
            key: key, kind: .choice(E.allCases.map(\.rawValue)), doc: doc, unit: nil, isSecret: false,
            isOptional: false, example: nil, valuesHint: nil,
            read: { .string($0[keyPath: path].rawValue) },
            write: { settings, value in
                if case .string(let s) = value, let e = E(rawValue: s) { settings[keyPath: path] = e }
            },
            refine: nil)
    }

    static func chime(_ key: String, _ path: SettingsPath<ChimeSource>, _ doc: String)
        -> SettingDescriptor
    {
        SettingDescriptor(
            key: key, kind: .string, doc: doc, unit: nil, isSecret: false, isOptional: false, example: nil,
            valuesHint: "builtin, none, or the path of a WAV file (absolute or ~/…)",
            read: { .string($0[keyPath: path].configValue) },
            write: { settings, value in
                if case .string(let s) = value, let chime = ChimeSource(configValue: s) {
                    settings[keyPath: path] = chime
                }
            },
            refine: { value in
                guard case .string(let s) = value, ChimeSource(configValue: s) != nil else {
                    return .failure(SettingRejection(reason: "must be builtin, none, or an absolute or ~/ path"))
                }
                return .success(value)
            })
    }

    static func textListMap(_ key: String, _ path: SettingsPath<[String: [String]]>, example: String, _ doc: String)
        -> SettingDescriptor
    {
        SettingDescriptor(
            key: key, kind: .textListMap, doc: doc, unit: nil, isSecret: false, isOptional: false,
            example: example, valuesHint: nil,
            read: { .textListMap($0[keyPath: path]) },
            write: { settings, value in if case .textListMap(let m) = value { settings[keyPath: path] = m } },
            refine: nil)
    }

    static func numberMap(
        _ key: String, _ path: SettingsPath<[String: Double]>, range: ClosedRange<Double>,
        example: String, _ doc: String
    ) -> SettingDescriptor {
        SettingDescriptor(
            key: key, kind: .numberMap(range), doc: doc, unit: nil, isSecret: false, isOptional: false,
            example: example, valuesHint: nil,
            read: { .numberMap($0[keyPath: path]) },
            write: { settings, value in if case .numberMap(let m) = value { settings[keyPath: path] = m } },
            refine: nil)
    }
}
