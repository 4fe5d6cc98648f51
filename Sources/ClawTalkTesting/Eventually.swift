/// Polls `condition` on the real clock, every 5 ms, until it holds or `limit` passes, and
/// returns whether it held (checked once more at the end). The one wait of the test suite: it
/// waits generously (30 s by default), so a slow or busy machine only makes a test take longer,
/// and a test fails only when the outcome never comes.
public func eventually(
    within limit: Duration = .seconds(30), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
        if Task.isCancelled { break }
    }
    return try await condition()
}
