/// The version `clawtalk version` prints and the node reports to the gateway.
public enum ClawTalkVersion {
    /// Semantic version of this build.
    public static let current = "0.1.0"
}
