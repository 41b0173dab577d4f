import OMSCore
import Testing

@Suite struct OMSCoreInfoTests {
    @Test func versionIsSemantic() {
        #expect(OMSCoreInfo.version.split(separator: ".").count == 3)
    }
}
