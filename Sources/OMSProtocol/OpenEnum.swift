/// A string enum of the wire that keeps values it does not recognise.
///
/// OMS clients keep an `unknown(String)` case for values a newer service may send
/// (OMS-REFERENCE "Enums"); decoding never fails on an unfamiliar value.
public protocol OpenEnum: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The known cases, in the order documentation lists them.
    static var known: [Self] { get }
    /// The wire string.
    var rawValue: String { get }
    /// The value for an unrecognised wire string.
    static func unknown(_ raw: String) -> Self
}

extension OpenEnum {
    /// The value for a wire string: a known case when one matches, else `unknown(raw)`.
    public init(wire raw: String) {
        self = Self.known.first { $0.rawValue == raw } ?? Self.unknown(raw)
    }

    /// The known case for a wire string, or nil.
    public init?(knownWire raw: String) {
        guard let value = Self.known.first(where: { $0.rawValue == raw }) else { return nil }
        self = value
    }

    /// Whether the value is one of the known cases.
    public var isKnown: Bool { Self.known.contains(self) }

    public init(from decoder: any Decoder) throws {
        self.init(wire: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
