import Testing

@testable import ClawTalkCLI

/// The `memory.heap` figures follow what the program holds.
@Suite struct HeapReportTests {
    @Test func memoryHeldByTheProgramCountsAsInUse() {
        let before = HeapReport.read()
        let held = [UInt8](repeating: 1, count: 48 << 20)
        let during = HeapReport.read()
        #expect(during.inUseMiB - before.inUseMiB >= 45, "\(before) → \(during)")
        #expect(during.rssMiB - before.rssMiB >= 40, "touched pages are resident: \(before) → \(during)")
        #expect(held.count == 48 << 20)
    }
}
