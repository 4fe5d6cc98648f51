/// A closure held by reference, for closures kept in a `Mutex` and read often.
///
/// A function value stored in a generic container such as `Mutex<(@Sendable () -> T)?>` and read
/// with `locked { $0 }` comes back wrapped in a pair of reabstraction thunks, and the wrapped
/// value is written back: every read nests two more. Read once per 10 ms audio frame, the front
/// end's latency closure grew a chain that each call walked (the node's idle CPU rose with its
/// uptime, and a long bench run overflowed its stack). In a box the closure is a `let` of a
/// class, read by reference and never rewritten.
public final class ClosureBox<Function: Sendable>: Sendable {
    /// The closure.
    public let call: Function

    /// Boxes `call`.
    public init(_ call: Function) {
        self.call = call
    }
}
