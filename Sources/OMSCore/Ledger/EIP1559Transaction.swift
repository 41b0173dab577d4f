import WalletCrypto

/// A type-2 (EIP-1559) Ethereum transaction, signed by a wallet key. See
/// <https://eips.ethereum.org/EIPS/eip-1559> and EIP-2718 for the typed envelope.
struct EIP1559Transaction: Sendable {
    var chainId: UInt64
    var nonce: UInt64
    var maxPriorityFeePerGas: TokenAmount
    var maxFeePerGas: TokenAmount
    var gasLimit: UInt64
    var to: [UInt8]
    var value: TokenAmount
    var data: [UInt8]

    /// Fee defaults of the local ledger (no chain is asked): a 1 gwei tip under a 30 gwei cap.
    static let defaultPriorityFee = TokenAmount(1_000_000_000)
    static let defaultMaxFee = TokenAmount(30_000_000_000)
    /// Gas of a plain value transfer, and a safe allowance for an ERC-20 `transfer`.
    static let nativeTransferGas: UInt64 = 21_000
    static let erc20TransferGas: UInt64 = 65_000

    /// A native transfer of `value` wei to `to`.
    static func nativeTransfer(chainId: UInt64, nonce: UInt64, to: EthereumAddress, value: TokenAmount)
        -> EIP1559Transaction
    {
        EIP1559Transaction(
            chainId: chainId, nonce: nonce, maxPriorityFeePerGas: defaultPriorityFee, maxFeePerGas: defaultMaxFee,
            gasLimit: nativeTransferGas, to: to.bytes, value: value, data: [])
    }

    /// A call of `transfer(address,uint256)` (selector 0xa9059cbb) on the token contract.
    static func erc20Transfer(
        chainId: UInt64, nonce: UInt64, token: EthereumAddress, to: EthereumAddress, amount: TokenAmount
    ) -> EIP1559Transaction {
        let data = [0xa9, 0x05, 0x9c, 0xbb] + [UInt8](repeating: 0, count: 12) + to.bytes + amount.bigEndianBytes
        return EIP1559Transaction(
            chainId: chainId, nonce: nonce, maxPriorityFeePerGas: defaultPriorityFee, maxFeePerGas: defaultMaxFee,
            gasLimit: erc20TransferGas, to: token.bytes, value: .zero, data: data)
    }

    private var fields: [RLP.Item] {
        [
            .integer(chainId), .integer(nonce), .integer(maxPriorityFeePerGas), .integer(maxFeePerGas),
            .integer(gasLimit), .bytes(to), .integer(value), .bytes(data), .list([]),
        ]
    }

    /// keccak256(0x02 || rlp([chainId, nonce, tip, maxFee, gas, to, value, data, accessList])).
    var signingHash: [UInt8] { Keccak256.hash([0x02] + RLP.encode(.list(fields))) }

    /// The signed envelope `0x02 || rlp([... , yParity, r, s])` and its hash (the transaction hash).
    func signed(with key: Secp256k1.PrivateKey) throws -> (raw: [UInt8], hash: [UInt8]) {
        let signature = try key.signature(forDigest: signingHash)
        let trimmed = { (bytes: [UInt8]) in RLP.Item.bytes(Array(bytes.drop { $0 == 0 })) }
        let raw =
            [0x02]
            + RLP.encode(
                .list(fields + [.integer(UInt64(signature.recoveryID)), trimmed(signature.r), trimmed(signature.s)]))
        return (raw, Keccak256.hash(raw))
    }
}

extension EIP1559Transaction {
    /// A gas allowance for any other contract call: the ledger reaches no chain to estimate one.
    static let contractCallGas: UInt64 = 200_000

    /// A call of `data` on `to`, sending `value` wei.
    static func contractCall(
        chainId: UInt64, nonce: UInt64, to: EthereumAddress, value: TokenAmount, data: [UInt8]
    ) -> EIP1559Transaction {
        EIP1559Transaction(
            chainId: chainId, nonce: nonce, maxPriorityFeePerGas: defaultPriorityFee, maxFeePerGas: defaultMaxFee,
            gasLimit: contractCallGas, to: to.bytes, value: value, data: data)
    }
}
