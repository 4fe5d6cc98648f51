internal import CLibWebSockets

/// Facts about the linked libwebsockets (the WebSocket transport's C library).
public enum WebSocketLibrary {
    /// libwebsockets' own version string, for example `4.1.6-v4.1.6`.
    public static var version: String {
        String(cString: lws_get_library_version())
    }
}
