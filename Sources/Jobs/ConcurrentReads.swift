import OMSProtocol

/// Reads that fan out: one request per element with a bounded number in flight, for the listings a job
/// makes before its rows exist (the grants of every wallet). The rows themselves are the engine's to fan
/// out (chunk steps); this is only for what selects them.
enum ConcurrentReads {
    /// `read` of every element of `elements`, at most `limit` at once; the answers in the elements' order.
    static func map<Element: Sendable, Answer: Sendable>(
        _ elements: [Element], limit: Int, _ read: @escaping @Sendable (Element) async throws -> Answer
    ) async throws -> [Answer] {
        try await withThrowingTaskGroup(of: (Int, Answer).self) { group in
            var answers = [Answer?](repeating: nil, count: elements.count)
            var next = 0
            func start() {
                let index = next
                let element = elements[index]
                group.addTask { (index, try await read(element)) }
                next += 1
            }
            while next < elements.count && next < max(1, limit) { start() }
            while let (index, answer) = try await group.next() {
                answers[index] = answer
                if next < elements.count { start() }
            }
            return answers.map { $0! }
        }
    }

    /// ListAccess for one wallet, every page.
    static func allAccess(
        client: WaasClient, walletId: String, type: CredentialType?, includeRevoked: Bool = false
    ) async throws -> [CredentialInfo] {
        var grants: [CredentialInfo] = []
        var page: Page?
        repeat {
            let response = try await client.call(
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
