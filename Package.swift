// swift-tools-version: 6.2
// clawtalk — the Linux voice and Talk-mode node for OpenClaw.
//
// One package, no outside Swift packages. C libraries come from Debian's -dev packages
// (`scripts/setup` installs them); each sits behind one system-library target and, where Swift
// cannot call the API directly (C++, variadic functions, macros), one small shim target.
import PackageDescription

/// Applied to every Swift target: explicit `any`, internal imports by default (so C modules
/// never leak into public API) and member visibility that follows imports.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// A system library found through pkg-config, with the Debian package that provides it.
func system(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "clawtalk",
    products: [
        .executable(name: "clawtalk", targets: ["clawtalk"]),
        // `clawtalk bench` runs this executable (found beside `clawtalk`): the bench needs the
        // test gateway, which the node itself never links.
        .executable(name: "clawtalk-bench", targets: ["clawtalk-bench"]),
    ],
    targets: [
        // ---- C boundary: system libraries (module map + shim.h, nothing else) ----
        // libpulse's and webrtc-audio-processing's pkg-config files carry -D/-pthread flags that
        // SwiftPM refuses (a warning on every build), so these two are found without pkg-config:
        // the headers are in /usr/include and the module maps name the libraries.
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        system("COpus", pkgConfig: "opus", apt: ["libopus-dev"]),
        system("COpusFile", pkgConfig: "opusfile", apt: ["libopusfile-dev"]),
        system("CMpg123", pkgConfig: "libmpg123", apt: ["libmpg123-dev"]),
        system("CSoxr", pkgConfig: "soxr", apt: ["libsoxr-dev"]),
        system("CEspeakNG", pkgConfig: "espeak-ng", apt: ["libespeak-ng-dev"]),
        .systemLibrary(name: "CWebRTCAudioProcessing", providers: [.apt(["libwebrtc-audio-processing-dev"])]),
        system("CPocketSphinx", pkgConfig: "pocketsphinx", apt: ["libpocketsphinx-dev"]),
        system("COpenSSL", pkgConfig: "openssl", apt: ["libssl-dev"]),
        system("CLibWebSockets", pkgConfig: "libwebsockets", apt: ["libwebsockets-dev"]),
        // libdbus for desktop notifications (its pkg-config gives only -I flags).
        system("CDBus", pkgConfig: "dbus-1", apt: ["libdbus-1-dev"]),
        // libavahi-client for DNS-SD discovery; its pkg-config adds -D_REENTRANT, which SwiftPM
        // refuses, so it is found without pkg-config (headers in /usr/include).
        .systemLibrary(name: "CAvahi", providers: [.apt(["libavahi-client-dev"])]),

        // ---- C boundary: shims where Swift cannot call the API itself ----
        // WebRTC APM 0.3 is pure-virtual C++: an extern "C" create/process/destroy surface.
        // The include path and the two defines pkg-config would give are stated here.
        .target(
            name: "CAudioProcessing",
            dependencies: ["CWebRTCAudioProcessing"],
            cxxSettings: [
                .define("WEBRTC_POSIX"),
                .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD"),
                .unsafeFlags(["-I/usr/include/webrtc_audio_processing"]),
            ],
            linkerSettings: [.linkedLibrary("webrtc_audio_processing")]
        ),
        // opus_encoder_ctl is C-variadic: fixed-argument setters.
        .target(name: "COpusControl", dependencies: ["COpus"]),
        // cmd_ln_init is C-variadic: a decoder constructor taking plain arguments.
        .target(name: "CPocketSphinxShim", dependencies: ["CPocketSphinx"]),
        // Ed25519, SHA-256 and randomness over libcrypto (EVP needs macros and out-params).
        .target(name: "CCrypto", dependencies: ["COpenSSL"]),
        // libwebsockets client and (for the test gateway) server on its own service thread, with
        // leaf-certificate SHA-256 pinning: callback-heavy, so the C side owns the event loop.
        .target(name: "CWebSockets", dependencies: ["CLibWebSockets", "COpenSSL"]),
        // TFLite C API types only: the runtime is dlopen'ed, so a missing library is a clear
        // error at run time rather than a link failure.
        .target(name: "CTFLite", linkerSettings: [.linkedLibrary("dl")]),
        // Child processes that die with clawtalk (PR_SET_PDEATHSIG from one long-lived thread):
        // fork-to-exec must be async-signal-safe C.
        .target(name: "CProcess"),

        // ---- Swift modules ----
        .target(name: "CSanitizerHooks"),
        .target(name: "ClawTalkSupport", dependencies: ["CSanitizerHooks"], swiftSettings: strict),
        .target(name: "ClawTalkProtocol", dependencies: ["ClawTalkSupport"], swiftSettings: strict),
        .target(name: "ClawTalkAudio", dependencies: ["ClawTalkSupport"], swiftSettings: strict),
        .target(
            name: "ClawTalkCodecs",
            dependencies: [
                "ClawTalkAudio", "ClawTalkSupport", "CMpg123", "COpusFile", "COpus", "COpusControl",
                "CSoxr",
            ],
            swiftSettings: strict
        ),
        .target(
            name: "ClawTalkDevices",
            dependencies: ["ClawTalkAudio", "ClawTalkCodecs", "ClawTalkSupport", "CPulse", "CAudioProcessing"],
            swiftSettings: strict
        ),
        .target(
            name: "ClawTalkSpeech",
            dependencies: [
                "ClawTalkAudio", "ClawTalkSupport", "CEspeakNG", "CPocketSphinx", "CPocketSphinxShim",
                "CTFLite", "CCrypto", "CProcess",
            ],
            swiftSettings: strict
        ),
        .target(
            name: "ClawTalkGateway",
            dependencies: ["ClawTalkProtocol", "ClawTalkSupport", "CCrypto", "CLibWebSockets", "CWebSockets"],
            swiftSettings: strict
        ),
        // Talk features: push-to-talk, transcript delivery, reply tracking, speech output, Talk
        // mode. Pure state machines plus one actor per long-lived component; audio only through
        // protocols, so the flows test without a sound server.
        .target(
            name: "ClawTalkTalk",
            dependencies: [
                "ClawTalkGateway", "ClawTalkProtocol", "ClawTalkSpeech", "ClawTalkAudio", "ClawTalkSupport",
                "ClawTalkCodecs",
            ],
            swiftSettings: strict
        ),
        // Desktop integration: DNS-SD discovery (Avahi), notifications (D-Bus), systemd user units.
        .target(
            name: "ClawTalkDesktop",
            dependencies: ["ClawTalkGateway", "ClawTalkProtocol", "ClawTalkSupport", "CAvahi", "CDBus"],
            swiftSettings: strict
        ),
        // Protocol peers for tests (in-memory sockets, the test gateway); imported by tests and by
        // `clawtalk bench` (the gateway with fixed reply delays).
        .target(
            name: "ClawTalkTesting",
            dependencies: [
                "ClawTalkAudio", "ClawTalkGateway", "ClawTalkProtocol", "ClawTalkSupport", "ClawTalkDesktop",
                // `OutputCapture` for commands run in process.
                "ClawTalkCommand",
                // The installed Whisper server for wake tests (`WakeWhisper`).
                "ClawTalkSpeech",
            ],
            swiftSettings: strict
        ),
        // The command framework: the `Command` protocol, argument parsing, help and the
        // dispatcher with its exit codes (Foundation only), shared by `clawtalk` and `clawtalk-bench`.
        .target(name: "ClawTalkCommand", swiftSettings: strict),
        // The live node of `clawtalk run`: its services (gateway, microphone, wake, push-to-talk,
        // Talk mode, replies, status) and their composition, `LiveNode`.
        .target(
            name: "ClawTalkNode",
            dependencies: [
                "ClawTalkSupport", "ClawTalkAudio", "ClawTalkCodecs", "ClawTalkDevices", "ClawTalkSpeech",
                "ClawTalkProtocol", "ClawTalkGateway", "ClawTalkTalk", "ClawTalkDesktop",
                // Its errors say how the command line reports them (`CLIErrorConvertible`).
                "ClawTalkCommand",
                // The heap's figures (mallinfo2) for the `memory.heap` log.
                "CProcess",
            ],
            swiftSettings: strict
        ),
        // The command line: one command per file over the node's services.
        .target(
            name: "ClawTalkCLI",
            dependencies: [
                "ClawTalkCommand", "ClawTalkNode", "ClawTalkSupport", "ClawTalkAudio", "ClawTalkCodecs",
                "ClawTalkDevices", "ClawTalkSpeech", "ClawTalkProtocol", "ClawTalkGateway", "ClawTalkTalk", "ClawTalkDesktop",
            ],
            swiftSettings: strict
        ),
        // `clawtalk bench`'s engine (spec/benchmark.md): the wake, loopback, CPU, service and
        // soak benchmarks and their reports. It links the test gateway (talk.speak answered with
        // fixed delays, benchmark.md §1.3), so it is its own executable, not part of `clawtalk`.
        .target(
            name: "ClawTalkBench",
            dependencies: [
                "ClawTalkCommand", "ClawTalkNode", "ClawTalkTesting", "ClawTalkSupport", "ClawTalkAudio",
                "ClawTalkCodecs", "ClawTalkDevices", "ClawTalkSpeech", "ClawTalkProtocol", "ClawTalkGateway", "ClawTalkTalk",
            ],
            swiftSettings: strict
        ),
        // Test traits (`.audioRig`, `.avahiDaemon`: a resource's turn in a parallel run); test targets only,
        // since it imports Testing.
        .target(name: "ClawTalkTestTraits", swiftSettings: strict),
        // The executables are one file each: parse, compose, run (everything else is testable in
        // the libraries, which an executable target would not let tests import).
        .executableTarget(name: "clawtalk", dependencies: ["ClawTalkCLI"], swiftSettings: strict),
        .executableTarget(name: "clawtalk-bench", dependencies: ["ClawTalkBench"], swiftSettings: strict),

        // ---- Tests: one target per module ----
        .testTarget(
            name: "ClawTalkSupportTests", dependencies: ["ClawTalkSupport", "ClawTalkTesting"], swiftSettings: strict),
        .testTarget(
            name: "ClawTalkProtocolTests", dependencies: ["ClawTalkProtocol", "ClawTalkSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "ClawTalkAudioTests", dependencies: ["ClawTalkAudio", "ClawTalkSupport", "ClawTalkTesting"],
            swiftSettings: strict),
        .testTarget(
            name: "ClawTalkCodecsTests", dependencies: ["ClawTalkCodecs", "ClawTalkAudio", "ClawTalkTesting"],
            swiftSettings: strict),
        .testTarget(
            name: "ClawTalkDevicesTests",
            dependencies: ["ClawTalkDevices", "ClawTalkAudio", "ClawTalkSupport", "ClawTalkTesting", "ClawTalkTestTraits"],
            swiftSettings: strict),
        .testTarget(
            name: "ClawTalkSpeechTests",
            dependencies: ["ClawTalkSpeech", "ClawTalkAudio", "ClawTalkSupport", "ClawTalkTesting"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "ClawTalkGatewayTests",
            dependencies: ["ClawTalkGateway", "ClawTalkSupport", "ClawTalkProtocol", "ClawTalkTesting"],
            swiftSettings: strict),
        .testTarget(
            name: "ClawTalkTalkTests",
            dependencies: [
                "ClawTalkTalk", "ClawTalkTesting", "ClawTalkGateway", "ClawTalkProtocol", "ClawTalkAudio",
                "ClawTalkSupport", "ClawTalkSpeech",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClawTalkTestingTests",
            dependencies: ["ClawTalkAudio", "ClawTalkTesting", "ClawTalkGateway", "ClawTalkProtocol", "ClawTalkSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClawTalkDesktopTests",
            dependencies: [
                "ClawTalkDesktop", "ClawTalkGateway", "ClawTalkProtocol", "ClawTalkSupport", "ClawTalkTesting",
                "ClawTalkTestTraits",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClawTalkCommandTests", dependencies: ["ClawTalkCommand", "ClawTalkSupport", "ClawTalkTesting"],
            swiftSettings: strict),
        .testTarget(
            name: "ClawTalkBenchTests",
            dependencies: [
                "ClawTalkBench", "ClawTalkCommand", "ClawTalkNode", "ClawTalkSupport", "ClawTalkDevices",
                "ClawTalkTalk", "ClawTalkAudio",
                "ClawTalkSpeech", "ClawTalkTesting",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClawTalkNodeTests",
            dependencies: [
                "ClawTalkNode", "ClawTalkTesting", "ClawTalkSupport", "ClawTalkAudio", "ClawTalkDevices", "ClawTalkSpeech",
                "ClawTalkProtocol", "ClawTalkGateway", "ClawTalkTalk", "ClawTalkDesktop", "ClawTalkTestTraits",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClawTalkCLITests",
            dependencies: [
                "ClawTalkCLI", "ClawTalkCommand", "ClawTalkNode", "ClawTalkBench", "ClawTalkSupport",
                "ClawTalkProtocol", "ClawTalkGateway", "ClawTalkDevices",
                "ClawTalkTesting", "ClawTalkTalk", "ClawTalkAudio", "ClawTalkSpeech", "ClawTalkDesktop",
                "ClawTalkTestTraits",
            ],
            resources: [.copy("Snapshots")],
            swiftSettings: strict
        ),
    ],
    cxxLanguageStandard: .cxx17
)
