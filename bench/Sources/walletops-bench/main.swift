import Foundation
import WalletCrypto

print("walletops-bench")
