internal import CSanitizerHooks
public import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, with the lock shown to ThreadSanitizer: the project's one way to take a
    /// `Mutex`. On Linux the toolchain's `Mutex` locks with atomics and futexes in a module that is
    /// not built with TSan, so TSan sees the state that it guards written from two threads with
    /// nothing ordering them and reports a race on every use (24 such reports in the first TSan
    /// run). Here the lock's address becomes a TSan acquire after the lock is taken and a release
    /// before it is given back; without TSan in the process they cost one call each and do nothing.
    @inlinable
    public borrowing func locked<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let address = withUnsafePointer(to: self) { UnsafeRawPointer($0) }
        return try withLock { (value: inout sending Value) throws(E) -> sending Result in
            sanitizerAcquire(address)
            defer { sanitizerRelease(address) }
            return try body(&value)
        }
    }
}

/// ThreadSanitizer's acquire on `address` (nothing without TSan).
@usableFromInline
func sanitizerAcquire(_ address: UnsafeRawPointer) {
    clawtalk_tsan_acquire(address)
}

/// ThreadSanitizer's release on `address` (nothing without TSan).
@usableFromInline
func sanitizerRelease(_ address: UnsafeRawPointer) {
    clawtalk_tsan_release(address)
}
