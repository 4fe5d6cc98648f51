import ClawTalkCommand
import Testing

@Suite("Phase 3: conversion")
struct ArgumentConverterTests {
    static let count = OptionSpec.option("count", type: .int, help: "Count.")
    static let gain = OptionSpec.option("gain", valueName: "dB", type: .double, help: "Gain.")
    static let level = OptionSpec.option(
        "level", valueName: "level", help: "Level.", allowedValues: ["debug", "info"])
    static let name = OptionSpec.positional("name", help: "Name.")

    static let conversions: [(OptionSpec, String, ArgumentValue)] = [
        (count, "3", .int(3)),
        (count, "-12", .int(-12)),
        (gain, "-6.5", .double(-6.5)),
        (gain, "2", .double(2)),
        (level, "info", .string("info")),
        (name, "any text", .string("any text")),
        (name, "", .string("")),
    ]

    @Test(arguments: conversions)
    func converts(spec: OptionSpec, text: String, value: ArgumentValue) throws {
        #expect(try ArgumentConverter.convert(text, spec: spec, position: 0) == value)
    }

    static let rejections: [(OptionSpec, String, CLIError)] = [
        (
            count, "three",
            .invalidValue(option: "--count <count>", value: "three", reason: "expected an integer", position: 4)
        ),
        (
            count, "1.5",
            .invalidValue(option: "--count <count>", value: "1.5", reason: "expected an integer", position: 4)
        ),
        (count, "", .invalidValue(option: "--count <count>", value: "", reason: "expected an integer", position: 4)),
        (gain, "loud", .invalidValue(option: "--gain <dB>", value: "loud", reason: "expected a number", position: 4)),
        (gain, "inf", .invalidValue(option: "--gain <dB>", value: "inf", reason: "expected a number", position: 4)),
        (gain, "nan", .invalidValue(option: "--gain <dB>", value: "nan", reason: "expected a number", position: 4)),
        (
            level, "Info",
            .invalidValue(option: "--level <level>", value: "Info", reason: "expected one of debug, info", position: 4)
        ),
    ]

    @Test(arguments: rejections)
    func rejects(spec: OptionSpec, text: String, error: CLIError) {
        #expect(throws: error) { try ArgumentConverter.convert(text, spec: spec, position: 4) }
    }

    @Test func convertsEveryOccurrenceAndKeepsFlags() throws {
        let specs = [Self.count, .flag("verbose", help: "Verbose."), .repeating("tag", help: "Tag.")]
        let matched = MatchedArguments([
            "count": [.init("1", position: 1), .init("2", position: 3)],
            "verbose": [.init(nil, position: 0)],
            "tag": [.init("a", position: 5), .init("b", position: 7)],
        ])
        let parsed = try ArgumentConverter.convert(matched, specs: specs)
        #expect(parsed.values["count"] == [.int(1), .int(2)])
        #expect(parsed.values["verbose"] == [.flag])
        #expect(parsed.values["tag"] == [.string("a"), .string("b")])
    }

    @Test func reportsThePositionOfTheBadOccurrence() {
        let matched = MatchedArguments(["count": [.init("1", position: 1), .init("x", position: 6)]])
        #expect(
            throws: CLIError.invalidValue(
                option: "--count <count>", value: "x", reason: "expected an integer", position: 6)
        ) {
            try ArgumentConverter.convert(matched, specs: [Self.count])
        }
    }
}
