extension WaasClient {
    /// `Waas/CreateWallets`: creates a wallet for each reference the account does not have yet, in one
    /// signed request (docs/protocol.md "CreateWallets").
    ///
    /// Exactly once by reference: a reference the account already has comes back as that wallet with
    /// `created: false`, so sending the same batch again (after a lost reply, or when resuming a job)
    /// creates nothing twice.
    ///
    /// - Parameters:
    ///   - networkFamily: `evm` or `solana`, for the wallets this call creates.
    ///   - references: 1...1000 distinct references of at most 128 UTF-8 bytes each.
    /// - Returns: one entry per reference, in the order given.
    /// - Throws: `WaasError` (`InvalidRequest` naming the index of a bad or repeated reference);
    ///   `WaasClientError` `.invalidResponse` when the reply does not match the request.
    public func createWallets(networkFamily: NetworkFamily, references: [String]) async throws -> [CreatedWallet] {
        let method = WaasMethod.createWallets
        let (response, _) = try await callRaw(
            method, body: CreateWalletsRequest(networkFamily: networkFamily, references: references).jsonBytes())
        let reply: CreateWalletsResponse
        do {
            reply = try CreateWalletsResponse(jsonBytes: response.body)
        } catch {
            throw WaasClientError(
                .invalidResponse, method: method, "CreateWallets: reply does not decode: \(error)",
                status: response.status)
        }
        // The reply is positional: check it names the references asked for, in order.
        guard reply.wallets.count == references.count,
            zip(reply.wallets, references).allSatisfy({ $0.wallet.reference == $1 })
        else {
            throw WaasClientError(
                .invalidResponse, method: method,
                "CreateWallets: the reply does not list the \(references.count) requested references in order")
        }
        return reply.wallets
    }
}
