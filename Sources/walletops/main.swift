import Foundation
import WalletOpsCLI

exit(await WalletOps.main(Array(CommandLine.arguments.dropFirst())))
