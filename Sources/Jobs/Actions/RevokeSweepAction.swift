import Foundation
import OMSCore
import OMSProtocol
import Runner

/// `jobs.revoke-sweep`: walks every wallet of the signed-in identity, lists its grants (all pages),
/// selects by the filters, and in `apply` mode revokes them (a remote grant per session).
///
/// Never revokes the credential running the sweep (`skipped-caller`). `plan` changes nothing. `apply`
/// first aborts without revoking anything when the selection exceeds `maxRevocations`. Resumable:
/// revoked grants leave ListAccess and revoking one twice answers ok for the owner, so a second apply
/// revokes nothing.
public struct RevokeSweepAction: Action {
    /// Plan or apply.
    public enum Mode: String, Sendable { case plan, apply }
    /// Which grants.
    public enum Selection: String, Sendable {
        case expired
        case nonCaller = "non-caller"
        case expiredOrNonCaller = "expired-or-non-caller"
    }

    /// The sweep's settings.
    public struct Configuration: Sendable {
        public var mode: Mode
        public var selection: Selection
        public var appName: String?
        /// Only grants whose expiry is more than this many seconds in the past.
        public var olderThan: Int64?
        public var type: CredentialType?
        public var maxRevocations: Int
        public var output: String
        public var coreURL: URL?
        /// Requests in flight at once (listing wallets' grants, revoking).
        public var concurrency: Int
        public var now: @Sendable () -> Int64

        /// Creates a configuration.
        public init(
            mode: Mode, selection: Selection, appName: String? = nil, olderThan: Int64? = nil,
            type: CredentialType? = nil, maxRevocations: Int = 100, output: String, coreURL: URL? = nil,
            concurrency: Int = 8, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        ) {
            self.mode = mode
            self.selection = selection
            self.appName = appName
            self.olderThan = olderThan
            self.type = type
            self.maxRevocations = maxRevocations
            self.output = output
            self.coreURL = coreURL
            self.concurrency = max(1, concurrency)
            self.now = now
        }
    }

    /// The output header (public contract).
    public static let header = [
        "wallet_id", "credential_id", "session_id", "type", "app_name", "expires_at", "reason", "result",
    ]

    public let configuration: Configuration

    /// An action for `configuration`.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    public var name: String { "jobs.revoke-sweep" }
    public var isSideEffecting: Bool { configuration.mode == .apply }

    struct Candidate {
        var walletId: String
        var grant: CredentialInfo
        var reason: String
        var isCaller: Bool
    }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let session = try JobSession.shared(home: JobSession.commandHome(), coreURL: configuration.coreURL)
        let client = session.client
        let candidates = try await select(client: client)
        let selected = candidates.filter { !$0.isCaller }
        var results = candidates.map { $0.isCaller ? "skipped-caller" : "planned" }
        if configuration.mode == .apply {
            if selected.count > configuration.maxRevocations {
                try write(candidates, results: results)
                throw ActionError.permanent(
                    "the selection holds \(selected.count) grants, more than max_revocations "
                        + "\(configuration.maxRevocations): nothing was revoked (the plan is in \(configuration.output))"
                )
            }
            let revoked = try await Self.bounded(
                candidates.indices.filter { !candidates[$0].isCaller }, limit: configuration.concurrency
            ) { index in
                let grant = candidates[index].grant
                do {
                    _ = try await client.jobCall(
                        .revokeAccess,
                        RevokeAccessRequest(
                            targetCredentialId: grant.credentialId, walletId: candidates[index].walletId,
                            sessionId: grant.type == .remote ? grant.sessionId : nil),
                        as: OKResponse.self)
                    return true
                } catch {
                    return false
                }
            }
            for (index, ok) in revoked { results[index] = ok ? "revoked" : "failed" }
        }
        try write(candidates, results: results)
        let failed = results.filter { $0 == "failed" }.count
        if failed > 0 { throw ActionError.retryable("\(failed) revocations failed (see \(configuration.output))") }
        return ActionResult(outputs: [
            "selected": String(selected.count),
            "revoked": String(results.filter { $0 == "revoked" }.count), "output": configuration.output,
        ])
    }

    /// Re-run on resume: what was revoked is no longer listed.
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .notDone }

    func write(_ candidates: [Candidate], results: [String]) throws {
        let rows = candidates.enumerated().map { index, candidate in
            [
                candidate.walletId, candidate.grant.credentialId, candidate.grant.sessionId ?? "",
                candidate.grant.type.rawValue, candidate.grant.metadata?.appName ?? "", candidate.grant.expiresAt,
                candidate.reason, results[index],
            ]
        }
        try CSVFile.write(path: configuration.output, header: Self.header, rows: rows)
    }

    /// Every grant of every wallet that the filters select, plus the caller's own grants (reported).
    func select(client: WaasClient) async throws -> [Candidate] {
        let now = configuration.now()
        var candidates: [Candidate] = []
        // A direct credential is account-wide: it is listed on every wallet but revoked once.
        var seenDirect: Set<String> = []
        let wallets = try await StaleNonce.retrying { try await CoreConnection.allWallets(client) }
        // Grants are listed for several wallets at once, then walked in wallet order so the output is stable.
        let listed = try await Self.bounded(Array(wallets.indices), limit: configuration.concurrency) { index in
            try await Self.allAccess(client: client, walletId: wallets[index].id, type: configuration.type)
        }
        let grantsByWallet = Dictionary(uniqueKeysWithValues: listed)
        for (index, wallet) in wallets.enumerated() {
            for grant in grantsByWallet[index] ?? [] {
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
                if grant.isCaller {
                    candidates.append(Candidate(walletId: wallet.id, grant: grant, reason: "caller", isCaller: true))
                } else {
                    candidates.append(Candidate(walletId: wallet.id, grant: grant, reason: reason, isCaller: false))
                }
            }
        }
        return candidates
    }

    /// `work` for each index with at most `limit` in flight; the results by index, in completion order.
    static func bounded<T: Sendable>(
        _ indices: [Int], limit: Int, _ work: @escaping @Sendable (Int) async throws -> T
    ) async throws -> [(Int, T)] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var results: [(Int, T)] = []
            results.reserveCapacity(indices.count)
            var next = 0
            while next < indices.count && next < limit {
                let index = indices[next]
                group.addTask { (index, try await work(index)) }
                next += 1
            }
            while let result = try await group.next() {
                results.append(result)
                if next < indices.count {
                    let index = indices[next]
                    group.addTask { (index, try await work(index)) }
                    next += 1
                }
            }
            return results
        }
    }

    /// ListAccess for one wallet, every page.
    static func allAccess(
        client: WaasClient, walletId: String, type: CredentialType?, includeRevoked: Bool = false
    ) async throws -> [CredentialInfo] {
        var grants: [CredentialInfo] = []
        var page: Page?
        repeat {
            let response = try await client.jobCall(
                .listAccess,
                ListAccessRequest(
                    walletId: walletId, page: page, type: type, includeRevoked: includeRevoked ? true : nil),
                as: ListAccessResponse.self)
            grants += response.credentials
            page = response.page.flatMap { $0.hasMore ? Page(limit: $0.limit, cursor: $0.cursor) : nil }
        } while page != nil
        return grants
    }
}
