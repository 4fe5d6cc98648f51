import ClawTalkTalk

/// A ``TranscriptDelivering`` that notes each transcript in a ``VoiceStatusTap`` (for
/// `clawtalk status`'s last transcript) and hands it on unchanged.
package struct StatusNotingDelivery: TranscriptDelivering {
    /// The real delivery.
    var inner: any TranscriptDelivering
    /// Where the transcript is noted.
    var tap: VoiceStatusTap

    /// Notes `transcript`, then delivers it.
    func deliver(_ transcript: String, source: TranscriptSource) async -> DeliveryReceipt {
        tap.note(transcript: transcript)
        return await inner.deliver(transcript, source: source)
    }
}
