import Foundation
import OMSCore
import OMSProtocol
import WalletCrypto

extension ImportBench {
    /// The `import-batch` case's section: `Waas/ImportWallets` with batches of `--batch N` keys
    /// (default 1000), `--batches M` per row (default 10), beside the single-key import's attestation cost;
    /// `--in-process` leaves out the HTTP rows.
    static func runBatched(_ arguments: [String]) async throws -> String {
        let size = AccessBench.option("--batch", in: arguments) ?? ImportWalletsRequest.maxWallets
        let batches = AccessBench.option("--batches", in: arguments) ?? 10
        return "## Batched attested imports (Waas/ImportWallets, issue 9): \(batches) batches of \(size) keys "
            + "per row (CPU time: the machine is shared)\n\n"
            + (try await runBatched(size: size, batches: batches, http: !arguments.contains("--in-process")))
    }

    static func runBatched(size: Int, batches: Int, http: Bool) async throws -> String {
        let core = try CoreBench.Core()
        defer { try? FileManager.default.removeItem(at: core.home.url) }
        let rootPEM = try String(contentsOf: core.home.attestationRootURL, encoding: .utf8)
        let root = try X509Certificate(pemEncoded: rootPEM)
        let verifier = AttestationVerifier(policy: try .development(rootPEM: rootPEM))
        let embedded = InProcessTransport(handler: core.service)
        let documents = try await documentCheck(try await core.clients(embedded, count: 1)[0], root: root)
        var transports: [(String, any WaasTransport)] = [("in-process", embedded)]
        if http { transports.append(("HTTP", HTTPTransport(baseURL: core.server.baseURL, maxConnections: 2))) }
        // The per-key floor: what the core must do for each Ethereum key whatever the protocol.
        var seed = [UInt8](repeating: 0x21, count: 32)
        var sink: UInt8 = 0
        let secp256k1 = try CPUTime.perCall {
            seed[31] &+= 1
            if seed[31] == 0 { seed[30] &+= 1 }
            sink ^= try Secp256k1.PrivateKey(SecretBytes(seed)).ethereumAddress.checksummed.utf8.last ?? 0
        }
        if sink == 0xff { print("") }  // keeps the work observable
        var table = Table(header: ["import", "transport", "clients", "keys/s", "CPU us/key", "batch ms"])
        var best = 0.0
        for (name, transport) in transports {
            let clients = try await core.clients(transport, count: 2)
            for (family, count) in [(NetworkFamily.evm, 1), (.evm, 2), (.solana, 2)] {
                if name == "HTTP" && family == .solana { continue }
                let cpuStart = CPUTime.process()
                let perSecond = try await CoreBench.rate(Array(clients.prefix(count)), total: batches) { client in
                    let items = (0..<size).map { _ in
                        ImportItem(privateKey: SecretBytes.random(count: 32), networkFamily: family)
                    }
                    let results = try await client.importWallets(items, verifier: verifier)
                    for result in results {
                        guard case .imported = result else { throw BenchError("a batch item was refused: \(result)") }
                    }
                }
                // CPU of the whole process (client, core, server) per key, warm-up batches included.
                let keys = Double((batches / count * count + count) * size)
                let cpu = (CPUTime.process() - cpuStart) / keys
                let keysPerSecond = perSecond * Double(size)
                if family == .evm { best = max(best, keysPerSecond) }
                table.add([
                    family == .evm ? "Ethereum key" : "Solana seed", name, "\(count)", format(keysPerSecond, digits: 0),
                    format(cpu, digits: 1), format(1000 / perSecond * Double(count), digits: 0),
                ])
            }
        }
        await core.server.stop(grace: .seconds(1))
        let note = """
            One batch = 1 attested GetRecipientKey + 1 HPKE setup + \(size) HPKE messages + 1 attested \
            ImportWallets (one transaction); the core spreads each batch over \
            \(ProcessInfo.processInfo.activeProcessorCount) cores. Best Ethereum rate: \(format(best, digits: 0)) \
            keys/s.
            Floor per Ethereum key: secp256k1 key + EIP-55 address \(format(secp256k1, digits: 1)) us (CPU).
            Client check of one document: \(format(documents.full, digits: 0)) us in full, \
            \(format(documents.cached, digits: 0)) us with the chain cached (AttestationVerifier.chainCache).
            Peak RSS \(format(Measure.peakRSSMiB(), digits: 0)) MiB.
            """
        return table.render() + "\n\n" + note
    }

    /// CPU microseconds of one document check without and with the chain cache.
    static func documentCheck(_ client: WaasClient, root: X509Certificate) async throws -> (
        full: Double, cached: Double
    ) {
        let nonce = Attestation.makeNonce()
        let (reply, _) = try await client.callRaw(
            .getRecipientKey, body: WaasClient.encodeBody(GetRecipientKeyRequest(suite: ImportSuite.default.rawValue)),
            extraHeaders: [(Attestation.nonceHeader, CanonicalBase64.encode(nonce))])
        guard let header = reply.header(Attestation.documentHeader), let encoded = Data(base64Encoded: header) else {
            throw BenchError("GetRecipientKey replied without an attestation document")
        }
        let document = [UInt8](encoded)
        let pin = root.sha256Fingerprint
        let now = Date()
        let cache = X509ChainCache()
        var sink: UInt64 = 0
        let full = try CPUTime.perCall {
            sink ^= try NitroAttestationDocument.verify(coseSign1: document, pinnedRootSHA256: pin, at: now).timestamp
        }
        let cached = try CPUTime.perCall {
            sink ^= try NitroAttestationDocument.verify(
                coseSign1: document, pinnedRootSHA256: pin, at: now, chainCache: cache
            ).timestamp
        }
        if sink == 1 { print("") }  // keeps the work observable
        return (full, cached)
    }
}
