/// A condition was not reached in time.
struct WaitError: Error, CustomStringConvertible {
    let description: String
}
