import ClawTalkCLI
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
        try FileManager.default.copyItem(at: try ClawTalkBinary.require(), to: alone)
        var process = Process()
        var (output, error) = (Pipe(), Pipe())
        // A child that another test forked while the copy was open for writing holds its write
        // descriptor until that child execs: running the copy meanwhile fails with ETXTBSY
        // ("Text file busy", seen once in a busy run). Tried again with a fresh process.
        for attempt in 1...100 {
            process = Process()
            (output, error) = (Pipe(), Pipe())
            process.executableURL = alone
            process.arguments = ["bench", "--help"]
            process.standardOutput = output
            process.standardError = error
            do {
                try process.run()
                break
            } catch let failure as NSError where Self.isTextFileBusy(failure) && attempt < 100 {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let said = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 69)
        #expect(said.contains("clawtalk bench needs \(folder.path)/clawtalk-bench, which is missing"))
        #expect(printed.isEmpty)
    }

    /// Whether `error` is ETXTBSY, directly or as Foundation's underlying error.
    static func isTextFileBusy(_ error: NSError) -> Bool {
        if error.domain == NSPOSIXErrorDomain && error.code == Int(ETXTBSY) { return true }
        return (error.userInfo[NSUnderlyingErrorKey] as? NSError).map(isTextFileBusy) ?? false
    }

    @Test func theBenchHelpComesFromTheBenchExecutable() throws {
        let result = try ClawTalkBinary.run(["bench", "--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("USAGE: clawtalk bench <subcommand>"))
        #expect(result.output.contains("soak"))
    }
}
