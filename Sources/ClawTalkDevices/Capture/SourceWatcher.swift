import ClawTalkAudio
import ClawTalkSupport
import Dispatch
import Synchronization

/// The device watcher's loop, on its own thread: every check interval it lists the server's
/// sources (on the backend's ``CaptureDeviceLister``, one connection for the watcher's life; a
/// listing may block for the catalog timeout, so never on the capture thread), re-resolves the chosen source by name or description and publishes whether
/// it is present through ``CaptureShared/chosenAvailable``. A failed listing changes nothing: a
/// hiccup of the server must not move the capture.
struct SourceWatcher {
    let backend: any CaptureBackend
    let shared: CaptureShared
    /// The configured source query (name or description).
    let query: String
    let interval: Duration

    func run() {
        let lister = backend.makeDeviceLister()
        while !shared.isStopping {
            wait()
            guard !shared.isStopping else { return }
            check(lister)
        }
    }

    /// One check: present → remember its current name and say so; absent → say so.
    private func check(_ lister: any CaptureDeviceLister) {
        guard let devices = try? lister.devices() else { return }
        if let device = try? PulseDeviceCatalog.resolve(query, kind: .source, in: devices) {
            shared.chosenName.locked { $0 = device.name }
            shared.chosenAvailable.store(true, ordering: .relaxed)
        } else {
            shared.chosenAvailable.store(false, ordering: .relaxed)
        }
    }

    /// Waits one interval, returning early when stop is requested (stop signals the semaphore).
    private func wait() {
        _ = shared.watcherWake.wait(timeout: .now() + .nanoseconds(Int(clamping: interval.wholeNanoseconds)))
    }
}
