import ClawTalkSupport
import Foundation
import Testing

@testable import ClawTalkSpeech

/// Which command installs the speech pieces, where its installer is, and what is missing.
@Suite struct SpeechSetupTests {
    @Test func aBinaryBuiltInAClonePointsAtItsRepository() {
        let cases: [(String, String?)] = [
            ("/home/u/clawtalk/.build/release/clawtalk", "/home/u/clawtalk"),
            ("/home/u/clawtalk/.build/x86_64-unknown-linux-gnu/release/clawtalk", "/home/u/clawtalk"),
            ("/usr/bin/clawtalk", nil),
            ("/opt/clawtalk/bin/clawtalk", nil),
        ]
        for (executable, repo) in cases {
            #expect(SpeechSetup.sourceTree(executable: URL(fileURLWithPath: executable))?.path == repo, "\(executable)")
        }
    }

    @Test func theFixIsClawtalkSetupForAnInstalledBinaryAndTheScriptInAClone() {
        let installed = URL(fileURLWithPath: "/usr/bin/clawtalk")
        let built = URL(fileURLWithPath: "/src/clawtalk/.build/release/clawtalk")
        #expect(SpeechSetup.command(executable: installed) == "clawtalk setup")
        #expect(
            SpeechSetup.command(inSourceTree: "scripts/fetch-wake-model", executable: installed) == "clawtalk setup")
        #expect(SpeechSetup.command(executable: built) == "scripts/setup")
        #expect(
            SpeechSetup.command(inSourceTree: "scripts/fetch-wake-model", executable: built)
                == "scripts/fetch-wake-model")
    }

    @Test func theInstallerIsLookedForInTheCloneThenBesideTheBinaryThenInUsrShare() {
        #expect(
            SpeechSetup.installerCandidates(executable: URL(fileURLWithPath: "/usr/bin/clawtalk"))
                == ["/usr/share/clawtalk/python/clawtalk_setup.py"])
        #expect(
            SpeechSetup.installerCandidates(executable: URL(fileURLWithPath: "/opt/ct/bin/clawtalk"))
                == ["/opt/ct/share/clawtalk/python/clawtalk_setup.py", "/usr/share/clawtalk/python/clawtalk_setup.py"])
        let inClone = SpeechSetup.installerCandidates(
            executable: URL(fileURLWithPath: "/src/ct/.build/release/clawtalk"))
        #expect(inClone.first == "/src/ct/python/clawtalk_setup.py")
    }

    /// The repository's installer is where a test binary (built in .build) looks first.
    @Test func theTestBinaryFindsTheRepositorysInstaller() {
        let first = SpeechSetup.installerCandidates().first ?? ""
        #expect(first.hasSuffix("/python/clawtalk_setup.py"))
        #expect(FileManager.default.fileExists(atPath: first), "\(first)")
    }

    @Test func everyAbsentPieceIsListedAndALauncherMustBeExecutable() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ct-setup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let paths = XDGPaths(environment: ["HOME": root, "XDG_DATA_HOME": root])
        #expect(SpeechSetup.missing(paths: paths) == SpeechSetup.pieces)

        for piece in SpeechSetup.pieces {
            let path = paths.dataDirectory + "/" + piece.path
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        }
        // The launchers exist but cannot be run: still missing.
        #expect(
            SpeechSetup.missing(paths: paths).map(\.path) == ["venv/bin/clawtalk-speech", "venv/bin/clawtalk-wake"])
        for name in ["clawtalk-speech", "clawtalk-wake"] {
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o755], ofItemAtPath: paths.dataDirectory + "/venv/bin/" + name)
        }
        #expect(SpeechSetup.missing(paths: paths).isEmpty)
    }
}
