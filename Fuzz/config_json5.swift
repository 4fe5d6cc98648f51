// libFuzzer harness for the config file reader: JSON5Parser.parseDocument
// (Sources/ClawTalkSupport/JSON/JSON5Parser.swift, JSON5Scanner*.swift) and
// ConfigLoader.settings(fromFileText:path:) (Sources/ClawTalkSupport/Config/ConfigLoader+File.swift),
// which maps the document onto the setting descriptors and checks every value.
//
// Input: one option byte (bit 0: a text of only comments is an empty object, as for the config
// file), then the file's bytes (files that are not UTF-8 are rejected before parsing). Checks
// besides traps and sanitizer findings: a parsed value written as JSON5 (json5Text) parses to the
// same value; errors carry a position from line 1, column 1; settings read from a file, written
// back as a JSON5 file, read back to the same settings.
import ClawTalkSupport

/// libFuzzer's entry point: runs one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let emptyIsObject = data[0] & 1 != 0
    guard let text = String(validating: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    else { return 0 }

    do {
        let document = try JSON5Parser.parseDocument(text, emptyDocument: emptyIsObject ? .object([:]) : nil)
        let written = document.value.json5Text
        let again: JSONValue
        do {
            again = try JSON5Parser.parse(written)
        } catch {
            fatalError("json5Text of a parsed value does not parse: \(error)")
        }
        precondition(same(again, document.value), "JSON5 round trip changed the value")
    } catch {
        precondition(error.line >= 1 && error.column >= 1, "error position \(error.position)")
    }

    let settings: Settings
    do {
        settings = try ConfigLoader.settings(fromFileText: text, path: "fuzz.json5")
    } catch {
        _ = error.description
        return 0
    }
    // Every setting, nested into its sections, as a config file of its own.
    var root = JSONObject()
    for descriptor in SettingDescriptor.all {
        insert(descriptor.value(in: settings).jsonValue, at: descriptor.section, name: descriptor.name, into: &root)
    }
    let file = JSONValue.object(root).json5Text
    let reread: Settings
    do {
        reread = try ConfigLoader.settings(fromFileText: file, path: "fuzz.json5")
    } catch {
        fatalError("settings written back are rejected: \(error)")
    }
    for descriptor in SettingDescriptor.all {
        precondition(
            same(descriptor.value(in: reread).jsonValue, descriptor.value(in: settings).jsonValue),
            "\(descriptor.key) changed on the way back")
    }
    return 0
}

private func insert(_ value: JSONValue, at section: [String], name: String, into object: inout JSONObject) {
    guard let first = section.first else {
        object[name] = value
        return
    }
    var inner: JSONObject
    if case .object(let existing)? = object[first] { inner = existing } else { inner = JSONObject() }
    insert(value, at: Array(section.dropFirst()), name: name, into: &inner)
    object[first] = .object(inner)
}

/// Equality where NaN equals NaN (JSON5 can write it; `==` says NaN differs from itself).
private func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.double(let x), .double(let y)): return x == y || (x.isNaN && y.isNaN)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(same)
    case (.object(let x), .object(let y)):
        return x.keys == y.keys && zip(x.members, y.members).allSatisfy { same($0.value, $1.value) }
    default: return a == b
    }
}
