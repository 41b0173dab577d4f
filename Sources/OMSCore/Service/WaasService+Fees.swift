import Foundation
import OMSProtocol
import WalletCrypto

extension WaasService {
    // MARK: Fees

    /// The one way the local ledger's transactions pay: the wallet's native token, the most its gas may
    /// cost at the ledger's fee cap (EVM) or the signature fee (Solana). A relayer (sponsored)
    /// transaction has none: someone else pays.
    static func feeOptions(_ transfer: TransferRecord, network: Network?) -> [FeeOption] {
        guard transfer.mode == .native else { return [] }
        if let network {
            let gas =
                transfer.callData != nil
                ? EIP1559Transaction.contractCallGas
                : transfer.token == nil ? EIP1559Transaction.nativeTransferGas : EIP1559Transaction.erc20TransferGas
            let wei = EIP1559Transaction.defaultMaxFee.multiplied(by: gas) ?? .zero
            let (name, symbol, decimals) = network.nativeCurrency
            return [
                FeeOption(
                    token: FeeToken(
                        network: network.wireChainId, name: name, symbol: symbol, type: "native", decimals: decimals),
                    value: wei.decimalString, displayValue: display(wei, decimals: decimals))
            ]
        }
        let lamports = TokenAmount(SolanaTransfer.feeLamports)
        return [
            FeeOption(
                token: FeeToken(
                    network: transfer.network ?? "solana", name: "Solana", symbol: "SOL", type: "native", decimals: 9),
                value: lamports.decimalString, displayValue: display(lamports, decimals: 9))
        ]
    }

    /// `units` in whole tokens: `630000000000000` with 18 decimals is `0.00063`.
    static func display(_ units: TokenAmount, decimals: Int) -> String {
        var digits = Array(units.decimalString)
        if digits.count <= decimals { digits = Array(repeating: "0", count: decimals - digits.count + 1) + digits }
        let whole = String(digits[..<(digits.count - decimals)])
        let fraction = String(digits[(digits.count - decimals)...]).replacingOccurrences(
            of: "0+$", with: "", options: .regularExpression)
        return fraction.isEmpty ? whole : whole + "." + fraction
    }
}
