internal import CAvahi
import Foundation

/// Browses `_openclaw-gw._tcp` through the Avahi daemon (libavahi-client over the system
/// D-Bus) in `local.` and wide-area domains, resolving every instance to its SRV target, port,
/// addresses and TXT record. Owns the client and its simple poll; one browse at a time, on the
/// calling thread (blocking until every browser reported "all for now" and every resolver
/// answered, or the timeout).
public final class AvahiBrowser {
    /// The service type gateways advertise.
    public static let serviceType = "_openclaw-gw._tcp"

    private let poll: OpaquePointer
    private let client: OpaquePointer
    private let state: BrowseState

    /// Connects to the Avahi daemon.
    /// - Throws: ``DiscoveryError/avahiUnavailable(_:)``.
    public init() throws(DiscoveryError) {
        guard let poll = avahi_simple_poll_new() else { throw .avahiUnavailable("out of memory") }
        let state = BrowseState()
        var error: Int32 = 0
        guard
            let client = avahi_client_new(
                avahi_simple_poll_get(poll), AvahiClientFlags(rawValue: 0), { _, _, _ in }, nil, &error)
        else {
            avahi_simple_poll_free(poll)
            throw .avahiUnavailable(String(cString: avahi_strerror(error)))
        }
        self.poll = poll
        self.client = client
        self.state = state
    }

    deinit {
        avahi_client_free(client)
        avahi_simple_poll_free(poll)
    }

    /// Browses `domains` (nil: the default, `local`) and returns the resolved gateways, sorted
    /// by domain and name.
    /// - Throws: ``DiscoveryError/browseFailed(_:)`` when a browser cannot be created.
    public func browse(domains: [String?], timeout: Duration) throws(DiscoveryError) -> [DiscoveredGateway] {
        state.reset(client: client)
        let context = Unmanaged.passUnretained(state).toOpaque()
        var browsers: [OpaquePointer] = []
        defer { for browser in browsers { avahi_service_browser_free(browser) } }
        for domain in domains {
            let browser = avahi_service_browser_new(
                client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), Self.serviceType, domain,
                AvahiLookupFlags(rawValue: 0),
                browseCallback, context)
            guard let browser else {
                throw .browseFailed(
                    "\(domain ?? "local"): " + String(cString: avahi_strerror(avahi_client_errno(client))))
            }
            browsers.append(browser)
            state.openBrowsers += 1
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !state.isDone {
            if avahi_simple_poll_iterate(poll, 50) != 0 { break }
        }
        state.freeResolvers()
        return state.found.values.sorted { ($0.domain, $0.instanceName) < ($1.domain, $1.instanceName) }
    }
}

/// Browse progress, reached from the C callbacks through their context pointer.
final class BrowseState {
    var client: OpaquePointer?
    var openBrowsers = 0
    var resolvers: Set<OpaquePointer> = []
    var found: [String: DiscoveredGateway] = [:]

    var isDone: Bool { openBrowsers == 0 && resolvers.isEmpty }

    func reset(client: OpaquePointer) {
        self.client = client
        openBrowsers = 0
        found = [:]
    }

    func freeResolvers() {
        for resolver in resolvers { avahi_service_resolver_free(resolver) }
        resolvers = []
    }
}

private func browseCallback(
    browser: OpaquePointer?, interface: AvahiIfIndex, proto: AvahiProtocol, event: AvahiBrowserEvent,
    name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?,
    flags: AvahiLookupResultFlags, context: UnsafeMutableRawPointer?
) {
    guard let context else { return }
    let state = Unmanaged<BrowseState>.fromOpaque(context).takeUnretainedValue()
    switch event {
    case AVAHI_BROWSER_NEW:
        guard let client = state.client,
            let resolver = avahi_service_resolver_new(
                client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_UNSPEC),
                AvahiLookupFlags(rawValue: 0),
                resolveCallback, context)
        else { return }
        state.resolvers.insert(resolver)
    case AVAHI_BROWSER_ALL_FOR_NOW, AVAHI_BROWSER_FAILURE:
        state.openBrowsers -= 1
    default:
        break
    }
}

private func resolveCallback(
    resolver: OpaquePointer?, interface: AvahiIfIndex, proto: AvahiProtocol, event: AvahiResolverEvent,
    name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?,
    hostName: UnsafePointer<CChar>?, address: UnsafePointer<AvahiAddress>?, port: UInt16,
    txt: UnsafeMutablePointer<AvahiStringList>?, flags: AvahiLookupResultFlags, context: UnsafeMutableRawPointer?
) {
    guard let context, let resolver else { return }
    let state = Unmanaged<BrowseState>.fromOpaque(context).takeUnretainedValue()
    defer {
        state.resolvers.remove(resolver)
        avahi_service_resolver_free(resolver)
    }
    guard event == AVAHI_RESOLVER_FOUND, let name, let domain, let hostName else { return }
    // The resolver's list is in wire order (checked against a raw mDNS answer); RFC 6763 says
    // the first of two equal keys counts.
    var strings: [String] = []
    var item = txt
    while let current = item {
        let size = Int(avahi_string_list_get_size(current))
        if let text = avahi_string_list_get_text(current) {
            strings.append(String(decoding: UnsafeBufferPointer(start: text, count: size), as: UTF8.self))
        }
        item = avahi_string_list_get_next(current)
    }
    var addressText: String?
    if let address {
        var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        if avahi_address_snprint(&buffer, buffer.count, address) != nil {
            addressText = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
    }
    let instance = String(cString: name)
    let domainText = String(cString: domain)
    let key = domainText + "/" + instance
    var gateway =
        state.found[key]
        ?? DiscoveredGateway(
            instanceName: instance, domain: domainText, hostName: String(cString: hostName), port: Int(port),
            addresses: [], txt: GatewayTXTRecord(strings: strings))
    if let addressText, !gateway.addresses.contains(addressText) { gateway.addresses.append(addressText) }
    state.found[key] = gateway
}
