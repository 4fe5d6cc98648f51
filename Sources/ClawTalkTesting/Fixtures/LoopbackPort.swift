import ClawTalkSupport

/// A TCP port on 127.0.0.1 that nothing listens on (``LoopbackPort/pick()``): a connection to it
/// is refused at once, for "server unreachable" tests.
public func closedLoopbackPort() -> Int {
    // No socket at all: nothing in the test could work, so it stops here.
    try! LoopbackPort.pick()
}

/// Whether something accepts TCP connections on 127.0.0.1:`port` now (``LoopbackPort/accepts(_:)``).
public func loopbackPortAccepts(_ port: Int) -> Bool {
    LoopbackPort.accepts(port)
}
