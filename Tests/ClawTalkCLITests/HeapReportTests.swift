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

    @Test func theSoakReadsTheNodesHeapLines() {
        let log = """
            2026-12-03T18:00:00.000Z info clawtalk.run memory.heap rssMiB=57.8 inUseMiB=20.5 freeMiB=12.25 mappedMiB=4.0
            2026-12-03T18:05:00.000Z info clawtalk.talk.runtime talk.phase from=idle to=listening
            2026-12-03T18:10:00.000Z info clawtalk.run memory.heap rssMiB=61 inUseMiB=21 freeMiB=16.5 mappedMiB=4
            """
        #expect(
            HeapReport.readings(inLog: log) == [
                .init(rssMiB: 57.8, inUseMiB: 20.5, freeMiB: 12.25, mappedMiB: 4),
                .init(rssMiB: 61, inUseMiB: 21, freeMiB: 16.5, mappedMiB: 4),
            ])
    }
}
