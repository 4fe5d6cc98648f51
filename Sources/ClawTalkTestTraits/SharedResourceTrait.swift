public import Testing

/// A suite or test that needs a resource of the machine to itself, among the tests that name the
/// same resource, while the rest of the suite runs in parallel (`swift test` without
/// `--no-parallel`; architecture.md §8):
/// - `.audioRig`: the shared audio rig (the sound server `scripts/audio-rig` starts: its sink
///   `vspk` and microphone `vmic`), or real-time audio or speech recognition judged on it;
/// - `.avahiDaemon`: a private avahi-daemon (it takes the fixed /run/avahi-daemon paths).
///
/// On a suite, the suite takes the resource's process-wide turn before its first test and keeps
/// it to its last, and its tests (and nested suites) run one at a time in that turn: the wait for
/// the turn is outside every test's time limit, which counts from the test's start. On a test in
/// a suite without the trait, the test takes the turn itself (its wait counts towards its time
/// limit and holds one of the run's parallel slots: prefer marking the suite).
public struct SharedResourceTrait: SuiteTrait, TestTrait, TestScoping {
    /// The resource's name (one turn per name).
    public let resource: String

    /// Inherited by the suite's tests and nested suites, which serialize in the suite's turn.
    public var isRecursive: Bool { true }

    /// A scope for the suite itself and for each test case.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase != nil ? self : nil
    }

    /// Runs `function` in the resource's turn (a suite or a lone test) or, inside a suite's turn,
    /// one test at a time.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let turns = ResourceTurns.turns(for: resource)
        let holding = ResourceTurns.held.contains(resource)
        if holding {
            if test.isSuite { return try await function() }
            return try await turns.member.run(function)
        }
        try await turns.resource.run {
            try await ResourceTurns.$held.withValue(ResourceTurns.held.union([resource])) { try await function() }
        }
    }
}

extension Trait where Self == SharedResourceTrait {
    /// The shared audio rig, alone among the audio-rig tests (see ``SharedResourceTrait``).
    public static var audioRig: Self { SharedResourceTrait(resource: "audio rig") }

    /// A private avahi-daemon, alone among the tests that start one (see ``SharedResourceTrait``).
    public static var avahiDaemon: Self { SharedResourceTrait(resource: "avahi-daemon") }
}

extension SharedResourceTrait {
    /// Whether the current task runs in this resource's turn: inside a suite or test that carries
    /// the trait (task-local: a closure sent to a dispatch queue does not see it).
    public var isHeld: Bool { ResourceTurns.held.contains(resource) }
}
