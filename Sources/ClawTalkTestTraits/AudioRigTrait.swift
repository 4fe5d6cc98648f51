public import Testing

/// `.audioRig`: the test or suite uses the shared audio rig (the sound server `scripts/audio-rig`
/// starts: its sink `vspk` and microphone `vmic`), or judges real-time audio or speech
/// recognition, so it runs alone among such tests while the rest of the suite runs in parallel
/// (`swift test` without `--no-parallel`; architecture.md §8).
///
/// On a suite, the suite takes the process-wide rig turn before its first test and keeps it to
/// its last, and its tests (and nested suites) run one at a time in that turn: the wait for the
/// turn is outside every test's time limit, which counts from the test's start. On a test in a
/// suite without the trait, the test takes the turn itself (its wait counts towards its time
/// limit: keep such tests short, or mark the suite).
public struct AudioRigTrait: SuiteTrait, TestTrait, TestScoping {
    /// Inherited by the suite's tests and nested suites, which serialize in the suite's turn.
    public var isRecursive: Bool { true }

    /// A scope for the suite itself and for each test case.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase != nil ? self : nil
    }

    /// Runs `function` in the rig turn (a suite or a lone test) or in the suite's turn, one test
    /// at a time.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let holding = AudioRigTurn.holding
        if test.isSuite {
            if holding { return try await function() }
            try await AudioRigTurn.rig.run { try await AudioRigTurn.$holding.withValue(true) { try await function() } }
        } else if holding {
            try await AudioRigTurn.member.run(function)
        } else {
            try await AudioRigTurn.rig.run {
                try await AudioRigTurn.$holding.withValue(true) { try await function() }
            }
        }
    }
}

extension Trait where Self == AudioRigTrait {
    /// Runs the suite or test alone among the audio-rig tests (see ``AudioRigTrait``).
    public static var audioRig: Self { AudioRigTrait() }
}

/// The process-wide turns of ``AudioRigTrait``.
enum AudioRigTurn {
    /// Whether the current task runs in the rig turn.
    @TaskLocal static var holding = false
    /// The rig turn: one suite, or one lone test, at a time.
    static let rig = AsyncTurn()
    /// One test at a time inside the suite that holds the rig turn.
    static let member = AsyncTurn()
}

/// A first-come, first-served mutual exclusion for async code: waiters suspend (no thread is
/// blocked, so the test runner's few threads keep running other tests).
actor AsyncTurn {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` when no other `run` of this turn is running.
    nonisolated func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        await acquire()
        do {
            let value = try await body()
            await release()
            return value
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
