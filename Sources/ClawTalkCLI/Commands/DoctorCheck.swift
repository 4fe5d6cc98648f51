/// One line of `clawtalk doctor`: what was checked, whether it passed, and how to fix it.
struct DoctorCheck: Sendable, Equatable {
    /// Outcome of a check.
    enum Status: String, Sendable {
        /// Works.
        case ok
        /// Works partly or is not set up yet; the node still runs.
        case warn
        /// Broken; the node cannot do what the check is about.
        case fail
    }

    /// Short name, e.g. `sound server`.
    var name: String
    /// Outcome.
    var status: Status
    /// What was found.
    var detail: String
    /// A concrete next step when the check did not pass.
    var fix: String?
}
