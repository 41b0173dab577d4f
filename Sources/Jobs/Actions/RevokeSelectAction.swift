import Foundation
import OMSProtocol
import Runner

/// `jobs.revoke-select`: the first step of the revoke sweep. Walks every wallet of the signed-in identity,
/// lists its grants (all pages) and selects by the filters; its output `grants` is the selection, one
/// object per grant in wallet order, which the `jobs.revoke-grants` step iterates.
///
/// The caller's own grants are in the list, marked `caller` (the revoke step reports them
/// `skipped-caller` and never revokes them). In `apply` mode a selection larger than `maxRevocations`
/// fails the step before anything is revoked, with the plan written to `output` (a permanent failure:
/// the next step never runs). A read only: running it again selects again.
public struct RevokeSelectAction: Action {
    /// Plan or apply.
    public enum Mode: String, Sendable { case plan, apply }
    /// Which grants.
    public enum Selection: String, Sendable {
        case expired
        case nonCaller = "non-caller"
        case expiredOrNonCaller = "expired-or-non-caller"
    }

    /// The selection's settings.
    public struct Configuration: Sendable {
        public var mode: Mode
        public var selection: Selection
        public var appName: String?
        /// Only grants whose expiry is more than this many seconds in the past.
        public var olderThan: Int64?
        public var type: CredentialType?
        public var maxRevocations: Int
        /// Where the plan goes when the selection is over `maxRevocations` (the revoke step's output).
        public var output: String
        /// ListAccess requests in flight at once (one per wallet).
        public var concurrency: Int
        public var now: @Sendable () -> Int64

        /// Creates a configuration.
        public init(
            mode: Mode, selection: Selection, appName: String? = nil, olderThan: Int64? = nil,
            type: CredentialType? = nil, maxRevocations: Int = 100, output: String, concurrency: Int = 8,
            now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        ) {
            self.mode = mode
            self.selection = selection
            self.appName = appName
            self.olderThan = olderThan
            self.type = type
            self.maxRevocations = maxRevocations
            self.output = output
            self.concurrency = max(1, concurrency)
            self.now = now
        }
    }

    public let configuration: Configuration
    /// The signed-in client, opened on first use.
    let client: @Sendable () throws -> WaasClient

    /// An action for `configuration` that reads with `client()`.
    public init(_ configuration: Configuration, client: @escaping @Sendable () throws -> WaasClient) {
        self.configuration = configuration
        self.client = client
    }

    public var name: String { "jobs.revoke-select" }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let grants: [RevokeGrantsAction.Grant]
        do {
            grants = try await select(client: try client())
        } catch {
            throw JobFailure.classify(error)
        }
        let selected = grants.filter { !$0.isCaller }.count
        if configuration.mode == .apply && selected > configuration.maxRevocations {
            try CSVFile.write(
                path: configuration.output, header: RevokeGrantsAction.header,
                rows: grants.map { $0.row(result: $0.isCaller ? "skipped-caller" : "planned") })
            throw ActionError.permanent(
                "the selection holds \(selected) grants, more than max_revocations "
                    + "\(configuration.maxRevocations): nothing was revoked (the plan is in \(configuration.output))")
        }
        return ActionResult(outputs: [
            "grants": try OutputJSON.text(grants.map(\.fields)),
            "selected": String(selected), "callers": String(grants.count - selected),
        ])
    }

    /// Every grant of every wallet that the filters select, plus the caller's own grants (marked).
    func select(client: WaasClient) async throws -> [RevokeGrantsAction.Grant] {
        let now = configuration.now()
        let wallets = try await CoreConnection.allWallets(client)
        // Grants of several wallets are listed at once, then walked in wallet order so the list is stable.
        let type = configuration.type
        let listed = try await ConcurrentReads.map(wallets, limit: configuration.concurrency) { wallet in
            try await ConcurrentReads.allAccess(client: client, walletId: wallet.id, type: type)
        }
        var grants: [RevokeGrantsAction.Grant] = []
        // A direct credential is account-wide: it is listed on every wallet but revoked once.
        var seenDirect: Set<String> = []
        for (wallet, walletGrants) in zip(wallets, listed) {
            for grant in walletGrants {
                if grant.type == .direct && !seenDirect.insert(grant.credentialId).inserted { continue }
                if let appName = configuration.appName, !appName.isEmpty, grant.metadata?.appName != appName {
                    continue
                }
                let expiry = RFC3339.parse(grant.expiresAt) ?? Int64.max
                let expired = expiry <= now
                if let olderThan = configuration.olderThan, !(expiry < now - olderThan) { continue }
                let reason: String
                switch configuration.selection {
                case .expired:
                    guard expired else { continue }
                    reason = "expired"
                case .nonCaller:
                    reason = "non-caller"
                case .expiredOrNonCaller:
                    reason = expired ? "expired" : "non-caller"
                }
                grants.append(
                    RevokeGrantsAction.Grant(
                        walletId: wallet.id, credentialId: grant.credentialId, sessionId: grant.sessionId ?? "",
                        type: grant.type.rawValue, appName: grant.metadata?.appName ?? "", expiresAt: grant.expiresAt,
                        reason: grant.isCaller ? "caller" : reason, isCaller: grant.isCaller))
            }
        }
        return grants
    }
}
