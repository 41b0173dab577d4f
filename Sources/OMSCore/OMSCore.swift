/// The WaaS core: the service behind the OMS wallet SDK, embedded in the process or served over HTTP.
public enum OMSCoreInfo {
    /// The version `WaasPublic/Status` reports.
    public static let version = "0.1.0"
}
