public import ClawTalkCommand
import Foundation

extension BenchCommand {
    /// `clawtalk bench compare`.
    public struct Compare: Command {
        /// The command name.
        public static let name = "compare"
        /// One line for OVERVIEW.
        public static let abstract = "Compare two report.json files and flag regressions."
        /// What is compared.
        public static let discussion = """
            Prints, per metric and condition, the headline figure of both runs (p95 of a \
            distribution, else the value), the change and a verdict. Every metric is better \
            lower. Exits 1 when a figure grew by more than --tolerance (and, for milliseconds, \
            by more than 2 ms); an unmet goal alone is not a regression. Compare runs of the \
            same suite on the same machine.
            """
        /// The options.
        public static let options: [OptionSpec] = [
            .option(
                "tolerance", valueName: "percent", type: .int, help: "Allowed growth before a regression.",
                default: "10"),
            .positional("base", help: "The earlier report.json."),
            .positional("new", help: "The report.json to check."),
        ]

        let base: String
        let new: String
        let tolerance: Int

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            base = parsed.string("base") ?? ""
            new = parsed.string("new") ?? ""
            tolerance = parsed.int("tolerance") ?? 10
        }

        /// The tolerance is a percentage.
        public func validate() throws {
            guard (0...1000).contains(tolerance) else {
                throw CLIError.validationFailed("--tolerance must be between 0 and 1000 (percent)")
            }
        }

        /// Reads both reports and prints the comparison.
        public func run(context: CommandContext) async throws -> Int32 {
            let comparison = BenchComparison(
                base: try Self.read(base), new: try Self.read(new), tolerance: Double(tolerance) / 100)
            context.io.writeOutput(comparison.markdown)
            return comparison.hasRegression ? ExitCode.failure.rawValue : ExitCode.success.rawValue
        }

        static func read(_ path: String) throws -> BenchReport {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError.validationFailed("cannot read '\(path)': no such file or not readable")
            }
            do {
                return try JSONDecoder().decode(BenchReport.self, from: data)
            } catch {
                throw CLIError.validationFailed("'\(path)' is not a clawtalk bench report.json: \(error)")
            }
        }
    }
}
