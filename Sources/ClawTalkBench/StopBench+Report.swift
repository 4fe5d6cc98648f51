import Foundation

extension StopBench {
    /// One progress line: the exit time, the servers' end, the load, what the log says.
    static func line(_ index: Int, _ run: Run) -> String {
        let exit = run.exitMs.map { String(format: "%6.1f ms", $0) } ?? "  killed after 10 s"
        let children =
            run.children.isEmpty
            ? "no servers"
            : run.orphans.isEmpty
                ? "servers gone after \(run.childrenGoneMs.map { String(format: "%.0f ms", $0) } ?? "?")"
                : "ORPHANS: \(run.orphans.joined(separator: ", "))"
        let busy = run.serverBusyMs.map { String(format: ", server CPU %.0f ms in the lead", $0) } ?? ""
        let marks = ["stopping", "stopped", "released"].compactMap { name in
            run.marks["service." + name].map { "\(name) \(Int($0.rounded()))" }
        }
        return String(format: "run %2d: exit %d after ", index + 1, run.status) + exit + "; " + children + busy
            + "; load " + run.load + (run.inMoment ? "" : "; MOMENT HAD PASSED")
            + (marks.isEmpty ? "" : "; logged (ms) " + marks.joined(separator: ", ")) + "; log: " + run.note
    }

    /// `stop.<moment>` (the exit times, goal: the maximum ≤ 500 ms), `stop.<moment>.servers`
    /// (SIGTERM → the last server gone) and `stop.<moment>.orphans` (runs that left a server).
    static func metrics(_ moment: Moment, _ runs: [Run], failures: [String]) -> [BenchMetric] {
        let valid = runs.filter(\.inMoment)
        let times = valid.compactMap(\.exitMs)
        var notes: [String] = []
        if runs.count > valid.count {
            notes.append("\(runs.count - valid.count) runs left out: the moment had passed at SIGTERM")
        }
        if valid.count > times.count { notes.append("\(valid.count - times.count) runs did not exit within 10 s") }
        if !failures.isEmpty { notes.append("\(failures.count) runs failed: " + failures.joined(separator: "; ")) }
        let loads = runs.map(\.load)
        let condition = moment.label + (loads.isEmpty ? "" : "; load at SIGTERM " + loads.joined(separator: ", "))
        var latency = BenchMetric.latency(
            moment.metric, condition: condition, samples: times,
            reason: notes.isEmpty ? nil : notes.joined(separator: "; "))
        // The headline is the slowest stop: every one must be within the budget.
        latency.value = latency.max
        latency.goal = goal.text
        latency.met = valid.count == times.count && !times.isEmpty ? goal.isMet(by: latency) : false
        return [
            latency,
            .latency(
                moment.metric + ".servers", condition: "SIGTERM → the node's last descendant (speech server) gone",
                samples: valid.compactMap(\.childrenGoneMs)),
            .value(
                moment.metric + ".orphans", condition: "runs after which a descendant outlived the node by 2 s",
                unit: "runs", value: Double(valid.filter { !$0.orphans.isEmpty }.count), n: valid.count,
                goal: BenchGoal(value: 0)),
        ]
    }
}
