import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    static let signingMethods: [String: Method] = [
        WaasMethod.signMessage.path: method { try await $0.signMessage($1, $2) },
        WaasMethod.signTypedData.path: method { try await $0.signTypedData($1, $2) },
        WaasMethod.isValidMessageSignature.path: method { try await $0.isValidMessageSignature($1, $2) },
        WaasMethod.isValidTypedDataSignature.path: method { try await $0.isValidTypedDataSignature($1, $2) },
    ]

    // MARK: Signing (the owner's direct credential)

    /// Signs `message` with the caller's wallet: an EIP-191 personal message for Ethereum (65 bytes
    /// r||s||v, v 27/28, recovering to the wallet's address), Ed25519 over the UTF-8 bytes for Solana
    /// (base58). Only the wallet's owner signs: a remote session's grants cover transfers, not messages.
    func signMessage(_ call: Call, _ request: SignMessageRequest) async throws -> SignMessageResponse {
        let (wallet, sealed) = try await ownedKey(call, walletId: request.walletId)
        let message = Array(request.message.utf8)
        switch wallet.type {
        case .ethereum:
            _ = try AccessRules.chain(request.network, field: "network")
            let key = try Secp256k1.PrivateKey(try custody.open(sealed, for: wallet.id))
            return SignMessageResponse(
                signature: Base16.encodePrefixed(EIP191.sign(message: message, with: key).bytes(vOffset: 27)))
        case .solana:
            guard !request.network.isEmpty else { throw WaasError(.invalidRequest, "network: missing") }
            let key = try Ed25519.PrivateKey(seed: try custody.open(sealed, for: wallet.id))
            return SignMessageResponse(signature: Base58.encode(key.signature(for: message)))
        case .unknown(let name):
            throw WaasError(.unsupportedWalletType, "wallet type \(name) cannot sign")
        }
    }

    /// Signs EIP-712 typed data with the caller's Ethereum wallet: the digest of the domain separator and
    /// the primary struct, nested struct types included. A domain `chainId` must be `network`'s, as
    /// wallets require, so a signature meant for one chain is not made for another.
    func signTypedData(_ call: Call, _ request: SignTypedDataRequest) async throws -> SignMessageResponse {
        let network = try AccessRules.chain(request.network, field: "network")
        let digest = try Self.typedDataDigest(request.typedData, chainId: network.chainId)
        let (wallet, sealed) = try await ownedKey(call, walletId: request.walletId)
        guard wallet.type == .ethereum else {
            throw WaasError(.unsupportedWalletType, "typed data is signed by Ethereum wallets only")
        }
        let key = try Secp256k1.PrivateKey(try custody.open(sealed, for: wallet.id))
        return SignMessageResponse(
            signature: Base16.encodePrefixed(try key.signature(forDigest: digest).bytes(vOffset: 27)))
    }

    /// The caller's wallet and its sealed key, read in the request's authenticating write.
    private func ownedKey(_ call: Call, walletId: String) async throws -> (WalletRecord, [UInt8]) {
        try await store.write { [self] db in
            let caller = try authenticate(db, call)
            guard let wallet = try db.wallet(walletId, account: caller.account.id),
                let sealed = try db.sealedKey(wallet: wallet.id)
            else { throw WaasError(.walletNotFound, "no wallet \(walletId) for this account") }
            return (wallet, sealed)
        }
    }

    /// The EIP-712 digest of `typedData`; malformed typed data is InvalidRequest naming the member.
    static func typedDataDigest(_ typedData: JSONValue, chainId: UInt64?) throws(WaasError) -> [UInt8] {
        do {
            let parsed = try EIP712TypedData(json: typedData)
            if let chainId, let domainChain = parsed.domain["chainId"] {
                let text = domainChain.stringValue ?? domainChain.intValue.map(String.init)
                guard text == String(chainId) else {
                    throw WaasError(.invalidRequest, "typedData.domain.chainId is not network \(chainId)")
                }
            }
            return try parsed.signingHash()
        } catch let error as EIP712TypedData.Error {
            throw WaasError(.invalidRequest, "typedData: \(error.reason)")
        } catch let error as WaasError {
            throw error
        } catch {
            throw WaasError(.invalidRequest, "typedData does not hash")
        }
    }

    // MARK: Verification (public)

    /// Whether `signature` over `message` was made by the wallet named (by id, or by address with its
    /// network or family). A signature that does not parse is `isValid: false`, not an error; a
    /// request that names no wallet is InvalidRequest. EOAs only: no ERC-1271 contract check.
    func isValidMessageSignature(_ call: Call, _ request: IsValidMessageSignatureRequest) async throws
        -> IsValidMessageSignatureResponse
    {
        let (type, address) = try await signer(
            call, walletId: request.walletId, address: request.walletAddress, network: request.network,
            family: request.networkFamily)
        let message = Array(request.message.utf8)
        switch type {
        case .ethereum:
            guard let signature = Self.recoverable(request.signature),
                let address = try? EthereumAddress(address, strict: false)
            else { return IsValidMessageSignatureResponse(isValid: false) }
            return IsValidMessageSignatureResponse(
                isValid: EIP191.verify(message: message, signature: signature, address: address))
        case .solana:
            guard let signature = Self.solanaSignature(request.signature),
                let raw = try? Base58.decode(address), let key = try? Ed25519.PublicKey(rawRepresentation: raw)
            else { return IsValidMessageSignatureResponse(isValid: false) }
            return IsValidMessageSignatureResponse(isValid: key.isValidSignature(signature, for: message))
        case .unknown(let name):
            throw WaasError(.unsupportedWalletType, "wallet type \(name) is not supported")
        }
    }

    /// Whether `signature` over EIP-712 `typedData` was made by the Ethereum wallet named.
    func isValidTypedDataSignature(_ call: Call, _ request: IsValidTypedDataSignatureRequest) async throws
        -> IsValidMessageSignatureResponse
    {
        let (type, address) = try await signer(
            call, walletId: request.walletId, address: request.walletAddress, network: request.network,
            family: request.network == nil ? nil : .evm)
        guard type == .ethereum else {
            throw WaasError(.unsupportedWalletType, "typed data is signed by Ethereum wallets only")
        }
        let chainId = try request.network.map { try AccessRules.chain($0, field: "network").chainId }
        let digest = try Self.typedDataDigest(request.typedData, chainId: chainId)
        guard let signature = Self.recoverable(request.signature),
            let address = try? EthereumAddress(address, strict: false),
            let key = try? Secp256k1.PublicKey(recoveringFrom: signature, digest: digest)
        else { return IsValidMessageSignatureResponse(isValid: false) }
        // Recovery alone accepts a high-S twin; verifying refuses it (EIP-2).
        return IsValidMessageSignatureResponse(
            isValid: key.isValidSignature(signature, digest: digest) && key.ethereumAddress == address)
    }

    /// The kind and address of the wallet a public check names: `walletId` (any wallet of the project),
    /// else `walletAddress` read as the family given, or the family of `network` (a chain id is EVM,
    /// anything else Solana), or the form of the address itself.
    private func signer(
        _ call: Call, walletId: String?, address: String?, network: String?, family: NetworkFamily?
    ) async throws -> (WalletType, String) {
        if let walletId {
            guard
                let wallet = try await store.read({ db in try db.wallet(walletId, project: call.project.id) })
            else { throw WaasError(.walletNotFound, "no wallet \(walletId)") }
            return (wallet.type, wallet.address)
        }
        guard let address, !address.isEmpty else {
            throw WaasError(.invalidRequest, "name the wallet: walletId, or walletAddress with network")
        }
        let resolved: NetworkFamily =
            if let family { family } else if let network {
                network.utf8.allSatisfy({ (0x30...0x39).contains($0) }) ? .evm : .solana
            } else { (try? EthereumAddress(address, strict: false)) != nil ? .evm : .solana }
        guard resolved.isKnown else {
            throw WaasError(.unsupportedWalletType, "networkFamily \(resolved) is not supported")
        }
        if resolved == .evm, let network { _ = try AccessRules.chain(network, field: "network") }
        return (resolved.walletType, address)
    }

    /// 0x + 65 bytes r||s||v, v in {0, 1, 27, 28}; nil for anything else.
    static func recoverable(_ text: String) -> Secp256k1.RecoverableSignature? {
        guard let bytes = try? Base16.decode(text, requirePrefix: true) else { return nil }
        return try? Secp256k1.RecoverableSignature(bytes: bytes)
    }

    /// A 64-byte Ed25519 signature, base58 (as this core answers) or 0x hex.
    static func solanaSignature(_ text: String) -> [UInt8]? {
        let bytes = text.hasPrefix("0x") ? try? Base16.decode(text) : try? Base58.decode(text)
        guard let bytes, bytes.count == 64 else { return nil }
        return bytes
    }
}
