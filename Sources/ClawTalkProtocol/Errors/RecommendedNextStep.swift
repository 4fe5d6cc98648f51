/// `details.recommendedNextStep` of an auth or pairing failure (protocol.md §3, §8.2).
/// Unknown values stay available as ``ErrorShape/recommendedNextStepRaw``.
public enum RecommendedNextStep: String, Sendable, Hashable, CaseIterable {
    /// Retry once with the stored device token.
    case retryWithDeviceToken = "retry_with_device_token"
    /// The gateway's auth configuration needs changing.
    case updateAuthConfiguration = "update_auth_configuration"
    /// The client's credentials need changing.
    case updateAuthCredentials = "update_auth_credentials"
    /// Keep retrying with normal backoff (e.g. a pending bootstrap approval).
    case waitThenRetry = "wait_then_retry"
    /// Review the auth configuration.
    case reviewAuthConfiguration = "review_auth_configuration"
}
