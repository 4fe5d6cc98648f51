import ClawTalkGateway
import Testing

@Suite("Backoff")
struct BackoffTests {
    private func ms(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    @Test("normal: 1 s doubling, capped at 30 s, no jitter")
    func normalSequence() {
        var backoff = Backoff(jitter: .none)
        let delays = (0..<8).map { _ in ms(backoff.next()) }
        #expect(delays == [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000])
        #expect(backoff.failures == 8)
    }

    @Test("full jitter adds exactly 25 %")
    func fullJitter() {
        var backoff = Backoff(jitter: .fixed(1))
        #expect((0..<7).map { _ in ms(backoff.next()) } == [1250, 2500, 5000, 10000, 20000, 37500, 37500])
    }

    @Test("seeded jitter stays within 0–25 % and is reproducible", arguments: [UInt64(1), 42, 0xDEAD_BEEF])
    func seededJitter(seed: UInt64) {
        var first = Backoff(jitter: .seeded(seed))
        var second = Backoff(jitter: .seeded(seed))
        let bases = [1000, 2000, 4000, 8000, 16000, 30000, 30000]
        for base in bases {
            let delay = ms(first.next())
            #expect(delay >= base && delay <= base + base / 4)
            #expect(ms(second.next()) == delay)
        }
    }

    @Test("configurable initial delay (e.g. 500 ms)")
    func configurableInitial() {
        var backoff = Backoff(configuration: .init(initial: .milliseconds(500)), jitter: .none)
        #expect((0..<3).map { _ in ms(backoff.next()) } == [500, 1000, 2000])
    }

    @Test("reset returns to the initial delay")
    func reset() {
        var backoff = Backoff(jitter: .none)
        _ = backoff.next()
        _ = backoff.next()
        _ = backoff.rateLimited(retryAfterMs: nil)
        backoff.reset()
        #expect(ms(backoff.next()) == 1000)
        #expect(ms(backoff.rateLimited(retryAfterMs: nil)) == 30000)
    }

    @Test(
        "startup (1013): retryAfterMs clamped 100–2000, default 500",
        arguments: [(Int?.none, 500), (50, 100), (100, 100), (700, 700), (2000, 2000), (5000, 2000)])
    func startup(hint: Int?, expected: Int) {
        let backoff = Backoff(jitter: .fixed(1))
        #expect(ms(backoff.startup(retryAfterMs: hint)) == expected)
    }

    @Test(
        "restart (1012): max(restartExpectedMs ?? 0, 500 ms + jitter)",
        arguments: [(Int?.none, 0.0, 500), (nil, 1.0, 625), (3000, 1.0, 3000), (600, 1.0, 625), (600, 0.0, 600)])
    func restart(expected restartMs: Int?, jitter: Double, delay: Int) {
        var backoff = Backoff(jitter: .fixed(jitter))
        #expect(ms(backoff.restart(restartExpectedMs: restartMs)) == delay)
    }

    @Test("AUTH_RATE_LIMITED: 30, 60, 120, then 300 s repeating")
    func rateLimited() {
        var backoff = Backoff(jitter: .fixed(1))
        let delays = (0..<6).map { _ in ms(backoff.rateLimited(retryAfterMs: nil)) }
        #expect(delays == [30000, 60000, 120000, 300000, 300000, 300000])
    }

    @Test("AUTH_RATE_LIMITED: a larger retryAfterMs wins, a smaller one does not")
    func rateLimitedHint() {
        var backoff = Backoff(jitter: .none)
        #expect(ms(backoff.rateLimited(retryAfterMs: 90_000)) == 90000)
        #expect(ms(backoff.rateLimited(retryAfterMs: 10_000)) == 60000)
    }

    @Test("one-shot retries wait at least 250 ms")
    func singleRetry() {
        #expect(ms(Backoff(jitter: .none).singleRetry) >= 250)
    }
}
