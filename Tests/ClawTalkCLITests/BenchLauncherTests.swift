import ClawTalkCLI
import ClawTalkTesting
import Foundation
import Testing

/// `clawtalk bench …` runs `clawtalk-bench` from beside the binary; the node never links it.
@Suite struct BenchLauncherTests {
    @Test func benchAndHelpBenchAreHandedOverAndNothingElseIs() {
        #expect(BenchLauncher.benchArguments(["clawtalk", "bench", "loopback", "--quick"]) == ["loopback", "--quick"])
        #expect(BenchLauncher.benchArguments(["clawtalk", "bench"]) == [])
        #expect(BenchLauncher.benchArguments(["clawtalk", "help", "bench", "soak"]) == ["soak", "--help"])
        #expect(BenchLauncher.benchArguments(["clawtalk", "run", "bench"]) == nil)
        #expect(BenchLauncher.benchArguments(["clawtalk", "--config", "bench"]) == nil)
        #expect(BenchLauncher.benchArguments(["clawtalk"]) == nil)
    }

    @Test func withoutTheBenchExecutableBesideItTheCommandSaysWhatIsMissing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ct-launcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let alone = folder.appendingPathComponent("clawtalk")
        // Written close-on-exec: a copy that a child of another test inherited open for writing
        // could not be run ("Text file busy").
        try ExecutableFile.copy(try ClawTalkBinary.require().path, to: alone.path)
        let process = Process()
        let (output, error) = (Pipe(), Pipe())
        process.executableURL = alone
        process.arguments = ["bench", "--help"]
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let said = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 69)
        #expect(said.contains("clawtalk bench needs \(folder.path)/clawtalk-bench, which is missing"))
        #expect(printed.isEmpty)
    }

    @Test func theBenchHelpComesFromTheBenchExecutable() async throws {
        let result = try await ClawTalkBinary.run(["bench", "--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("USAGE: clawtalk bench <subcommand>"))
        #expect(result.output.contains("soak"))
    }
}
