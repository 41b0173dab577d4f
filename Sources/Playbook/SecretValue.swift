/// A secret's value: its `description` never shows it.
public struct SecretValue: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret text. Pass it only to the action that needs it.
    public let reveal: String

    /// Wraps a secret.
    public init(_ value: String) { reveal = value }

    /// Always `***`.
    public var description: String { "***" }
    /// Always `SecretValue(***)`.
    public var debugDescription: String { "SecretValue(***)" }
    /// No children, so `dump` and reflection-based printing cannot show the value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
