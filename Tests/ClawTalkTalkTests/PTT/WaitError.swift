/// A condition was not reached in time.
struct WaitError: Error, CustomStringConvertible {
    let description: String
}

/// Polls `condition` (real time, up to `timeout`).
func eventually(
    timeout: Duration = .seconds(30), _ condition: @Sendable () async -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try await Task.sleep(for: .milliseconds(2))
    }
    return await condition()
}
