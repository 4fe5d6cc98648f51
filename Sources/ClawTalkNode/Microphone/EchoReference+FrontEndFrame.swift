package import ClawTalkDevices
package import ClawTalkTalk

extension EchoReference {
    /// The double-talk test's reference of a processed capture frame: the raw input's level and
    /// the far end's, whole and by band, and how long ago the node last wrote output. The
    /// microphone owner hands it to Talk mode and the realtime relay with every frame; the
    /// bench's Talk onset monitor builds it the same way.
    package init(_ frame: FrontEndFrame) {
        self.init(
            input: frame.inputRMS, farEnd: frame.farEndRMS, inputBands: frame.inputBands,
            farEndBands: frame.farEndBands,
            sinceFarEndWrite: frame.sinceFarEndWriteNanoseconds.map { Double($0) / 1_000_000_000 })
    }
}
