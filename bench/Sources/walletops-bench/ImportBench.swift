import Foundation
import OMSCore
import OMSProtocol
import WalletCrypto

/// `walletops-bench import`: attested imports (issue 5) per second, embedded and over HTTP, Ethereum keys
/// and Solana seeds, one client and 8 at once; beside the crypto floor of one import, measured in the same
/// run: what the protocol makes unavoidable, whatever the code around it does.
enum ImportBench {
    /// The primitives one import needs, in CPU microseconds each, and how many times it needs them.
    struct Floor {
        /// (what, side, microseconds per call, calls per import).
        var parts: [(name: String, side: String, microseconds: Double, count: Int)] = []
        var secp256k1KeyAndAddress = 0.0
        var ed25519KeyAndAddress = 0.0
        /// The whole client check of one document (parse, chain, signature), for comparison.
        var documentVerification = 0.0

        /// Floor microseconds per import of `family`: the shared parts plus the key and its address.
        func microseconds(_ family: NetworkFamily) -> Double {
            parts.reduce(0) { $0 + $1.microseconds * Double($1.count) }
                + (family == .solana ? ed25519KeyAndAddress : secp256k1KeyAndAddress)
        }

        /// Microseconds of the attestation parts (signatures, verifications, chain checks) per import.
        var attestation: Double {
            parts.filter { $0.name.contains("P-384") || $0.name.contains("chain") }.reduce(0) {
                $0 + $1.microseconds * Double($1.count)
            }
        }

        /// Measures each primitive on a real attestation document of `client`'s core.
        static func measure(_ client: WaasClient, rootSHA256: [UInt8]) async throws -> Floor {
            let nonce = Attestation.makeNonce()
            let (reply, _) = try await client.callRaw(
                .getRecipientKey,
                body: WaasClient.encodeBody(GetRecipientKeyRequest(suite: ImportSuite.default.rawValue)),
                extraHeaders: [(Attestation.nonceHeader, CanonicalBase64.encode(nonce))])
            guard let header = reply.header(Attestation.documentHeader), let encoded = Data(base64Encoded: header)
            else { throw BenchError("GetRecipientKey replied without an attestation document") }
            let coseBytes = [UInt8](encoded)
            let cose = try COSESign1(encoded: coseBytes)
            let document = try NitroAttestationDocument(payload: cose.payload)
            let leaf = try X509Certificate(derEncoded: document.certificate)
            let bundle = try document.cabundle.map { (der) throws(X509Error) in try X509Certificate(derEncoded: der) }
            let leafKey = try leaf.p384PublicKey()
            let signed = cose.signatureStructure()
            let signingKey = try P384.Signing.PrivateKey()
            let now = Date()
            var sink: UInt8 = 0
            var floor = Floor()

            let p384Sign = try CPUTime.perCall { sink ^= try signingKey.signature(for: signed)[0] }
            let p384Verify = CPUTime.perCall {
                if leafKey.isValidSignature(cose.signature, for: signed) { sink ^= 1 }
            }
            let chain = try CPUTime.perCall {
                sink ^= UInt8(
                    try X509ChainVerifier.verify(
                        leaf: leaf, intermediates: bundle, pinnedRootSHA256: rootSHA256, at: now
                    ).count)
            }
            floor.documentVerification = try CPUTime.perCall {
                sink ^= UInt8(
                    truncatingIfNeeded: try NitroAttestationDocument.verify(
                        coseSign1: coseBytes, pinnedRootSHA256: rootSHA256, at: now
                    ).timestamp)
            }

            // HPKE as the import uses it: a 32-byte key sealed under the binding's info and aad.
            let suite = ImportSuite.default.hpke
            let info = ImportBinding.info(keyId: "rk_bench")
            let aad = ImportBinding.aad(networkFamily: .evm, reference: nil)
            let plaintext = [UInt8](repeating: 0x42, count: 32)
            var recipientKey = try suite.kem.generateKeyPair()
            let keyPair = try CPUTime.perCall { recipientKey = try suite.kem.generateKeyPair() }
            var encapsulated: [UInt8] = []
            var ciphertext: [UInt8] = []
            let seal = try CPUTime.perCall {
                let sender = try HPKE.Sender(suite: suite, recipientKey: recipientKey.publicKey, info: info)
                ciphertext = try sender.seal(plaintext, authenticating: aad)
                encapsulated = sender.encapsulatedKey
            }
            let open = try CPUTime.perCall {
                let recipient = try HPKE.Recipient(
                    suite: suite, privateKey: recipientKey.privateKey, encapsulatedKey: encapsulated, info: info)
                sink ^= try recipient.open(ciphertext, authenticating: aad)[0]
            }

            // The request signatures, over a preimage the size of an ImportWallet request's.
            let requestKey = try P256.Signing.PrivateKey()
            let preimage = [UInt8](repeating: 0x61, count: 420)
            let requestSignature = try requestKey.signature(for: preimage)
            let p256Sign = try CPUTime.perCall { sink ^= try requestKey.signature(for: preimage)[0] }
            let p256Verify = CPUTime.perCall {
                if requestKey.publicKey.isValidSignature(requestSignature, for: preimage) { sink ^= 1 }
            }

            var seed = [UInt8](repeating: 0x21, count: 32)
            func nextSeed() -> SecretBytes {
                seed[31] &+= 1
                if seed[31] == 0 { seed[30] &+= 1 }
                return SecretBytes(seed)
            }
            floor.secp256k1KeyAndAddress = try CPUTime.perCall {
                sink ^= try Secp256k1.PrivateKey(nextSeed()).ethereumAddress.bytes[0]
            }
            floor.ed25519KeyAndAddress = try CPUTime.perCall {
                sink ^= try Ed25519.PrivateKey(seed: nextSeed()).publicKey.solanaAddress.utf8.first ?? 0
            }
            if sink == 0xff { print("") }  // keeps the work observable

            floor.parts = [
                ("P-384 attestation signature", "core", p384Sign, 2),
                ("P-384 document verification", "client", p384Verify, 2),
                ("certificate chain check", "client", chain, 2),
                ("HPKE recipient key pair", "core", keyPair, 1),
                ("HPKE setup + seal", "client", seal, 1),
                ("HPKE setup + open", "core", open, 1),
                ("P-256 request signature", "client", p256Sign, 2),
                ("P-256 request verification", "core", p256Verify, 2),
            ]
            return floor
        }

