/// Polls `condition` on the real clock, every `interval` (5 ms), until it holds or `limit`
/// passes, and returns whether it held (checked once more at the end). The one wait of the test
/// suite: it waits generously (30 s by default), so a slow or busy machine only makes a test take
/// longer, and a test fails only when the outcome never comes. A condition that runs a process
/// or reads a log polls less often (`interval` 100 ms).
public func eventually(
    within limit: Duration = .seconds(30), every interval: Duration = .milliseconds(5),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
        if Task.isCancelled { break }
    }
    return try await condition()
}
