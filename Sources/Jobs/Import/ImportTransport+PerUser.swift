import OMSProtocol
import Runner

extension ImportTransport {
    /// The per-user mode: a batch's items are grouped by subject and each group is imported into its
    /// subject's own account, with that subject's signed-in client (``SubjectSignIn``: one sign-in per
    /// subject, cached), as `Waas/ImportWallets` calls of at most 1,000 keys. Replies come back in the
    /// items' order, so the pipeline records, rejects and writes exactly as in the shared mode.
    ///
    /// - One request at a time per subject (``KeyedSerialGate``, shared by every batch in flight: a
    ///   subject's credential has its own nonce sequence); different subjects go concurrently, at most
    ///   `subjectsInParallel` of one batch at once.
    /// - A sign-in refused with Unauthorized (the project does not trust the issuer, its key or its kid:
    ///   the same for every subject) ends the run with `setUpHint`; another refusal rejects that
    ///   subject's rows (class `service`); transient failures and lost replies are thrown, so the
    ///   batch is sent again (the core answers what it imported as already imported).
    static func perUser(
        signIn: SubjectSignIn, verifier: AttestationVerifier, gate: KeyedSerialGate, subjectsInParallel: Int,
        setUpHint: String
    ) -> ImportTransport {
        let limit = max(1, subjectsInParallel)
        return ImportTransport { items, requestMade in
            // Groups in order of first appearance; each group keeps its items' order.
            var subjects: [String] = []
            var groups: [String: [Int]] = [:]
            for (index, item) in items.enumerated() {
                guard let subject = item.subject else {
                    throw ActionError.permanent("per-user import: a row reached the core without a subject")
                }
                if groups[subject] == nil { subjects.append(subject) }
                groups[subject, default: []].append(index)
            }
            var replies = [ImportItemReply?](repeating: nil, count: items.count)
            try await withThrowingTaskGroup(of: ([Int], [ImportItemReply]).self) { group in
                var running = 0
                for subject in subjects {
                    if running >= limit, let (indices, answers) = try await group.next() {
                        for (index, answer) in zip(indices, answers) { replies[index] = answer }
                        running -= 1
                    }
                    let indices = groups[subject]!
                    let subjectItems = indices.map { items[$0] }
                    group.addTask {
                        (
                            indices,
                            try await send(
                                subjectItems, subject: subject, signIn: signIn, verifier: verifier, gate: gate,
                                setUpHint: setUpHint, requestMade: requestMade)
                        )
                    }
                    running += 1
                }
                for try await (indices, answers) in group {
                    for (index, answer) in zip(indices, answers) { replies[index] = answer }
                }
            }
            return try replies.map { reply in
                guard let reply else { throw ActionError.permanent("per-user import: a row got no answer") }
                return reply
            }
        }
    }

    /// One subject's items through its own client, one request of it at a time.
    static func send(
        _ items: [ImportRequestItem], subject: String, signIn: SubjectSignIn, verifier: AttestationVerifier,
        gate: KeyedSerialGate, setUpHint: String, requestMade: @escaping @Sendable () -> Void
    ) async throws -> [ImportItemReply] {
        let client: WaasClient
        do {
            client = try await signIn.client(for: subject)
        } catch let error as WaasError where error.code == .unauthorized {
            throw ActionError.permanent("the core refused the per-user sign-in (\(error)); \(setUpHint)")
        } catch let error as WaasError where !(error.code.httpStatus >= 500 || error.code.httpStatus == 429) {
            let refusal = WaasError(error.code, "the sign-in of the row's subject was refused: \(error.message)")
            return items.map { _ in .failed(refusal) }
        }
        return try await importChunks(items) { chunk in
            try await gate.withPermit(subject) {
                requestMade()
                return try await client.importWallets(chunk, verifier: verifier)
            }
        }
    }
}
