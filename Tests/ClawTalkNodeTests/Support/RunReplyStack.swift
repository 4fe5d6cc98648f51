import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting

@testable import ClawTalkNode

/// `run`'s gateway service and reply services in full mode (node and operator connections)
/// against a test gateway in memory, with recording fakes for audio and espeak-ng.
struct RunReplyStack {
    let settings: Settings
    let state: StateDirectory
    let replies: ReplyServices
    let service: GatewayService

    init(
        gateway: TestGateway, home: TemporaryHome, audio: any AudioOutput = SayFlowTests.RecordingAudio(),
        configure: (inout Settings) -> Void = { _ in }
    ) throws {
        var settings = Settings()
        settings.gateway.url = SayFlowTests.url
        settings.gateway.token = "shared"
        settings.gateway.operator.enabled = true
        configure(&settings)
        self.settings = settings
        state = try StateDirectory(path: home.state + "/clawtalk")
        let store = GatewayStore(directory: state)
        let factory = GatewayConnectionFactory(
            settings: settings, identity: try DeviceIdentity.generate(), store: store, dialer: gateway.dialer(),
            logger: .discarding, surface: NodeSurface(caps: [.talk], commands: [], permissions: [:]))
        replies = ReplyServices(
            settings: settings, store: store, state: state, audio: audio, local: SayFlowTests.RecordingSynthesizer(),
            hostName: "test-host", logger: .discarding)
        service = GatewayService(
            factory: factory, statusFile: nil, logger: .discarding, reloadSignals: [], observer: replies)
    }
}
