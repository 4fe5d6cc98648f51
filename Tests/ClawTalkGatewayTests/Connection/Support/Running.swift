import ClawTalkGateway

/// Runs `connection` around `body`, then stops it and waits for `run()` to return.
func withRunning(_ connection: GatewayConnection, _ body: () async throws -> Void) async throws {
    let runner = Task { await connection.run() }
    do {
        try await body()
    } catch {
        await connection.stop()
        await runner.value
        throw error
    }
    await connection.stop()
    await runner.value
}
