import Foundation

/// Which sanitizer the running tests were built with: a test that measures the process's memory
/// (its RSS, glibc's heap figures) has nothing to measure under AddressSanitizer or
/// ThreadSanitizer, whose allocators replace glibc's.
public enum Sanitizers {
    /// The process runs with AddressSanitizer (`swift test --sanitize=address`).
    public static let address: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil

    /// The process runs with ThreadSanitizer (`swift test --sanitize=thread`).
    public static let thread: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

    /// The allocator is a sanitizer's, not glibc's (``address`` or ``thread``).
    public static let allocatorReplaced = address || thread

    /// Why a memory measurement is not made under a sanitizer.
    public static let allocatorReason =
        "AddressSanitizer and ThreadSanitizer replace glibc's allocator (glibc's heap figures read 0; ASan keeps freed memory in a quarantine); their own reports judge memory there"
}
