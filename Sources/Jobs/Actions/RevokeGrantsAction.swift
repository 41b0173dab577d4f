import Foundation
import OMSProtocol
import Runner

/// `jobs.revoke-grants`: the second step of the revoke sweep, over the grants `jobs.revoke-select`
/// selected (`for_each: ${{ steps.select.outputs.grants }}`). Each grant is one row of the run and one
/// row of the output CSV `wallet_id,credential_id,session_id,type,app_name,expires_at,reason,result`
/// (a sink, in selection order).
///
/// `plan` answers every grant `planned` and sends nothing. `apply` sends `RevokeAccess` per grant (with
/// its `sessionId` for a remote grant) and answers `revoked`; a grant that fails after the step's retries
/// is `failed`. The caller's own grants are `skipped-caller`, never sent. In doubt after a crash, a grant
/// is probed by listing its wallet's grants: one no longer listed was revoked (docs/jobs.md "revoke-sweep").
public struct RevokeGrantsAction: ChunkAction {
    /// One selected grant: the fields of an item, as `jobs.revoke-select` lists them.
    public struct Grant: Sendable, Equatable {
        public var walletId: String
        public var credentialId: String
        /// Empty for a direct credential.
        public var sessionId: String
        /// `direct` or `remote`.
        public var type: String
        public var appName: String
        public var expiresAt: String
        /// `expired`, `non-caller` or `caller`.
        public var reason: String
        /// The credential running the sweep: reported, never revoked.
        public var isCaller: Bool

        /// The item fields.
        var fields: [String: String] {
            [
                "wallet_id": walletId, "credential_id": credentialId, "session_id": sessionId, "type": type,
                "app_name": appName, "expires_at": expiresAt, "reason": reason, "caller": isCaller ? "true" : "false",
            ]
        }

        /// The grant of an item's fields.
        init(fields: [String: String]) {
            walletId = fields["wallet_id"] ?? ""
            credentialId = fields["credential_id"] ?? ""
            sessionId = fields["session_id"] ?? ""
            type = fields["type"] ?? ""
            appName = fields["app_name"] ?? ""
            expiresAt = fields["expires_at"] ?? ""
            reason = fields["reason"] ?? ""
            isCaller = fields["caller"] == "true"
        }

        init(
            walletId: String, credentialId: String, sessionId: String, type: String, appName: String,
            expiresAt: String, reason: String, isCaller: Bool
        ) {
            self.walletId = walletId
            self.credentialId = credentialId
            self.sessionId = sessionId
            self.type = type
            self.appName = appName
            self.expiresAt = expiresAt
            self.reason = reason
            self.isCaller = isCaller
        }

        /// The output row with `result`.
        func row(result: String) -> [String] {
            [walletId, credentialId, sessionId, type, appName, expiresAt, reason, result]
        }
    }

    /// The output header (public contract).
    public static let header = [
        "wallet_id", "credential_id", "session_id", "type", "app_name", "expires_at", "reason", "result",
    ]

    /// Plan (send nothing) or apply.
    public let mode: RevokeSelectAction.Mode
    /// The output CSV.
    public let output: String
    /// The signed-in client, opened on the first chunk.
    let client: @Sendable () throws -> WaasClient

    /// An action in `mode` writing `output`, sending with `client()`.
    public init(mode: RevokeSelectAction.Mode, output: String, client: @escaping @Sendable () throws -> WaasClient) {
        self.mode = mode
        self.output = output
        self.client = client
    }

    public var name: String { "jobs.revoke-grants" }
    public var isSideEffecting: Bool { mode == .apply }
    /// One grant per chunk: the core revokes one grant per request, so the step's concurrency is the
    /// requests in flight.
    public var defaultBatch: Int { 1 }

    public var sinks: [OutputSink] {
        [
            OutputSink(path: output, header: Self.header) { record in
                let grant = Grant(fields: record.fields)
                return grant.row(result: record.state == .succeeded ? record.outputs["result"] ?? "" : "failed")
            }
        ]
    }

    public func run(chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome] {
        var outcomes: [ItemOutcome] = []
        for item in chunk {
            let grant = Grant(fields: item.fields)
            if grant.isCaller {
                outcomes.append(.succeeded(Self.result("skipped-caller")))
            } else if mode == .plan {
                outcomes.append(.succeeded(Self.result("planned")))
            } else {
                do {
                    _ = try await client().call(
                        .revokeAccess,
                        RevokeAccessRequest(
                            targetCredentialId: grant.credentialId, walletId: grant.walletId,
                            sessionId: grant.type == CredentialType.remote.rawValue ? grant.sessionId : nil),
                        as: OKResponse.self)
                    outcomes.append(.succeeded(Self.result("revoked")))
                } catch {
                    let failure = JobFailure.classify(error)
                    // An unreachable core or a refused sign-in stops the run: every later grant would fail alike.
                    if failure.stopsRun { throw failure }
                    outcomes.append(.failed(failure.errorClass, failure.message))
                }
            }
        }
        return outcomes
    }

    /// A grant no longer listed on its wallet was revoked; one still listed was not.
    public func probe(chunk: [WorkItem], context: ChunkContext) async throws -> [ProbeOutcome] {
        let client = try client()
        var listed: [String: [CredentialInfo]] = [:]
        var answers: [ProbeOutcome] = []
        for item in chunk {
            let grant = Grant(fields: item.fields)
            if grant.isCaller || mode == .plan {
                answers.append(.notDone)
                continue
            }
            if listed[grant.walletId] == nil {
                do {
                    listed[grant.walletId] = try await ConcurrentReads.allAccess(
                        client: client, walletId: grant.walletId, type: nil)
                } catch {
                    throw JobFailure.classify(error)
                }
            }
            let still = listed[grant.walletId]!.contains {
                $0.credentialId == grant.credentialId && ($0.type == .direct || $0.sessionId == grant.sessionId)
            }
            answers.append(still ? .notDone : .done(Self.result("revoked")))
        }
        return answers
    }

    static func result(_ result: String) -> ActionResult { ActionResult(outputs: ["result": result]) }
}
