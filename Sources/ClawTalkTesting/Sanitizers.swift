import Foundation

/// Which sanitizer the running tests were built with: a test that measures the process's memory
/// (its RSS, glibc's heap figures) has nothing to measure under AddressSanitizer, whose allocator
/// replaces glibc's and keeps freed memory in a quarantine.
public enum Sanitizers {
    /// The process runs with AddressSanitizer (`swift test --sanitize=address`).
    public static let address: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil

    /// Why a memory measurement is not made under AddressSanitizer.
    public static let addressReason =
        "AddressSanitizer replaces the allocator (freed memory waits in its quarantine); its own reports judge memory there"
}
