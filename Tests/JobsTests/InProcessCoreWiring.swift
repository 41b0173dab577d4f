import Foundation
import HomeLayout
import Jobs
import OMSEmbedded
import OMSProtocol

/// The CLI's wiring, for these tests: the home's core opened in this process with OMSEmbedded.
extension CoreConnection {
    static let inProcess: InProcessCoreOpener = { home in
        let core = try EmbeddedCore.open(home: home.url)
        return InProcessCore(
            transport: core.transport, developmentIssuer: core.developmentIssuer,
            prepareToClose: { await core.prepareToClose() })
    }

    static func open(home: WalletHome, coreURL: URL?, openHome: Bool = true) throws -> CoreConnection {
        try open(home: home, coreURL: coreURL, openHome: openHome, inProcess: inProcess)
    }

    static func signedIn(home: WalletHome, coreURL: URL?) throws
        -> (connection: CoreConnection, credential: StoredCredential, client: WaasClient)
    {
        try signedIn(home: home, coreURL: coreURL, inProcess: inProcess)
    }
}
