import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkNode

/// The `memory.heap` figures follow what the program holds.
@Suite struct HeapReportTests {
    @Test(.disabled(if: Sanitizers.allocatorReplaced, Comment(rawValue: Sanitizers.allocatorReason)))
    func memoryHeldByTheProgramCountsAsInUse() async {
        // In a process of its own: the test process's RSS moves with whatever else it frees
        // meanwhile (a CI run read a rise of 0 MB).
        await #expect(processExitsWith: .success) {
            let before = HeapReport.read()
            let held = [UInt8](repeating: 1, count: 48 << 20)
            let during = HeapReport.read()
            guard during.inUseMiB - before.inUseMiB >= 45, during.rssMiB - before.rssMiB >= 40, held.count == 48 << 20
            else { exit(1) }
        }
    }

    /// The soak's finding: memory freed in small blocks stays with the allocator (the RSS does
    /// not fall) until the report hands it back.
    @Test(.disabled(if: Sanitizers.allocatorReplaced, Comment(rawValue: Sanitizers.allocatorReason)))
    func freedMemoryTheAllocatorKeepsIsHandedBack() throws {
        let blocks = (0..<65_536).map { _ in
            let block = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 8)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: 1024)
            return block
        }
        // A block after them keeps the heap's top in use, so free() cannot shrink the heap itself.
        let pin = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 8)
        defer { pin.deallocate() }
        for block in blocks { block.deallocate() }
        let held = HeapReport.read()
        #expect(held.freeMiB >= 48, "64 MiB freed in 1 KiB blocks stays free in the arena: \(held)")
        #expect(HeapReport.trim(after: HeapReport.Reading(rssMiB: 0, inUseMiB: 0, freeMiB: 1, mappedMiB: 0)) == nil)
        let trimmed = try #require(HeapReport.trim(after: held))
        #expect(trimmed >= 32, "the RSS falls by most of it: \(trimmed) MiB")
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
