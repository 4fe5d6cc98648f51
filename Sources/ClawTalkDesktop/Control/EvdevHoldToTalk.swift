public import ClawTalkSupport
import Dispatch
import Foundation
import Synchronization

/// Hold-to-talk on an evdev key (`ptt.evdevKey`): press = start, release = stop, read straight
/// from `/dev/input/event*` so it works on any desktop (and none). Needs read access to the
/// input devices, i.e. membership of the `input` group; without it a clear warning says so.
///
/// Every device whose key bitmap (`EVIOCGBIT(EV_KEY)`) has the key is read; devices that
/// appear later are picked up within ``rescanInterval``, and a device that goes away while the
/// key is held counts as a release. Events are not grabbed: the key keeps working elsewhere.
///
/// Threads: one reader thread (`clawtalk.evdev`) owns every device descriptor, blocks in `poll`
/// and calls `onEdge` from that thread; ``stop()`` wakes it through a pipe and joins it.
public final class EvdevHoldToTalk: @unchecked Sendable {
    // @unchecked: device descriptors are opened, read and closed only on the reader thread; the
    // wake pipe is written by stop() and read by that thread; `lifecycle` is locked.

    /// The key.
    public let key: EvdevKey
    /// Where the devices are (`/dev/input`).
    public let directory: String
    /// How often devices are looked for again.
    public let rescanInterval: Duration
    private let onEdge: @Sendable (HoldToTalkKeyState.Edge) -> Void
    private let logger: Logger
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let lifecycle = Mutex(0)  // 0 idle, 1 running, 2 stopped

    /// A reader for `key` (nothing is opened until ``start()``).
    public init(
        key: EvdevKey, directory: String = "/dev/input", rescanInterval: Duration = .seconds(5),
        logger: Logger = .discarding, onEdge: @escaping @Sendable (HoldToTalkKeyState.Edge) -> Void
    ) throws(ControlSocketError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw UnixSocket.systemError("pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.key = key
        self.directory = directory
        self.rescanInterval = rescanInterval
        self.logger = logger.child(category: "evdev")
        self.onEdge = onEdge
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Starts the reader thread (once).
    public func start() {
        let start = lifecycle.locked { state -> Bool in
            guard state == 0 else { return false }
            state = 1
            return true
        }
        guard start else { return }
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "clawtalk.evdev"
        thread.start()
    }

    /// Stops and joins the reader thread; the devices are closed.
    public func stop() {
        let previous = lifecycle.locked { state in
            defer { state = 2 }
            return state
        }
        guard previous == 1 else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        _ = finished.wait(timeout: .now() + .seconds(2))
    }

    // MARK: - Reader thread

    private struct Device {
        let path: String
        let fd: Int32
        var decoder = InputEventDecoder()
    }

    private func run() {
        var devices: [Device] = []
        var state = HoldToTalkKeyState(code: key.code)
        var lastReport = ""
        var nextScan = ContinuousClock.now
        defer { for device in devices { close(device.fd) } }
        while true {
            if ContinuousClock.now >= nextScan {
                let scan = Self.scan(directory: directory, code: key.code, skipping: Set(devices.map(\.path)))
                devices += scan.opened.map { Device(path: $0.path, fd: $0.fd) }
                let report = report(scan, watching: devices.map(\.path))
                if report != lastReport {
                    lastReport = report
                    log(scan, watching: devices.map(\.path))
                }
                nextScan = ContinuousClock.now + rescanInterval
            }
            var fds = devices.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            let (seconds, attoseconds) = rescanInterval.components
            let timeout = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0, errno != EINTR { return }
            if fds.last?.revents ?? 0 != 0 { return }
            var lost: [Int] = []
            for index in devices.indices where fds[index].revents != 0 {
                guard let bytes = Self.read(devices[index].fd) else {
                    lost.append(index)
                    continue
                }
                for event in devices[index].decoder.decode(bytes) {
                    let edge =
                        event.type == InputEvent.synchronization && event.code == InputEvent.dropped
                        ? state.reset() : state.apply(event)
                    if let edge { onEdge(edge) }
                }
            }
            for index in lost.reversed() {
                logger.notice("evdev.device.lost", ["path": .string(devices[index].path)])
                close(devices[index].fd)
                devices.remove(at: index)
            }
            if !lost.isEmpty, let edge = state.reset() { onEdge(edge) }
        }
    }

    /// The bytes available on `fd`; nil when the device is gone.
    private static func read(_ fd: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: InputEvent.size * 64)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EAGAIN || errno == EINTR { return [] }
        guard count > 0 else { return nil }
        return Array(buffer[0..<count])
    }

    /// What a scan found.
    public struct Scan {
        /// Devices that have the key, opened.
        public var opened: [(path: String, fd: Int32)] = []
        /// Event devices seen.
        public var total = 0
        /// Devices that could not be opened for lack of permission.
        public var denied = 0
    }

    /// Opens every `event*` device in `directory` that has key `code` (except `skipping`).
    public static func scan(directory: String, code: UInt16, skipping: Set<String>) -> Scan {
        var scan = Scan()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where name.hasPrefix("event") {
            scan.total += 1
            let path = directory + "/" + name
            guard !skipping.contains(path) else { continue }
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else {
                if errno == EACCES || errno == EPERM { scan.denied += 1 }
                continue
            }
            if hasKey(fd, code: code) {
                scan.opened.append((path, fd))
            } else {
                close(fd)
            }
        }
        return scan
    }

    /// Whether the device's `EV_KEY` bitmap has `code` (`EVIOCGBIT(EV_KEY, 96)`).
    public static func hasKey(_ fd: Int32, code: UInt16) -> Bool {
        var bits = [UInt8](repeating: 0, count: Int(EvdevKey.maximumCode) / 8 + 1)
        let read: UInt = 2
        let request: UInt = read << 30 | UInt(bits.count) << 16 | UInt(UInt8(ascii: "E")) << 8 | (0x20 + 1)
        let result = bits.withUnsafeMutableBytes { ioctl(fd, request, $0.baseAddress!) }
        guard result >= 0 else { return false }
        return bitIsSet(bits, Int(code))
    }

    /// Bit `index` of a little-endian bitmap.
    public static func bitIsSet(_ bits: [UInt8], _ index: Int) -> Bool {
        guard index / 8 < bits.count else { return false }
        return bits[index / 8] & (1 << UInt8(index % 8)) != 0
    }

    /// A short summary, to log only changes.
    private func report(_ scan: Scan, watching: [String]) -> String {
        "\(scan.total)/\(scan.denied)/\(watching.joined(separator: ","))"
    }

    private func log(_ scan: Scan, watching: [String]) {
        if !watching.isEmpty {
            logger.info(
                "evdev.watching",
                ["key": .string(key.description), "devices": .string(watching.joined(separator: " "))])
        } else if scan.total > 0, scan.denied == scan.total {
            logger.warning(
                "evdev.permission_denied",
                [
                    "directory": .string(directory),
                    "hint": .string(
                        "cannot read \(directory)/event*: add your user to the 'input' group "
                            + "(sudo usermod -aG input $USER) and log in again, or unset ptt.evdevKey"),
                ])
        } else if scan.total == 0 {
            logger.warning(
                "evdev.no_devices", ["directory": .string(directory), "hint": .string("no input devices to read")])
        } else {
            logger.warning(
                "evdev.key_not_found",
                [
                    "key": .string(key.description), "readable": .int(scan.total - scan.denied),
                    "denied": .int(scan.denied),
                ])
        }
    }
}
