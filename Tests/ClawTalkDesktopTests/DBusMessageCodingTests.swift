import CDBus
import Glibc
import Testing

@testable import ClawTalkDesktop

@Suite("D-Bus argument coding")
struct DBusMessageCodingTests {
    /// Appends `arguments` to a fresh signal; the error, if any.
    private func append(_ arguments: [DBusArgument]) -> DBusClientError? {
        guard let message = dbus_message_new_signal("/org/clawtalk/Test", "org.clawtalk.Test", "Arguments") else {
            return .messageFailed("no message")
        }
        defer { dbus_message_unref(message) }
        do {
            try DBusMessageCoding.append(arguments, to: message)
            return nil
        } catch {
            return error
        }
    }

    @Test func supportedArgumentsReadBackTheSame() throws {
        let arguments: [DBusArgument] = [
            .string("clawtalk"), .uint32(7), .int32(-1), .boolean(true), .byte(2), .stringArray(["a", "b"]),
            .dictionary(["urgency": .byte(1), "x-list": .stringArray(["c"]), "x-text": .string("é")]),
        ]
        let message = try #require(dbus_message_new_signal("/org/clawtalk/Test", "org.clawtalk.Test", "Arguments"))
        defer { dbus_message_unref(message) }
        try DBusMessageCoding.append(arguments, to: message)
        #expect(DBusMessageCoding.read(message) == arguments)
    }

    /// Found by the dbus_args fuzz target (Fuzz/corpus/dbus_args/leak-unsupported-in-dictionary):
    /// a refused value inside a dictionary left the array, entry and variant containers open, and
    /// the signature libdbus allocates for open containers (62 bytes) leaked with every refusal.
    @Test func refusedValueInADictionaryFreesTheOpenContainers() {
        let arguments: [DBusArgument] = [.dictionary(["x-double": .unsupported("d")])]
        #expect(append(arguments) == .messageFailed("cannot send a value of type d"))
        let before = Int(mallinfo2().uordblks)
        for _ in 0..<50_000 {
            _ = append(arguments)
        }
        let growth = Int(mallinfo2().uordblks) - before
        // Leaking, 50 000 refusals hold about 3 MB; other tests running meanwhile move the heap
        // by far less than 1 MB.
        #expect(growth < 1 << 20, "the heap grew by \(growth) bytes over 50 000 refused appends")
    }
}
