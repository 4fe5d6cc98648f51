import ClawTalkGateway
import Testing

@Suite("libwebsockets linkage")
struct WebSocketLibraryTests {
    @Test func versionIsFourPointSomething() {
        let version = WebSocketLibrary.version
        #expect(!version.isEmpty)
        #expect(version.hasPrefix("4."))
    }
}
