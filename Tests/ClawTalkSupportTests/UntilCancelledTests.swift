import ClawTalkSupport
import Testing

/// ``untilCancelled()``: the structured wait of a component that holds its resources until
/// the stop.
@Suite("untilCancelled")
struct UntilCancelledTests {
    @Test func itReturnsWhenItsTaskIsCancelled() async {
        let waiting = Task {
            await untilCancelled()
            return Task.isCancelled
        }
        waiting.cancel()
        #expect(await waiting.value, "it returned because of the cancellation")
    }

    @Test func anAlreadyCancelledTaskDoesNotWait() async {
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await untilCancelled()
            return true
        }
        #expect(await waiting.value)
    }

    /// It never returns by itself: only the timeout's cancellation ends it (were it to ignore
    /// the cancellation, the timeout would wait for it for ever).
    @Test func onlyACancellationEndsIt() async {
        await #expect(throws: TimeoutError.self) {
            try await withTimeout(.milliseconds(20), clock: ContinuousClock()) { await untilCancelled() }
        }
    }
}