        func render() -> String {
            var table = Table(header: ["floor part", "side", "us", "x", "us/import"])
            for part in parts {
                table.add([
                    part.name, part.side, format(part.microseconds, digits: 1), "\(part.count)",
                    format(part.microseconds * Double(part.count), digits: 1),
                ])
            }
            table.add(["secp256k1 key + address (evm)", "core", format(secp256k1KeyAndAddress, digits: 1), "1", ""])
            table.add(["Ed25519 key + address (solana)", "core", format(ed25519KeyAndAddress, digits: 1), "1", ""])
            return table.render()
        }
    }

    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The `import` case's section: `--imports N` per row (default 120, 8 rows).
    static func run(_ arguments: [String]) async throws -> String {
        let imports = AccessBench.option("--imports", in: arguments) ?? 120
        return "## Attested imports per second (issue 5), \(imports) per row, beside the crypto floor "
            + "(CPU time: the machine is shared)\n\n"
            + (try await run(imports: imports))
    }

    static func run(imports: Int) async throws -> String {
        let core = try CoreBench.Core()
        defer { try? FileManager.default.removeItem(at: core.home.url) }
        let rootPEM = try String(contentsOf: core.home.attestationRootURL, encoding: .utf8)
        let root = try X509Certificate(pemEncoded: rootPEM)
        let verifier = AttestationVerifier(policy: try .development(rootPEM: rootPEM))
        let embedded = InProcessTransport(handler: core.service)
        let floor = try await Floor.measure(
            try await core.clients(embedded, count: 1)[0], rootSHA256: root.sha256Fingerprint)
        let transports: [(String, any WaasTransport)] = [
            ("in-process", embedded),
            ("HTTP", HTTPTransport(baseURL: core.server.baseURL, maxConnections: CoreBench.clientCount)),
        ]
        var table = Table(header: [
            "import", "transport", "clients", "imports/s", "CPU us/import", "floor us", "CPU/floor",
        ])
        var ratios: [Double] = []
        for (name, transport) in transports {
            let clients = try await core.clients(transport, count: CoreBench.clientCount)
            for family in [NetworkFamily.evm, .solana] {
                for count in [1, CoreBench.clientCount] {
                    let cpuStart = CPUTime.process()
                    let perSecond = try await CoreBench.rate(Array(clients.prefix(count)), total: imports) { client in
                        let wallet = try await client.importWallet(
                            privateKey: SecretBytes.random(count: 32), networkFamily: family, verifier: verifier)
                        precondition(wallet.networkFamily == family)
                    }
                    // CPU of the whole process (client, core, server) per import, warm-up imports included.
                    let done = imports / count * count + count
                    let cpu = (CPUTime.process() - cpuStart) / Double(done)
                    let floorMicroseconds = floor.microseconds(family)
                    ratios.append(cpu / floorMicroseconds)
                    table.add([
                        family == .evm ? "Ethereum key" : "Solana seed", name, "\(count)", format(perSecond, digits: 0),
                        format(cpu, digits: 0), format(floorMicroseconds, digits: 0),
                        format(cpu / floorMicroseconds, digits: 2),
                    ])
                }
            }
        }
        await core.server.stop(grace: .seconds(1))
        let total = floor.microseconds(.evm)
        let largest = floor.parts.max { $0.microseconds * Double($0.count) < $1.microseconds * Double($1.count) }!
        func us(_ value: Double) -> String { format(value, digits: 0) }
        let chainPerImport = floor.parts.filter { $0.name.contains("chain") }.reduce(0) {
            $0 + $1.microseconds * Double($1.count)
        }
        let note = """
            Dominant: the attestation (2 P-384 signatures at the core, 2 P-384 verifications + chain checks at \
            the client) is \(us(floor.attestation)) us of the \(us(total)) us Ethereum floor \
            (\(us(100 * floor.attestation / total))%); the largest part is "\(largest.name)" x\(largest.count) \
            (\(us(largest.microseconds * Double(largest.count))) us).
            One whole document check (parse + chain + \
            signature) took \(us(floor.documentVerification)) us.
            An import took \(format(ratios.min() ?? 0)) to \(format(ratios.max() ?? 0)) x the floor in CPU; \
            the rest is outside the crypto (HTTP, JSON, SQLite writes, KEK sealing, scheduling).
            The chain is the same in every document until the leaf is re-issued (24 h): the verifier's chain \
            cache (AttestationVerifier.chainCache, used in these rows) saves up to \(us(chainPerImport)) us per \
            import (floor \(us(total - chainPerImport)) us); `import-batch` amortizes the rest over 1000 keys. \
            \(ProcessInfo.processInfo.activeProcessorCount) cores; peak RSS \(us(Measure.peakRSSMiB())) MiB.
            """
        return table.render() + "\n\n" + floor.render() + "\n\n" + note
    }
}
