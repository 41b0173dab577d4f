import Foundation
import HomeLayout
import OMSCore
import OMSProtocol
import OMSWallet

extension OMSWalletCore {
    /// The core of an initialized home, run inside this process (`walletops core init --home DIR`), with
    /// its development issuer and its own attestation root.
    ///
    /// The home is opened by `OMSWallet.init`, which throws `.storageError` when it has no core.
    public static func embedded(home: URL) -> OMSWalletCore {
        OMSWalletCore {
            do {
                return try EmbeddedCore.open(home: home).connection
            } catch {
                throw OMSWalletError(
                    .storageError, operation: "OMSWallet.init", "cannot open the embedded core: \(error)")
            }
        }
    }

    /// An already opened in-process core (shared by several SDK instances, as tests and tools do).
    public static func service(_ service: WaasService) -> OMSWalletCore {
        let core = EmbeddedCore(service: service)
        return OMSWalletCore { core.connection }
    }

    /// A served core reached over HTTP whose home is on this machine: its development issuer mints from the
    /// home's key, and imports trust the `attestation-root.pem` that `core init` wrote there.
    public static func remote(_ url: URL, developmentHome: URL) -> OMSWalletCore {
        OMSWalletCore {
            Connection(
                transport: HTTPTransport(baseURL: url), developmentIssuer: CoreDevelopmentIssuer(home: developmentHome),
                attestation: {
                    let rootURL = WalletHome(url: developmentHome).attestationRootURL
                    guard let pem = try? String(contentsOf: rootURL, encoding: .utf8),
                        let policy = try? AttestationPolicy.development(rootPEM: pem)
                    else { throw CoreHomeError("no readable attestation-root.pem in the development home") }
                    return policy
                })
        }
    }

    /// The default: the embedded core of `$WALLETOPS_HOME`, else `./.walletops`, as the CLI resolves it.
    public static func `default`(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> OMSWalletCore
    {
        .embedded(home: WalletHome.resolve(explicit: nil, environment: environment).url)
    }
}

extension EmbeddedCore {
    /// What an SDK holds of this core: the in-process transport, the development issuer, the own root.
    var connection: OMSWalletCore.Connection {
        OMSWalletCore.Connection(
            transport: transport, developmentIssuer: developmentIssuer, attestation: { try await attestationPolicy() })
    }
}
