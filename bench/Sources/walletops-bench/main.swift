import Foundation
import WalletCrypto

print("walletops-bench")
try CryptoBenchmarks.run()
