import ClawTalkNode

extension BenchGoal {
    /// Soak: no crash, no utterance lost or delivered twice, no reply missed.
    static let noFailure = BenchGoal(value: 0)
    /// Soak: RSS growth after warm-up, MB per hour.
    static let soakGrowth = BenchGoal(value: 5)
}

extension SoakBench {
    /// The soak's report rows.
    func metrics(
        ledger: SoakLedger, messages: [String], samples: [Sample],
        cpu: [String: (cpu: Double, seconds: Double, rss: Double)],
        recoveries: [SoakFault: [Double?]], crashes: [String], aborted: String?, seconds: Double,
        heap: [HeapReport.Reading] = []
    ) -> [BenchMetric] {
        var rows: [BenchMetric] = []
        let span = "\(Int(seconds / 60)) min"
        if let aborted {
            rows.append(.unmeasured("soak.completed", condition: "clawtalk run, \(span)", unit: "", reason: aborted))
        }
        rows.append(
            .value(
                "soak.crashes", condition: "clawtalk run, \(span)", unit: "crashes", value: Double(crashes.count),
                goal: .noFailure, reason: crashes.isEmpty ? nil : crashes.joined(separator: "; ")))

        let verdicts = ledger.verdicts(messages: messages)
        for kind in SoakLedger.Kind.allCases {
            let mine = verdicts.filter { $0.utterance.kind == kind }
            guard !mine.isEmpty else { continue }
            let lost = mine.filter { $0.deliveries == 0 && $0.misheard == 0 }
            let misheard = mine.filter { $0.deliveries == 0 && $0.misheard > 0 }
            let doubled = mine.filter { $0.deliveries > 1 }
            let names = { (list: [SoakLedger.Verdict]) in list.map(\.utterance.keyword).joined(separator: ", ") }
            rows.append(
                .value(
                    "soak.delivery.lost", condition: kind.rawValue, unit: "utterances", value: Double(lost.count),
                    n: mine.count, goal: .noFailure, reason: lost.isEmpty ? nil : "not delivered: \(names(lost))"))
            rows.append(
                .value(
                    "soak.delivery.misheard", condition: kind.rawValue, unit: "utterances",
                    value: Double(misheard.count), n: mine.count,
                    reason: misheard.isEmpty
                        ? nil : "delivered, but speech-to-text lost the keyword: \(names(misheard))"))
            rows.append(
                .value(
                    "soak.delivery.duplicated", condition: kind.rawValue, unit: "utterances",
                    value: Double(doubled.count), n: mine.count, goal: .noFailure,
                    reason: doubled.isEmpty ? nil : "more than once: \(names(doubled))"))
            let replies = mine.compactMap(\.utterance.replyHeard)
            if !replies.isEmpty {
                rows.append(
                    .value(
                        "soak.replies.missed", condition: kind.rawValue, unit: "replies",
                        value: Double(replies.filter { !$0 }.count), n: replies.count, goal: .noFailure))
            }
        }

        if let first = samples.first, let last = samples.last {
            let middle = samples[samples.count / 2]
            for (label, sample) in [("start", first), ("middle", middle), ("end", last)] {
                rows.append(.value("soak.rss.node", condition: label, unit: "MiB", value: sample.rss))
            }
            let growth = SoakLedger.growthPerHour(
                samples.map { ($0.seconds, $0.rss * 1.048576) }, warmUp: Self.warmUpSeconds)
            rows.append(
                growth.map {
                    .value(
                        "soak.rss.growth", condition: "after \(Int(Self.warmUpSeconds / 60)) min of warm-up",
                        unit: "MB per hour", value: $0, n: samples.count, goal: .soakGrowth)
                }
                    ?? .unmeasured(
                        "soak.rss.growth", condition: "after warm-up", unit: "MB per hour", goal: .soakGrowth,
                        reason: "the run was too short to leave warm-up"))
            // The node's own `memory.heap` lines (every 10 min): a leak grows what is in use, an
            // allocator that keeps freed memory grows what is free.
            for (label, reading) in [("first", heap.first), ("last", heap.count > 1 ? heap.last : nil)] {
                guard let reading else { continue }
                rows.append(
                    .value(
                        "soak.heap.node", condition: "\(label) memory.heap line", unit: "MiB in use",
                        value: reading.inUseMiB,
                        reason:
                            "kept free \(reading.freeMiB) MiB, mapped \(reading.mappedMiB) MiB, RSS \(reading.rssMiB) MiB"
                    ))
            }
            for (name, unit, value) in [
                ("soak.descriptors.node", "descriptors", { (sample: Sample) in Double(sample.descriptors) }),
                ("soak.threads.node", "threads", { (sample: Sample) in Double(sample.threads) }),
            ] {
                rows.append(.value(name, condition: "start", unit: unit, value: value(first)))
                rows.append(.value(name, condition: "end", unit: unit, value: value(last)))
                rows.append(
                    .value(name, condition: "most seen", unit: unit, value: samples.map(value).max() ?? value(last)))
            }
        }
        for phase in cpu.keys.sorted() {
            guard let used = cpu[phase], used.seconds > 0 else { continue }
            rows.append(
                .value(
                    "soak.cpu", condition: "\(phase) (node + servers)", unit: "% of a core",
                    value: used.cpu / used.seconds * 100))
            rows.append(
                .value(
                    "soak.rss.change", condition: phase, unit: "MiB", value: used.rss,
                    reason: "the node's RSS after the steps of this phase less before them, summed"))
        }
        for fault in SoakFault.allCases {
            guard let tries = recoveries[fault], !tries.isEmpty else { continue }
            let times = tries.compactMap { $0 }
            let failed = tries.count - times.count
            rows.append(
                .value(
                    "soak.recovery.failed", condition: fault.rawValue, unit: "faults", value: Double(failed),
                    n: tries.count, goal: .noFailure,
                    reason: failed == 0
                        ? nil
                        : fault.takesTheMicrophone
                            ? "the node's microphone (mic.restored) or connection did not come back in time"
                            : "the node was not connected again within 120 s"))
            if let longest = times.max() {
                rows.append(
                    .value(
                        "soak.recovery", condition: fault.rawValue, unit: "s", value: longest, n: times.count,
                        reason: fault.takesTheMicrophone
                            ? "longest: fault injected → node hearing again (mic.restored) and connected"
                            : "longest: fault injected → node connected again"))
            }
        }
        return rows
    }
}
