/// A problem of the core's home (no core there, a key that cannot be read): what and where, never file
/// contents.
public struct CoreHomeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
