/// A frame's level in each of ``count`` octave bands from 150 Hz to 7.6 kHz (RMS of the band's
/// part of the signal, full scale 1.0: the squares of the bands add up to about the frame's mean
/// square over that range).
///
/// The double-talk test's spectral view (issue 15): the node's echo is as loud at the microphone
/// as its playback makes it in every band, while a user's voice adds sound where the reply has
/// little. A fixed-size value, safe to make and copy on an audio thread.
public struct BandLevels: Sendable, Hashable {
    /// Bands in use (of the 8 lanes of ``values``).
    public static let count = 6
    /// The band edges in Hz: band `b` spans `edges[b]..<edges[b + 1]`.
    public static let edges: [Double] = [150, 300, 600, 1200, 2400, 4800, 7600]

    /// The levels; lanes from ``count`` on stay 0.
    public var values: SIMD8<Double>

    /// All bands silent.
    public init() {
        values = .zero
    }

    /// Levels from `values` (lanes from ``count`` on are ignored).
    public init(_ values: SIMD8<Double>) {
        var values = values
        for lane in Self.count..<8 { values[lane] = 0 }
        self.values = values
    }

    /// The level of band `band`.
    public subscript(band: Int) -> Double {
        get { values[band] }
        set { values[band] = newValue }
    }

    /// The louder of `self` and `other` in each band.
    public func loudest(_ other: BandLevels) -> BandLevels {
        BandLevels(pointwiseMax(values, other.values))
    }
}
