import KeyFormats
import OMSProtocol
import Testing

/// The one mapping between KeyFormats' key type and the wire's network family.
@Suite struct KeyTypeNetworkFamilyTests {
    @Test func eachKeyTypeHasOneFamilyAndBack() {
        #expect(NetworkFamily(KeyType.ethereum) == .evm)
        #expect(NetworkFamily(KeyType.solana) == .solana)
        for type in KeyType.allCases {
            #expect(KeyType(NetworkFamily(type)) == type)
            // The family's wallet type is the wire's name of the key type.
            #expect(NetworkFamily(type).walletType.rawValue == type.rawValue)
        }
        #expect(Set(KeyType.allCases.map(NetworkFamily.init)) == Set(NetworkFamily.known))
    }

    @Test func anUnknownFamilyHasNoKeyType() {
        #expect(KeyType(NetworkFamily(wire: "bitcoin")) == nil)
        #expect(KeyType(NetworkFamily(wire: "ethereum")) == nil)  // a wallet type, not a family
        #expect(KeyType(NetworkFamily(wire: "evm")) == .ethereum)
    }
}
