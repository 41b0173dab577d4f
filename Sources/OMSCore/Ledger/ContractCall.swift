import OMSProtocol
import WalletCrypto

/// The call data of a contract method: its 4-byte selector, then its arguments ABI-encoded (static
/// elementary types in place; `string` and `bytes` as offsets to a tail). See the Solidity ABI spec,
/// <https://docs.soliditylang.org/en/latest/abi-spec.html>.
struct ContractCall: Sendable, Hashable {
    /// The canonical signature, e.g. `transfer(address,uint256)`.
    let signature: String
    let data: [UInt8]

    /// ERC-20 `transfer(address,uint256)`: what a session's token grants can pay for.
    static let erc20TransferSignature = "transfer(address,uint256)"
    static let erc20TransferSelector: [UInt8] = [0xa9, 0x05, 0x9c, 0xbb]

    /// `method` is a name, whose signature is built from the argument types, or a whole signature,
    /// whose types the arguments must have.
    init(method: String, args: [AbiArg]) throws(WaasError) {
        let types = args.map { $0.type.trimmingCharacters(in: .whitespaces) }
        let compact = method.filter { !$0.isWhitespace }
        if let open = compact.firstIndex(of: "(") {
            guard compact.hasSuffix(")"), open != compact.startIndex else {
                throw WaasError(.invalidRequest, "method: expected a name or name(type,...)")
            }
            let inside = compact[compact.index(after: open)..<compact.index(before: compact.endIndex)]
            let declared = inside.isEmpty ? [] : inside.split(separator: ",").map(String.init)
            guard declared == types else {
                throw WaasError(.invalidRequest, "args: the types \(types) are not those of \(compact)")
            }
            signature = compact
        } else {
            guard !compact.isEmpty, compact.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw WaasError(.invalidRequest, "method: expected a name or name(type,...)")
            }
            signature = compact + "(" + types.joined(separator: ",") + ")"
        }
        var head: [UInt8] = []
        var tail: [UInt8] = []
        let headSize = 32 * args.count
        for (index, arg) in args.enumerated() {
            let type = types[index]
            if type == "string" || type == "bytes" {
                let bytes: [UInt8]
                if type == "string" {
                    guard let text = arg.value.stringValue else {
                        throw WaasError(.invalidRequest, "args[\(index)]: expected a string")
                    }
                    bytes = Array(text.utf8)
                } else {
                    guard let raw = ABIWord.hexBytes(arg.value) else {
                        throw WaasError(.invalidRequest, "args[\(index)]: expected 0x-prefixed hex bytes")
                    }
                    bytes = raw
                }
                head += TokenAmount(UInt64(headSize + tail.count)).bigEndianBytes
                tail += TokenAmount(UInt64(bytes.count)).bigEndianBytes
                tail += bytes + [UInt8](repeating: 0, count: (32 - bytes.count % 32) % 32)
                continue
            }
            let word: [UInt8]?
            do { word = try ABIWord.encode(type, arg.value) } catch {
                throw WaasError(.invalidRequest, "args[\(index)]: \(error.reason)")
            }
            guard let word else {
                throw WaasError(.invalidRequest, "args[\(index)]: type \(type) is not encoded by this core")
            }
            head += word
        }
        data = Array(Keccak256.hash(Array(signature.utf8)).prefix(4)) + head + tail
    }

    /// The receiver and amount of an ERC-20 `transfer(address,uint256)` call data, or nil for any other.
    static func erc20Transfer(in data: [UInt8]) -> (to: EthereumAddress, amount: TokenAmount)? {
        guard data.count == 68, Array(data.prefix(4)) == erc20TransferSelector,
            data[4..<16].allSatisfy({ $0 == 0 }), let to = try? EthereumAddress(bytes: Array(data[16..<36])),
            let amount = TokenAmount(bigEndianBytes: data[36..<68])
        else { return nil }
        return (to, amount)
    }
}
