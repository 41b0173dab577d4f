// The seed page ("Swift sessions and access") as a runnable tour: an embedded core in a temporary home,
// each step printed. Run it with `swift run sdk-tour`.
import Foundation
import HomeLayout
import OMSCore
import OMSEmbedded
import OMSWallet
import WalletCrypto

func step(_ title: String) { print("\n== \(title)") }

let root = FileManager.default.temporaryDirectory.appendingPathComponent("walletops-sdk-tour-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: root) }
let home = root.appendingPathComponent("core")
let scope = root.appendingPathComponent("sdk-scope")

step("Set up an embedded core (walletops core init) in \(home.path)")
let project = try WaasService.initialize(home: WalletHome(url: home), project: "tour").project
let publishableKey = project.publishableKey
let configuration = OMSWalletConfiguration(storageDirectory: scope)
print("project:", project.id)

step("Sign in with an ID token from the core's development issuer")
do {
    let first = try OMSWallet(publishableKey: publishableKey, core: .embedded(home: home), configuration: configuration)
    print("session before sign-in:", first.wallet.session.walletAddress ?? "none")
    let result = try await first.wallet.signInWithDevelopmentIssuer(email: "tour@example.com")
    print("signed in; active wallet:", result.session?.walletAddress ?? "selection pending")
}

step("Read restored session state (a new OMSWallet restores the stored session)")
let omsWallet = try OMSWallet(publishableKey: publishableKey, core: .embedded(home: home), configuration: configuration)
let session = omsWallet.wallet.session

if let walletAddress = session.walletAddress {
    print("Restored wallet:", walletAddress)
    print("Expires:", session.expiresAt as Any)
    print("Identity:", session.auth?.email as Any)
}

step("Observe expiration")
let expiryObservation = omsWallet.wallet.addSessionExpiredObserver { event in
    print("Expired wallet:", event.session.walletAddress ?? "unknown")
    print("Expired at:", event.expiredAt)
}
print("observer registered; the session expires at", session.expiresAt.map { "\($0)" } ?? "-")

// Cancel when the owner no longer needs notifications.
expiryObservation.cancel()
print("observer cancelled")

step("List, switch, and create wallets")
_ = try await omsWallet.wallet.createWallet(reference: "secondary")
let firstWalletId = session.walletId!
_ = try await omsWallet.wallet.useWallet(walletId: firstWalletId)
let wallets = try await omsWallet.wallet.listWallets()
print("wallets:", wallets.map(\.address))

if let secondary = wallets.dropFirst().first {
    let selected = try await omsWallet.wallet.useWallet(
        walletId: secondary.id
    )
    print("Selected:", selected.walletAddress)
}

let created = try await omsWallet.wallet.createWallet(
    reference: "trading"
)

print("Created:", created.wallet.address)

let solana = try await omsWallet.wallet.createWallet(
    walletType: .solana,
    reference: "solana-primary"
)
print("Created Solana:", solana.wallet.address)
print("expiry kept:", omsWallet.wallet.session.expiresAt == session.expiresAt)

step("Import and activate a wallet (a disposable key made here)")
let disposable = Secp256k1.PrivateKey.generate()
let imported = try await omsWallet.wallet.importWallet(
    privateKey: .ethereum(disposable.secretBytes),  // Supply the key from your secure migration flow.
    reference: "imported-wallet"
)

print(imported.wallet.keyOrigin == .imported)
print("Imported:", imported.wallet.address)

step("Request a wallet ID token")
let walletIdToken = try await omsWallet.wallet.getIdToken(
    ttlSeconds: 3_600,
    customClaims: [
        "role": .string("member")
    ]
)
let claims = try JWT.decodeUnverified(walletIdToken).claims
print("ID token for sub", claims["sub"]?.stringValue ?? "-", "role", claims["role"]?.stringValue ?? "-")

step("Authorize remote access (a backend registers its remote credential first, outside the SDK)")
let backend = WaasClient(
    transport: try EmbeddedCore.open(home: home).transport,
    publishableKey: try PublishableKey(publishableKey),
    signer: EthereumRequestSigner(key: Secp256k1.PrivateKey.generate()))
let registered = try await backend.call(
    .registerCredential,
    RegisterCredentialRequest(
        lifetime: 86_400, metadata: CredentialMetadata(appUrl: "https://bot.example.com", appName: "Tour Bot")),
    as: RegisterCredentialResponse.self)

let credentialId = registered.credentialId
let metadata = try await omsWallet.wallet.inspectRemoteCredential(
    credentialId: credentialId
)

// Render the returned metadata in your consent UI and continue only after approval.
print(metadata.appName, metadata.appUrl)

let remoteSession = try await omsWallet.wallet.authorizeRemoteAccess(
    credentialId: credentialId,
    network: .polygonAmoy,
    grants: [
        .nativeTransfer(
            to: "0x1111111111111111111111111111111111111111",
            // Cumulative 0.001 POL limit in wei.
            limit: "1000000000000000"
        )
    ],
    expiresAt: ISO8601DateFormatter().string(
        from: Date().addingTimeInterval(3_600)
    )
)

let details = try await omsWallet.wallet.getRemoteAccessSession(
    sessionId: remoteSession.sessionId
)
let usage = try await omsWallet.wallet.getRemoteAccessSessionUsage(
    sessionId: remoteSession.sessionId,
    network: .polygonAmoy
)
print("session", details.sessionId, "on chain", details.chainId, "expires", details.expiresAt)
print("usage:", usage.entries.map { "\($0.grant.kind): used \($0.used ?? "0")" })

step("List and revoke access grants")
let grants = try await omsWallet.wallet.listAccess()

for grant in grants {
    switch grant {
    case .direct(let credential):
        print(credential.credentialId, credential.isCaller)
    case .remote(let remote):
        print(remote.credential.credentialId, remote.sessionId)
        print(remote.metadata, remote.grants)
    }
}

for try await page in omsWallet.wallet.listAccessPages(pageSize: 25) {
    for grant in page.grants {
        print(grant.credential.credentialId, grant.credential.isCaller)
    }
}

if let grant = grants.first(where: { !$0.credential.isCaller }) {
    switch grant {
    case .direct(let credential):
        try await omsWallet.wallet.revokeAccess(
            credentialId: credential.credentialId
        )
    case .remote(let remote):
        try await omsWallet.wallet.revokeAccess(
            credentialId: remote.credential.credentialId,
            sessionId: remote.sessionId
        )
    }
}
print("grants after revoking the first non-caller grant:", try await omsWallet.wallet.listAccess().count)

step("Sign out")
try omsWallet.wallet.signOut()
print("session after sign-out:", omsWallet.wallet.session.walletAddress ?? "none")
do {
    _ = try await omsWallet.wallet.listWallets()
} catch let error as OMSWalletError {
    print("protected call after sign-out:", error.code)
}
print("\nTour complete.")
